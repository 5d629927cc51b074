"""Measured cost from the dossier's own runs: known answers, the store path, cost table and candidates."""

from __future__ import annotations

import pytest

from evaluator.benchmarks.specs import get_benchmark
from evaluator.gateway.llm import ModelEndpoint
from evaluator.loaders import load_instances
from evaluator.runs.runner import run_benchmark
from governance.decision.comparison import compare_candidates
from governance.procurement.cost import cost_report
from governance.procurement.measured_cost import measure
from governance.procurement.operations import measured_costs
from tests.governance.candidate_fixtures import base_dossier
from tests.governance.policy_fixtures import dossier, ev


def row(p: int, c: int, usd: float | None, cached: bool = False, error: str | None = None) -> dict:
    return {"prompt_tokens": p, "completion_tokens": c, "cost_usd": usd, "cached": cached, "error": error}


# Three instances at USD 2.50 / 10.00 per 1M tokens, worked by hand:
#   1000 × 2.5e-6 + 200 × 1e-5 = 0.0045;  2000 × 2.5e-6 + 100 × 1e-5 = 0.0060;
#   600 × 2.5e-6 + 300 × 1e-5 = 0.0045
# USD per instance = 0.0150 / 3 = 0.0050 (USD 5.00 per 1,000); tokens 3600 / 3 = 1200 and 600 / 3 = 200.
KNOWN = [row(1000, 200, 0.0045), row(2000, 100, 0.0060), row(600, 300, 0.0045)]


def test_three_known_results_give_the_exact_usd_per_instance():
    m = measure("openai/gpt-4o", {"run-1": KNOWN})
    assert m.usd_per_instance == pytest.approx(0.005, abs=1e-15) and m.usd_per_1k == pytest.approx(5.0)
    assert (m.mean_prompt_tokens, m.mean_completion_tokens) == (1200.0, 200.0)
    assert (m.n_answered, m.n_charged, m.usd_total) == (3, 3, pytest.approx(0.015))
    assert m.source == "measured on 3 instances of run run-1" and m.note == ""


def test_cached_and_errored_results_are_not_charged_prices():
    rows = [*KNOWN, row(1000, 200, 0.0, cached=True), row(None, None, None, error="timeout")]
    m = measure("m", {"run-1": rows[:3], "run-2": rows[3:]})
    assert m.usd_per_instance == pytest.approx(0.005)  # the free cache hit does not pull the price down
    assert (m.n_answered, m.n_charged) == (4, 3) and m.mean_prompt_tokens == pytest.approx(4600 / 4)
    assert m.source == "measured on 3 instances of runs run-1, run-2"
    only_cache = measure("m", {"run-3": [row(10, 5, 0.0, cached=True)]})
    assert only_cache.usd_per_instance is None and "response cache" in only_cache.note
    unpriced = measure("m", {"run-4": [row(10, 5, None)]})
    assert unpriced.usd_per_instance is None and "no price was known" in unpriced.note
    assert measure("m", {"run-5": [row(None, None, None, error="500")]}) is None
    assert measure("m", {"run-6": [row(0, 0, 0.0)]}) is None  # recorded offline: no model was called


def test_runs_on_the_test_server_are_measured_from_the_store(store, llm_server):
    """Three calls at USD 1 / 2 per 1M tokens; the fake server reports 10 completion tokens each."""
    llm_server.configure(answer=lambda r: "Answer: 12", completion_tokens=10)
    spec = get_benchmark("calc_builtin")
    endpoint = ModelEndpoint(name="cand", model="openai/cand", api_base=llm_server.url,
                             input_price_per_mtok=1.0, output_price_per_mtok=2.0)
    summary = run_benchmark(store, spec, load_instances(spec, None, limit=3), endpoint)
    rows = store.runs.results(summary.run_id)
    prompt = [r["prompt_tokens"] for r in rows]
    assert llm_server.hits == 3 and all(r["completion_tokens"] == 10 for r in rows)
    e = ev(0.5, 0.1, 0.9, model="openai/cand", run_id=summary.run_id)
    m = measured_costs(store, dossier([e]))["openai/cand"]
    assert m.usd_per_instance == pytest.approx((sum(prompt) / 3 * 1.0 + 10 * 2.0) / 1e6, rel=1e-12)
    assert m.source == f"measured on 3 instances of run {summary.run_id}"


def test_cost_table_and_candidates_show_measured_beside_list_and_quote():
    measured = {"openai/gpt-4o": measure("openai/gpt-4o", {"run-1": KNOWN})}
    d = base_dossier()
    d = d.model_copy(update={"evidence": [*d.evidence, ev(0.9, 0.8, 0.95, model="openai/gpt-4o",
                                                         run_id="run-1")]})
    plain = cost_report(d)
    assert "openai/gpt-4o" not in [r.model for r in plain.rows]
    report = cost_report(d, measured=measured)
    r = next(r for r in report.rows if r.model == "openai/gpt-4o")
    assert r.measured_per_1k == pytest.approx(5.0)
    assert r.measured_source == "measured on 3 instances of run run-1"
    # a measured model without a token profile gets a row priced at the list price, on the measured tokens
    assert (r.mean_prompt_tokens, r.mean_completion_tokens) == (1200.0, 200.0)
    assert r.token_source.startswith("this dossier's own runs (measured on 3 instances")
    assert all(x.measured_per_1k is None for x in report.rows if x.model != "openai/gpt-4o")

    cmp = compare_candidates(d, measured=measured)
    gpt = next(c for c in cmp.candidates if c.id == "gpt")
    assert gpt.cost_per_1k == pytest.approx(4.5)  # the quote: (1000 × 2.5 + 200 × 10) / 1e6 × 1000
    assert gpt.measured_cost_per_1k == pytest.approx(5.0) and gpt.measured_basis.startswith("measured on 3")
    assert gpt.list_cost_per_1k is not None and "gpt-4o" in gpt.list_basis
    llama = next(c for c in cmp.candidates if c.id == "llama")
    assert llama.measured_cost_per_1k is None and llama.measured_basis == ""
    assert compare_candidates(d).candidates[0].measured_cost_per_1k is None
