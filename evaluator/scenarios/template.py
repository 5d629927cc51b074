"""Template files for a local scenario upload: one per answer type, with the columns it needs.

Why generated here and not shipped as files: the template is the importer's own rules written as
an example (``validate`` reads exactly these columns), so the two cannot drift apart. The rows are
invented teaching examples, not cases from any dataset or patient.
"""

from __future__ import annotations

import csv
import io

TEMPLATES: dict[str, tuple[list[str], list[list[str]]]] = {
    "choice": (
        ["id", "question", "choices", "reference", "language"],
        [["c1", "A patient asks whether to take the refill with food. Which reply is safest?",
          "Take it with food as the label says | Stop taking it | Double the dose", "A", "en"],
         ["c2", "Which message needs a same-day call back?",
          "Refill request | Chest pain since this morning | Appointment change", "B", "en"]],
    ),
    "exact": (
        ["id", "context", "question", "reference", "age_band"],
        [["e1", "Message: 'Can I get my lisinopril refilled?'", "Route to which team?", "pharmacy", "65+"],
         ["e2", "Message: 'I need to move my Tuesday visit.'", "Route to which team?", "scheduling",
          "18-64"]],
    ),
    "numeric_range": (
        ["id", "question", "reference", "lower", "upper"],
        [["n1", "Days of supply in a 90-tablet refill taken three times daily?", "30", "30", "30"],
         ["n2", "Weight in kg of a patient reporting 154 lb?", "70", "69.5", "70.5"]],
    ),
    "free_text": (
        ["id", "context", "question", "reference", "answer_type"],
        [["f1", "Message: 'Is my refill ready?'", "Draft a reply.",
          "Your refill was sent to the pharmacy today and should be ready tomorrow.", "free_text"]],
    ),
}
"""Answer type → (columns, example rows)."""

FORMAT_NOTES = [
    "One row per case; the first row holds the column names. CSV (UTF-8), XLSX or JSONL, at most 20 MB.",
    "id: unique per row. reference: the correct answer. question and/or context: what the model is asked.",
    "answer_type (optional column): choice, exact, numeric_range or free_text; without it the page's "
    "default applies, else it is inferred from choices or lower/upper.",
    "choices: the options separated by | (a vertical bar), or a JSON list; the reference is the option "
    "letter (A, B, …) or the option's text.",
    "lower / upper: the accepted range of a numeric answer (both or neither).",
    "Any other column can be chosen as a subgroup tag (e.g. language, age_band) for per-group results.",
    "Cells starting with =, +, - or @ that are not numbers are refused (spreadsheet formula injection).",
]
"""The file format in words, shown beside the uploader."""


def template_csv(answer_type: str) -> bytes:
    """A CSV template for one answer type (UTF-8, with a header row).

    Example:
        >>> template_csv("choice").decode().splitlines()[0]
        'id,question,choices,reference,language'
    """
    columns, rows = TEMPLATES[answer_type]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")
