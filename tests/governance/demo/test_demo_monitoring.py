"""The demo's six months of monitoring are the timeline issue 28 describes, written through the real import.

Known answers: the month-5 rate and its Wilson interval are recomputed here from the generated rows
with statsmodels; the timeline (pause in month 4, CUSUM review in month 5 while that month's interval
still reaches below the 5% bar, resolved by the chair with a note) is read from the stored status.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from statsmodels.stats.proportion import proportion_confint

from governance.demo.monitoring import CHAIR, RESOLUTION
from governance.demo.monitoring_feed import (
    APPROVED_SERVED,
    PER_MONTH,
    UPDATED_SERVED,
    demo_feed_rows,
    demo_months,
)
from governance.dossier.store import Store
from governance.monitoring.operations.feed import monitoring_status
from governance.monitoring.records import FeedImport, SignalAction
from tests.demo_monitoring import DEMO, copy_demo, demo_db  # noqa: F401 (fixture)


@pytest.fixture(scope="module")
def demo(demo_db):  # noqa: F811
    store = Store.open(demo_db)
    version = store.load(DEMO)
    yield store, version, monitoring_status(store, DEMO)
    store.close()


def _month(at: datetime) -> str:
    return f"{at:%Y-%m}"


def test_six_monthly_imports_of_the_generated_rows_all_labelled_demo_data(demo):
    store, version, status = demo
    imports = [e for e in version.dossier.monitoring if isinstance(e, FeedImport)]
    months = demo_months(version.created_at)
    assert [i.file_name for i in imports] == [f"DEMO-DATA-portal-feed-{m}.csv" for m in months]
    assert [i.rows_added for i in imports] == [PER_MONTH] * 6
    assert status.rows == 6 * PER_MONTH


def test_pause_in_month_four_for_the_silent_vendor_update(demo):
    _, version, status = demo
    months = demo_months(version.created_at)
    (pause,) = [s for s in status.signals if s.level == "pause" and s.kind != "retirement"]
    assert pause.kind == "model_change" and _month(pause.first_seen) == months[3]
    assert pause.state == "open" and status.status == "pause"
    rows = demo_feed_rows(version.created_at)
    updated = sum(r["served_model"] == UPDATED_SERVED for r in rows)
    assert f"{updated} outputs were served as {UPDATED_SERVED}" in pause.detail
    assert {r["served_model"] for r in rows if not r["timestamp"].startswith(months[3])} == {APPROVED_SERVED}
    assert pause.command and "reevaluate" in pause.command and version.dossier.reevaluations


def test_cusum_signals_in_month_five_before_the_monthly_rate_crosses_the_bar(demo):
    _, version, status = demo
    months = demo_months(version.created_at)
    # the feed is quiet in months 1-3 (the vendor's retirement calendar is not the feed: its own test)
    quiet = [s for s in status.signals if _month(s.first_seen) in months[:3] and s.kind != "retirement"]
    assert quiet == [], "months 1-3 are quiet"
    (drift,) = [s for s in status.signals if s.kind == "drift"]
    assert drift.level == "review" and _month(drift.first_seen) == months[4]
    (cusum,) = [c for c in status.cusum if c.kind == "bernoulli"]
    assert cusum.first_seen == drift.first_seen and cusum.values[cusum.signal_index] >= cusum.limit
    rates = {m.month: m for m in status.metrics["material_correction_share"]}
    fifth = rates[months[4]]
    assert not any(m.above_bar for m in rates.values()), "no month's interval is wholly above the bar"
    assert fifth.interval[0] < fifth.bar < fifth.interval[1]
    assert not any(s.kind == "rate_above_bar" for s in status.signals)
    # recomputed from the generated rows: audited outputs of month 5 and their material verdicts
    rows = [r for r in demo_feed_rows(version.created_at) if r["timestamp"].startswith(months[4])
            and r["audited"] == "true"]
    material = sum(r["audit_verdict"] == "material" for r in rows)
    assert fifth.n == len(rows) and fifth.rate == pytest.approx(material / len(rows))
    assert fifth.interval == pytest.approx(proportion_confint(material, len(rows), method="wilson"))


def test_the_review_is_acknowledged_then_resolved_by_the_chair_with_a_note(demo):
    _, version, status = demo
    (drift,) = [s for s in status.signals if s.kind == "drift"]
    assert drift.state == "resolved"
    actions = [e for e in version.dossier.monitoring
               if isinstance(e, SignalAction) and e.signal_id == drift.id]
    assert [a.kind for a in actions] == ["signal_ack", "signal_resolve"]
    assert actions[-1].by == CHAIR and actions[-1].reason == RESOLUTION and "DEMO DATA" in RESOLUTION


def test_the_feed_is_the_same_for_the_same_month():
    now = datetime(2026, 12, 1, 12, tzinfo=UTC)
    assert demo_feed_rows(now)[:50] == demo_feed_rows(now.replace(day=20))[:50]


def test_the_retirement_of_the_approved_snapshot_pauses_and_is_warned_at_decision_time(
    demo, demo_db, tmp_path, capsys  # noqa: F811
):
    """Issue 37: the demo approves GPT-4o (2024-05-13); litellm's shipped map retires gpt-4o-2024-05-13 on
    2026-10-23, before the demo's decision (seeded now). Known answer read from the map file itself."""
    import importlib.metadata
    import json

    from cli import main
    from governance.decision import decision_memo
    from governance.rules.assessment import assessment_and_recommendation
    from tests.governance.monitoring.test_retirement import MAP

    _, version, _ = demo
    assert MAP["gpt-4o-2024-05-13"]["deprecation_date"] == "2026-10-23"
    assert version.dossier.decision.decided_at.date() > date(2026, 10, 23)
    code = main(["--home", str(copy_demo(demo_db, tmp_path / "home").parent), "monitor", "status", DEMO])
    payload = json.loads(capsys.readouterr().out)
    # a monthly import inside the 90-day window recorded the review first; the date passed: a pause
    (sig,) = [s for s in payload["signals"] if s["kind"] == "retirement" and s["level"] == "pause"]
    assert (sig["metric"], sig["first_seen"][:10]) == ("gpt-4o-2024-05-13", "2026-10-23")
    assert {s["level"] for s in payload["signals"] if s["kind"] == "retirement"} <= {"review", "pause"}
    assert f"litellm {importlib.metadata.version('litellm')}" in sig["detail"] and code == 4
    memo = decision_memo(version.dossier, *assessment_and_recommendation(version.dossier))
    assert memo.retirement and "gpt-4o-2024-05-13 on 2026-10-23" in memo.retirement[0]
    assert "already past" in memo.retirement[0]
