"""Each candidate's outcome in one sentence: every outcome kind, with its numbers checked.

Known answers: the Wilson intervals come from statsmodels (``proportion_confint(method="wilson")``), the
recommendation from the real ``recommend_candidate``; the sentences are then read for those numbers.
"""

from __future__ import annotations

import pytest
from statsmodels.stats.proportion import proportion_confint

from governance.rules.outcome_text import headline, outcome_line, outcome_lines, verdict_sentence
from governance.rules.recommendation import Recommendation, recommend_candidate
from governance.rules.verdicts import Assessment, Verdict


def score(status: str, k: int, n: int, bar: float, bench: str = "MedCalc-Bench", **extra) -> Verdict:
    lo, hi = proportion_confint(k, n, method="wilson")
    return Verdict(rule_id="score.medcalcbench", kind="score", model="GPT-4o", benchmark=bench, metric="EM",
                   status=status, threshold=bar, estimate=k / n, ci_lower=lo, ci_upper=hi, n=n,
                   reason="see the numbers.", subcategory="Calculations", **extra)


def line(verdicts: list[Verdict], locked: bool = True, subcategories: list[str] = ()):
    cand = recommend_candidate("GPT-4o", verdicts, locked=locked, log_problem=None,
                               subcategories=list(subcategories))
    assessment = Assessment(verdicts=verdicts, rules_hash="h", locked=locked, changes_after_lock=0,
                            change_log_problem=None, models=["GPT-4o"])
    return cand, outcome_line(assessment, cand)


def test_reject_says_the_share_right_its_interval_and_the_bar():
    # 23 of 120 right: 19.2%, Wilson 95% CI 13.1–27.1% (statsmodels); bar 95%
    cand, out = line([score("fail", 23, 120, 0.95)])
    assert cand.outcome == "reject" and out.outcome == "reject"
    assert out.sentence == ("Reject: GPT-4o got 19% of 120 MedCalc-Bench cases right (95% CI 13–27%); "
                            "your bar is 95%.")
    # what a reject would need, never "—"
    assert "changed model or prompt" in out.settle and "95% (today 19%)" in out.settle


def test_a_built_in_benchmark_is_named_by_its_title_not_its_id():
    """The browser walk read "1% of 120 calc_builtin cases": a spec id is shown as the spec's title."""
    _, out = line([score("fail", 1, 120, 0.80, bench="calc_builtin")])
    assert out.sentence == ("Reject: GPT-4o got 1% of 120 Built-in clinical calculators cases right "
                            "(95% CI 0–5%); your bar is 80%.")
    assert "calc_builtin" not in out.sentence + out.settle


def test_reject_on_a_cost_ceiling_names_the_price_and_what_would_change_it():
    cost = Verdict(rule_id="cost", kind="max_cost_per_1k", model="GPT-4o", status="fail", threshold=25.0,
                   direction="at_most", estimate=31.456, n=4289, reason="over the ceiling.")
    _, out = line([score("pass", 119, 120, 0.9, pre_registered=True), cost])
    assert out.sentence == ("Reject: GPT-4o costs USD 31.46 per 1,000 requests; your ceiling is USD 25.00.")
    assert out.settle.startswith("A price or token use under the ceiling")


def test_insufficient_evidence_with_further_cases_says_how_many():
    # 34 of 40 right: 85%, Wilson 70.9–92.9% (its lower bound within 1.5 points of the bar: one decimal)
    cand, out = line([score("inconclusive", 34, 40, 0.70, bench="Portal triage", further_cases=60)])
    assert cand.outcome == "insufficient_evidence"
    assert out.sentence.startswith("Insufficient evidence: GPT-4o got 85% of 40 Portal triage cases right "
                                   "(95% CI 70.9–92.9%) against your bar of 70%")
    assert out.settle == "About 60 more Portal triage cases would settle it (at the rules' power)."


def test_insufficient_evidence_below_the_bar_says_more_cases_will_not_help():
    # 205 of 300: 68.3%, Wilson 62.9–73.3%; nothing within 1.5 points of the 70% bar: whole percents
    _, out = line([score("inconclusive", 205, 300, 0.70, bench="ProxySender")])
    assert out.sentence.startswith("Insufficient evidence: GPT-4o got 68% of 300 ProxySender cases right "
                                   "(95% CI 63–73%), below your bar of 70%, so more cases are not expected")
    assert "changed model or prompt" in out.settle


def test_insufficient_evidence_for_an_uncovered_subcategory_names_it():
    cand, out = line([score("pass", 119, 120, 0.9, pre_registered=True)],
                     subcategories=["patient_provider_messaging"])
    assert cand.outcome == "insufficient_evidence" and cand.uncovered == ["patient_provider_messaging"]
    assert "Patient-Provider Messaging" in out.sentence and "Patient-Provider Messaging" in out.settle


def test_approve_with_conditions_gives_the_narrowest_pass_and_the_conditions():
    # 119 of 120: 99.2%, Wilson 95.4–99.9%: its lower bound is within 1.5 points of the 95% bar
    cand, out = line([score("pass", 119, 120, 0.95)], locked=False)
    assert cand.outcome == "approve_with_conditions"
    assert out.sentence.startswith("Approve with conditions: GPT-4o got 99.2% of 120 MedCalc-Bench cases "
                                   "right (95% CI 95.4–99.9%), clearing your bar of 95%; 1 condition to "
                                   "meet, first: Lock (pre-register) the acceptance rules")


def test_approve_says_so_with_its_numbers():
    cand, out = line([score("pass", 119, 120, 0.90, pre_registered=True)])
    assert cand.outcome == "approve"
    assert out.sentence == ("Approve: GPT-4o got 99% of 120 MedCalc-Bench cases right (95% CI 95–100%), "
                            "clearing your bar of 90%.")
    assert out.settle.startswith("Nothing open")


def test_no_rule_id_or_metric_key_in_any_sentence():
    verdicts = [score("fail", 23, 120, 0.95), score("inconclusive", 34, 40, 0.7, further_cases=60)]
    _, out = line(verdicts)
    text = out.sentence + out.settle + "".join(verdict_sentence(v, "GPT-4o") for v in verdicts)
    assert "score." not in text and "medcalcbench" not in text and "EM" not in text.split()


@pytest.mark.parametrize("n_candidates, expected", [
    (1, "Reject, for GPT-4o (the only candidate)."),
    (2, "Reject, for GPT-4o (the best of 2 candidates; each one's outcome is below)."),
])
def test_headline_names_whose_outcome_it_is(n_candidates, expected):
    cand, _ = line([score("fail", 23, 120, 0.95)])
    others = [cand.model_copy(update={"model": "Other"})] * (n_candidates - 1)
    rec = Recommendation(outcome="reject", models=["GPT-4o"], reasons=[], candidates=[cand, *others])
    assert headline(rec) == expected
    assessment = Assessment(verdicts=[score("fail", 23, 120, 0.95)], rules_hash="h", locked=True,
                            changes_after_lock=0, change_log_problem=None, models=["GPT-4o"])
    assert [x.model for x in outcome_lines(assessment, rec)][:1] == ["GPT-4o"]


def test_a_failing_critical_criterion_is_named_even_when_a_score_bar_leads():
    """The discharge walk (issue 34) read "(2 other rule(s) fail too)" for the omitted medication change."""
    from scipy.stats import beta

    lo = beta.ppf(0.025, 10, 1)  # 10 of 10 missed: exact Clopper-Pearson lower bound 0.6915
    crit = Verdict(rule_id="critical.med", kind="critical_criterion", model="GPT-4o",
                   benchmark="MedCalc-Bench", metric="critical:medication_change miss rate", status="fail",
                   threshold=0.05, direction="at_most", estimate=1.0, ci_lower=lo, ci_upper=1.0, n=10,
                   reason="missed.")
    _, out = line([score("fail", 23, 120, 0.95), crit])
    assert out.sentence == ("Reject: GPT-4o got 19% of 120 MedCalc-Bench cases right (95% CI 13–27%); "
                            "your bar is 95%; and 100% of GPT-4o's 10 graded cases on MedCalc-Bench miss "
                            "the criteria tagged critical:medication_change (95% CI 69%–100%); your ceiling "
                            "is 5%.")


def test_a_sentence_that_opens_with_a_model_name_keeps_the_name_as_written():
    """Issue 36 item 10: "Openai/discharge-llm costs USD ..." capitalised the name at the sentence start."""
    v = Verdict(rule_id="cost", kind="max_cost_per_1k", model="openai/discharge-llm", status="pass",
                estimate=2.5, threshold=5.0, reason="cheap enough.")
    sentence = verdict_sentence(v, "openai/discharge-llm")
    assert sentence.startswith("openai/discharge-llm costs USD 2.50 per 1,000 requests"), sentence
    judges = Verdict(rule_id="j", kind="judge_agreement", model="m", status="pass", estimate=0.8,
                     threshold=0.6, reason="agree.")
    assert verdict_sentence(judges, "m").startswith("The judges")  # other words at the start are capitalised
