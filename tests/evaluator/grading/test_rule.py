"""HealthBench's rule: known answers computed here by hand, and the bootstrap against exact enumeration."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from evaluator.benchmarks.instance import Instance, RubricCriterion
from evaluator.grading import bootstrap_std, case_score, clipped_mean, majority, summarise, tag_scores


def crit(text: str, points: float, *tags: str) -> RubricCriterion:
    return RubricCriterion(criterion=text, points=points, tags=tags)


def test_case_score_divides_by_positive_points_and_harms_go_below_zero():
    rubric = [crit("dose", 5), crit("follow-up", 3), crit("invented result", -4)]
    assert case_score(rubric, [True, False, True]) == pytest.approx((5 - 4) / 8)
    assert case_score(rubric, [False, False, True]) == pytest.approx(-4 / 8)  # not clipped per case
    assert case_score(rubric, [True, True, False]) == 1.0
    assert case_score([crit("harm", -3)], [True]) is None


def test_tag_scores_use_only_their_criteria_and_skip_tags_without_positive_points():
    rubric = [
        crit("a", 4, "axis:accuracy"),
        crit("b", 2, "axis:completeness", "axis:accuracy"),
        crit("c", -3, "axis:accuracy", "axis:safety"),
    ]
    scores = tag_scores(rubric, [True, False, True])
    assert scores == {"axis:accuracy": pytest.approx((4 - 3) / 6), "axis:completeness": 0.0}


def test_overall_is_the_clipped_mean():
    assert clipped_mean([0.125, 2 / 3, -0.5]) == pytest.approx((0.125 + 2 / 3 - 0.5) / 3)
    assert clipped_mean([-1.0, 0.5]) == 0.0 and clipped_mean([]) is None


def exact_bootstrap_std(values: list[float]) -> float:
    """The ideal bootstrap: every resample with its multinomial probability (independent of our sampler)."""
    n = len(values)
    means, weights = [], []
    for counts in itertools.product(range(n + 1), repeat=n):
        if sum(counts) != n:
            continue
        prob = math.factorial(n) / math.prod(math.factorial(c) for c in counts) / n**n
        means.append(min(max(sum(c * v for c, v in zip(counts, values, strict=True)) / n, 0.0), 1.0))
        weights.append(prob)
    means_a, w = np.array(means), np.array(weights)
    mu = float((means_a * w).sum())
    return math.sqrt(float((w * (means_a - mu) ** 2).sum()))


@pytest.mark.parametrize("values", [[0.125, 2 / 3, -0.5], [1.0, 0.0, 0.5, 0.25], [0.9, 0.8, 0.4, 0.7, 0.1]])
def test_bootstrap_std_matches_the_exact_bootstrap(values):
    exact = exact_bootstrap_std(values)
    estimate = bootstrap_std(values)
    # 1,000 resamples: the SD estimate's own error is about SD / sqrt(2,000), so 5 % is ~2 standard errors
    assert estimate == pytest.approx(exact, rel=0.05)
    assert bootstrap_std(values) == estimate  # seeded: a stored grading reproduces its figure
    assert bootstrap_std([0.3]) is None


def test_majority_and_ties_count_against_the_response():
    assert majority([True, True, False], 5) is True
    assert majority([False, False, True], -5) is False
    assert majority([True, False], 5) is False  # tie on a positive criterion: not met
    assert majority([True, False], -5) is True  # tie on a harm: met
    assert majority([None, True, None], 5) is True  # unreadable replies do not vote
    assert majority([None, None], 5) is None


def test_summarise_leaves_out_cases_with_an_unreadable_criterion_and_names_the_reply():
    cases = [
        Instance(id="a", question="q", answer_type="free_text", rubric=(crit("x", 2), crit("y", -1))),
        Instance(id="b", question="q", answer_type="free_text", rubric=(crit("z", 1),)),
    ]
    results = {"a": {"error": None}, "b": {"error": None}}
    verdicts = [
        {"instance_id": "a", "criterion_index": 0, "grader": "g1", "met": True, "reason": None},
        {"instance_id": "a", "criterion_index": 1, "grader": "g1", "met": True, "reason": None},
        {
            "instance_id": "b",
            "criterion_index": 0,
            "grader": "g1",
            "met": None,
            "reason": "empty grader reply",
        },
    ]
    result = summarise("grading-x", "run-x", cases, results, verdicts, ["g1"], "completed")
    assert (result.n, result.n_unscored, result.n_unparsed) == (1, 1, 1)
    assert result.score == pytest.approx(0.5) and result.per_case[0].score == pytest.approx(0.5)
    assert result.per_case[1].score is None and "criterion 1" in result.per_case[1].unscored_reason
    assert result.unparsed[0].model_dump() == {
        "id": "b",
        "criterion": "z",
        "grader": "g1",
        "reason": "empty grader reply",
    }
