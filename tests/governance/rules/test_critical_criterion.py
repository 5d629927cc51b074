"""The critical-criterion rule: miss counts worked out by hand, intervals against statsmodels, verdicts.

A case misses tag T when a T-tagged criterion with positive points is not met or a T-tagged harm
(negative points) is met; unreadable tagged criteria without a miss leave the case undetermined.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from statsmodels.stats.proportion import proportion_confint

from evaluator.evidence.record import CriterionMisses, Evidence
from evaluator.grading.evidence import criterion_misses
from evaluator.grading.records import CaseResult, CriterionResult
from governance.rules.critical_criterion import critical_rows, critical_rule, critical_verdict, miss_interval
from governance.rules.recommendation import recommend_candidate
from governance.rules.rule_text import rule_bar, rule_label, verdict_label
from governance.rules.small_n import exact_binomial_p
from governance.rules.verdicts import Verdict

MED = "medication_change"


def crit(points: float, met: bool | None, *tags: str) -> CriterionResult:
    return CriterionResult(criterion=f"c{points}{tags}", points=points, tags=list(tags), met=met)


def test_miss_counts_by_hand():
    cases = [
        # states the change (+5 met), invents none (-4 not met): no miss
        CaseResult(id="1", score=1.0, criteria=[crit(5, True, MED), crit(-4, False, MED)]),
        # the change omitted: a miss of MED; follow-up met
        CaseResult(id="2", score=0.4, criteria=[crit(5, False, MED), crit(3, True, "follow_up")]),
        # the change stated but a change invented (harm met): a miss of MED
        CaseResult(id="3", score=0.2, criteria=[crit(5, True, MED), crit(-4, True, MED)]),
        # one tagged criterion unreadable, the other met: undetermined, not a pass
        CaseResult(id="4", score=None, criteria=[crit(5, True, MED), crit(2, None, MED, "follow_up")],
                   unscored_reason="no readable grader verdict on criterion 2"),
        # unreadable, but another tagged criterion already missed: a miss
        CaseResult(id="5", score=None, criteria=[crit(5, False, MED), crit(2, None, MED)],
                   unscored_reason="no readable grader verdict on criterion 2"),
        # the candidate call failed: nothing to judge, undetermined whatever the verdicts say
        CaseResult(id="6", score=None, criteria=[crit(5, False, MED)],
                   unscored_reason="candidate call failed: x"),
        # a 0-point criterion is ignored; a case without the tag does not count for it
        CaseResult(id="7", score=1.0, criteria=[crit(0, False, MED), crit(3, True, "follow_up")]),
    ]
    got = criterion_misses(cases)
    assert got[MED] == CriterionMisses(n=4, missed=3, undetermined=2)  # cases 1, 2, 3, 5; 3 miss
    assert got["follow_up"] == CriterionMisses(n=2, missed=0, undetermined=1)  # cases 2, 7; case 4 open


@pytest.mark.parametrize(("n", "missed", "bar"), [
    (100, 0, 0.05), (400, 8, 0.05), (60, 3, 0.10), (10, 5, 0.5), (30, 0, 0.1), (200, 30, 0.1),
])
def test_wilson_interval_where_the_score_test_holds_its_size(n, missed, bar):
    lo, hi, how = miss_interval(CriterionMisses(n=n, missed=missed), bar)
    want = proportion_confint(missed, n, alpha=0.05, method="wilson")
    assert how == "Wilson score interval, 95%"
    assert (lo, hi) == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize(("n", "missed", "bar", "side"), [
    (5, 0, 0.5, "pass"),   # Wilson upper 0.434 ≤ 0.5, but P(0 of 5 | 0.5) = 3.1%: false-pass rate 3.1%
    (1, 1, 0.05, "fail"),  # Wilson lower 0.21 > 0.05, but P(≥1 of 1 | 0.05) = 5%: false-fail rate 5.0%
    (5, 5, 0.2, "fail"),   # false-fail rate 5.8% at n = 5, bar 0.2; P(5 of 5 | 0.2) = 0.03%: still a fail
])
def test_the_small_n_switch_reports_the_exact_interval(n, missed, bar, side):
    lo, hi, how = miss_interval(CriterionMisses(n=n, missed=missed), bar)
    assert how.startswith("exact Clopper-Pearson interval, 95%")
    assert f"false-{side} rate" in how
    assert (lo, hi) == pytest.approx(proportion_confint(missed, n, alpha=0.05, method="beta"), abs=1e-9)
    # the exact interval and the exact test agree: the bound clears the bar exactly when p ≤ 2.5%
    p = exact_binomial_p(missed / n, n, bar, "at_most" if side == "pass" else "at_least")
    clears = hi <= bar if side == "pass" else lo > bar
    assert clears == (p <= 0.025)
    assert clears == (missed == 5)  # 0 of 5 (p 3.1%) and 1 of 1 (p 5%) stay open; 5 of 5 fails


def graded(missed: int, n: int, undetermined: int = 0, model: str = "m") -> Evidence:
    counts = {MED: CriterionMisses(n=n, missed=missed, undetermined=undetermined)}
    return Evidence(id=f"e-{model}-{missed}-{n}", model=model, benchmark="Discharge [sc v1]",
                    metric="rubric_score", score=0.8, provenance="local-run", source="grading-x",
                    date=datetime(2026, 1, 1, tzinfo=UTC), n=n, ci_missing_reason="not needed here",
                    criterion_misses=counts)


def test_pass_fail_and_inconclusive_with_the_numbers_they_compared():
    rule = critical_rule(MED, 0.05)
    ok = critical_verdict(rule, graded(0, 100))  # Wilson 0-0.037 ≤ 0.05
    assert ok["status"] == "pass" and ok["ci_upper"] == pytest.approx(0.03699, abs=1e-5)
    bad = critical_verdict(rule, graded(12, 100))  # Wilson 0.070-0.198 > 0.05
    assert bad["status"] == "fail" and bad["ci_lower"] == pytest.approx(
        proportion_confint(12, 100, method="wilson")[0])
    open_ = critical_verdict(rule, graded(3, 100, undetermined=2))  # Wilson 0.010-0.085
    assert open_["status"] == "inconclusive" and open_["further_cases"] > 0
    assert "3 of 100 case(s) miss 'medication_change'" in open_["reason"] and "2 case(s)" in open_["reason"]
    assert (open_["estimate"], open_["n"], open_["direction"]) == (0.03, 100, "at_most")


def test_minimum_n_guards_a_pass_not_a_fail():
    rule = critical_rule(MED, 0.5, min_n=20)
    short = critical_verdict(rule, graded(0, 10))  # Wilson 0-0.278 would pass
    assert short["status"] == "inconclusive" and short["further_cases"] == 10
    assert critical_verdict(rule, graded(10, 10))["status"] == "fail"  # Wilson 0.72-1 > 0.5 at any n


def test_rows_per_candidate_and_a_candidate_without_a_grading():
    rule = critical_rule(MED, 0.05)
    other = Evidence(id="e-plain", model="b", benchmark="B", metric="EM", score=0.9, provenance="local-run",
                     source="run-1", date=datetime(2026, 1, 1, tzinfo=UTC), n=50, ci_missing_reason="none")
    rows = critical_rows(rule, ["a", "b"], [graded(0, 100, model="a"), other])
    assert [(r["model"], r["status"]) for r in rows] == [("a", "pass"), ("b", "inconclusive")]
    assert "no rubric grading" in rows[1]["reason"]
    untagged = critical_rule("follow_up", 0.05)
    row, = critical_rows(untagged, ["a"], [graded(0, 100, model="a")])
    assert row["status"] == "inconclusive" and "carries the tag 'follow_up'" in row["reason"]


def test_words_and_an_open_critical_verdict_keeps_a_candidate_from_approval():
    rule = critical_rule(MED, 0.05, min_n=60)
    assert rule_bar(rule) == "cases missing the criteria tagged medication_change ≤ 5.0%; min n 60"
    assert rule_label(rule) == "Critical criterion medication_change ≤ 5.0% of cases missing"
    row = critical_rows(rule, ["m"], [graded(3, 100)])[0]
    v = Verdict(rule_id=rule.id, kind="critical_criterion", **row)
    assert verdict_label(v) == ("critical criterion medication_change ≤ 5.0% of cases missing on "
                                "Discharge [sc v1]")
    rec = recommend_candidate("m", [v], locked=True, log_problem=None)
    assert rec.outcome == "insufficient_evidence"
    assert any("not shown to stay under its ceiling" in r for r in rec.reasons)


def test_evidence_without_miss_counts_serializes_as_before():
    e = graded(0, 10).model_copy(update={"criterion_misses": None})
    assert "criterion_misses" not in e.model_dump(mode="json")
    assert Evidence.model_validate(graded(1, 10).model_dump(mode="json")).criterion_misses[MED].missed == 1


def test_the_monitoring_plan_watches_the_critical_criterion_after_go_live():
    from governance.decision.oversight import _metrics

    metrics = _metrics([critical_rule(MED, 0.05)], max_correction=0.02)
    watched = metrics[-1]
    assert (watched.threshold, watched.direction) == (0.05, "at_most")
    assert "missing the criteria tagged medication_change" in watched.name
