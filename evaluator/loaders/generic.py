"""The generic instance format: JSONL, JSON or CSV with the ``Instance`` fields as columns.

This is the format of ``shared/datasets/*/sample.jsonl`` and the one a hospital uses for its own
local scenarios, so it is forgiving about how a spreadsheet spells things and strict about
meaning:

- columns: ``id`` (required), ``context``, ``question``, ``choices``, ``reference``,
  ``answer_type``, ``lower``, ``upper``, ``subgroups``, ``meta``; empty or null means absent.
- ``choices``: a JSON list, or (CSV) a JSON-list string or columns ``choice_a``, ``choice_b``, ...
- subgroup tags: a ``subgroups`` object and/or ``tag_<name>`` columns; ``subgroup_meta_keys``
  copies named meta fields into tags (e.g. MedCalc's ``category``).
- a choice ``reference`` may be the option letter or the option text; it is stored as the letter.
- a ``numeric_range`` row without limits gets ``tolerance`` (relative) around the reference, or
  an exact limit when no tolerance is set.
- any other column goes into ``meta``.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluator.benchmarks.instance import LETTERS, Instance
from evaluator.inputs.capped_json import JsonRefused, parse_json
from evaluator.loaders.registry import DatasetError, make_instance, register_loader, text_meta
from evaluator.scoring.answers import reference_letter

KNOWN = {
    "id",
    "context",
    "question",
    "choices",
    "reference",
    "answer_type",
    "lower",
    "upper",
    "subgroups",
    "meta",
}
ANSWER_TYPES = ("choice", "exact", "numeric_range", "free_text")


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number as a person counts it, record) for JSONL, JSON array or CSV files."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        with path.open(newline="", encoding="utf-8-sig") as handle:
            for number, row in enumerate(csv.DictReader(handle), start=2):
                yield number, {k.strip(): v for k, v in row.items() if k is not None}
        return
    text = path.read_text(encoding="utf-8-sig")
    if suffix == ".json" or text.lstrip().startswith("["):
        try:
            data = parse_json(text)
        except (json.JSONDecodeError, JsonRefused) as exc:
            raise DatasetError(path, f"not valid JSON ({exc})") from None
        if not isinstance(data, list):
            raise DatasetError(path, "a .json dataset must be a list of objects")
        yield from enumerate(data, start=1)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                yield number, parse_json(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(path, f"not valid JSON ({exc.msg})", number) from None
            except JsonRefused as exc:
                raise DatasetError(path, f"not accepted: {exc}", number) from None


def _blank(value: Any) -> bool:
    return (
        value is None
        or (isinstance(value, str) and not value.strip())
        or (isinstance(value, float) and math.isnan(value))
    )


def _choices(path: Path, number: int, record: dict[str, Any]) -> tuple[str, ...]:
    raw = record.get("choices")
    if _blank(raw):
        cols = [f"choice_{letter.lower()}" for letter in LETTERS]
        lower = {k.lower(): v for k, v in record.items()}
        found = [lower[c] for c in cols if c in lower and not _blank(lower[c])]
        return tuple(str(c) for c in found)
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raise DatasetError(path, 'choices must be a JSON list such as ["yes", "no"]', number) from None
    if not isinstance(raw, list) or not all(isinstance(c, (str, int, float)) for c in raw):
        raise DatasetError(path, "choices must be a list of texts", number)
    return tuple(str(c) for c in raw)


def _number(path: Path, number: int, record: dict[str, Any], key: str) -> float | None:
    value = record.get(key)
    if _blank(value):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise DatasetError(path, f"{key} must be a number, got {value!r}", number) from None


def _mapping(path: Path, number: int, value: Any, key: str) -> dict[str, Any]:
    if _blank(value):
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise DatasetError(path, f"{key} must be a JSON object", number) from None
    if not isinstance(value, dict):
        raise DatasetError(path, f"{key} must be an object", number)
    return value


def _answer_type(
    path: Path, number: int, record: dict[str, Any], choices: tuple[str, ...], default: str | None
) -> str:
    value = record.get("answer_type")
    if _blank(value):
        if default:
            return default
        if choices:
            return "choice"
        return "numeric_range" if not _blank(record.get("lower")) else "exact"
    kind = str(value).strip().lower()
    if kind not in ANSWER_TYPES:
        raise DatasetError(
            path, f"answer_type must be one of {', '.join(ANSWER_TYPES)}, got {value!r}", number
        )
    return kind


def parse_record(
    path: Path,
    number: int,
    record: dict[str, Any],
    *,
    answer_type: str | None = None,
    tolerance: float | None = None,
    subgroup_meta_keys: tuple[str, ...] = (),
) -> Instance:
    """One generic record as an Instance (see the module docstring for the rules).

    Example:
        >>> record = {"id": "q1", "choices": ["yes", "no"], "reference": "no"}
        >>> parse_record(Path("x.jsonl"), 1, record).reference
        'B'
    """
    if not isinstance(record, dict):
        raise DatasetError(path, "each record must be an object", number)
    if _blank(record.get("id")):
        raise DatasetError(path, "id is missing", number)
    choices = _choices(path, number, record)
    kind = _answer_type(path, number, record, choices, answer_type)
    meta = text_meta(_mapping(path, number, record.get("meta"), "meta"))
    extras = {
        k: v
        for k, v in record.items()
        if k not in KNOWN and not k.startswith("tag_") and not k.lower().startswith("choice_")
    }
    meta.update(text_meta(extras))
    tags = {
        str(k): str(v)
        for k, v in _mapping(path, number, record.get("subgroups"), "subgroups").items()
        if not _blank(v)
    }
    tags.update({k[4:]: str(v) for k, v in record.items() if k.startswith("tag_") and not _blank(v)})
    tags.update({k: meta[k] for k in subgroup_meta_keys if k in meta})
    reference = "" if _blank(record.get("reference")) else str(record["reference"]).strip()
    lower, upper = _number(path, number, record, "lower"), _number(path, number, record, "upper")
    if kind == "choice":
        if not choices:
            raise DatasetError(path, "a choice item needs choices", number)
        probe = Instance(id="probe", choices=choices, reference=reference, answer_type="choice")
        letter = reference_letter(probe)
        if letter is None:
            raise DatasetError(
                path, f"reference {reference!r} is neither an option letter nor one option's text", number
            )
        reference = letter
    if kind == "numeric_range":
        value = _number(path, number, {"reference": reference}, "reference")
        if value is None:
            raise DatasetError(path, "a numeric_range item needs a numeric reference", number)
        if (lower is None) != (upper is None):
            raise DatasetError(path, "give both lower and upper, or neither", number)
        if lower is None:
            spread = abs(value) * (tolerance or 0.0)
            lower, upper = value - spread, value + spread
        if lower > upper:
            raise DatasetError(path, f"lower {lower} is above upper {upper}", number)
    return make_instance(
        path,
        number,
        id=str(record["id"]).strip(),
        context="" if _blank(record.get("context")) else str(record["context"]),
        question="" if _blank(record.get("question")) else str(record["question"]),
        choices=choices,
        reference=reference,
        answer_type=kind,
        lower=lower if kind == "numeric_range" else None,
        upper=upper if kind == "numeric_range" else None,
        subgroups=tags,
        meta=meta,
    )


@register_loader(
    "generic",
    file_format="generic JSONL, JSON or CSV (id, context, question, choices, reference, "
    "answer_type, lower, upper, tag_<name> columns)",
)
def load_generic(
    path: Path,
    *,
    answer_type: str | None = None,
    tolerance: float | None = None,
    subgroup_meta_keys: list[str] | None = None,
) -> Iterator[Instance]:
    """Instances from a generic-format file.

    Example:
        >>> import tempfile, os
        >>> f = Path(tempfile.mkdtemp()) / "d.jsonl"; _ = f.write_text('{"id": "1", "reference": "4"}')
        >>> [i.answer_type for i in load_generic(f)]
        ['exact']
    """
    if answer_type is not None and answer_type not in ANSWER_TYPES:
        raise DatasetError(path, f"loader argument answer_type must be one of {', '.join(ANSWER_TYPES)}")
    keys = tuple(subgroup_meta_keys or ())
    for number, record in _rows(path):
        yield parse_record(
            path, number, record, answer_type=answer_type, tolerance=tolerance, subgroup_meta_keys=keys
        )
