"""A run is judged on its main metric only, with an interval that fits the metric's kind.

Issue 15 found every metric of a run judged against the same score bar, and 20/20 correct given
the interval [1, 1], which passes any bar. These tests pin the fix at the level a committee sees:
the verdicts of an assessed dossier.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from evaluator.runs.summary import RunSummary, summarize_metric
from governance.evidence.select import is_share, matches
from governance.rules.policy import AcceptancePolicy, MinNRule, ScoreRule
from governance.rules.score_verdict import score_verdict
from governance.rules.verdicts import assess
from tests.governance.policy_fixtures import dossier

WHY = "a committee's reason for this bar"
WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def run_summary(metrics: dict[str, list[float]], main: str, n: int) -> RunSummary:
    summaries = [summarize_metric(name, values) for name, values in metrics.items()]
    summaries.sort(key=lambda m: m.name != main)
    return RunSummary(
        run_id="run-1", benchmark_id="aci_bench", model="openai/gpt-4o", endpoint_name="test",
        status="completed", n_planned=n, n=n, n_scored=n, n_unparsed=0, n_errors=0, errors={},
        score=summaries[0], metrics=summaries, prompt_tokens=0, completion_tokens=0, cost_usd=0.0,
        cost_known=True, cache_hits=0, new_requests=0, resumed=False, elapsed_s=0.0,
    )


def five_metric_run() -> RunSummary:
    spread = [0.55, 0.62, 0.71, 0.8, 0.66, 0.74, 0.69, 0.9, 0.58, 0.77]
    return run_summary({
        "bertscore_f": spread,
        "bertscore_p": [x - 0.02 for x in spread],
        "rouge1": [x - 0.3 for x in spread],
        "rouge2": [x - 0.45 for x in spread],
        "rougeL": [x - 0.35 for x in spread],
    }, main="bertscore_f", n=10)


def test_a_run_with_five_metrics_gives_one_main_record_and_four_context_records():
    records = five_metric_run().to_evidence(date=WHEN)
    assert [(e.metric, e.role) for e in records] == [
        ("bertscore_f", "main"), ("bertscore_p", "context"), ("rouge1", "context"),
        ("rouge2", "context"), ("rougeL", "context")]
    assert all("not judged" in e.caveat for e in records[1:]) and "not judged" not in records[0].caveat
    assert [e.metric for e in records if matches(e)] == ["bertscore_f"]
    # a rule naming a secondary metric still finds nothing to judge
    assert not [e for e in records if matches(e, metric="rougeL")]
    assert not any(is_share(e) for e in records)
    # the role survives a save and reload; a main record's JSON has no role key (old hashes hold)
    dumped = [e.model_dump(mode="json") for e in records]
    assert "role" not in dumped[0] and dumped[1]["role"] == "context"
    assert [type(records[0]).model_validate(d).role for d in dumped] == ["main"] + ["context"] * 4


def test_only_the_main_record_is_judged_by_score_and_count_rules():
    rules = [ScoreRule(id="bar", threshold=0.5, rationale=WHY), MinNRule(id="n", threshold=5, rationale=WHY)]
    d = dossier(five_metric_run().to_evidence(date=WHEN), policy=AcceptancePolicy(rules=rules))
    verdicts = assess(d).verdicts
    assert [(v.rule_id, v.metric) for v in verdicts] == [("bar", "bertscore_f"), ("n", "bertscore_f")]
    assert verdicts[0].evidence_ids == [d.evidence[0].id]


def test_twenty_of_twenty_gets_wilson_and_is_inconclusive_against_a_095_bar():
    run = run_summary({"accuracy": [1.0] * 20}, main="accuracy", n=20)
    (e,) = run.to_evidence(date=WHEN)
    assert (e.ci_lower, e.ci_upper) == (pytest.approx(0.8388748, abs=1e-6), pytest.approx(1.0))
    assert e.ci_method.startswith("Wilson score interval") and "coverage is approximate" in e.ci_method
    v = score_verdict(ScoreRule(id="s", threshold=0.95, rationale=WHY), e)
    assert v["status"] == "inconclusive" and v["ci_lower"] == pytest.approx(0.8389, abs=1e-4)
    # the same run against a bar below Wilson's lower bound passes
    assert score_verdict(ScoreRule(id="s", threshold=0.8, rationale=WHY), e)["status"] == "pass"


def test_a_mean_metric_without_spread_gets_no_interval_not_a_point():
    run = run_summary({"rougeL": [0.4] * 12}, main="rougeL", n=12)
    (e,) = run.to_evidence(date=WHEN)
    assert not e.has_interval and e.ci_missing_reason.startswith("no spread")
    assert score_verdict(ScoreRule(id="s", threshold=0.3, rationale=WHY), e)["status"] == "inconclusive"


def test_coverage_counts_a_run_once_not_once_per_metric():
    from governance.evidence.coverage import coverage_row
    from governance.mapping.taxonomy import load_taxonomy

    sub = load_taxonomy().subcategory("patient_provider_messaging")
    run = five_metric_run().to_evidence(date=WHEN)
    records = [e.model_copy(update={"subcategory": sub.name}) for e in run]
    assert coverage_row(sub, dossier(records)).attached_local_run == 1
