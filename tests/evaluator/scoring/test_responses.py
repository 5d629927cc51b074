"""Scoring one reply and aggregating a run: unparsed is wrong and counted; no reference is unscored."""

from __future__ import annotations

import pytest

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import get_benchmark
from evaluator.scoring.responses import InstanceScore, aggregate, score_response, score_responses

CHOICE = Instance(id="c1", choices=("yes", "no", "maybe"), reference="B", answer_type="choice")
RANGE = Instance(id="r1", reference="40.4", answer_type="numeric_range", lower=38.38, upper=42.42)
TEXT = Instance(id="t1", reference="Patient reports chest pain.", answer_type="free_text")
NO_REF = Instance(id="t2", answer_type="free_text")


def test_correct_wrong_and_unparsed_choice():
    spec = get_benchmark("pubmedqa")
    right, wrong, lost = score_responses(spec, [CHOICE] * 3, ["Answer: B", "A", "It depends."])
    assert (right.score, right.unparsed, right.parsed) == (1.0, False, "B")
    assert (wrong.score, wrong.unparsed) == (0.0, False)
    assert (lost.score, lost.unparsed, lost.parsed) == (0.0, True, None)
    assert lost.metrics == {"choice_accuracy": 0.0}
    assert right.instance_id == "c1"


def test_numeric_range_and_range_answers():
    spec = get_benchmark("calc_builtin")
    assert score_response(spec, RANGE, "CrCl = 41 mL/min").score == 1.0
    assert score_response(spec, RANGE, "Answer: 45").score == 0.0
    hedge = score_response(spec, RANGE, "between 39 and 41")
    assert (hedge.score, hedge.unparsed) == (0.0, True)
    assert score_response(spec, RANGE, None).unparsed


def test_free_text_scored_by_text_metrics_or_left_unscored():
    spec = get_benchmark("aci_bench").model_copy(update={"metrics": ("rougeL", "f1")})
    scored = score_response(spec, TEXT, "Patient reports chest pain.")
    assert scored.score == pytest.approx(1.0) and set(scored.metrics) == {"rougeL", "f1"}
    unscored = score_response(spec, NO_REF, "A fine note.")
    assert (unscored.score, unscored.metrics, unscored.unparsed) == (None, {}, False)
    empty = score_response(spec, TEXT, "   ")
    assert (empty.score, empty.unparsed) == (0.0, True)


def test_medec_spec_scores_the_flag():
    spec = get_benchmark("medec")
    inst = Instance(id="m", reference="CORRECT", answer_type="free_text")
    s = score_response(spec, inst, "CORRECT")
    assert s.score == 1.0 and s.metrics["medec_error_sentence_accuracy"] == 1.0


def test_lengths_must_match():
    with pytest.raises(ValueError, match="2 instances but 1 replies"):
        score_responses(get_benchmark("pubmedqa"), [CHOICE, CHOICE], ["A"])


def _scores(values, unparsed=0):
    out = [InstanceScore(score=v, parsed="x", unparsed=False, metrics={"accuracy": v}) for v in values]
    out += [InstanceScore(score=0.0, parsed=None, unparsed=True, metrics={"accuracy": 0.0})] * unparsed
    return out


def test_aggregate_counts_and_interval():
    scores = _scores([1.0] * 30 + [0.0] * 10, unparsed=10) + [
        InstanceScore(score=None, parsed="n", unparsed=False, metrics={})
    ]
    agg = aggregate(scores, "accuracy")
    assert (agg.n, agg.n_scored, agg.n_unscored, agg.n_unparsed) == (51, 50, 1, 10)
    assert agg.mean == pytest.approx(0.6)
    assert agg.ci_low < 0.6 < agg.ci_high and agg.ci_high - agg.ci_low < 0.4
    assert agg.higher_is_better
    assert aggregate(scores, "accuracy") == agg  # seeded: reproducible


def test_aggregate_small_and_empty_inputs():
    # one correct answer is still a proportion: Wilson 1/1 is [1/(1 + z²), 1], never the point [1, 1]
    single = aggregate(_scores([1.0]), "accuracy")
    assert single.mean == 1.0 and single.ci_high == pytest.approx(1.0)
    assert single.ci_low == pytest.approx(1 / (1 + 1.959963984540054**2))
    assert "Wilson" in single.ci_method and "coverage is approximate" in single.ci_method
    empty = aggregate([], "accuracy")
    assert (empty.mean, empty.n, empty.n_scored) == (None, 0, 0)
    with pytest.raises(KeyError, match="unknown metric"):
        aggregate(_scores([1.0]), "acuracy")


def test_aggregate_uses_wilson_for_proportions_with_known_answers():
    # statsmodels proportion_confint(k, n, method="wilson"): 20/20 → 0.838875, 9/12 → 0.467695–0.911058
    full = aggregate(_scores([1.0] * 20), "accuracy")
    assert (full.ci_low, full.ci_high) == (pytest.approx(0.8388748, abs=1e-6), pytest.approx(1.0))
    nine = aggregate(_scores([1.0] * 9 + [0.0] * 3), "accuracy")
    assert nine.ci_low == pytest.approx(0.4676947, abs=1e-6)
    assert nine.ci_high == pytest.approx(0.9110583, abs=1e-6)
    assert "9 of 12" in nine.ci_method


def test_aggregate_of_a_mean_metric_uses_bca_or_says_why_not():
    def rouge(values):
        return [InstanceScore(score=v, parsed="x", unparsed=False, metrics={"rougeL": v}) for v in values]

    agg = aggregate(rouge([0.2, 0.35, 0.5, 0.1, 0.9, 0.4]), "rougeL")
    assert agg.ci_method.startswith("BCa bootstrap") and agg.ci_low < agg.mean < agg.ci_high
    flat = aggregate(rouge([0.4, 0.4, 0.4]), "rougeL")
    assert (flat.ci_low, flat.ci_high) == (None, None) and flat.ci_missing_reason.startswith("no spread")


def test_main_metric_of_the_spec_is_the_instance_score():
    spec = get_benchmark("medec").model_copy(update={"main_metric": "medec_error_sentence_accuracy"})
    inst = Instance(id="m", reference="3 Give 5 mg daily.", answer_type="free_text")
    scored = score_response(spec, inst, "2 Give 5 mg daily.")
    assert scored.metrics["medec_error_flag_accuracy"] == 1.0
    assert scored.score == scored.metrics["medec_error_sentence_accuracy"] == 0.0
