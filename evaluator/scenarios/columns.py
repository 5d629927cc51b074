"""The column-mapping step: which column of the upload holds which part of a case.

Why explicit: a hospital's spreadsheet says "Case no.", "Vignette" and "Expected answer", not
``id``, ``context`` and ``reference``. A mapping is suggested from common names and the person
importing confirms or changes it (in the page, or with ``--map column=field`` on the CLI); the
confirmed mapping is stored with the scenario version, so how each case was read stays on record.
Columns mapped to ``tag`` (or ``tag:<name>``) become subgroup tags; unmapped columns are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from evaluator.benchmarks.instance import AnswerType

FIELDS = ("id", "context", "question", "reference", "answer_type", "choices", "lower", "upper", "rubric")
REQUIRED = ("id", "reference")
ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "case_id", "case_no", "case_number", "item_id", "instance_id", "qid", "question_id"),
    "context": ("context", "note", "clinical_note", "passage", "vignette", "case_text", "text", "scenario"),
    "question": ("question", "prompt", "query", "task", "instruction"),
    "reference": (
        "reference",
        "answer",
        "expected",
        "expected_answer",
        "gold",
        "correct_answer",
        "ground_truth",
        "label",
        "reference_answer",
    ),
    "answer_type": ("answer_type", "type", "kind", "answer_kind"),
    "choices": ("choices", "options", "answer_options"),
    "lower": ("lower", "lower_limit", "lower_bound", "low", "min", "tolerance_lower"),
    "upper": ("upper", "upper_limit", "upper_bound", "high", "max", "tolerance_upper"),
    "rubric": ("rubric", "rubrics", "rubric_criteria", "criteria"),
}
TAG_PREFIXES = ("tag_", "tag:", "subgroup_", "group_")


class MappingError(ValueError):
    """A column mapping that names an unknown field or a column the file does not have."""


class ColumnMapping(BaseModel):
    """How the columns of one upload are read as cases."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fields: dict[str, str] = Field(default_factory=dict)
    """Case field (id, context, question, reference, answer_type, choices, lower, upper, rubric) → column."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Subgroup tag name (e.g. ``age_band``) → column."""
    default_answer_type: AnswerType | None = None
    """Answer type of every row when no column is mapped to ``answer_type`` (None: inferred per row)."""

    def columns_used(self) -> list[str]:
        """Every column the mapping reads."""
        return [*self.fields.values(), *self.tags.values()]


def normalize(name: str) -> str:
    """Column name as compared against the aliases.

    Example:
        >>> normalize(" Expected answer ")
        'expected_answer'
    """
    return re.sub(r"[\s.\-/]+", "_", name.strip().lower()).strip("_")


def _tag_name(column: str) -> str | None:
    norm = normalize(column)
    for prefix in TAG_PREFIXES:
        if column.lower().startswith(prefix) or norm.startswith(prefix):
            return norm[len(normalize(prefix)) :].strip("_") or None
    return None


def known_column(column: str) -> bool:
    """True when the name is a field alias or a tag column (used to recognise a header row)."""
    norm = normalize(column)
    return _tag_name(column) is not None or any(norm in names for names in ALIASES.values())


def suggest_column_mapping(columns: Sequence[str]) -> ColumnMapping:
    """A first mapping from the column names (first matching column per field).

    Example:
        >>> m = suggest_column_mapping(["Case ID", "Vignette", "Expected answer", "tag_sex"])
        >>> m.fields, m.tags
        ({'id': 'Case ID', 'context': 'Vignette', 'reference': 'Expected answer'}, {'sex': 'tag_sex'})
    """
    fields: dict[str, str] = {}
    tags: dict[str, str] = {}
    for field, names in ALIASES.items():
        for column in columns:
            if normalize(column) in names and column not in fields.values():
                fields[field] = column
                break
    for column in columns:
        tag = _tag_name(column)
        if tag and column not in fields.values():
            tags[tag] = column
    return ColumnMapping(fields=fields, tags=tags)


def parse_map_args(
    pairs: Iterable[str], columns: Sequence[str], base: ColumnMapping | None = None
) -> ColumnMapping:
    """Apply ``column=field`` overrides (field: a case field, ``tag``, ``tag:<name>`` or ``ignore``).

    Raises:
        MappingError: no ``=``, an unknown field, or a column the file does not have.

    Example:
        >>> m = parse_map_args(["Case=id", "Ward=tag"], ["Case", "Ward", "answer"])
        >>> m.fields, m.tags
        ({'reference': 'answer', 'id': 'Case'}, {'ward': 'Ward'})
    """
    mapping = base or suggest_column_mapping(columns)
    fields, tags = dict(mapping.fields), dict(mapping.tags)
    for pair in pairs:
        column, sep, field = pair.rpartition("=")
        column, field = column.strip(), field.strip()
        if not sep or not column:
            raise MappingError(f"--map {pair!r}: write column=field, e.g. 'Case no.=id'")
        if column not in columns:
            raise MappingError(
                f"--map {pair!r}: the file has no column {column!r}; its columns are "
                f"{', '.join(map(repr, columns))}"
            )
        fields = {f: c for f, c in fields.items() if c != column}
        tags = {t: c for t, c in tags.items() if c != column}
        if field == "ignore":
            continue
        if field == "tag" or field.startswith("tag:"):
            tags[normalize(field[4:]) if field.startswith("tag:") else normalize(column)] = column
        elif field in FIELDS:
            fields[field] = column
        else:
            raise MappingError(
                f"--map {pair!r}: unknown field {field!r}; fields are "
                f"{', '.join(FIELDS)}, tag, tag:<name> or ignore"
            )
    return ColumnMapping(fields=fields, tags=tags, default_answer_type=mapping.default_answer_type)


def check_mapping(mapping: ColumnMapping, columns: Sequence[str]) -> list[str]:
    """Problems with a mapping against the file's columns (empty when it can be applied).

    Example:
        >>> check_mapping(ColumnMapping(fields={"id": "id", "question": "q"}), ["id", "q"])
        ['no column is mapped to reference (required)']
    """
    problems = [f"no column is mapped to {f} (required)" for f in REQUIRED
                if f not in mapping.fields and not (f == "reference" and "rubric" in mapping.fields)]
    if "question" not in mapping.fields and "context" not in mapping.fields:
        problems.append("map a column to question or context (a case needs something to ask)")
    problems += [
        f"{f} is mapped to {c!r}, which the file does not have"
        for f, c in mapping.fields.items()
        if c not in columns
    ]
    problems += [
        f"tag {t} is mapped to {c!r}, which the file does not have"
        for t, c in mapping.tags.items()
        if c not in columns
    ]
    unknown = sorted(set(mapping.fields) - set(FIELDS))
    problems += [f"unknown field {f!r}" for f in unknown]
    used = mapping.columns_used()
    problems += [f"column {c!r} is mapped twice" for c in sorted({c for c in used if used.count(c) > 1})]
    return problems


def build_mapping(field_columns: dict[str, str | None], tag_columns: Iterable[str],
                  default_answer_type: AnswerType | None = None) -> ColumnMapping:
    """A mapping from the page's choices: field → column (None: unmapped) and the tag columns.

    A tag column's tag name is its name without a ``tag_`` prefix, normalised.

    Example:
        >>> m = build_mapping({"id": "Case", "context": None}, ["tag_sex", "Age band"])
        >>> m.fields, m.tags
        ({'id': 'Case'}, {'sex': 'tag_sex', 'age_band': 'Age band'})
    """
    tags = {(_tag_name(c) or normalize(c)): c for c in tag_columns}
    return ColumnMapping(fields={f: c for f, c in field_columns.items() if c}, tags=tags,
                         default_answer_type=default_answer_type)
