"""The monitoring status as a pure function of a dossier and hand-built feed aggregates (known answers)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from statsmodels.stats.proportion import proportion_confint

from governance.decision.records import MonitoringPlan
from governance.monitoring.feed_records import FeedAggregates, IdentitySeen, MonthCounts, TagCount
from governance.monitoring.ladder import signal_id
from governance.monitoring.records import SignalAction, SignalRecord
from governance.monitoring.status import compute_status
from tests.governance.monitoring_fixtures import CANDIDATE, NOW, decided_dossier, monitoring_plan

T0 = datetime(2026, 2, 1, tzinfo=UTC)


def seen(value, n=10, at=T0):
    return IdentitySeen(value=value, n=n, first_seen=at, last_seen=at + timedelta(days=1))


def feed(**kw) -> FeedAggregates:
    base = dict(
        candidate=CANDIDATE,
        rows=100,
        months=[MonthCounts(month="2026-02", n=100)],
        served_models=[seen("m-1", 100)],
    )
    return FeedAggregates(**{**base, **kw})


def status(aggregates, plan=None, now=NOW, **kw):
    d = decided_dossier(plan, **kw)
    return compute_status(d, aggregates, now=now, candidate=CANDIDATE)


def test_in_control_when_the_approved_model_serves_within_its_bars():
    s = status(feed())
    assert (s.status, s.signals, s.approved.model, s.approved.accepted_models) == (
        "in_control",
        [],
        "m-1",
        ["m-1"],
    )
    assert s.approved.source == "the decided run's model string"
    assert s.plan_source == "the dossier's review and monitoring plan"


def test_served_identity_of_the_decided_run_and_aliases_decide_what_is_approved():
    d = decided_dossier(monitoring_plan(model_aliases=["openai/m-1-eu"]))
    aggregates = feed(served_models=[seen("m-1-2026-01-15", 50), seen("M-1-EU", 20), seen("m-1", 30)])
    s = compute_status(d, aggregates, now=NOW, candidate=CANDIDATE, served=["m-1-2026-01-15"])
    # the decided run was served as m-1-2026-01-15: plain m-1 (the string asked for) is another identity
    assert s.approved.accepted_models == ["m-1-2026-01-15", "m-1-eu"]
    assert [(x.kind, x.level, x.detail.split(",")[0]) for x in s.signals] == [
        ("model_change", "pause", "30 outputs were served as m-1")
    ]
    assert s.status == "pause" and s.reevaluation_command == "medassure reevaluate D-mon1"


def test_prompt_versions_are_checked_once_one_is_approved():
    aggregates = feed(prompt_versions=[seen("v3", 80), seen("v4", 20, T0 + timedelta(days=9))])
    assert status(aggregates).status == "in_control"
    s = status(aggregates, monitoring_plan(approved_prompt_version="v3"))
    (sig,) = s.signals
    assert (sig.kind, sig.metric, sig.first_seen) == (
        "prompt_change",
        "prompt_version",
        T0 + timedelta(days=9),
    )
    assert sig.deadline == NOW + timedelta(hours=4)


def test_a_monthly_rate_is_above_its_bar_only_when_the_wilson_lower_bound_is():
    # 5% bar: 9 of 100 audited (lower bound 4.8%) is not above; 11 of 100 (lower 6.3%) is
    lo9, _ = proportion_confint(9, 100, method="wilson")
    lo11, hi11 = proportion_confint(11, 100, method="wilson")
    assert lo9 < 0.05 < lo11
    months = [
        MonthCounts(month="2026-02", n=2000, audited=100, audit_material=9),
        MonthCounts(month="2026-03", n=2000, audited=100, audit_material=11),
    ]
    s = status(feed(months=months))
    feb, mar = s.metrics["material_correction_share"]
    assert (feb.above_bar, mar.above_bar) == (False, True)
    assert mar.interval == pytest.approx((lo11, hi11))
    (sig,) = s.signals
    assert (sig.kind, sig.level, sig.metric, sig.first_seen) == (
        "rate_above_bar",
        "review",
        "material_correction_share",
        datetime(2026, 3, 1, tzinfo=UTC),
    )
    assert sig.deadline == NOW + timedelta(hours=48) and sig.owner == "AI quality lead"
    assert s.status == "review"


def test_without_an_agreed_plan_the_tier_defaults_are_used_and_said():
    s = status(feed(), with_plan=False)
    assert s.plan_source == "the defaults for tier moderate (no review and monitoring plan agreed)"
    assert s.notes[0].startswith("Plan: the defaults for tier moderate")
    assert s.metrics["material_correction_share"][0].bar == 0.05  # oversight.yaml, tier moderate


def _llr_first_signal(series, p0, p1, h):
    """The Bernoulli CUSUM by hand (Reynolds & Stoumbos): first index where S reaches h."""
    w1, w0 = math.log(p1 / p0), math.log((1 - p1) / (1 - p0))
    s = 0.0
    for i, x in enumerate(series):
        s = max(0.0, s + (w1 if x else w0))
        if s >= h:
            return i
    return None


def test_cusum_signals_drift_with_the_baseline_the_committee_set():
    series = [0] * 400 + ([1] + [0] * 9) * 20  # 0% for 400 audits, then 10% against a 2% baseline
    times = [T0 + timedelta(minutes=i) for i in range(len(series))]
    s = status(feed(correction_series=series, correction_times=times), monitoring_plan(baseline_rate=0.02))
    (c,) = s.cusum
    assert c.baseline_source == "the rate the committee set (plan or go-live settings)"
    assert c.limit is not None and c.signal_index == _llr_first_signal(series, 0.02, 0.04, c.limit)
    assert c.first_seen == times[c.signal_index]
    (sig,) = [x for x in s.signals if x.kind == "drift"]
    assert sig.level == "review" and sig.first_seen == times[c.signal_index]


def test_cusum_default_baseline_is_the_first_thousand_audits_after_the_decision():
    series = [1 if i % 50 == 0 else 0 for i in range(1000)] + [0] * 200  # 2% in the first 1,000
    times = [T0 + timedelta(minutes=i) for i in range(1200)]
    (c,) = status(feed(correction_series=series, correction_times=times)).cusum
    assert c.baseline == pytest.approx(0.02)
    assert c.baseline_source == "the first 1,000 audited outputs after the decision (no baseline agreed)"
    assert len(c.values) == 200 and c.signal_index is None
    (short,) = status(feed(correction_series=series[:10], correction_times=times[:10])).cusum
    assert short.limit is None and "10 are stored so far" in short.note


def test_rubber_stamping_and_missed_sentinels_raise_review():
    months = [
        MonthCounts(
            month="2026-02",
            n=1000,
            reviewed=1000,
            edited=5,
            audited=100,
            audit_material=6,
            review_seconds_median=4.0,
            review_seconds_rows=1000,
            sentinels=20,
            sentinels_caught=12,
        )
    ]
    s = status(feed(months=months), monitoring_plan(review_seconds_floor=8))
    found = sorted((x.kind, x.metric) for x in s.signals)
    # 6 of 100 audited: Wilson lower bound 2.8%, not above the 5% bar
    assert found == [
        ("review_effectiveness", "edit rate"),
        ("review_effectiveness", "review time"),
        ("review_effectiveness", "sentinel_catch_rate"),
    ]
    (catch,) = s.metrics["sentinel_catch_rate"]
    assert catch.rate == 0.6 and catch.interval[1] < 0.9  # Wilson upper bound of 12/20 is 0.78


def test_the_schedule_falls_due_after_the_plan_months():
    s = status(feed(), monitoring_plan(schedule_months=3))  # decided 2026-01-01, now 2026-06-20
    (sig,) = s.signals
    assert (sig.kind, sig.first_seen, sig.command) == (
        "schedule",
        datetime(2026, 4, 1, tzinfo=UTC),
        "medassure reevaluate D-mon1",
    )
    assert s.reevaluation_due == datetime(2026, 4, 1, tzinfo=UTC)


def test_use_outside_the_envelope_and_subgroup_suppression():
    tags = [
        TagCount(tag="dept", value="primary care", n=500, audited=60, audit_material=3, first_seen=T0),
        TagCount(tag="dept", value="emergency", n=40, audited=4, audit_material=1, first_seen=T0),
    ]
    s = status(feed(tags=tags), monitoring_plan(approved_tags={"dept": ["Primary care"]}))
    (sig,) = s.signals
    assert (sig.kind, sig.metric, sig.level) == ("out_of_scope", "tag:dept", "review")
    assert "40 outputs tagged dept = emergency" in sig.detail
    rows = {r["value"]: r for r in s.subgroups}
    assert rows["emergency"]["suppressed"] and rows["emergency"]["share"] is None
    assert rows["primary care"]["share"] == 0.05


def test_feed_rows_with_a_severe_event_suspend():
    s = status(feed(severities=[seen("severe", 1)]))
    assert s.status == "suspend" and s.signals[0].deadline == NOW


def test_recorded_signals_keep_their_deadline_and_resolved_ones_leave_the_ladder():
    aggregates = feed(served_models=[seen("m-2", 5)])
    first = status(aggregates)
    (sig,) = first.signals
    recorded_at = NOW - timedelta(days=2)
    rec = SignalRecord(
        id=sig.id,
        key=sig.key,
        signal_kind=sig.kind,
        level=sig.level,
        candidate=CANDIDATE,
        metric=sig.metric,
        first_seen=sig.first_seen,
        recorded_at=recorded_at,
        owner=sig.owner,
        deadline=recorded_at + timedelta(hours=4),
        action=sig.action,
        detail=sig.detail,
    )
    d = decided_dossier()
    d = d.model_copy(update={"monitoring": [rec]})
    s = compute_status(d, aggregates, now=NOW, candidate=CANDIDATE)
    assert s.signals[0].deadline == recorded_at + timedelta(hours=4) and s.signals[0].state == "open"
    done = SignalAction(kind="signal_resolve", signal_id=sig.id, at=NOW, by="qa", reason="alias agreed")
    d = d.model_copy(update={"monitoring": [rec, done]})
    s = compute_status(d, aggregates, now=NOW, candidate=CANDIDATE)
    assert (s.status, s.signals[0].state) == ("in_control", "resolved")
    assert sig.id == signal_id(sig.key) and sig.key == "M1|model_change|served_model|m-2"


def test_plans_saved_before_monitoring_keep_their_dump_and_hash():
    plan = monitoring_plan()
    dumped = plan.model_dump(mode="json")
    assert set(dumped) == {"triggers", "schedule_months", "metrics", "owner"}
    assert "feed_metric" not in dumped["metrics"][0]
    assert MonitoringPlan.model_validate(dumped) == plan
    assert "target_arl0" in monitoring_plan(target_arl0=1000).model_dump()


def test_daily_mean_latency_has_a_standardized_cusum_with_a_fourteen_day_baseline():
    days = [T0 + timedelta(days=i) for i in range(40)]
    means = [1000.0 + (25 if i % 2 else -25) for i in range(14)] + [1000.0] * 10 + [1100.0] * 16
    s = status(feed(latency_daily_means=means, latency_days=days))
    (c,) = [x for x in s.cusum if x.kind == "standardized"]
    assert c.baseline == 1000.0 and c.baseline_source.startswith("the first 14 days after the decision")
    # self-starting: the ten 1000 ms days enter the estimates (sd 19.5 over 24 days); the first 1100 ms day
    # scores U = 4.085 (t(22) mapped to N(0, 1)), adding 3.585; the second (3.044) reaches 6.13 > h = 5.07
    assert c.limit == pytest.approx(5.07, abs=0.01) and c.signal_index == 11
    assert c.first_seen == days[14 + 11]
    assert any(x.kind == "drift" and x.metric == "daily mean latency (ms)" for x in s.signals)


def test_local_evidence_that_measured_corrections_is_the_baseline_and_accuracy_never_is():
    from evaluator.evidence.record import Evidence

    def ev(metric, score, n):
        return Evidence(id=f"e-{metric}", model=CANDIDATE, benchmark="Portal replies [sc_1 v1]",
                        metric=metric,
                        score=score, normalized_score=score, n=n, provenance="local-run", source="local run",
                        ci_missing_reason="test record",
                        date=T0)

    series = [0] * 100
    times = [T0 + timedelta(minutes=i) for i in range(100)]
    d = decided_dossier().model_copy(update={"evidence": [ev("exact_match", 0.9, 500),
                                                          ev("material_correction_rate", 0.04, 300)]})
    (c,) = compute_status(d, feed(correction_series=series, correction_times=times), now=NOW,
                          candidate=CANDIDATE).cusum
    assert c.baseline == 0.04
    assert c.baseline_source == "the pre-deployment local evidence Portal replies [sc_1 v1] (300 cases)"
    only_accuracy = decided_dossier().model_copy(update={"evidence": [ev("exact_match", 0.9, 500)]})
    (c,) = compute_status(only_accuracy, feed(correction_series=series, correction_times=times), now=NOW,
                          candidate=CANDIDATE).cusum
    assert c.limit is None and c.note.startswith("not charted yet: its baseline is the first 1,000")


def test_a_stored_name_with_an_invisible_mark_is_shown_with_it_written_out():
    # The import refuses such names now; rows stored before that rule (or written into the database by
    # hand) must not print as the approved name: "m-1" + RLM read "outputs were served as m-1".
    s = status(feed(served_models=[seen("m-1", 90), seen("m-1\u200f", 10)],
                    prompt_versions=[seen("v3", 90), seen("v3\u200b", 10)]),
               monitoring_plan(approved_prompt_version="v3"))
    details = sorted(x.detail for x in s.signals)
    assert details[0].startswith("10 outputs used prompt version v3<U+200B>; version v3 was approved")
    assert details[1].startswith("10 outputs were served as m-1<U+200F>, which was not approved")
    assert "\u200f" not in " ".join(details) and "\u200b" not in " ".join(details)
    # the signal's key is still the stored value, so a signal already recorded keeps its id
    assert {x.key.split("|")[-1] for x in s.signals} == {"m-1\u200f", "v3\u200b"}
