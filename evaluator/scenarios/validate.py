"""Turn mapped rows into ``Instance`` cases, collecting every problem as (row, column, reason).

Why all-or-nothing: a scenario is evidence a committee will cite, so a file with one bad row is
rejected whole, with every problem listed, rather than silently imported minus that row. Rules:

- ``id`` and ``reference`` are required on every row (a rubric case may leave ``reference`` empty:
  its criteria say what counts); ids are unique; ``question`` or ``context`` must say something.
- ``rubric``: a JSON list of ``{"criterion", "points", "tags"}`` (``evaluator.scenarios.rubric_cases``);
  a case with one is ``free_text``.
- ``answer_type`` is choice, exact, numeric_range or free_text (a few spellings such as
  "multiple_choice" or "numeric" are accepted); when no column gives it, the mapping's default,
  else it is inferred: choices → choice, lower/upper → numeric_range, otherwise exact.
- ``choices``: a JSON list or options separated by ``|``; a choice reference is the option letter
  or the option's text and is stored as the letter.
- ``lower``/``upper`` (the accepted range of a numeric answer) are numbers, both or neither,
  lower ≤ upper, and the reference lies within them; without them the range is the reference.
- A text cell that starts with ``=``, ``+``, ``-`` or ``@`` and is not a number is refused:
  spreadsheet programs execute such cells as formulas (CSV/formula injection, OWASP).
- A cell holding a control character (NUL, BEL, ESC, the rest of C0 but tab and line breaks, DEL) or a
  bidi override is refused, as in the intended use (``evaluator.inputs.text_controls``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from evaluator.benchmarks.instance import Instance, RubricCriterion
from evaluator.inputs.capped_json import JsonRefused, parse_json
from evaluator.inputs.text_controls import control_problem
from evaluator.scenarios.columns import ColumnMapping, check_mapping, normalize
from evaluator.scenarios.issues import ImportIssue, ImportRejected, file_issue
from evaluator.scenarios.rubric_cases import FORMAT_KEY, HEALTHBENCH, parse_rubric
from evaluator.scenarios.table import RawRow, RawTable
from evaluator.scoring.answers import reference_letter

ANSWER_TYPES = ("choice", "exact", "numeric_range", "free_text")
ANSWER_TYPE_SPELLINGS = {
    "multiple_choice": "choice",
    "mcq": "choice",
    "mc": "choice",
    "numeric": "numeric_range",
    "number": "numeric_range",
    "range": "numeric_range",
    "text": "free_text",
    "free": "free_text",
    "open": "free_text",
    "exact_match": "exact",
}
_FORMULA_START = re.compile(r"^[=+\-@]")


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _number(text: Any) -> float | None:
    try:
        return float(str(text).strip())
    except ValueError:
        return None


def formula_problem(value: Any) -> str | None:
    """Why a cell looks like a spreadsheet formula, or None.

    Example:
        >>> formula_problem("=HYPERLINK(\\"http://x\\")") is not None, formula_problem("-2.5")
        (True, None)
    """
    if not isinstance(value, str) or not _FORMULA_START.match(value) or _number(value) is not None:
        return None
    return (
        f"starts with {value[0]!r} and is not a number: spreadsheet programs run such cells as formulas "
        "(formula injection). Remove or rephrase the leading character"
    )


def _control_problem(cell: Any) -> str | None:
    texts = [cell] if isinstance(cell, str) else [c for c in cell if isinstance(c, str)] \
        if isinstance(cell, list) else []
    found = next((p for t in texts if (p := control_problem(t))), None)
    return f"contains {found}: remove it (tabs and line breaks are fine)" if found else None


class _Row:
    """Reads one row's cells through the mapping and records its problems."""

    def __init__(self, row: RawRow, mapping: ColumnMapping, issues: list[ImportIssue]):
        self.row, self.mapping, self.issues = row, mapping, issues

    def problem(self, field: str | None, reason: str) -> None:
        column = self.mapping.fields.get(field, field) if field else None
        self.issues.append(ImportIssue(row=self.row.number, column=column, reason=reason))

    def raw(self, field: str) -> Any:
        column = self.mapping.fields.get(field)
        return None if column is None else self.row.cells.get(column)

    def text(self, field: str) -> str:
        value = self.raw(field)
        if _blank(value):
            return ""
        if isinstance(value, dict | list):
            self.problem(field, "must be text, not a JSON object or list")
            return ""
        return str(value).strip() if field in ("id", "answer_type") else str(value)

    def choices(self) -> tuple[str, ...]:
        value = self.raw("choices")
        if _blank(value):
            return ()
        if isinstance(value, str) and value.strip().startswith("["):
            try:
                value = parse_json(value)
            except (json.JSONDecodeError, JsonRefused):
                self.problem("choices", 'not a valid JSON list; write ["yes", "no"] or yes | no')
                return ()
        items = value if isinstance(value, list) else str(value).split("|")
        out = tuple(str(c).strip() for c in items if not _blank(c))
        if len(out) < 2:
            hint = next((f" (found {sep!r}: separate options with |)" for sep in (";", ",", "/")
                         if isinstance(value, str) and sep in value), "; separate options with |")
            self.problem("choices", "give at least two options" + hint)
        return out

    def limit(self, field: str) -> float | None:
        value = self.raw(field)
        if _blank(value):
            return None
        number = _number(value)
        if number is None:
            self.problem(field, f"{field} must be a number, got {value!r}")
        return number


def _answer_type(r: _Row, choices: tuple[str, ...], has_limits: bool, *, rubric: bool = False) -> str | None:
    given = r.text("answer_type")
    if not given:
        return "free_text" if rubric else r.mapping.default_answer_type or (
            "choice" if choices else "numeric_range" if has_limits else "exact"
        )
    kind = ANSWER_TYPE_SPELLINGS.get(normalize(given), normalize(given))
    if kind not in ANSWER_TYPES:
        r.problem("answer_type", f"unknown answer type {given!r}: use {', '.join(ANSWER_TYPES)}")
        return None
    return kind


def _numeric_range(r: _Row, reference: str, lower: float | None, upper: float | None):
    value = _number(reference)
    if value is None:
        r.problem("reference", f"a numeric_range answer needs a numeric reference, got {reference!r}")
        return None, None
    if (lower is None) != (upper is None):
        r.problem("lower" if lower is None else "upper", "give both lower and upper, or neither")
        return None, None
    lower, upper = (value, value) if lower is None else (lower, upper)
    if lower > upper:
        r.problem("lower", f"lower {lower:g} is above upper {upper:g}")
    elif not lower <= value <= upper:
        r.problem("reference", f"reference {value:g} lies outside its range [{lower:g}, {upper:g}]")
    return lower, upper


def _instance(r: _Row, seen: dict[str, int]) -> Instance | None:
    before = len(r.issues)
    for column in r.mapping.columns_used():
        cell = r.row.cells.get(column)
        problem = formula_problem(cell) or _control_problem(cell)
        if problem:
            r.issues.append(ImportIssue(row=r.row.number, column=column, reason=problem))
    case_id, reference = r.text("id"), r.text("reference").strip()
    context, question = r.text("context"), r.text("question")
    if not case_id:
        r.problem("id", "the id is empty")
    elif case_id in seen:
        r.problem("id", f"duplicate id {case_id!r} (first used in row {seen[case_id]})")
    else:
        seen[case_id] = r.row.number
    rubric: tuple[RubricCriterion, ...] = ()
    rubric_given = not _blank(r.raw("rubric"))
    if rubric_given:
        rubric, why = parse_rubric(r.raw("rubric"))
        if why:
            r.problem("rubric", why)
    if not reference and not rubric_given:
        if "rubric" not in r.mapping.fields:
            r.problem("reference", "the reference is empty: every case needs its correct answer")
        elif "reference" in r.mapping.fields:
            r.problem("reference", "neither a reference nor a rubric: every case needs one of them")
        else:
            r.problem("rubric", "the rubric is empty: every case needs its criteria (a JSON list) "
                      "or a reference")
    if not context.strip() and not question.strip():
        r.problem(None, "both question and context are empty")
    choices = r.choices()
    before_limits = len(r.issues)
    lower, upper = r.limit("lower"), r.limit("upper")
    limits_ok = len(r.issues) == before_limits
    kind = _answer_type(r, choices, lower is not None or upper is not None or not limits_ok,
                        rubric=bool(rubric))
    if rubric and kind not in (None, "free_text"):
        r.problem("rubric", f"a rubric grades free_text answers, not {kind}")
    if kind == "choice" and reference:
        if len(choices) < 2:
            r.problem("choices", "a choice case needs its options")
        else:
            letter = reference_letter(
                Instance(id="probe", choices=choices, reference=reference, answer_type="choice")
            )
            if letter is None:
                r.problem("reference", f"{reference!r} is neither an option letter nor the text of an option")
            reference = letter or reference
    if kind == "numeric_range" and reference and limits_ok:
        lower, upper = _numeric_range(r, reference, lower, upper)
    elif kind not in (None, "numeric_range") and (lower is not None or upper is not None):
        r.problem("lower", f"lower/upper only apply to numeric_range answers, not {kind}")
    tags = {
        t: str(r.row.cells.get(c)).strip()
        for t, c in r.mapping.tags.items()
        if not _blank(r.row.cells.get(c))
    }
    if len(r.issues) > before or kind is None:
        return None
    return Instance(
        id=case_id,
        context=context,
        question=question,
        choices=choices,
        reference=reference,
        answer_type=kind,
        lower=lower if kind == "numeric_range" else None,
        upper=upper if kind == "numeric_range" else None,
        subgroups=tags,
        meta={"row": str(r.row.number)},
        rubric=rubric,
    )


def validate_table(table: RawTable, mapping: ColumnMapping) -> tuple[list[Instance], list[ImportIssue]]:
    """Every row through the rules: (cases, problems). Cases are only complete when problems is empty.

    Example:
        >>> from evaluator.scenarios.table import read_table
        >>> t = read_table("c.csv", b"id,question,reference\\nq1,2+2?,4\\nq1,3+3?,\\n")
        >>> cases, issues = validate_table(t, ColumnMapping(fields={"id": "id", "question": "question",
        ...                                                        "reference": "reference"}))
        >>> for issue in issues: print(issue.line())
        row 3, column id: duplicate id 'q1' (first used in row 2)
        row 3, column reference: the reference is empty: every case needs its correct answer
    """
    problems = check_mapping(mapping, table.columns)
    if problems:
        return [], [file_issue(f"column mapping: {p}") for p in problems]
    issues: list[ImportIssue] = []
    seen: dict[str, int] = {}
    cases = [c for row in table.rows if (c := _instance(_Row(row, mapping, issues), seen)) is not None]
    if table.layout == HEALTHBENCH:  # a grader is shown the conversation as HealthBench shows it
        cases = [c.model_copy(update={"meta": {**c.meta, FORMAT_KEY: HEALTHBENCH}}) for c in cases]
    return cases, issues


def build_instances(table: RawTable, mapping: ColumnMapping) -> list[Instance]:
    """The cases of a valid table; raises ``ImportRejected`` with every problem otherwise."""
    cases, issues = validate_table(table, mapping)
    if issues:
        raise ImportRejected(table.source_name, issues)
    return cases
