"""Rubric cases: HealthBench's JSONL as published, and a ``rubric`` column in the project's own files.

Why the HealthBench file is turned into ordinary columns here, right after it is read: every later
step (column mapping, validation, the PHI scan, the formula and control-character checks, storage)
then treats it exactly like a hospital's own table, so the two cannot be held to different rules.
A line is recognised as HealthBench's by its fields, not its file name: ``prompt`` is a list of chat
messages and ``rubrics`` a list of criteria. Its columns become ``id`` (``prompt_id``), ``context``
(the conversation before the last user turn, one ``role: content`` paragraph per message),
``question`` (the last user turn), ``answer_type`` (``free_text``), ``rubric`` (the criteria) and one
``tag_<name>`` column per example tag (``theme:emergency_referrals`` → tag ``theme`` =
``emergency_referrals``; a tag without a colon → ``yes``). The table says ``layout="healthbench"``
and each case keeps ``meta["format"] = "healthbench"``, so a grader is shown the conversation as
HealthBench shows it.

A rubric cell (HealthBench's ``rubrics`` or the project's ``rubric`` column) is a JSON list of
``{"criterion": str, "points": number, "tags": [str]}``; negative points mark harms. A rubric needs
at least one criterion with positive points, since a case's score divides by their sum.
"""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import ValidationError

from evaluator.benchmarks.instance import RubricCriterion
from evaluator.inputs.capped_json import JsonRefused, parse_json
from evaluator.scenarios.columns import normalize
from evaluator.scenarios.issues import ImportIssue, ImportRejected

HEALTHBENCH_FIELDS = ("prompt", "rubrics")
FORMAT_KEY, HEALTHBENCH = "format", "healthbench"
TAGS_EXAMPLE = '["axis:accuracy"]'


def is_healthbench(columns: list[str], rows: list[Any]) -> bool:
    """True when the lines carry HealthBench's fields: ``prompt``, ``rubrics`` and ``prompt_id``, or the
    first two as a list of messages and a list.

    Example:
        >>> from types import SimpleNamespace
        >>> row = SimpleNamespace(number=1, cells={"prompt": [], "rubrics": []})
        >>> is_healthbench(["prompt", "rubrics"], [row])
        True
    """
    if not all(f in columns for f in HEALTHBENCH_FIELDS) or not rows:
        return False
    if "prompt_id" in columns:  # all three of its fields: its lines are checked, and refused by name
        return True
    return any(
        isinstance(r.cells.get("prompt"), list) and isinstance(r.cells.get("rubrics"), list) for r in rows
    )


def meta_eval_problem(columns: list[str]) -> str | None:
    """Why a file with the fields of HealthBench's meta-evaluation set is not cases, or None.

    That file grades graders (one completion, one criterion, physicians' ``binary_labels`` per line);
    read as a table it would fail for want of an ``id``, which says nothing of the mix-up.

    Example:
        >>> print(meta_eval_problem(["prompt", "completion", "rubric", "binary_labels", "prompt_id"])[:42])
        this is HealthBench's meta-evaluation file
        >>> meta_eval_problem(["prompt", "rubrics", "prompt_id"]) is None
        True
    """
    if "binary_labels" in columns and "prompt" in columns and "rubrics" not in columns:
        return (
            "this is HealthBench's meta-evaluation file (physicians' labels of completions, one criterion a "
            "line), not cases: import HealthBench's eval file, whose lines hold prompt, rubrics and prompt_id"
        )
    return None


def conversation_text(messages: list[dict[str, Any]]) -> str:
    """Messages as HealthBench shows a grader the conversation: ``role: content`` paragraphs.

    Example:
        >>> conversation_text([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}])
        'user: Hi\\n\\nassistant: Hello'
    """
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in messages)


def _messages(value: Any) -> tuple[list[dict[str, str]], str | None]:
    if not isinstance(value, list) or not value:
        return [], 'prompt must be a non-empty list of chat messages {"role", "content"}'
    out = []
    for k, m in enumerate(value, start=1):
        if (
            not isinstance(m, dict)
            or not isinstance(m.get("role"), str)
            or not isinstance(m.get("content"), str)
        ):
            return [], f'prompt message {k} is not {{"role": str, "content": str}}'
        out.append({"role": m["role"], "content": m["content"]})
    return out, None


def _tag_cells(tags: Any) -> tuple[dict[str, str], str | None]:
    if tags is None:
        return {}, None
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        return {}, "example_tags must be a list of text tags"
    cells: dict[str, str] = {}
    for tag in tags:
        name, sep, value = tag.partition(":")
        key = "tag_" + normalize(name if sep else tag)
        value = value.strip() if sep else "yes"
        cells[key] = f"{cells[key]}|{value}" if key in cells else value
    return cells, None


def healthbench_rows(source: str, rows: list[Any]) -> tuple[list[str], list[Any]]:
    """HealthBench lines (the reader's ``RawRow``s) as the columns the importer maps (module docstring).

    Raises:
        ImportRejected: a line whose ``prompt``, ``prompt_id`` or ``example_tags`` is not as published.
    """
    issues: list[ImportIssue] = []
    out: list[Any] = []
    columns: dict[str, None] = dict.fromkeys(("id", "context", "question", "answer_type", "rubric"))
    for row in rows:
        messages, problem = _messages(row.cells.get("prompt"))
        tags, tag_problem = _tag_cells(row.cells.get("example_tags"))
        prompt_id = row.cells.get("prompt_id")
        for column, why in (("prompt", problem), ("example_tags", tag_problem)):
            if why:
                issues.append(ImportIssue(row=row.number, column=column, reason=why))
        if not isinstance(prompt_id, str) or not prompt_id.strip():
            issues.append(
                ImportIssue(row=row.number, column="prompt_id", reason="prompt_id must be non-empty text")
            )
        if problem or tag_problem:
            continue
        last = messages[-1]
        asked, before = (last["content"], messages[:-1]) if last["role"] == "user" else ("", messages)
        cells = {
            "id": prompt_id,
            "context": conversation_text(before),
            "question": asked,
            "answer_type": "free_text",
            "rubric": row.cells.get("rubrics"),
            **tags,
        }
        columns.update(dict.fromkeys(tags))
        out.append(type(row)(number=row.number, cells=cells))
    if issues:
        raise ImportRejected(source, issues)
    return list(columns), [type(r)(number=r.number, cells={c: r.cells.get(c) for c in columns}) for r in out]


def parse_rubric(value: Any) -> tuple[tuple[RubricCriterion, ...], str | None]:
    """A rubric cell (JSON text or an already parsed list) as criteria, or the reason it is not one.

    Example:
        >>> rubric, problem = parse_rubric('[{"criterion": "States the new dose", "points": 5}]')
        >>> str(rubric[0]), problem
        ('[5] States the new dose', None)
        >>> parse_rubric('[{"criterion": "Invents a result", "points": -8}]')[1]
        'a rubric needs at least one criterion with positive points (the score divides by their sum)'
    """
    if isinstance(value, str):
        try:
            value = parse_json(value)
        except (json.JSONDecodeError, JsonRefused):
            return (), 'not a valid JSON list; write [{"criterion": "...", "points": 5, "tags": ["..."]}]'
    if not isinstance(value, list) or not value:
        return (), 'must be a non-empty JSON list of {"criterion", "points", "tags"}'
    criteria = []
    for k, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            return (), f'criterion {k} is not an object {{"criterion", "points", "tags"}}'
        if isinstance(item.get("points"), bool) or not isinstance(item.get("points"), int | float):
            return (
                (),
                f"criterion {k}: points must be a number (negative for a harm), got {item.get('points')!r}",
            )
        if not math.isfinite(item["points"]):
            return (), f"criterion {k}: points must be a finite number, got {float(item['points'])!r}"
        tags = item.get("tags")
        if tags is not None and not isinstance(tags, list):  # a string would split into its letters
            return (), f'criterion {k}: tags must be a list of text tags, e.g. {TAGS_EXAMPLE}, got {tags!r}'
        try:
            criteria.append(
                RubricCriterion(
                    criterion=item.get("criterion"), points=item["points"], tags=tuple(tags or ())
                )
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            return (), f"criterion {k}: {where or 'value'}: {first['msg']}"
        if criteria[-1].points == 0:
            return (), f"criterion {k}: points must not be 0"
    if not any(c.points > 0 for c in criteria):
        return (
            (),
            "a rubric needs at least one criterion with positive points (the score divides by their sum)",
        )
    return tuple(criteria), None
