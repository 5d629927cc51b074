"""Report charts draw only main scores on a 0-1 axis they belong on, and average only shares correct."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from evaluator.evidence.record import published_evidence
from evaluator.runs.summary import RunSummary, summarize_metric
from reports.charts import model_means_chart, scores_chart

WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def local_free_text_run():
    """A local run whose main metric is BERTScore-F, with ROUGE-L as context."""
    metrics = [summarize_metric("bertscore_f", [0.1, -0.05, 0.2, 0.15]),
               summarize_metric("rougeL", [0.3, 0.2, 0.4, 0.1])]
    summary = RunSummary(
        run_id="run-x", benchmark_id="medication_qa", model="GPT-4o (2024-05-13)", endpoint_name="t",
        status="completed", n_planned=4, n=4, n_scored=4, n_unparsed=0, n_errors=0, errors={},
        score=metrics[0], metrics=metrics, prompt_tokens=0, completion_tokens=0, cost_usd=0.0,
        cost_known=True, cache_hits=0, new_requests=0, resumed=False, elapsed_s=0.0)
    return summary.to_evidence(date=WHEN)


def test_bertscore_and_context_records_are_not_drawn_on_the_0_1_axis():
    shares = published_evidence(["ProxySender"], ["GPT-4o (2024-05-13)"])
    chart = scores_chart(shares + local_free_text_run())
    values = chart.spec["datasets"][next(iter(chart.spec["datasets"]))]
    assert [(v["benchmark"], v["metric"]) for v in values] == [("ProxySender", "EM")]
    assert "bertscore_f" in chart.caption and "1 context metric" in chart.caption
    assert scores_chart(local_free_text_run()) is None


def test_mean_per_model_is_over_shares_correct_only():
    shares = published_evidence(["ProxySender", "MedConfInfo"], ["GPT-4o (2024-05-13)"])
    jury = published_evidence(["MedicationQA"], ["GPT-4o (2024-05-13)"])
    chart = model_means_chart(shares + jury + local_free_text_run())
    (row,) = chart.spec["datasets"][next(iter(chart.spec["datasets"]))]
    assert row["benchmarks"] == 2 and row["mean"] == pytest.approx(sum(e.score for e in shares) / 2)
    assert "Mean share correct" in chart.title and "2 main score(s) left out" in chart.caption
    assert model_means_chart(jury) is None
