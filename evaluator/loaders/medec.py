"""MEDEC's CSV release (``MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv``).

Rows with no ``Sentences`` text are the MEDEC-UW placeholders (their text needs a data-use
agreement) and are skipped, as HELM does. The context is the ``Sentences`` column (one sentence per
line, prefixed by its id) and the reference is HELM's: ``"<sentence id> <corrected sentence>"``
for a text with an error, ``"CORRECT"`` otherwise, scored by the MEDEC error-flag metrics.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from evaluator.benchmarks.instance import Instance
from evaluator.loaders.registry import DatasetError, make_instance, register_loader, text_meta

INSTRUCTION = (
    "The clinical text above has one sentence per line, each prefixed by its sentence ID. It is either "
    "correct or contains exactly one medical error. If correct, answer CORRECT; otherwise give the ID of "
    "the erroneous sentence followed by the corrected sentence."
)
REQUIRED = ("Text ID", "Sentences", "Error Flag")


def medec_row(path: Path, number: int, row: dict[str, str], instruction: str = INSTRUCTION) -> Instance:
    """One CSV row as an Instance.

    Example:
        >>> row = {"Text ID": "t1", "Sentences": "0 A.\\n1 B.", "Error Flag": "1", "Error Sentence ID": "1",
        ...        "Corrected Sentence": "C."}
        >>> medec_row(Path("m.csv"), 2, row).reference
        '1 C.'
    """
    flag_raw = (row.get("Error Flag") or "").strip()
    if flag_raw not in ("0", "1"):
        raise DatasetError(path, f"Error Flag must be 0 or 1, got {flag_raw!r}", number)
    sentence_id = (row.get("Error Sentence ID") or "-1").strip() or "-1"
    corrected = (row.get("Corrected Sentence") or "").strip()
    has_error = flag_raw == "1" and corrected not in ("", "NA") and sentence_id != "-1"
    error_type = (row.get("Error Type") or "").strip()
    meta = text_meta(
        {
            "text_id": row["Text ID"].strip(),
            "error_flag": flag_raw,
            "error_type": error_type,
            "error_sentence_id": sentence_id,
            "corrected_sentence": corrected,
        }
    )
    return make_instance(
        path,
        number,
        id=row["Text ID"].strip(),
        context=row["Sentences"].strip(),
        question=instruction,
        reference=f"{sentence_id} {corrected}" if has_error else "CORRECT",
        answer_type="free_text",
        subgroups={"error_type": error_type or "none"},
        meta=meta,
    )


@register_loader(
    "medec_csv",
    file_format="MEDEC CSV (Text ID, Sentences, Error Flag, Error Sentence ID, "
    "Corrected Sentence, Error Type)",
)
def load_medec(path: Path, *, instruction: str = INSTRUCTION) -> Iterator[Instance]:
    """Instances from a MEDEC CSV file.

    Example:
        >>> callable(load_medec)
        True
    """
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
        if missing:
            raise DatasetError(path, f"not a MEDEC CSV: missing column(s) {', '.join(missing)}")
        for number, row in enumerate(reader, start=2):
            if not (row.get("Sentences") or "").strip():
                continue
            if not (row.get("Text ID") or "").strip():
                raise DatasetError(path, "Text ID is empty", number)
            yield medec_row(path, number, row, instruction)
