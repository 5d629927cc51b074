"""The same feed gives the same aggregates and the same status on DuckDB and on PostgreSQL.

Why: the two backends compute the status's aggregates with SQL of their own (``percentile_cont`` against
``quantile_cont``, the identities and totals in one ``GROUPING SETS`` scan since issue 35 item 7), and a
faster query on one of them must not move a count, a percentile or a signal. Values are chosen so every sum
and percentile is exact in binary floating point, so the two must agree to the bit.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from governance.dossier.store import Store
from governance.identity import Actor
from governance.monitoring.operations.feed import import_feed, monitoring_status
from tests.governance.monitoring_fixtures import NOW, decided_dossier, write_csv

SEVERITIES = ("", "minor", "", "moderate", "", "", "severe")
OUTCOMES = ("accepted", "minor_edit", "material_correction", "discarded", "not_reviewed")


def _rows() -> list[dict]:
    start, rows = datetime(2026, 2, 1, tzinfo=UTC), []
    for i in range(240):  # ten days of rows every hour, over two months
        audited = i % 3 == 0
        rows.append({
            "id": f"r{i}",
            "timestamp": (start + i * timedelta(hours=7)).isoformat().replace("+00:00", "Z"),
            "served_model": "m-1" if i < 200 else "m-1b",
            "prompt_version": "v1" if i % 5 else "v2",
            "outcome": OUTCOMES[i % 5 if i % 7 else 4],
            "latency_ms": str(200 + (i * 37) % 1000),
            "cost_usd": str((i % 4) * 0.25),
            "review_seconds": str(10 + (i * 13) % 90),
            "audited": "true" if audited else "false",
            "audit_verdict": ("material" if i % 9 == 0 else "correct") if audited else "",
            "severity": SEVERITIES[i % len(SEVERITIES)],
            "sentinel": "true" if i % 11 == 0 else "false",
            "tag:site": f"site-{i % 3}",
            **({"tag:ward": "icu"} if i % 4 == 0 else {}),
        })
    return rows


def _read(store: Store, path) -> tuple[dict, dict, tuple]:
    dossier_id = store.save(decided_dossier(), author="chair").dossier.id
    result = import_feed(store, dossier_id, path, actor=Actor.named("qa"), now=NOW)
    status = monitoring_status(store, dossier_id, now=NOW)
    aggregates = store.monitoring.aggregates(dossier_id, status.approved.candidate)
    return aggregates.model_dump(), status.model_dump(exclude={"computed_at"}), (
        result.record.rows_added, result.new_signals, result.status.status)


@pytest.mark.postgres
def test_status_and_aggregates_are_the_same_on_both_backends(home, pg_url, tmp_path):
    path = write_csv(tmp_path / "feed.csv", _rows())
    duck = Store.open(home / "medassure.duckdb")
    pg = Store.open_url(pg_url)
    try:
        d_agg, d_status, d_import = _read(duck, path)
        p_agg, p_status, p_import = _read(pg, path)
    finally:
        duck.close()
        pg.close()
    assert p_agg == d_agg
    assert p_status == d_status
    assert p_import[0] == d_import[0] == 240 and p_import[2] == d_import[2]
    # known answers: the identities with their counts and first times, the totals, the severities seen
    assert (d_agg["rows"], [(s["value"], s["n"]) for s in d_agg["served_models"]]) == (
        240, [("m-1", 200), ("m-1b", 40)])
    assert [(s["value"], s["n"]) for s in d_agg["prompt_versions"]] == [("v2", 48), ("v1", 192)]
    assert sorted((s["value"], s["n"]) for s in d_agg["severities"]) == [
        ("minor", 35), ("moderate", 34), ("severe", 34)]
    assert d_agg["first_timestamp"] == datetime(2026, 2, 1, tzinfo=UTC)
    assert [(t["tag"], t["value"], t["n"]) for t in d_agg["tags"]] == [
        ("site", "site-0", 80), ("site", "site-1", 80), ("site", "site-2", 80), ("ward", "icu", 60)]
