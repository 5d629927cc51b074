"""MedCalc-Bench's CSV release (``datasets/test_data.csv``, HF ``ncbi/MedCalc-Bench-v1.0``).

Grading follows the authors' ``evaluation/evaluate.py`` by calculator ID: dates (IDs 13, 68) and
the gestational-age tuple (69) are exact; integer scores (the exact group) are exact after
rounding the reply; everything else is ``numeric_range`` between the row's Lower and Upper Limit.
Files without Calculator ID fall back to the Output Type column.

A row without limits is never graded by exact match in silence (that took a real model's accuracy
from 0.206 to 0.085). The limits are derived by the authors' README rule, "95%/105% of the ground
truth for equation-based calculators whose output is a decimal, the ground truth otherwise": by
calculator ID when the file has it (the range group, except the rule-based Wells' PE score, ID 8,
whose limits equal the ground truth), else by Output Type. Every such instance says how in
``meta["limits_derived"]``, and its score carries the note. A file with none of the limit columns,
Calculator ID and Output Type cannot be graded by the authors' rules and is refused, naming them.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path

from evaluator.benchmarks.instance import Instance
from evaluator.loaders.registry import DatasetError, make_instance, register_loader, text_meta

DATE_IDS = {13, 68}
WEEKS_DAYS_IDS = {69}
EXACT_INTEGER_IDS = {4, 15, 16, 17, 18, 20, 21, 25, 27, 28, 29, 32, 33, 36, 43, 45, 48, 51}
# evaluate.py's range group; all equation-based decimals except Wells' PE (8), a rule-based score.
RANGE_IDS = {2, 3, 5, 6, 7, 8, 9, 10, 11, 19, 22, 23, 24, 26, 30, 31, 38, 39, 40, 44, 46, 49, *range(56, 68)}
RULE_BASED_RANGE_IDS = {8}
REQUIRED = ("Patient Note", "Question", "Ground Truth Answer")
LIMITS = ("Lower Limit", "Upper Limit")


def _float(path: Path, number: int, column: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise DatasetError(path, f"{column} must be a number, got {value!r}", number) from None


def _grading(calc_id: int | None, output_type: str) -> str:
    kind = output_type.lower()
    if calc_id in DATE_IDS or "date" in kind:
        return "date"
    if calc_id in WEEKS_DAYS_IDS or "week" in kind or "tuple" in kind:
        return "weeks_days"
    if calc_id in EXACT_INTEGER_IDS or (calc_id is None and kind.startswith("integer")):
        return "integer"
    return "range"


def _weeks_days(text: str) -> str:
    found = re.search(r"(\d+)\D+?(\d+)", text)
    return f"({int(found.group(1))}, {int(found.group(2))})" if found else text


def _derived_limits(
    path: Path, number: int, value: float, calc_id: int | None, output_type: str
) -> tuple[float, float, str]:
    """(lower, upper, how) by the README rule, for a row whose file has no limits."""
    spread = 0.05 * abs(value)
    if calc_id in RANGE_IDS:
        if calc_id in RULE_BASED_RANGE_IDS:
            return value, value, (
                "Lower/Upper Limit derived: equal to the ground truth (README rule for a rule-based "
                "score); the file has no limit columns"
            )
        return value - spread, value + spread, (
            "Lower/Upper Limit derived: 95%-105% of the ground truth (README rule for equation-based "
            "decimal calculators); the file has no limit columns"
        )
    kind = output_type.lower()
    if kind.startswith("decimal"):
        return value - spread, value + spread, (
            "Lower/Upper Limit derived: 95%-105% of the ground truth (README rule, from Output Type "
            "'decimal'; without Calculator ID a rule-based decimal score such as Wells' PE cannot be "
            "told apart); the file has no limit columns"
        )
    if kind:
        return value, value, (
            f"Lower/Upper Limit derived: equal to the ground truth (README rule, Output Type "
            f"{output_type!r}); the file has no limit columns"
        )
    what = f"calculator {calc_id} is in no grading group of evaluate.py" if calc_id is not None else (
        "the file has no Calculator ID")
    raise DatasetError(
        path,
        "cannot grade by MedCalc-Bench's rules: no Lower Limit/Upper Limit, no Output Type, and "
        f"{what}; add the Lower Limit and Upper Limit columns (or Calculator ID / Output Type)",
        number,
    )


def medcalc_row(path: Path, number: int, row: dict[str, str]) -> Instance:
    """One CSV row as an Instance.

    Example:
        >>> row = {"Row Number": "7", "Calculator ID": "5", "Patient Note": "BP 120/60.",
        ...        "Question": "MAP?", "Ground Truth Answer": "80", "Lower Limit": "76", "Upper Limit": "84"}
        >>> medcalc_row(Path("t.csv"), 2, row).upper
        84.0
    """
    missing = [c for c in REQUIRED if not (row.get(c) or "").strip()]
    if missing:
        raise DatasetError(path, f"empty or missing column(s): {', '.join(missing)}", number)
    truth = row["Ground Truth Answer"].strip()
    calc_raw = (row.get("Calculator ID") or "").strip()
    calc_id = int(_float(path, number, "Calculator ID", calc_raw)) if calc_raw else None
    output_type = (row.get("Output Type") or "").strip()
    grading = _grading(calc_id, output_type)
    fields: dict[str, object] = {"answer_type": "exact", "reference": truth}
    derived = ""
    if grading == "weeks_days":
        fields["reference"] = _weeks_days(truth)
    elif grading == "integer":
        fields["reference"] = str(round(_float(path, number, "Ground Truth Answer", truth)))
    elif grading == "range":
        value = _float(path, number, "Ground Truth Answer", truth)
        low_raw, high_raw = (row.get("Lower Limit") or "").strip(), (row.get("Upper Limit") or "").strip()
        if low_raw and high_raw:
            low, high = (
                _float(path, number, "Lower Limit", low_raw),
                _float(path, number, "Upper Limit", high_raw),
            )
        elif low_raw or high_raw:
            given, empty = ("Lower Limit", "Upper Limit") if low_raw else ("Upper Limit", "Lower Limit")
            raise DatasetError(path, f"{given} is given but {empty} is empty; give both or neither", number)
        else:
            low, high, derived = _derived_limits(path, number, value, calc_id, output_type)
        if low > high:
            raise DatasetError(path, f"Lower Limit {low} is above Upper Limit {high}", number)
        fields.update(answer_type="numeric_range", lower=low, upper=high)
    row_id = (row.get("Row Number") or "").strip() or str(number)
    category = (row.get("Category") or "").strip()
    name = (row.get("Calculator Name") or "").strip()
    meta = text_meta(
        {
            "row_number": row_id,
            "calculator_id": calc_raw,
            "calculator_name": name,
            "category": category,
            "note_id": (row.get("Note ID") or "").strip(),
            "output_type": output_type,
            "limits_derived": derived,
        }
    )
    tags = {k: v for k, v in {"category": category, "calculator": name}.items() if v}
    return make_instance(
        path,
        number,
        id=f"medcalc-{row_id}",
        context=row["Patient Note"],
        question=row["Question"].strip(),
        subgroups=tags,
        meta=meta,
        **fields,
    )


@register_loader(
    "medcalc_bench_csv",
    file_format="MedCalc-Bench CSV (Patient Note, Question, Calculator ID, "
    "Ground Truth Answer, Lower Limit, Upper Limit, Output Type)",
)
def load_medcalc(path: Path) -> Iterator[Instance]:
    """Instances from a MedCalc-Bench CSV file.

    Example:
        >>> callable(load_medcalc)
        True
    """
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
        if missing:
            raise DatasetError(path, f"not a MedCalc-Bench CSV: missing column(s) {', '.join(missing)}")
        for number, row in enumerate(reader, start=2):
            yield medcalc_row(path, number, row)
