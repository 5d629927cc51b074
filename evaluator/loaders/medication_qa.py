"""MedicationQA's spreadsheet (``MedInfo2019-QA-Medications.xlsx``).

Read with pandas + openpyxl. Rows without an answer are dropped, as HELM's ``medication_qa``
scenario does; the consumer question is the question and the expert answer the reference.
MedicationQA is open-ended: MedHELM scores it with its LLM jury; BERTScore and ROUGE are the
reference-based metrics computed here. The question type becomes a subgroup tag.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from evaluator.benchmarks.instance import Instance
from evaluator.loaders.registry import DatasetError, make_instance, register_loader, text_meta

REQUIRED = ("Question", "Answer")


def _cell(value: object) -> str:
    return "" if value is None or value != value else str(value).strip()  # NaN != NaN


@register_loader(
    "medication_qa_xlsx",
    file_format="MedicationQA .xlsx (Question, Answer, Focus (Drug), Question Type, Section Title, URL)",
)
def load_medication_qa(path: Path, *, sheet: int | str = 0) -> Iterator[Instance]:
    """Instances from the MedicationQA spreadsheet.

    Example:
        >>> callable(load_medication_qa)
        True
    """
    import pandas as pd

    try:
        frame = pd.read_excel(path, sheet_name=sheet, dtype=object)
    except (ValueError, OSError, KeyError) as exc:
        raise DatasetError(path, f"cannot be read as an .xlsx spreadsheet: {exc}") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise DatasetError(path, f"not a MedicationQA sheet: missing column(s) {', '.join(missing)}")
    for index, row in enumerate(frame.to_dict("records")):
        number = index + 2  # spreadsheet row: header is row 1
        question, answer = _cell(row.get("Question")), _cell(row.get("Answer"))
        if not answer:
            continue
        if not question:
            raise DatasetError(path, "Question is empty", number)
        kind = _cell(row.get("Question Type"))
        meta = text_meta(
            {
                "focus": _cell(row.get("Focus (Drug)")),
                "question_type": kind,
                "section_title": _cell(row.get("Section Title")),
                "url": _cell(row.get("URL")),
                "sheet_row": str(number),
            }
        )
        yield make_instance(
            path,
            number,
            id=f"medicationqa-{number}",
            question=question,
            reference=answer,
            answer_type="free_text",
            subgroups={"question_type": kind} if kind else {},
            meta=meta,
        )
