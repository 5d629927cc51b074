"""The Monitoring page's words and numbers (issue 36 item 13): when a signal was first seen, the bar in the
rate's own form, why the latency CUSUM is not charted, and the candidate's recorded prompt version."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from statsmodels.stats.proportion import proportion_confint

from governance.decision.records import MonitoredMetric
from governance.monitoring.feed_records import FeedAggregates, IdentitySeen, MonthCounts
from governance.monitoring.status import compute_status
from governance.procurement.records import Candidate
from tests.governance.monitoring_fixtures import CANDIDATE, NOW, decided_dossier, monitoring_plan

T0 = datetime(2026, 2, 1, tzinfo=UTC)


def feed(**kw) -> FeedAggregates:
    served = IdentitySeen(value="m-1", n=100, first_seen=T0, last_seen=T0 + timedelta(days=1))
    return FeedAggregates(**{"candidate": CANDIDATE, "rows": 100, "served_models": [served],
                             "months": [MonthCounts(month="2026-02", n=100)], **kw})


def test_a_rate_signal_is_first_seen_at_the_months_first_output_and_says_its_bar_as_a_percentage():
    # go-live mid-month: the month's start (2026-03-01) was before any output
    first = datetime(2026, 3, 17, 9, 30, tzinfo=UTC)
    months = [MonthCounts(month="2026-03", n=2000, audited=1000, audit_material=61, first_ts=first)]
    bar = MonitoredMetric(name="share of audited outputs needing a material correction", threshold=0.02,
                          direction="at_most")
    s = compute_status(decided_dossier(monitoring_plan(metrics=[bar])), feed(months=months), now=NOW,
                       candidate=CANDIDATE)
    (sig,) = s.signals
    lo, hi = proportion_confint(61, 1000, method="wilson")  # 4.8% to 7.8%: above the 2% bar
    assert lo > 0.02
    assert sig.first_seen == first
    assert sig.detail == ("share of audited outputs needing a material correction in 2026-03: 6.1% "
                          f"(95% interval {lo:.1%} to {hi:.1%}) on 1,000, above the bar of 2.0%")


def test_a_value_metric_keeps_one_number_form_for_the_value_and_its_bar():
    bar = MonitoredMetric(name="p95 latency (ms)", threshold=2000.0, direction="at_most")
    plan = monitoring_plan(metrics=[*monitoring_plan().metrics, bar])
    months = [MonthCounts(month="2026-02", n=100, latency_p95_ms=2500.0, latency_rows=100, first_ts=T0)]
    s = compute_status(decided_dossier(plan), feed(months=months), now=NOW, candidate=CANDIDATE)
    (sig,) = [x for x in s.signals if x.metric == "latency_p95_ms"]
    assert sig.detail == "p95 latency (ms) in 2026-02: 2,500.00 on 100, above the bar of 2,000.00"


def test_the_latency_cusum_counts_the_decision_day_and_says_why_it_is_not_charted():
    decided = datetime(2026, 1, 1, 14, 0, tzinfo=UTC)  # rows from the same afternoon onwards
    d = decided_dossier(decided_at=decided)
    day0 = datetime(2026, 1, 1, tzinfo=UTC)  # the store stamps a day's mean at its UTC midnight
    one_day = feed(latency_daily_means=[820.0], latency_days=[day0])
    (lat,) = [c for c in compute_status(d, one_day, now=NOW, candidate=CANDIDATE).cusum
              if "latency" in c.metric]
    assert lat.limit is None
    assert lat.note == ("not charted yet: its baseline is the first 14 days after the decision, and 1 is "
                        "stored so far")
    # 14 days from the decision day on set the baseline; the 15th is watched
    days = [day0 + timedelta(days=i) for i in range(15)]
    means = [800.0 + (i % 3) for i in range(15)]
    (lat,) = [c for c in compute_status(d, feed(latency_daily_means=means, latency_days=days), now=NOW,
                                        candidate=CANDIDATE).cusum if "latency" in c.metric]
    assert lat.limit is not None and len(lat.values) == 1
    assert lat.baseline == pytest.approx(sum(means[:14]) / 14)


def test_days_before_the_decision_are_named_as_not_counting():
    d = decided_dossier(decided_at=datetime(2026, 1, 10, 8, 0, tzinfo=UTC))
    days = [datetime(2026, 1, 8 + i, tzinfo=UTC) for i in range(3)]  # 8th and 9th before the decision
    (lat,) = [c for c in compute_status(d, feed(latency_daily_means=[1.0, 2.0, 3.0], latency_days=days),
                                        now=NOW, candidate=CANDIDATE).cusum if "latency" in c.metric]
    assert lat.note.endswith("1 is stored so far; 2 earlier ones, before the decision, do not count")


def _with_candidate(plan=None, prompt_version="portal-v7"):
    c = Candidate(id="m1", vendor="Acme", product="Portal drafts", model_id="m-1",
                  evidence_models=[CANDIDATE], prompt_version=prompt_version, added_by="buyer",
                  added_at=datetime(2025, 12, 1, tzinfo=UTC))
    return decided_dossier(plan).model_copy(update={"candidates": [c]})


def test_the_candidates_recorded_prompt_version_is_checked_when_the_plan_names_none():
    prompts = [IdentitySeen(value="portal-v7", n=80, first_seen=T0, last_seen=T0),
               IdentitySeen(value="portal-v8", n=20, first_seen=T0 + timedelta(days=3), last_seen=T0)]
    s = compute_status(_with_candidate(), feed(prompt_versions=prompts), now=NOW, candidate=CANDIDATE)
    assert (s.approved.prompt_version, s.approved.prompt_source) == (
        "portal-v7", "the candidate record Acme · Portal drafts (the plan names none)")
    (sig,) = s.signals
    assert (sig.kind, sig.level, sig.first_seen) == ("prompt_change", "pause", T0 + timedelta(days=3))
    assert "Approved prompt version portal-v7, from the candidate record Acme · Portal drafts " \
           "(the plan names none)." in s.notes
    assert not any(n.startswith("No approved prompt version") for n in s.notes)
    # the plan's own version wins, and says so
    s = compute_status(_with_candidate(monitoring_plan(approved_prompt_version="portal-v8")),
                       feed(prompt_versions=prompts), now=NOW, candidate=CANDIDATE)
    assert (s.approved.prompt_version, s.approved.prompt_source) == (
        "portal-v8", "the monitoring plan (or go-live settings)")
    # a candidate without a prompt version: nothing checked, and the note says where it looked
    s = compute_status(_with_candidate(prompt_version=""), feed(prompt_versions=prompts), now=NOW,
                       candidate=CANDIDATE)
    assert s.approved.prompt_version is None and s.signals == []
    assert any(n.startswith("No approved prompt version is recorded (neither the plan nor") for n in s.notes)


def test_the_store_gives_each_months_first_output(any_store, tmp_path):
    from governance.identity import Actor
    from governance.monitoring.operations.feed import import_feed
    from tests.governance.monitoring_fixtures import feed_rows, write_csv

    dossier_id = any_store.save(decided_dossier(), author="chair").dossier.id
    start = datetime(2026, 2, 10, 7, 15, tzinfo=UTC)  # 600 hourly rows: 10 Feb 07:15 to 7 Mar 06:15
    import_feed(any_store, dossier_id, write_csv(tmp_path / "feed.csv", feed_rows(600, start=start)),
                actor=Actor.named("qa"), now=NOW)
    months = any_store.monitoring.aggregates(dossier_id, CANDIDATE).months
    assert [(m.month, m.first_ts) for m in months] == [
        ("2026-02", start), ("2026-03", datetime(2026, 3, 1, 0, 15, tzinfo=UTC))]
