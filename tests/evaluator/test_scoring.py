"""Scoring one reply and aggregating a run: unparsed is wrong and counted; no reference is unscored."""

from __future__ import annotations

import pytest

from evaluator.benchmarks import get_benchmark
from evaluator.instance import Instance
from evaluator.scoring import InstanceScore, aggregate, score_response, score_responses

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
    single = aggregate(_scores([1.0]), "accuracy")
    assert (single.mean, single.ci_low, single.ci_high) == (1.0, None, None)
    empty = aggregate([], "accuracy")
    assert (empty.mean, empty.n, empty.n_scored) == (None, 0, 0)
    with pytest.raises(KeyError, match="unknown metric"):
        aggregate(_scores([1.0]), "acuracy")
