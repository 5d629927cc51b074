"""Per-criterion judge validity of a rubric grading, on a table small enough to work out by hand.

Ten cases, two criteria each. The grading says "medication change" is met on cases 1-6 and "follow-up" on
cases 1-5. Two clinicians rated every case:

* medication change: both met on 1-5 and 7, both not met on 6, 8 and 9, split on 10 (a tie: left out). Over
  the nine cases: 5 met/met, 1 grader-only, 1 clinicians-only, 2 not/not. Observed agreement 7/9; both sides
  say met on 6 of 9, so chance agreement (6/9)² + (3/9)² = 5/9 and κ = (7/9 − 5/9) / (4/9) = 0.5 exactly.
* follow-up: the clinicians say the opposite of the grading on all ten: observed 0, chance 1/2, κ = −1.

Intervals: statsmodels' ``cohens_kappa`` (the Fleiss–Cohen–Everitt variance) and ``proportion_confint``
(Wilson), computed independently of our code.
"""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from evaluator.grading.records import CaseResult, CriterionResult, GradingResult
from governance.judge_validity.criteria import clinician_majority, grader_setting, grader_validity

MED, FU = "States the medication change", "States the follow-up appointment"


def grading() -> GradingResult:
    cases = [
        CaseResult(id=f"ds-{k}", score=None, criteria=[
            CriterionResult(criterion=MED, points=5, met=k <= 6),
            CriterionResult(criterion=FU, points=3, met=k <= 5),
        ])
        for k in range(1, 11)
    ]
    return GradingResult(grading_id="grading-x", run_id="run-x", graders=["openai/grader"],
                         status="completed", n=10, n_cases=10, n_unscored=0, score=None,
                         mean_unclipped=None, bootstrap_std=None, per_case=cases, by_tag={}, n_calls=20,
                         n_unparsed=0, unparsed=[], tie_rule="t")


def clinicians() -> dict[tuple[str, int], list[bool]]:
    med = {k: [k in (1, 2, 3, 4, 5, 7)] * 2 for k in range(1, 10)} | {10: [True, False]}
    return ({(f"ds-{k}", 0): v for k, v in med.items()}
            | {(f"ds-{k}", 1): [k > 5] * 2 for k in range(1, 11)})


def test_majority_of_clinicians():
    assert clinician_majority([True, True, False]) is True
    assert clinician_majority([True, False]) is None
    assert clinician_majority([False]) is False


def test_kappa_and_share_per_criterion_by_hand_and_the_bar_names_the_criterion():
    view = grader_validity(grading(), clinicians(), queue_id="rq-1", bar=0.5, bar_source="test")
    med, fu = view.criteria
    assert med.agreement.criterion == MED and med.agreement.n == 9 and view.n_ties == 1
    assert med.agreement.kappa.value == pytest.approx(0.5)
    assert med.agreement.share_agreeing.value == pytest.approx(7 / 9)
    ref = cohens_kappa(np.array([[5, 1], [1, 2]]))
    assert (med.agreement.kappa.ci_lower, med.agreement.kappa.ci_upper) == pytest.approx(
        (max(ref.kappa_low, -1), min(ref.kappa_upp, 1)))
    assert (med.agreement.share_agreeing.ci_lower, med.agreement.share_agreeing.ci_upper) == pytest.approx(
        proportion_confint(7, 9, method="wilson"))
    assert med.status == "inconclusive"  # 0.5 with an interval reaching well below and above the bar

    assert fu.agreement.n == 10 and fu.agreement.kappa.value == pytest.approx(-1.0)
    assert fu.agreement.share_agreeing.value == 0.0
    assert fu.status == "fail" and FU in fu.reason
    assert view.status == "fail" and FU in view.reason and MED not in view.reason
    assert view.n_cases == 10

    setting = grader_setting(view, benchmark="sc_x_v1", by="editor", at=None)
    assert [c.criterion for c in setting.criteria] == [MED, FU]
    assert setting.criteria[0].kappa == pytest.approx(0.5) and setting.criteria[1].share == 0.0


def test_a_criterion_the_clinicians_all_call_met_has_no_kappa_and_stays_open():
    votes = {(f"ds-{k}", i): [True] for k in range(1, 11) for i in (0, 1)}
    view = grader_validity(grading(), votes, queue_id="rq-1", bar=0.4, bar_source="test")
    assert all(c.status == "inconclusive" and c.agreement.kappa.value is None for c in view.criteria)
    assert "no variation" in view.criteria[0].reason
    assert view.status == "inconclusive"
