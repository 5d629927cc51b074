"""Cost-performance: per-request cost, monthly projection, cost per acceptable output, frontier."""

from __future__ import annotations

import pytest

from governance.dossier.procurement_records import CostSettings, EvaluationCostItem, TokenProfile
from governance.procurement.cost import MEDHELM_BASIS, cost_per_request, cost_report, pareto_frontier
from governance.procurement.cost_inputs import from_run_summary, medhelm_token_profile, profile_from_results
from tests.governance.policy_fixtures import dossier, ev


def profile(model: str, inp: float, out: float = 0.0, prompt=1000, completion=500, **kw) -> TokenProfile:
    return TokenProfile(model=model, price_model="openai/local-llm", mean_prompt_tokens=prompt,
                        mean_completion_tokens=completion, source="test run", input_price_per_mtok=inp,
                        output_price_per_mtok=out, **kw)


def test_cost_per_request_is_tokens_times_prices():
    usd, price = cost_per_request(profile("m", 2.0, 8.0, prompt=1500, completion=250))
    assert usd == pytest.approx((1500 * 2.0 + 250 * 8.0) / 1e6)
    assert price.source == "endpoint override"


def test_unknown_price_gives_none_never_zero():
    p = TokenProfile(model="m", price_model="nobody/unknown-model-xyz", mean_prompt_tokens=10,
                     mean_completion_tokens=1, source="test")
    assert cost_per_request(p) == (None, None)


def test_profile_from_runner_results_skips_rows_without_tokens():
    rows = [{"prompt_tokens": 100, "completion_tokens": 10}, {"prompt_tokens": 300, "completion_tokens": 30},
            {"prompt_tokens": None, "completion_tokens": None, "error": "timeout"}]
    p = profile_from_results("m", "gpt-4o", rows, source="run r-1", evidence_ids=("local-run:x",))
    assert (p.mean_prompt_tokens, p.mean_completion_tokens, p.n_requests) == (200.0, 20.0, 2)
    with pytest.raises(ValueError, match="no result carries token counts"):
        profile_from_results("m", "gpt-4o", rows[2:], source="run r-2")


def test_medhelm_profile_reads_published_totals():
    p = medhelm_token_profile("GPT-4o (2024-05-13)", "gpt-4o")
    assert p.n_requests == 26166 and p.mean_prompt_tokens == pytest.approx(245693367 / 26166, rel=1e-3)
    assert "upper bound" in p.source
    with pytest.raises(ValueError):
        medhelm_token_profile("No Such Model", "gpt-4o")


def test_pareto_frontier_drops_dominated_and_keeps_ties():
    assert pareto_frontier([("a", 1, 0.5), ("b", 2, 0.9), ("c", 3, 0.8)]) == {"a", "b"}
    assert pareto_frontier([("a", 1, 0.5), ("b", 1, 0.5)]) == {"a", "b"}
    assert pareto_frontier([]) == set()


def test_cost_report_projects_month_and_cost_per_acceptable_output():
    evidence = [ev(0.8, 0.75, 0.85, model="cheap", benchmark="B"),
                ev(0.9, 0.85, 0.95, model="dear", benchmark="B"),
                ev(0.7, 0.65, 0.75, model="worse", benchmark="B")]
    settings = CostSettings(profiles=[profile("cheap", 1.0), profile("dear", 10.0), profile("worse", 5.0)],
                            evaluation_costs=[EvaluationCostItem(label="run r-1", usd=12.5, kind="measured",
                                                                 source="r-1")])
    report = cost_report(dossier(evidence, cost=settings))
    rows = {r.model: r for r in report.rows}
    assert report.monthly_volume == 40_000 and report.score_benchmark == "B"
    assert rows["cheap"].cost_per_1k == pytest.approx(1.0)
    assert rows["cheap"].monthly_cost == pytest.approx(40_000 * 0.001)
    assert rows["cheap"].cost_per_1k_acceptable == pytest.approx(1.0 / 0.8)
    assert {m for m, r in rows.items() if r.on_frontier} == {"cheap", "dear"}
    assert report.evaluation_cost_measured == 12.5 and report.evaluation_cost_published == 0


def test_jury_means_are_not_pass_rates():
    evidence = [ev(4.2, scale="1-5", metric="Jury Score", model="m", benchmark="J")]
    settings = CostSettings(profiles=[profile("m", 1.0)], score_benchmark="J")
    report = cost_report(dossier(evidence, cost=settings))
    (row,) = report.rows
    assert row.score == pytest.approx(0.8) and row.pass_rate is None and row.cost_per_1k_acceptable is None
    assert "not a share" in row.note


def test_published_costs_are_labelled_upper_bounds_and_count_as_evaluation_cost():
    from evaluator.evidence import published_evidence

    evidence = published_evidence(["MedicationQA", "MedQA"], ["DeepSeek R1"])
    report = cost_report(dossier(evidence, cost=CostSettings(profiles=[profile("DeepSeek R1", 1.0)])))
    assert report.score_benchmark == "MedQA"  # a share beats a jury mean
    (pub,) = report.published
    assert pub["basis"] == MEDHELM_BASIS and pub["total_usd_37_benchmarks"] == pytest.approx(1849.85)
    assert pub["benchmark"] == "MedQA" and pub["usd_per_instance"] > 0
    assert report.evaluation_cost_published == pytest.approx(sum(i.usd for i in report.evaluation_items))
    assert all(i.kind == "published_upper_bound" for i in report.evaluation_items)


def test_run_summary_gives_profile_and_measured_evaluation_cost():
    from types import SimpleNamespace

    run = SimpleNamespace(run_id="r-9", model="openai/gpt-4o", benchmark_id="pubmedqa", n=12, n_errors=2,
                          prompt_tokens=6000, completion_tokens=1000, cost_usd=0.031, cost_known=False)
    profile, item = from_run_summary(run)
    assert (profile.mean_prompt_tokens, profile.mean_completion_tokens, profile.n_requests) == (600, 100, 10)
    assert profile.model == profile.price_model == "openai/gpt-4o"
    assert item.kind == "measured" and item.usd == 0.031 and "lower bound" in item.label
    report = cost_report(dossier([], cost=CostSettings(profiles=[profile], evaluation_costs=[item])))
    assert report.evaluation_cost_measured == 0.031 and report.rows[0].cost_per_1k > 0
    with pytest.raises(ValueError):
        from_run_summary(SimpleNamespace(**{**vars(run), "n_errors": 12}))
