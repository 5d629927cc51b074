"""Feeds in their own formats: Parquet, OpenTelemetry GenAI spans in OTLP JSON, LiteLLM's spend-log export."""

from __future__ import annotations

import csv
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from governance.identity import Actor
from governance.monitoring.operations.feed import import_feed, monitoring_status
from governance.monitoring.store_feed_import import FeedError
from tests.governance.monitoring_fixtures import NOW, decided_dossier, feed_rows, genai_span, otlp_export


@pytest.fixture
def dossier_id(store):
    return store.save(decided_dossier(), author="chair").dossier.id


def test_parquet_with_typed_columns(store, dossier_id, tmp_path):
    rows = feed_rows(40)
    table = pa.table(
        {
            "id": [r["id"] for r in rows],
            "timestamp": pa.array([r["timestamp"].replace("Z", "+00:00") for r in rows]).cast(pa.string()),
            "served_model": [r["served_model"] for r in rows],
            "outcome": [r["outcome"] for r in rows],
            "audited": [r["audited"] == "true" for r in rows],
            "tokens_in": pa.array([10] * 40, pa.int64()),
            "latency_ms": [float(i) for i in range(40)],
            "tag:site": ["north"] * 20 + ["south"] * 20,
        }
    )
    path = tmp_path / "feed.parquet"
    pq.write_table(table, path)
    result = import_feed(store, dossier_id, path, actor=Actor.named("qa"), now=NOW)
    assert result.record.rows_added == 40
    # p95 of 0..39 by linear interpolation: 37.05
    assert result.status.metrics["latency_p95_ms"][0].rate == pytest.approx(37.05)
    assert {(r["value"], r["n"]) for r in result.status.subgroups} == {("north", 20), ("south", 20)}


def test_parquet_timestamps_without_zone_are_refused(store, dossier_id, tmp_path):
    import datetime as dt

    table = pa.table(
        {
            "timestamp": pa.array([dt.datetime(2026, 2, 1, 10)], pa.timestamp("us")),
            "served_model": ["m-1"],
            "outcome": ["accepted"],
        }
    )
    pq.write_table(table, tmp_path / "naive.parquet")
    with pytest.raises(FeedError, match="row 1: timestamp is not an ISO 8601 date and time with a zone"):
        import_feed(store, dossier_id, tmp_path / "naive.parquet", actor=Actor.named("qa"), now=NOW)
    table = pa.table(
        {
            "timestamp": pa.array([dt.datetime(2026, 2, 1, 10, tzinfo=dt.UTC)], pa.timestamp("us", "UTC")),
            "served_model": ["m-1"],
            "outcome": ["accepted"],
            "cost_usd": [float("nan")],
        }
    )
    pq.write_table(table, tmp_path / "nan.parquet")
    with pytest.raises(FeedError, match="row 1: cost_usd is not a finite number"):
        import_feed(store, dossier_id, tmp_path / "nan.parquet", actor=Actor.named("qa"), now=NOW)


def test_otel_genai_spans(store, dossier_id, tmp_path):
    spans = [genai_span(i) for i in range(6)] + [genai_span(6, model="m-1-turbo", error=True)]
    spans.append(
        {
            "traceId": "ff",
            "spanId": "ee",
            "name": "GET /health",
            "startTimeUnixNano": "1770000000000000000",
            "attributes": [{"key": "http.method", "value": {"stringValue": "GET"}}],
        }
    )  # not a model call
    path = tmp_path / "traces.json"
    path.write_text(json.dumps(otlp_export(spans)), encoding="utf-8")
    result = import_feed(store, dossier_id, path, source="otel", actor=Actor.named("qa"), now=NOW)
    assert (result.record.rows_in_file, result.record.rows_added, result.record.source) == (7, 7, "otel")
    status = result.status
    # 1 of 7 spans has status ERROR
    (err,) = status.metrics["error_rate"]
    assert (err.n, err.rate) == (7, pytest.approx(1 / 7))
    assert status.metrics["latency_p95_ms"][0].rate == pytest.approx(1250.0)
    assert [(s.kind, s.metric) for s in status.signals] == [("model_change", "served_model")]
    assert "m-1-turbo" in status.signals[0].detail
    # the collector's file exporter writes one export per line: the same spans again add nothing
    lines = tmp_path / "traces.jsonl"
    lines.write_text(json.dumps(otlp_export(spans[:3])) + "\n" + json.dumps(otlp_export(spans[3:])) + "\n")
    assert import_feed(store, dossier_id, lines, source="otel",
                       actor=Actor.named("qa"), now=NOW).record.rows_added == 0


def test_otel_refusals(store, dossier_id, tmp_path):
    (tmp_path / "x.json").write_text(json.dumps({"resourceLogs": []}), encoding="utf-8")
    with pytest.raises(FeedError, match="not an OTLP JSON trace export"):
        import_feed(store, dossier_id, tmp_path / "x.json", source="otel", actor=Actor.named("qa"), now=NOW)
    bad = genai_span(0)
    bad["startTimeUnixNano"] = "soon"
    (tmp_path / "y.json").write_text(json.dumps(otlp_export([bad])), encoding="utf-8")
    with pytest.raises(FeedError, match="span 1: startTimeUnixNano 'soon'"):
        import_feed(store, dossier_id, tmp_path / "y.json", source="otel", actor=Actor.named("qa"), now=NOW)
    assert store.monitoring.row_count(dossier_id) == 0


LITELLM_COLUMNS = [
    "request_id",
    "call_type",
    "api_key",
    "spend",
    "total_tokens",
    "prompt_tokens",
    "completion_tokens",
    "startTime",
    "endTime",
    "completionStartTime",
    "model",
    "model_id",
    "model_group",
    "custom_llm_provider",
    "api_base",
    "user",
    "metadata",
    "cache_hit",
    "cache_key",
    "request_tags",
    "team_id",
    "end_user",
    "requester_ip_address",
    "messages",
    "response",
    "session_id",
    "status",
    "proxy_server_request",
]


def _spend_row(i: int, *, status: str = "success", served: str = "m-1") -> dict:
    return {
        "request_id": f"chatcmpl-{i}",
        "call_type": "acompletion",
        "api_key": "88dc28d0f030c55ed4ab77ed8faf098196cb1c05df778539800c9f1243fe6b4b",
        "spend": "0.00125",
        "total_tokens": "150",
        "prompt_tokens": "100",
        "completion_tokens": "50",
        "startTime": f"2026-02-0{1 + i % 5} 10:00:00.000",
        "endTime": f"2026-02-0{1 + i % 5} 10:00:02.500",
        "completionStartTime": "",
        "model": "m-1",
        "model_id": "abc",
        "model_group": "portal-drafts",
        "custom_llm_provider": "openai",
        "api_base": "http://127.0.0.1:9/v1",
        "user": "",
        "metadata": "{}",
        "cache_hit": "False",
        "cache_key": "",
        "request_tags": "[]",
        "team_id": "",
        "end_user": "",
        "requester_ip_address": "",
        "messages": "{}",
        "response": json.dumps({"model": served}),
        "session_id": "",
        "status": status,
        "proxy_server_request": "{}",
    }


def test_litellm_spend_logs(store, dossier_id, tmp_path):
    path = tmp_path / "spend_logs.csv"
    rows = [_spend_row(i) for i in range(9)] + [_spend_row(9, status="failure")]
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=LITELLM_COLUMNS)
        w.writeheader()
        w.writerows(rows)
    result = import_feed(store, dossier_id, path, source="litellm", actor=Actor.named("qa"), now=NOW)
    assert result.record.rows_added == 10
    m = result.status.metrics
    assert (m["error_rate"][0].n, m["error_rate"][0].rate) == (10, pytest.approx(0.1))
    assert m["cost_per_1k"][0].rate == pytest.approx(1.25)  # 0.00125 USD a request
    assert m["latency_p95_ms"][0].rate == pytest.approx(2500.0)
    assert result.status.status == "in_control"
    assert [(r["tag"], r["value"], r["n"]) for r in result.status.subgroups] == [
        ("model_group", "portal-drafts", 10)
    ]
    # the response names another served model: the identity check sees it
    path2 = tmp_path / "spend_logs2.csv"
    with path2.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=LITELLM_COLUMNS)
        w.writeheader()
        w.writerow(_spend_row(20, served="m-2-preview"))
    import_feed(store, dossier_id, path2, source="litellm", actor=Actor.named("qa"), now=NOW)
    assert monitoring_status(store, dossier_id, now=NOW).status == "pause"


def test_a_file_that_is_not_a_spend_log_is_refused(store, dossier_id, tmp_path):
    (tmp_path / "x.csv").write_text("timestamp,served_model,outcome\n2026-02-01T00:00:00Z,m-1,accepted\n")
    with pytest.raises(
        FeedError, match="not a LiteLLM spend-log export: no column request_id, model, startTime"
    ):
        import_feed(store, dossier_id, tmp_path / "x.csv", source="litellm", actor=Actor.named("qa"), now=NOW)


def test_free_text_stays_in_the_store_and_examples_come_masked(store, dossier_id, tmp_path):
    from governance.monitoring.operations.feed import masked_examples
    from tests.governance.monitoring_fixtures import write_jsonl

    rows = feed_rows(3)
    rows[0]["text"] = "Mr. Robert Chen-Morales, DOB: 03/14/1961: your refill is ready."
    rows[0]["outcome"] = "material_correction"
    rows[1]["text"] = "Your refill was sent to the pharmacy today."
    import_feed(store, dossier_id, write_jsonl(tmp_path / "t.jsonl", rows), actor=Actor.named("qa"), now=NOW)
    first, second = masked_examples(store, dossier_id)
    assert first.row_key == "r0" and first.text == "[NAME], DOB: [DATE]: your refill is ready."
    assert first.masked == {"name": 1, "dob": 1}
    assert second.text == "Your refill was sent to the pharmacy today." and second.masked == {}
