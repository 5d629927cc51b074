"""JSON from users' files, parsed with a nesting cap: one helper for every JSON the user hands us.

Why a helper: Python's ``json`` parser recurses once per ``[`` or ``{``, so a file of 100,000
brackets ends in a ``RecursionError`` traceback, and a file just under the interpreter's limit
parses but then breaks whatever walks it next (our own checks, pydantic, the JSON writer). Real
intended uses, scenario rows and HELM files nest fewer than 10 levels; :data:`MAX_DEPTH` is far
above that and far below the interpreter's limit. Dossier JSON (``medassure dossier create``),
scenario JSON Lines and the HELM importer all parse through :func:`parse_json`.

Why a key given twice is refused: ``json.loads`` keeps the last one silently, so a file can show a
reviewer one value (the first, where they look) and import another. No file we read needs a key twice.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects accepted (HELM's own files reach 6)."""


class JsonRefused(ValueError):
    """JSON that parses but is refused: nested too deeply, or a key given twice (the message says which)."""


class JsonTooDeep(JsonRefused):
    """The JSON nests arrays/objects deeper than :data:`MAX_DEPTH` (the message says so)."""


class JsonDuplicateKey(JsonRefused):
    """One JSON object gives the same key twice (the message names it)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JsonDuplicateKey(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply ``value`` nests lists and dicts, counted without recursion; stops past ``limit``.

    Example:
        >>> nesting_depth({"a": [1, [2]]}), nesting_depth("text")
        (3, 0)
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth) for child in children if isinstance(child, dict | list))
    return deepest


def parse_json(text: str | bytes) -> Any:
    """``json.loads`` that refuses nesting deeper than :data:`MAX_DEPTH` and a key given twice.

    Raises:
        json.JSONDecodeError: the text is not JSON (as ``json.loads``).
        JsonTooDeep: arrays/objects nest too deeply (instead of a ``RecursionError``).
        JsonDuplicateKey: an object gives one key twice. Both are ``JsonRefused``.

    Example:
        >>> parse_json('{"a": [1, 2]}')
        {'a': [1, 2]}
        >>> parse_json("[" * 5000 + "]" * 5000)
        Traceback (most recent call last):
        ...
        evaluator.inputs.capped_json.JsonTooDeep: arrays/objects nested deeper than 64 levels
        >>> parse_json('{"outcome": "reject", "outcome": "approve"}')
        Traceback (most recent call last):
        ...
        evaluator.inputs.capped_json.JsonDuplicateKey: the key 'outcome' appears twice in one object
    """
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise JsonTooDeep(f"arrays/objects nested deeper than {MAX_DEPTH} levels") from None
    if nesting_depth(value) > MAX_DEPTH:
        raise JsonTooDeep(f"arrays/objects nested deeper than {MAX_DEPTH} levels")
    return value
