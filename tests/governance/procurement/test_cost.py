"""Cost-performance: per-request cost, monthly projection, cost per acceptable output, frontier."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from governance.procurement.cost import MEDHELM_BASIS, cost_per_request, cost_report, pareto_frontier
from governance.procurement.cost_inputs import from_run_summary, medhelm_token_profile, profile_from_results
from governance.procurement.records import CostSettings, EvaluationCostItem, TokenProfile
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
    from evaluator.evidence.record import published_evidence

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


# ---- the tested snapshot's price and the intended use's tokens (issue 15, finding 10) --------


def test_dated_snapshot_is_priced_from_its_own_entry():
    from evaluator.gateway.prices import snapshot_price

    p = TokenProfile(model="GPT-4o (2024-05-13)", price_model="gpt-4o", mean_prompt_tokens=1000,
                     mean_completion_tokens=100, source="example")
    usd, price = cost_per_request(p)
    assert (price.input_per_mtok, price.output_per_mtok) == (5.0, 15.0)  # not gpt-4o's 2.50 / 10
    assert "gpt-4o-2024-05-13" in price.source and "tested snapshot 2024-05-13" in price.source
    assert usd == pytest.approx((1000 * 5 + 100 * 15) / 1e6)
    assumed = snapshot_price("gpt-4o", "GPT-4o (2031-01-01)")  # no dated entry: said to be assumed
    assert assumed[:2] == (2.5, 10.0) and "assumed" in assumed.source and "'gpt-4o'" in assumed.source
    assert snapshot_price("gpt-4o", "GPT-4o (2024-05-13)", 1.0, 2.0).source == "endpoint override"
    undated = snapshot_price("groq/llama-3.3-70b-versatile", "Llama 3.3 Instruct (70B)")
    assert "assumed" not in undated.source and "snapshot" not in undated.source


def test_old_profile_at_the_snapshot_price_is_the_issues_figure():
    # All 37 benchmarks: 245,693,440 / 26,166 = 9,389.79 prompt and 3,396,352 / 26,166 = 129.80
    # completion tokens; at 5 / 15 per 1M: (9,389.79 × 5 + 129.80 × 15) / 1,000 = USD 48.90 per 1,000.
    p = medhelm_token_profile("GPT-4o (2024-05-13)", "gpt-4o")
    usd, _ = cost_per_request(p)
    assert usd * 1000 == pytest.approx((245693440 / 26166 * 5 + 3396352 / 26166 * 15) / 1000)
    assert round(usd * 1000, 2) == 48.90 and "all 37 benchmarks, not your workload" in p.source


DEMO_MAPPED = ["MedConfInfo", "MedDialog", "MedicationQA", "PrivacyDetection", "ProxySender"]


def test_mapped_benchmark_profile_known_answer():
    # data/medhelm_benchmark_tokens.csv for GPT-4o (2024-05-13): prompt means 2044.0 (1000 inst.),
    # 258.9 (2000), 22.4 (689), 249.3 (300), 182.7 (300); completion budgets 1, 80, 512, 1, 1.
    # Prompt: 2,706,833.6 / 4,289 = 631.11; completion: 514,368 / 4,289 = 119.93;
    # at 5 / 15 per 1M: (631.11 × 5 + 119.93 × 15) / 1,000 = USD 4.954 per 1,000 requests.
    p = medhelm_token_profile("GPT-4o (2024-05-13)", "gpt-4o", DEMO_MAPPED)
    assert p.n_requests == 4289
    assert p.mean_prompt_tokens == pytest.approx(2706833.6 / 4289)
    assert p.mean_completion_tokens == pytest.approx(514368 / 4289)
    assert p.source.startswith("MedHELM average over the mapped benchmarks, not your workload")
    usd, _ = cost_per_request(p)
    assert usd * 1000 == pytest.approx((2706833.6 / 4289 * 5 + 514368 / 4289 * 15) / 1000)
    assert round(usd * 1000, 2) == 4.95
    with pytest.raises(ValueError):
        medhelm_token_profile("GPT-4o (2024-05-13)", "gpt-4o", ["No Such Benchmark"])


def test_derived_benchmark_tokens_add_up_to_medhelms_published_totals():
    from evaluator.evidence.medhelm import benchmark_tokens, published_costs

    t, costs = benchmark_tokens(), published_costs()
    totals = costs[(costs.benchmark == "ALL") & (costs.item == "Total Input Tokens (tokens)")]
    assert t.model.nunique() == 9 == len(totals) and len(t) == 9 * 37
    for model, total in zip(totals.model, totals.value.astype(float), strict=True):
        mine = t[t.model == model]
        assert (mine.mean_prompt_tokens * mine.instances).sum() == pytest.approx(total, rel=1e-3)


def test_workload_override_replaces_every_candidates_tokens():
    settings = CostSettings(profiles=[profile("a", 2.0, 8.0), profile("b", 1.0, 1.0, prompt=9000)],
                            workload_prompt_tokens=600, workload_completion_tokens=200)
    rows = {r.model: r for r in cost_report(dossier([], cost=settings)).rows}
    assert rows["a"].cost_per_1k == pytest.approx((600 * 2.0 + 200 * 8.0) / 1000)
    assert rows["b"].mean_prompt_tokens == 600 and rows["b"].mean_completion_tokens == 200
    assert "set by the committee for this workload" in rows["b"].token_source
    only_prompt = settings.model_copy(update={"workload_completion_tokens": None})
    row = next(r for r in cost_report(dossier([], cost=only_prompt)).rows if r.model == "a")
    assert (row.mean_prompt_tokens, row.mean_completion_tokens) == (600, 500)


def test_candidate_cost_falls_back_to_the_mapped_benchmarks():
    from governance.procurement.candidate_cost import token_profile
    from governance.procurement.candidates import Candidate

    d = dossier([ev(0.7, model="GPT-4o (2024-05-13)", benchmark="ProxySender")])
    d = d.model_copy(update={"mapping": d.mapping.decide("patient_provider_messaging", "accepted", by="x")})
    c = Candidate(id="c1", vendor="OpenAI", product="GPT-4o", model_id="gpt-4o", added_by="x",
                  added_at=datetime(2026, 1, 1, tzinfo=UTC), evidence_models=["GPT-4o (2024-05-13)"])
    p = token_profile(d, c)
    assert p.source.startswith("MedHELM average over the mapped benchmarks")
    assert "MedicationQA" not in p.source
    assert p.n_requests == 1000 + 2000 + 300 + 300  # MedConfInfo, MedDialog, PrivacyDetection, ProxySender


def test_token_profile_from_the_dossiers_own_runs(tmp_path):
    from evaluator.runs.reads import ensure_run_tables
    from evaluator.runs.store import RunStore
    from evaluator.runs.writer import insert_batch
    from governance.dossier.store import Store
    from governance.procurement.operations import run_token_profile

    store = Store.open(tmp_path / "m.duckdb")
    cur = store.cursor()
    ensure_run_tables(cur)
    run_id = RunStore(cur, journal_dir=None).create_run(
        run_key="k", benchmark_id="b", hashes={}, model="openai/gpt-4o", endpoint_name="e", api_base=None,
        params={}, n_planned=3)
    base = dict(run_id=run_id, response_text="x", parsed="x", score=1.0, unparsed=False, metrics={},
                cost_usd=0.0, latency_s=0.0, attempts=1, cached=False,
                finished_at="2026-01-01T00:00:00+00:00")
    rows = [("1", 400, 60, None), ("2", 600, 100, None), ("3", 900, 0, "timeout")]  # the error is left out
    insert_batch(cur, [base | dict(instance_id=i, prompt_tokens=p, completion_tokens=c, error=err)
                       for i, p, c, err in rows], [])
    e = ev(0.9, 0.8, 0.95, model="openai/gpt-4o", run_id=run_id)
    p = run_token_profile(store, dossier([e]), "openai/gpt-4o", "gpt-4o")
    assert (p.mean_prompt_tokens, p.mean_completion_tokens, p.n_requests) == (500.0, 80.0, 2)
    assert p.source.startswith("this dossier's own runs") and p.evidence_ids == (e.id,)
    assert run_token_profile(store, dossier([e]), "another-model", "gpt-4o") is None
    store.close()


def test_the_runs_measured_cost_is_the_evaluations_measured_cost():
    # Issue 36 item 11: the Cost page said "Measured USD 0.00" while the run reported $0.0054.
    from governance.procurement.measured_cost import measure

    def row(p, c, usd, cached):
        return {"prompt_tokens": p, "completion_tokens": c, "cost_usd": usd, "cached": cached, "error": None}

    rows = [row(120, 30, 0.0031, False), row(100, 20, 0.0023, False), row(100, 20, 0.0023, True)]
    m = measure("openai/x", {"run-1": rows})
    report = cost_report(dossier([], cost=CostSettings()), measured={"openai/x": m})
    assert report.evaluation_cost_measured == pytest.approx(0.0054)  # the cached answer was not charged
    (item,) = [i for i in report.evaluation_items if i.kind == "measured"]
    assert item.source == "run-1" and "openai/x" in item.label
    # A run someone already listed by hand is not counted twice.
    listed = EvaluationCostItem(label="run run-1", usd=0.0054, kind="measured", source="run-1")
    again = cost_report(dossier([], cost=CostSettings(evaluation_costs=[listed])), measured={"openai/x": m})
    assert again.evaluation_cost_measured == pytest.approx(0.0054) and len(again.evaluation_items) == 1
