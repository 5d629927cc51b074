"""OpenTelemetry GenAI spans (OTLP JSON) as feed rows, for ``import_feed(..., source="otel")``.

Why flatten in Python: OTLP JSON nests spans three deep (``resourceSpans`` → ``scopeSpans`` → ``spans``)
with attributes as a list of typed values, which SQL reads poorly; a trace export is one document (or
one per line, as the collector's file exporter writes), parsed through the one guard on JSON read from
users. The spans become a JSON-lines feed file in a temporary folder, which the importer then validates
and stores like any other feed (row N of its messages is the Nth GenAI span of the file).

The mapping follows the OpenTelemetry semantic conventions for generative AI: ``gen_ai.response.model``
(the served identity; ``gen_ai.request.model`` when the span has no response model), ``gen_ai.usage.
input_tokens`` / ``output_tokens``, ``gen_ai.response.id`` (else trace and span id) as the row id,
``startTimeUnixNano`` as the timestamp, end − start as the latency, status code ERROR (2) or an
``error.type`` attribute as an error; the resource's ``service.name`` becomes the tag ``tag:service``. A
span with no ``gen_ai.*`` model attribute is not a model call and is skipped. Spans carry no review, so
every row's outcome is ``not_reviewed``.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evaluator.inputs.capped_json import JsonRefused, parse_json
from governance.monitoring.store_feed_import import FeedError

MAX_BYTES = 512 * 1024 * 1024
"""Largest OTLP JSON file flattened in memory (a bigger export goes through the collector in parts)."""


def _value(v: dict) -> Any:
    for key in ("stringValue", "intValue", "doubleValue", "boolValue"):
        if key in v:
            return v[key]
    return None


def _attrs(items: Any) -> dict[str, Any]:
    return {a.get("key"): _value(a.get("value") or {}) for a in items or [] if isinstance(a, dict)}


def _iso(nanos: Any, where: str) -> str:
    try:
        n = int(nanos)
    except (TypeError, ValueError):
        raise FeedError(
            f"{where}: startTimeUnixNano {nanos!r} is not a whole number of nanoseconds"
        ) from None
    return datetime.fromtimestamp(n / 1e9, UTC).isoformat().replace("+00:00", "Z")


def _documents(text: str) -> list[Any]:
    try:
        return [parse_json(text)]
    except json.JSONDecodeError:
        return [parse_json(line) for line in text.splitlines() if line.strip()]


def otel_feed_rows(doc: Any, name: str = "file") -> list[dict[str, Any]]:
    """The GenAI spans of one OTLP JSON trace export, as feed rows (dicts of the feed's columns).

    Raises:
        FeedError: not an OTLP trace export, or a span without a readable start time.

    Example:
        >>> span = {"traceId": "ab", "spanId": "cd", "startTimeUnixNano": "1767225600000000000",
        ...         "endTimeUnixNano": "1767225601500000000", "status": {"code": 2},
        ...         "attributes": [{"key": "gen_ai.response.model",
        ...                         "value": {"stringValue": "gpt-4o-2024-08-06"}}]}
        >>> row = otel_feed_rows({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})[0]
        >>> row["timestamp"], row["served_model"], row["latency_ms"], row["error"]
        ('2026-01-01T00:00:00Z', 'gpt-4o-2024-08-06', '1500.0', 'true')
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("resourceSpans"), list):
        raise FeedError(f"{name}: not an OTLP JSON trace export (no resourceSpans)")
    rows = []
    for resource in doc["resourceSpans"]:
        res = _attrs((resource.get("resource") or {}).get("attributes"))
        for scope in resource.get("scopeSpans") or []:
            for span in scope.get("spans") or []:
                a = _attrs(span.get("attributes"))
                model = a.get("gen_ai.response.model") or a.get("gen_ai.request.model")
                if not model:
                    continue
                where = f"{name}: span {len(rows) + 1}"
                start, end = span.get("startTimeUnixNano"), span.get("endTimeUnixNano")
                status = (span.get("status") or {}).get("code")
                failed = status in (2, "2", "STATUS_CODE_ERROR") or "error.type" in a
                row: dict[str, Any] = {
                    "id": a.get("gen_ai.response.id")
                    or f"{span.get('traceId', '')}:{span.get('spanId', '')}",
                    "timestamp": _iso(start, where),
                    "served_model": str(model),
                    "outcome": "not_reviewed",
                    "error": "true" if failed else "false",
                    "tokens_in": a.get("gen_ai.usage.input_tokens"),
                    "tokens_out": a.get("gen_ai.usage.output_tokens"),
                }
                if end is not None:
                    try:
                        row["latency_ms"] = (int(end) - int(start)) / 1e6
                    except (TypeError, ValueError):
                        raise FeedError(f"{where}: endTimeUnixNano {end!r} is not a whole number") from None
                if res.get("service.name"):
                    row["tag:service"] = str(res["service.name"])
                rows.append({k: (None if v is None else str(v)) for k, v in row.items()})
    if not rows:
        raise FeedError(f"{name}: no GenAI spans (no span has gen_ai.request.model or gen_ai.response.model)")
    return rows


@contextlib.contextmanager
def otel_to_feed(path: Path) -> Iterator[Path]:
    """The GenAI spans of an OTLP JSON file as a temporary JSON-lines feed file (removed afterwards).

    Raises:
        FeedError: unreadable, too large, not OTLP JSON, or no GenAI span.
    """
    if path.stat().st_size > MAX_BYTES:
        raise FeedError(f"{path.name}: larger than {MAX_BYTES // 2**20} MB; export the spans in parts")
    try:
        docs = _documents(path.read_text(encoding="utf-8-sig"))
    except (JsonRefused, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FeedError(f"{path.name}: not OTLP JSON ({str(exc).splitlines()[0]})") from None
    rows = [r for d in docs for r in otel_feed_rows(d, path.name)]
    with tempfile.TemporaryDirectory(prefix="medassure-otel-") as tmp:
        flat = Path(tmp) / (path.stem + ".jsonl")
        with flat.open("w", encoding="utf-8") as out:
            for r in rows:
                out.write(json.dumps({k: v for k, v in r.items() if v is not None}) + "\n")
        yield flat
