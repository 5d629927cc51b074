"""Template files for a local scenario upload: one per answer type, with the columns it needs.

Why generated here and not shipped as files: the template is the importer's own rules written as
an example (``validate`` reads exactly these columns), so the two cannot drift apart. The rows are
invented teaching examples, not cases from any dataset or patient.
"""

from __future__ import annotations

import csv
import io

from evaluator.paths import DATA_DIR

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

ACTIVITY_COLUMNS = ["id", "question", "answer_type", "reference", "choices", "lower", "upper"]

ACTIVITY_TEMPLATES: dict[str, tuple[str, list[str], list[list[str]]]] = {
    # Numeric answers accept 95-105% of the reference (MedCalc-Bench's own tolerance for decimals); a capped
    # dose and a regimen choice are exact. Teaching examples, to be replaced by the hospital's own cases.
    "weight_based_dose": (
        "Weight-based doses (mg/kg)",
        ["tag_drug", "tag_age_band", "tag_weight_band"],
        [["w1", "Paracetamol 15 mg/kg per dose by mouth. The child weighs 12 kg. Dose in mg?",
          "numeric_range", "180", "", "171", "189", "paracetamol", "1-5 y", "10-19 kg"],
         ["w2", "Amoxicillin 25 mg/kg/day in two divided doses. The child weighs 18 kg. Dose in mg per dose?",
          "numeric_range", "225", "", "213.75", "236.25", "amoxicillin", "1-5 y", "10-19 kg"],
         ["w3", "Ibuprofen 10 mg/kg per dose, at most 400 mg per dose. The child weighs 45 kg. Dose in mg?",
          "numeric_range", "400", "", "400", "400", "ibuprofen", "12-17 y", "40 kg and over"],
         ["w4", "A 20 kg child is prescribed paracetamol 600 mg per dose (usual dose 15 mg/kg). What should "
          "the pharmacist do?", "choice", "B",
          "Dispense as written | Query the prescriber: twice the usual dose | Halve the dose without asking",
          "", "", "paracetamol", "6-11 y", "20-39 kg"]],
    ),
    "renal_adjustment": (
        "Renal dose adjustment by creatinine clearance",
        ["tag_drug", "tag_crcl_band"],
        [["r1", "Man, 70 years, 72 kg, serum creatinine 1.2 mg/dL. Creatinine clearance by Cockcroft-Gault, "
          "in mL/min?", "numeric_range", "58.3", "", "55.4", "61.3", "none", "30-59 mL/min"],
         ["r2", "Woman, 80 years, 50 kg, serum creatinine 1.4 mg/dL. Creatinine clearance by Cockcroft-Gault "
          "(× 0.85 for women), in mL/min?", "numeric_range", "25.3", "", "24.0", "26.6", "none",
          "15-29 mL/min"],
         ["r3", "Enoxaparin treatment dose is 1 mg/kg every 12 hours; below a creatinine clearance of 30 "
          "mL/min the labelled regimen is 1 mg/kg once daily. Patient: 80 kg, creatinine clearance 25 "
          "mL/min. Which regimen?", "choice", "B",
          "80 mg every 12 hours | 80 mg once daily | 40 mg every 12 hours", "", "", "enoxaparin",
          "15-29 mL/min"],
         ["r4", "Same patient (80 kg, creatinine clearance 25 mL/min): enoxaparin dose in mg once daily?",
          "numeric_range", "80", "", "80", "80", "enoxaparin", "15-29 mL/min"]],
    ),
}
"""Activity → (title, subgroup tag columns, example rows): starting files for a job no benchmark tests
(``governance.evidence.gaps`` offers them); answer types and tags filled in."""

RUBRIC_TEMPLATES: dict[str, str] = {
    "discharge_summary": "Discharge summaries (rubric-graded)",
    "patient_message_reply": "Replies to patient messages (rubric-graded)",
}
"""Rubric case template → title: JSONL files in ``data/rubric_templates/`` (our own wording: SOURCE.md)."""
RUBRIC_TEMPLATE_DIR = DATA_DIR / "rubric_templates"

FORMAT_NOTES = [
    "One row per case; the first row holds the column names. CSV (UTF-8), XLSX or JSONL, at most 20 MB.",
    "id: unique per row. reference: the correct answer. question and/or context: what the model is asked.",
    "answer_type (optional column): choice, exact, numeric_range or free_text; without it the page's "
    "default applies, else it is inferred from choices or lower/upper.",
    "choices: the options separated by | (a vertical bar), or a JSON list; the reference is the option "
    "letter (A, B, …) or the option's text.",
    "lower / upper: the accepted range of a numeric answer (both or neither).",
    "rubric (optional, for free-text cases graded by criteria): a JSON list of {\"criterion\", \"points\", "
    "\"tags\"}; negative points mark harms. With a rubric the reference may be empty. HealthBench's own "
    "JSONL (prompt, rubrics, example_tags, prompt_id) is recognised as it is published.",
    "Any other column can be chosen as a subgroup tag (e.g. language, age_band) for per-group results.",
    "Cells starting with =, +, - or @ that are not numbers are refused (spreadsheet formula injection).",
]
"""The file format in words, shown beside the uploader."""


def activity_template_csv(activity: str) -> bytes:
    """A CSV template of cases for one activity that no benchmark tests (UTF-8, with a header row).

    Example:
        >>> activity_template_csv("weight_based_dose").decode().splitlines()[0]
        'id,question,answer_type,reference,choices,lower,upper,tag_drug,tag_age_band,tag_weight_band'
    """
    _, tags, rows = ACTIVITY_TEMPLATES[activity]
    return _csv([*ACTIVITY_COLUMNS, *tags], rows)


def _csv(columns: list[str], rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def template_csv(answer_type: str) -> bytes:
    """A CSV template for one answer type (UTF-8, with a header row).

    Example:
        >>> template_csv("choice").decode().splitlines()[0]
        'id,question,choices,reference,language'
    """
    columns, rows = TEMPLATES[answer_type]
    return _csv(columns, rows)


def rubric_template(name: str) -> tuple[str, str, bytes]:
    """(title, file name, bytes) of a rubric case template shipped in ``data/rubric_templates/``.

    Example:
        >>> title, filename, data = rubric_template("discharge_summary")
        >>> filename, b'"rubric"' in data
        ('medassure_rubric_discharge_summary.jsonl', True)
    """
    if name not in RUBRIC_TEMPLATES:
        raise KeyError(f"no rubric template {name!r}; templates: {', '.join(RUBRIC_TEMPLATES)}")
    data = (RUBRIC_TEMPLATE_DIR / f"{name}.jsonl").read_bytes()
    return RUBRIC_TEMPLATES[name], f"medassure_rubric_{name}.jsonl", data
