"""Metrics: registry behaviour, hand-computed values, and BERTScore built once and reused."""

from __future__ import annotations

import pytest

from evaluator.benchmarks.instance import Instance
from evaluator.scoring import metrics
from evaluator.scoring.metrics import METRICS, Sample, compute_metric, get_metric, register_metric

NUMERIC = Instance(id="n", reference="25.2", answer_type="numeric_range", lower=23.94, upper=26.46)
SCORE = Instance(id="s", reference="4", answer_type="exact")
CHOICE = Instance(id="c", choices=("yes", "no", "maybe"), reference="no", answer_type="choice")
NOTE = Instance(id="t", reference="patient reports chest pain", answer_type="free_text")
NO_REF = Instance(id="u", reference="", answer_type="free_text")


def one(name: str, instance: Instance, parsed: str | None, response: str = "") -> float | None:
    return compute_metric(name, [Sample(instance, response, parsed)])[0]


def test_registry_rejects_duplicates_and_names_known_metrics():
    with pytest.raises(ValueError, match="registered twice"):
        register_metric("exact_match")(lambda s: 1.0)
    with pytest.raises(KeyError, match="known metrics: .*exact_match"):
        get_metric("exact_mtach")
    assert all(isinstance(m.higher_is_better, bool) and m.description for m in METRICS.values())
    assert all(compute_metric(name, []) == [] for name in METRICS)  # empty input guarded


def test_exact_match_rounds_numbers_to_the_reference_precision():
    assert one("exact_match", SCORE, "4") == 1.0
    assert one("exact_match", SCORE, "4.4") == 1.0  # MedCalc: round(answer) == ground truth
    assert one("exact_match", SCORE, "4.6") == 0.0
    assert one("exact_match", SCORE, None) == 0.0  # unparsed is wrong
    text = Instance(id="x", reference="Atrial fibrillation", answer_type="exact")
    assert one("exact_match", text, "atrial fibrillation.") == 1.0
    assert one("exact_match", text, "atrial flutter") == 0.0
    date = Instance(id="d", reference="01/09/2007", answer_type="exact")
    assert one("exact_match", date, "01/09/2007") == 1.0 and one("exact_match", date, "01/10/2007") == 0.0


def test_choice_accuracy_accepts_a_text_reference():
    assert one("choice_accuracy", CHOICE, "B") == 1.0
    assert one("choice_accuracy", CHOICE, "A") == 0.0
    assert one("choice_accuracy", CHOICE, None) == 0.0


def test_numeric_in_range_is_inclusive_and_falls_back_to_exact():
    assert [one("numeric_in_range", NUMERIC, v) for v in ("23.94", "26.46", "25", "23.93", "26.5")] == [
        1.0,
        1.0,
        1.0,
        0.0,
        0.0,
    ]
    assert one("numeric_in_range", NUMERIC, None) == 0.0
    assert one("numeric_in_range", SCORE, "4.2") == 1.0  # exact-group item: rounded comparison
    no_limits = Instance(id="w", reference="1.5", answer_type="numeric_range")
    assert one("numeric_in_range", no_limits, "1.5") == 1.0 and one("numeric_in_range", no_limits, "2") == 0.0


def test_accuracy_dispatches_and_leaves_free_text_unscored():
    assert one("accuracy", CHOICE, "B") == 1.0
    assert one("accuracy", NUMERIC, "30") == 0.0
    assert one("accuracy", SCORE, "4") == 1.0
    assert one("accuracy", NOTE, "anything") is None


def test_medec_metrics_follow_helm():
    error = Instance(id="m", reference="9 Group A streptococcus is the cause.", answer_type="free_text")
    fine = Instance(id="k", reference="CORRECT", answer_type="free_text")
    assert one("medec_error_flag_accuracy", error, "9 Streptococcus pyogenes is the cause.") == 1.0
    assert one("medec_error_sentence_accuracy", error, "9 Streptococcus pyogenes is the cause.") == 1.0
    assert one("medec_error_sentence_accuracy", error, "3 Something else.") == 0.0
    assert one("medec_error_flag_accuracy", error, "CORRECT") == 0.0
    assert one("medec_error_flag_accuracy", fine, "correct.") == 1.0
    assert one("medec_error_sentence_accuracy", fine, "CORRECT") == 1.0
    assert one("medec_error_flag_accuracy", fine, "There is an error somewhere") == 0.0  # flags an error
    assert one("medec_error_flag_accuracy", NO_REF, "CORRECT") is None


def test_token_f1_by_hand():
    # pred tokens [patient, has, chest, pain] ("the" dropped), ref [patient, reports, chest, pain]:
    # 3 common -> P = R = 3/4 -> F1 0.75
    assert one("f1", NOTE, "The patient has chest pain.") == pytest.approx(0.75)
    assert one("f1", NOTE, None) == 0.0
    assert one("f1", NO_REF, "text") is None


def test_rouge_by_hand():
    pred = "the patient has chest pain"
    # unigrams: 5 predicted, 4 reference, 3 shared -> P 3/5, R 3/4 -> F 2/3; LCS "patient chest pain" -> same
    assert one("rouge1", NOTE, pred) == pytest.approx(2 / 3)
    assert one("rougeL", NOTE, pred) == pytest.approx(2 / 3)
    # bigrams: 4 predicted, 3 reference, 1 shared ("chest pain") -> P 1/4, R 1/3 -> F 2/7
    assert one("rouge2", NOTE, pred) == pytest.approx(2 / 7)
    assert one("rouge1", NOTE, NOTE.reference) == 1.0
    assert one("rouge1", NOTE, "weather in paris") == 0.0
    assert one("rougeL", NOTE, None) == 0.0 and one("rougeL", NO_REF, "x") is None
    assert metrics._rouge_scorer() is metrics._rouge_scorer()


@pytest.fixture(scope="module")
def bert():
    return metrics.bert_scorer()


def test_bertscore_offline_minilm_built_once(bert, monkeypatch):
    assert metrics.bert_scorer() is bert
    same = Sample(NOTE, "", NOTE.reference)
    other = Sample(NOTE, "", "The weather in Paris is sunny today.")
    empty = Sample(NOTE, "", None)
    f = compute_metric("bertscore_f", [same, other, empty, Sample(NO_REF, "", "x")])
    assert f[0] == pytest.approx(1.0, abs=1e-4)
    assert f[1] < 0.9 and f[2] == 0.0 and f[3] is None
    p, r = compute_metric("bertscore_p", [other])[0], compute_metric("bertscore_r", [other])[0]
    assert 0 < p < 1 and 0 < r < 1

    def no_model():
        raise AssertionError("pairs already scored must come from the cache")

    monkeypatch.setattr(metrics, "bert_scorer", no_model)
    assert compute_metric("bertscore_f", [other])[0] == pytest.approx(f[1])
