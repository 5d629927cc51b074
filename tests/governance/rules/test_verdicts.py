"""Verdict logic at its boundaries: touching intervals, missing intervals, n, shares, direction, subgroups."""

from __future__ import annotations

import pytest

from governance.evidence.records import JudgeAgreementSetting
from governance.procurement.records import CostSettings, TokenProfile
from governance.rules.policy import lock_policy
from governance.rules.records import (
    AcceptancePolicy,
    CostRule,
    JudgeAgreementRule,
    MinNRule,
    ScoreRule,
    SubgroupDisparityRule,
    UnscoredShareRule,
)
from governance.rules.score_verdict import score_verdict
from governance.rules.verdict_kinds import unscored_verdict
from governance.rules.verdict_math import compare, further_cases, wilson_total_n
from governance.rules.verdicts import assess
from tests.governance.policy_fixtures import WILSON, dossier, ev, group

WHY = "a committee's reason for this bar"


def score_rule(threshold=0.7, **kw) -> ScoreRule:
    return ScoreRule(id="s", threshold=threshold, rationale=WHY, **kw)


# ---- the comparison itself ------------------------------------------------------------------
def test_interval_touching_threshold_from_above_passes():
    v = score_verdict(score_rule(0.70), ev(0.75, 0.70, 0.80))
    assert v["status"] == "pass" and "lower bound 0.700 ≥ threshold 0.700" in v["reason"]


def test_interval_touching_threshold_from_below_is_inconclusive_not_fail():
    v = score_verdict(score_rule(0.70), ev(0.65, 0.60, 0.70))
    assert v["status"] == "inconclusive"


def test_interval_wholly_below_fails_and_wholly_above_passes():
    assert score_verdict(score_rule(0.70), ev(0.62, 0.55, 0.6999))["status"] == "fail"
    assert score_verdict(score_rule(0.70), ev(0.80, 0.7001, 0.9))["status"] == "pass"


def test_jury_scale_is_normalized_before_comparing():
    # 4.0 on the 1-5 jury scale is exactly 0.75 normalized: touching from above passes
    v = score_verdict(score_rule(0.75), ev(4.4, 4.0, 4.8, scale="1-5", metric="Jury Score"))
    assert v["status"] == "pass" and v["ci_lower"] == pytest.approx(0.75)


def test_lower_is_better_mirrors_the_comparison():
    rule = score_rule(0.20)
    assert score_verdict(rule, ev(0.15, 0.10, 0.20, higher_is_better=False))["status"] == "pass"
    assert score_verdict(rule, ev(0.25, 0.2001, 0.30, higher_is_better=False))["status"] == "fail"
    v = score_verdict(rule, ev(0.22, 0.15, 0.29, higher_is_better=False))
    assert v["status"] == "inconclusive" and v["direction"] == "at_most"
    # touching the ceiling from above is inconclusive, not fail
    assert score_verdict(rule, ev(0.25, 0.20, 0.30, higher_is_better=False))["status"] == "inconclusive"


def test_compare_rejects_within():
    with pytest.raises(ValueError):
        compare(0.1, 0.2, 0.3, "within")


# ---- missing interval and minimum n ------------------------------------------------------------
def test_missing_interval_cannot_pass_or_fail_alone():
    above = score_verdict(score_rule(0.70), ev(0.90, n=689))
    below = score_verdict(score_rule(0.70), ev(0.40, n=689))
    assert above["status"] == below["status"] == "inconclusive"
    assert "would meet" in above["reason"] and "would miss" in below["reason"]
    assert above["point_estimate_only"] and above.get("further_cases") is None


def test_missing_interval_allowed_by_committee_decides_on_the_point():
    rule = score_rule(0.70, allow_point_estimate=True)
    assert score_verdict(rule, ev(0.90))["status"] == "pass"
    assert score_verdict(rule, ev(0.40))["status"] == "fail"
    assert "accepted by the committee" in score_verdict(rule, ev(0.90))["reason"]


def test_n_below_minimum_is_inconclusive_with_cases_to_minimum_even_if_interval_clears():
    v = score_verdict(score_rule(0.50, min_n=100), ev(0.95, 0.80, 0.99, n=40))
    assert v["status"] == "inconclusive" and v["further_cases"] == 60
    assert "below the rule's minimum of 100" in v["reason"]


def test_n_below_minimum_still_fails_when_the_whole_interval_is_below_the_bar():
    """The browser walk: 1 of 120 MedCalc calculations right against a bar of 0.80 with a minimum of 200
    was "insufficient evidence". The minimum guards a pass; an interval wholly below the bar is a fail."""
    from scipy.stats import binomtest

    lo, hi = binomtest(1, 120).proportion_ci(0.95, method="wilson")  # 0.0015, 0.0457 (scipy's Wilson)
    assert hi < 0.05
    v = score_verdict(score_rule(0.80, min_n=200), ev(1 / 120, lo, hi, n=120))
    assert v["status"] == "fail"
    assert "upper bound 0.046 < threshold 0.800" in v["reason"]
    assert "below the rule's minimum of 200, which guards a pass" in v["reason"]
    # ... and an interval that straddles the bar below the minimum is still no verdict
    v = score_verdict(score_rule(0.80, min_n=200), ev(0.78, 0.70, 0.85, n=120))
    assert v["status"] == "inconclusive" and v["further_cases"] == 80


def test_a_score_that_fails_below_the_minimum_makes_the_recommendation_reject():
    from scipy.stats import binomtest

    lo, hi = binomtest(1, 120).proportion_ci(0.95, method="wilson")
    d = dossier([ev(1 / 120, lo, hi, n=120, benchmark="Calc")],
                policy=AcceptancePolicy(rules=[score_rule(0.80, min_n=200)]))
    from governance.rules.recommendation import recommend

    a = assess(d)
    assert [v.status for v in a.verdicts] == ["fail"]
    assert recommend(a).outcome == "reject"


def test_unknown_n_below_minimum_rule_is_inconclusive():
    v = score_verdict(score_rule(0.50, min_n=100), ev(0.95, 0.80, 0.99, n=None))
    assert v["status"] == "inconclusive" and v["further_cases"] is None


def test_min_n_rule_never_fails():
    d = dossier([ev(0.8, 0.7, 0.9, n=30, benchmark="Small"), ev(0.8, 0.7, 0.9, n=300, benchmark="Big")],
                policy=AcceptancePolicy(rules=[MinNRule(id="n", threshold=100, rationale=WHY)]))
    by_bench = {v.benchmark: v for v in assess(d).verdicts}
    assert by_bench["Small"].status == "inconclusive" and by_bench["Small"].further_cases == 70
    assert by_bench["Big"].status == "pass"


# ---- further cases --------------------------------------------------------------------------
def test_further_cases_wilson_makes_the_interval_exclude_the_threshold():
    total = wilson_total_n(0.72, 0.70, 300)
    from evaluator.statistics.estimates import wilson_interval
    assert wilson_interval(0.72 * total, total)[0] > 0.70
    assert wilson_interval(0.72 * (total - 1), total - 1)[0] <= 0.70


def test_further_cases_reported_on_wilson_evidence_at_80_percent_power():
    # ProxySender GPT-4o: 216/300 = 0.72 vs bar 0.70, family of one: 3,771 more (issue 15), not the
    # 1,717 (= 2,017 - 300) at which the interval would just clear the bar if the estimate held
    v = score_verdict(score_rule(0.70), ev(0.72, 0.667, 0.768, n=300, method=WILSON))
    assert v["further_cases"] == 3771 and wilson_total_n(0.72, 0.70, 300) - 300 == 1717
    assert "80% chance of a pass if the true rate equals today's estimate (0.720)" in v["reason"]
    assert "3,771 more cases" in v["reason"] and "likely" not in v["reason"]


def test_further_cases_for_other_intervals_use_the_spread_from_the_interval():
    # s = 0.1 / 1.96 * sqrt(100); n = ((1.95996 + 0.84162) * s / 0.05)^2 = 817.3 -> 818, so 718 more
    assert further_cases(0.8, 0.7, 0.9, 0.75, 100, wilson=False)[0] == 718
    # at 50% power it is the old "interval just excludes the bar" figure: 400 in all, 300 more
    assert further_cases(0.8, 0.7, 0.9, 0.75, 100, wilson=False, power=0.5)[0] == 300
    more, why = further_cases(0.7, 0.6, 0.8, 0.7, 100, wilson=False)
    assert more is None and "sits on the bar" in why


# ---- unscored share ---------------------------------------------------------------------------
def test_unscored_share_above_maximum_fails():
    rule = UnscoredShareRule(id="u", threshold=0.05, rationale=WHY)
    v = unscored_verdict(rule, ev(0.8, 0.75, 0.85, n=400, n_unparsed=30, n_unscored=20))
    assert v["status"] == "fail"
    assert v["estimate"] == pytest.approx(50 / 420) and v["ci_lower"] > 0.05


def test_unscored_share_well_below_maximum_passes_and_near_it_is_inconclusive():
    rule = UnscoredShareRule(id="u", threshold=0.05, rationale=WHY)
    assert unscored_verdict(rule, ev(0.8, 0.75, 0.85, n=1000, n_unparsed=3, n_unscored=0))["status"] == "pass"
    v = unscored_verdict(rule, ev(0.8, 0.75, 0.85, n=200, n_unparsed=8, n_unscored=2))
    assert v["status"] == "inconclusive" and v["further_cases"] > 0


def test_unscored_share_without_counts_is_inconclusive():
    rule = UnscoredShareRule(id="u", threshold=0.05, rationale=WHY)
    v = unscored_verdict(rule, ev(0.8, 0.75, 0.85, n=200))
    assert v["status"] == "inconclusive" and "does not report" in v["reason"]


# ---- whole assessments -----------------------------------------------------------------------
def test_assessment_carries_evidence_ids_and_reports_missing_evidence_per_model():
    a, b = ev(0.8, 0.75, 0.85, model="m1"), ev(0.5, 0.4, 0.6, model="m2", benchmark="Other")
    rule = ScoreRule(id="s", benchmark="BenchA", threshold=0.7, rationale=WHY)
    verdicts = {v.model: v for v in assess(dossier([a, b], policy=AcceptancePolicy(rules=[rule]))).verdicts}
    assert verdicts["m1"].status == "pass" and verdicts["m1"].evidence_ids == [a.id]
    assert verdicts["m2"].status == "inconclusive"
    assert "no evidence for benchmark BenchA" in verdicts["m2"].reason


def test_local_run_preferred_over_published_for_the_same_score():
    pub = ev(0.60, 0.55, 0.65, provenance="published")
    local = ev(0.80, 0.75, 0.85, provenance="local-run")
    d = dossier([pub, local], policy=AcceptancePolicy(rules=[score_rule(0.7)]))
    (v,) = assess(d).verdicts
    assert v.status == "pass" and v.evidence_ids == [local.id] and "preferred over 1 other" in v.reason


def test_pre_registration_flag_follows_the_lock():
    seen, later = ev(0.8, 0.75, 0.85, benchmark="Seen"), ev(0.8, 0.75, 0.85, benchmark="Later")
    policy = lock_policy(AcceptancePolicy(rules=[score_rule(0.7)]), by="chair", evidence_ids=[seen.id])
    verdicts = {v.benchmark: v for v in assess(dossier([seen, later], policy=policy)).verdicts}
    assert not verdicts["Seen"].pre_registered and verdicts["Later"].pre_registered
    unlocked = assess(dossier([later], policy=AcceptancePolicy(rules=[score_rule(0.7)])))
    assert not unlocked.locked and not unlocked.verdicts[0].pre_registered


def test_judge_agreement_absent_inconclusive_present_pass_fail_and_not_applicable():
    jury = ev(4.2, scale="1-5", metric="Jury Score", n=500)
    rule = JudgeAgreementRule(id="j", threshold=0.5, rationale=WHY)
    pol = AcceptancePolicy(rules=[rule])
    (v,) = assess(dossier([jury], policy=pol)).verdicts
    assert v.status == "inconclusive" and "no measured judge-clinician agreement" in v.reason
    good = JudgeAgreementSetting(estimate=0.7, ci_lower=0.6, ci_upper=0.8, n_instances=200, source="pilot")
    bad = JudgeAgreementSetting(estimate=0.3, ci_lower=0.2, ci_upper=0.45, n_instances=200, source="pilot")
    assert assess(dossier([jury], policy=pol, judge_agreement=good)).verdicts[0].status == "pass"
    assert assess(dossier([jury], policy=pol, judge_agreement=bad)).verdicts[0].status == "fail"
    point = JudgeAgreementSetting(estimate=0.7, source="published")
    assert assess(dossier([jury], policy=pol, judge_agreement=point)).verdicts[0].status == "inconclusive"
    (na,) = assess(dossier([ev(0.8, 0.7, 0.9)], policy=pol)).verdicts
    assert na.status == "not_applicable" and na.model is None


def test_cost_rule_pass_fail_and_missing_profile():
    rule = CostRule(id="c", threshold=5.0, rationale=WHY)
    cheap = TokenProfile(model="m1", price_model="x", mean_prompt_tokens=1000, mean_completion_tokens=0,
                         source="test", input_price_per_mtok=4.0, output_price_per_mtok=0.0)
    dear = cheap.model_copy(update={"model": "m2", "input_price_per_mtok": 6.0})
    evidence = [ev(0.8, 0.7, 0.9, model=m) for m in ("m1", "m2", "m3")]
    d = dossier(evidence, policy=AcceptancePolicy(rules=[rule]), cost=CostSettings(profiles=[cheap, dear]))
    by_model = {v.model: v for v in assess(d).verdicts}
    assert by_model["m1"].status == "pass" and by_model["m1"].estimate == pytest.approx(4.0)
    assert by_model["m2"].status == "fail"
    assert by_model["m3"].status == "inconclusive" and "no token profile" in by_model["m3"].reason


# ---- subgroups -------------------------------------------------------------------------------
def _sub(groups, **kw):
    rule = SubgroupDisparityRule(id="g", ratio_lo=0.8, ratio_hi=1.25, rationale=WHY, **kw)
    e = ev(0.8, 0.77, 0.83, n=1000, subgroups=groups)
    return assess(dossier([e], policy=AcceptancePolicy(rules=[rule]))).verdicts


def test_subgroups_within_window_pass_outside_fail_straddling_inconclusive():
    inside = [group("sex", "F", 0.82, 0.78, 0.86, 500), group("sex", "M", 0.78, 0.74, 0.82, 500)]
    assert _sub(inside)[0].status == "pass"
    outside = [group("sex", "F", 0.9, 0.86, 0.94, 800), group("sex", "M", 0.4, 0.3, 0.5, 200)]
    (v,) = _sub(outside)
    assert v.status == "fail" and v.estimate == pytest.approx(0.4 / 0.9)  # M ÷ reference F
    straddle = [group("age", "18-64", 0.82, 0.78, 0.86, 900), group("age", "65+", 0.7, 0.55, 0.85, 100)]
    (v,) = _sub(straddle)
    assert v.status == "inconclusive" and v.further_cases > 0


def test_subgroups_suppressed_and_missing_and_per_tag():
    verdicts = _sub([group("sex", "F", 0.8, 0.75, 0.85, 500), group("sex", "M", 0.8, 0.75, 0.85, 500),
                     group("sex", "X", 0, None, None, 3, suppressed=True),
                     group("lang", "es", 0, None, None, 4, suppressed=True)])
    by_tag = {v.reason.split(",")[1].split(":")[0].strip(): v for v in verdicts}
    assert by_tag["sex"].status == "pass" and "Suppressed" in by_tag["sex"].reason
    assert by_tag["lang"].status == "inconclusive" and "every group suppressed" in by_tag["lang"].reason
    rule = SubgroupDisparityRule(id="g", ratio_lo=0.8, ratio_hi=1.25, rationale=WHY)
    (v,) = assess(dossier([ev(0.8, 0.7, 0.9)], policy=AcceptancePolicy(rules=[rule]))).verdicts
    assert v.status == "inconclusive" and "no subgroup results" in v.reason


def test_subgroup_without_interval_needs_committee_permission():
    # scores that are not whole counts of 500 (e.g. an imported mean): no Katz interval can be formed
    groups = [group("sex", "F", 0.8013, None, None, 500), group("sex", "M", 0.7801, None, None, 500)]
    assert _sub(groups)[0].status == "inconclusive"
    assert _sub(groups, allow_point_estimate=True)[0].status == "pass"


def test_subgroup_further_cases_use_the_log_interval_end_that_crosses_the_window():
    # ratio 1.00 with interval 0.78-1.10 (Katz, as evaluator.statistics.subgroups stores it) straddles 0.80.
    # On the log scale: reach ln(1/0.78) = 0.24846 over distance ln(1/0.80) = 0.22314 needs
    # 14 × (0.24846/0.22314)² = 17.36 → 18 group cases: 4 more in a group of 14, 12 more in a 14/40 mix.
    ratio = dict(reference_group="18-64", ratio=1.0, ratio_lower=0.78, ratio_upper=1.10, ratio_method="katz")
    e = ev(0.8, 0.77, 0.83, n=40, subgroups=[
        group("age", "18-64", 0.8, 0.624, 0.88, 26).model_copy(update={"reference_group": "18-64"}),
        group("age", "65+", 0.8, 0.72, 0.88, 14).model_copy(update=ratio)])
    rule = SubgroupDisparityRule(id="g", ratio_lo=0.8, ratio_hi=1.25, rationale=WHY)
    (v,) = assess(dossier([e], policy=AcceptancePolicy(rules=[rule]))).verdicts
    assert v.status == "inconclusive" and v.further_cases == 12
    assert "reference group 18-64" in v.reason and "0.78–1.10 katz" in v.reason  # the stored method


def test_subgroup_verdict_compares_with_the_reference_group_not_the_overall():
    # Overall 0.80; F 475/500, M 325/500. Against the overall (the old definition) M's ratio interval
    # was 0.61/0.8–0.69/0.8 = 0.76–0.86 and F's 1.16–1.21: inconclusive. Against the reference group
    # F, MOVER-Wilson: Wilson M (0.607193, 0.690520), F (0.927232, 0.965906), p1p2 = 0.6175;
    # L = (0.6175 - sqrt(0.6175² - 0.607193·0.965906·0.692807·0.934094)) / (0.965906·0.934094) = 0.637902
    # U = (0.6175 + sqrt(0.6175² - 0.690520·0.927232·0.609480·0.972768)) / (0.927232·0.972768) = 0.730315
    # wholly below 0.80: fail.
    groups = [group("sex", "F", 0.95, 0.93, 0.97, 500), group("sex", "M", 0.65, 0.61, 0.69, 500)]
    (v,) = _sub(groups)
    assert v.status == "fail"
    assert v.estimate == pytest.approx(0.684211, abs=1e-6)
    assert (v.ci_lower, v.ci_upper) == pytest.approx((0.637902, 0.730315), abs=1e-6)
    assert "reference group F" in v.reason and "ratio to overall" not in v.reason


def test_subgroup_verdict_uses_the_ratio_the_evaluator_stored():
    # A committee-chosen reference (M, the smaller group) stored on the record is the one judged.
    stored = dict(reference_group="M", ratio=1.2, ratio_lower=1.1, ratio_upper=1.3, ratio_method="katz")
    groups = [group("sex", "F", 0.9, 0.86, 0.94, 800).model_copy(update=stored),
              group("sex", "M", 0.75, 0.7, 0.8, 200).model_copy(update={"reference_group": "M"})]
    (v,) = _sub(groups)
    assert v.status == "inconclusive" and v.estimate == pytest.approx(1.2) and "reference group M" in v.reason


def test_subgroup_with_one_reported_group_has_nothing_to_compare():
    (v,) = _sub([group("sex", "F", 0.8, 0.75, 0.85, 900),
                 group("sex", "X", 0, None, None, 3, suppressed=True)])
    assert v.status == "inconclusive" and "nothing to compare" in v.reason
