"""Issue 24 §1: the recommendation never approves what the evidence does not carry.

Each test reproduces a hole found on the code before the fix (the comment says what it gave then).
Known answers are worked by hand in the comments and checked against scipy where one exists.
"""

from __future__ import annotations

import math

import pytest
from scipy.stats import binom

from evaluator.evidence.record import published_evidence
from governance.decision import committee
from governance.evidence.attach import attach_evidence, detach_evidence
from governance.evidence.records import JudgeAgreementSetting
from governance.rules.policy import (
    AcceptancePolicy,
    JudgeAgreementRule,
    MinNRule,
    ScoreRule,
    SubgroupDisparityRule,
)
from governance.rules.recommendation import recommend
from governance.rules.score_rules import score_rule
from governance.rules.small_n import MEAN_MIN_N, exact_binomial_p, hoeffding_p, score_test_size, small_n_guard
from governance.rules.verdicts import assess
from tests.governance.policy_fixtures import WILSON, dossier, ev, group

WHY = "a committee's reason for this bar"
SUB = "patient_provider_messaging"
BCA = "BCa bootstrap, 95%, 2000 resamples, seed 0"


def locked_then(evidence, rules):
    """Rules locked before the evidence is attached (pre-registered), one accepted subcategory."""
    d = dossier([])
    d = d.model_copy(update={"mapping": d.mapping.decide(SUB, "accepted", by="x")})
    d = committee.lock_rules(d.model_copy(update={"policy": AcceptancePolicy(rules=rules)}), by="chair")
    return d.model_copy(update={"evidence": list(evidence)})


def score(threshold=0.7, **kw) -> ScoreRule:
    return ScoreRule(id=kw.pop("id", "score.ppm"), subcategory=kw.pop("subcategory", SUB),
                     threshold=threshold, rationale=WHY, **kw)


# ---- small n: the test keeps its size ------------------------------------------------------------
def test_score_test_size_by_hand_and_with_scipy():
    # n=1, bar 0.2: 1 of 1 gives z = 0.8 / sqrt(0.16) = 2.0 > 1.96, so the test passes x=1: size 0.2.
    assert score_test_size(1, 0.2) == pytest.approx(0.2)
    # n=2, bar 0.2: x=1 gives z = 0.3 / 0.2828 = 1.06 (no), x=2 gives 2.83 (yes): size 0.2**2 = 0.04.
    assert score_test_size(2, 0.2) == pytest.approx(0.04)
    # n=100, bar 0.5: passes from x >= 50 + 1.96 * 5 = 59.8, i.e. x >= 60: P(X >= 60) from scipy.
    assert score_test_size(100, 0.5) == pytest.approx(binom.sf(59, 100, 0.5))
    assert exact_binomial_p(1.0, 1, 0.2) == pytest.approx(0.2)
    assert hoeffding_p(1.0, 2, 0.85) == pytest.approx(math.exp(-2 * 2 * 0.15**2))


def test_wilson_one_of_one_at_bar_020_no_longer_passes():
    # Before: 1/1 against 0.20 passed with the score test's p = 0.023 (true false-pass rate 20%).
    from evaluator.statistics.estimates import wilson_interval

    lo, hi = wilson_interval(1, 1)
    d = locked_then([ev(1.0, lo, hi, n=1, method=WILSON)], [score(0.20)])
    (v,) = assess(d).verdicts
    assert lo >= 0.20 and v.status == "inconclusive"
    assert v.p_value == pytest.approx(0.2)  # the exact binomial tail P(X >= 1 | 1, 0.2)
    assert "exact binomial test" in v.reason and "20.0%" in v.reason
    assert recommend(assess(d)).outcome == "insufficient_evidence"


def test_the_guard_leaves_the_score_test_alone_where_it_holds_its_size():
    assert small_n_guard("wilson", 0.72, 300, 0.70) is None
    assert small_n_guard("exact", 1.0, 1, 0.2) is None  # Clopper-Pearson is exact already
    assert small_n_guard("other", 0.9, MEAN_MIN_N, 0.85) is None


def test_a_jury_mean_on_two_cases_does_not_pass_a_085_bar():
    # Before: BCa on 2 cases is [min, max] = [0.875, 1.0]; the lower bound cleared 0.85 and it passed.
    # Hoeffding: p = exp(-2 * 2 * 0.0875**2) = 0.970, far from 0.025.
    e = ev(0.9375, 0.875, 1.0, n=2, method=BCA)
    d = locked_then([e], [score(0.85)])
    (v,) = assess(d).verdicts
    assert v.status == "inconclusive"
    assert v.p_value == pytest.approx(math.exp(-2 * 2 * 0.0875**2))
    assert "Hoeffding" in v.reason and v.further_cases >= MEAN_MIN_N - 2
    assert recommend(assess(d)).outcome == "insufficient_evidence"


# ---- minimum n -----------------------------------------------------------------------------------
def test_a_new_score_rule_takes_its_tiers_minimum_n():
    assert score_rule("MedicationQA", 0.8).min_n == 100  # moderate
    assert score_rule("MedicationQA", 0.8, tier="critical").min_n == 400
    assert score_rule("MedicationQA", 0.8, min_n=0).min_n == 0


def test_an_unmet_minimum_n_gate_is_insufficient_evidence_not_a_condition():
    # Before: the min-n gate was inconclusive and became only a condition (approve with conditions).
    e = ev(0.95, 0.93, 0.97, n=900, benchmark="A", method=WILSON)
    small = ev(0.95, 0.80, 0.99, n=40, benchmark="B", subcategory=None, method=WILSON)
    d = locked_then([e, small], [score(), MinNRule(id="min_n", threshold=100, rationale=WHY)])
    rec = recommend(assess(d))
    assert rec.outcome == "insufficient_evidence"
    assert any("minimum n not met" in r for r in rec.candidates[0].reasons)


# ---- judge agreement below its bar ---------------------------------------------------------------
def test_judge_agreement_below_its_bar_keeps_jury_scored_passes_from_approving():
    # MedHELM's clinician ratings: ICC(A,1) 0.288 [0.043, 0.504] against a bar of 0.50. Before: the
    # jury-scored pass gave approve with conditions.
    jury = ev(0.92, 0.90, 0.94, n=800, metric="Jury Score", method=BCA)
    setting = JudgeAgreementSetting(estimate=0.288, ci_lower=0.043, ci_upper=0.504, n_instances=60,
                                    source="MedHELM clinician ratings")
    d = locked_then([jury], [score(), JudgeAgreementRule(id="judge_agreement", threshold=0.5, rationale=WHY)])
    d = d.model_copy(update={"judge_agreement": setting})
    a = assess(d)
    assert next(v for v in a.verdicts if v.kind == "score").status == "pass"
    rec = recommend(a)
    assert rec.outcome == "insufficient_evidence"
    assert any("below the bar 0.500" in r for r in rec.candidates[0].reasons)
    assert rec.candidates[0].uncovered == [SUB]


# ---- point estimates -----------------------------------------------------------------------------
def test_a_point_estimate_pass_never_approves_and_says_no_uncertainty_is_available():
    # Before: a published jury mean passing with allow_point_estimate gave a plain approve "after the
    # family correction".
    e = ev(0.86, n=689, metric="Jury Score", provenance="local-run")
    d = locked_then([e], [score(allow_point_estimate=True)])
    (v,) = assess(d).verdicts
    assert v.status == "pass" and "no uncertainty available" in v.reason
    rec = recommend(assess(d))
    (cand,) = rec.candidates
    assert cand.outcome == "approve_with_conditions"
    assert "0 score verdict(s) pass after the family correction" in cand.reasons[0]
    assert "1 pass(es) on a point estimate only (no uncertainty available" in cand.reasons[0]
    assert any("point estimate alone" in c for c in cand.conditions)


# ---- suppressed subgroups ------------------------------------------------------------------------
def test_a_suppressed_subgroup_is_a_named_condition():
    # Before: a group of 9 (1 of 9 correct) was suppressed, the gate passed on the others: plain approve.
    groups = [group("age", "18-64", 0.90, 0.87, 0.93, n=500), group("age", "65+", 0.90, 0.86, 0.93, n=400),
              group("age", "<18", 1 / 9, None, None, n=9, suppressed=True)]
    e = ev(0.90, 0.88, 0.92, n=909, method=WILSON, subgroups=groups)
    rules = [score(), SubgroupDisparityRule(id="disparity", ratio_lo=0.8, ratio_hi=1.25, rationale=WHY)]
    d = locked_then([e], rules)
    gate = next(v for v in assess(d).verdicts if v.kind == "subgroup_disparity")
    assert gate.status == "pass" and gate.suppressed_groups == ["age=<18"]
    (cand,) = recommend(assess(d)).candidates
    assert cand.outcome == "approve_with_conditions"
    assert any("age=<18 suppressed" in c for c in cand.conditions)


def test_a_suppressed_subgroup_is_insufficient_evidence_when_the_rule_requires_every_group():
    groups = [group("age", "18-64", 0.90, 0.87, 0.93, n=500), group("age", "65+", 0.90, 0.86, 0.93, n=400),
              group("age", "<18", 1 / 9, None, None, n=9, suppressed=True)]
    e = ev(0.90, 0.88, 0.92, n=909, method=WILSON, subgroups=groups)
    strict = SubgroupDisparityRule(id="disparity", ratio_lo=0.8, ratio_hi=1.25, rationale=WHY,
                                   suppressed="insufficient_evidence")
    (cand,) = recommend(assess(locked_then([e], [score(), strict]))).candidates
    assert cand.outcome == "insufficient_evidence"
    assert any("age=<18 suppressed" in r and "every group" in r for r in cand.reasons)
    assert any("age=<18" in s for s in cand.to_settle)
    # the default leaves a locked rule's hash as it was: the new field is not dumped at its default
    default = SubgroupDisparityRule(id="disparity", ratio_lo=0.8, ratio_hi=1.25, rationale=WHY)
    assert "suppressed" not in default.model_dump()
    assert strict.model_dump()["suppressed"] == "insufficient_evidence"


# ---- pre-registration ----------------------------------------------------------------------------
def test_published_evidence_attached_after_the_lock_is_not_pre_registered():
    rec = published_evidence(["MedicationQA"], ["DeepSeek R1"])
    d = locked_then(rec, [score(allow_point_estimate=True, subcategory=None)])
    # MedicationQA's subcategory is accepted too, so its record is evidence for the job (issue 36 item 4)
    d = d.model_copy(update={"mapping": d.mapping.decide("providing_patient_education_resources", "accepted",
                                                         by="x")})
    v = next(v for v in assess(d).verdicts if v.kind == "score")
    assert v.pre_registered is False and "published" in v.pre_registration


def test_attach_detach_lock_reattach_is_not_pre_registered():
    e = ev(0.95, 0.93, 0.97, n=900, method=WILSON)
    d = dossier([]).model_copy(update={"policy": AcceptancePolicy(rules=[score()])})
    d = attach_evidence(d, [e], by="me")
    d = detach_evidence(d, [e.id], by="me")
    d = committee.lock_rules(d, by="chair")
    assert e.id in d.policy.lock.evidence_ids_at_lock
    d = attach_evidence(d, [e], by="me")
    v = next(v for v in assess(d).verdicts if v.kind == "score")
    assert v.pre_registered is False


def test_the_headline_counts_only_verdicts_that_read_evidence():
    e = ev(0.95, 0.93, 0.97, n=900, method=WILSON)
    rules = [score(), MinNRule(id="min_n", threshold=100, rationale=WHY),
             score(id="score.other", benchmark="Nowhere", subcategory=None)]
    d = locked_then([e], rules)
    head = recommend(assess(d)).preregistration[0]
    # score on BenchA and min n read evidence (both pre-registered); score.other reads none.
    assert head == ("2 of 2 verdicts that read evidence are pre-registered; 0 are not "
                    "(1 more read no evidence).")
