"""Cost inputs: token profiles and evaluation costs from runs, or from MedHELM's published totals.

Why apart from ``governance.procurement.cost``: the cost table reads ``TokenProfile`` and
``EvaluationCostItem`` values and does not care where they came from. This module makes them from
the three sources a committee has: the runner's per-result rows, a finished run's summary
(``evaluator.runs.summary.RunSummary``: tokens and dollars actually spent), and MedHELM's published
token totals (whose completion side is the max-tokens budget, an upper bound).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from evaluator.evidence.medhelm import benchmark_tokens, published_costs
from governance.procurement.records import EvaluationCostItem, TokenProfile


def profile_from_results(model: str, price_model: str, results: Iterable[Mapping], source: str,
                         evidence_ids: tuple[str, ...] = ()) -> TokenProfile:
    """Token means from the runner's per-result rows (``prompt_tokens``, ``completion_tokens``).

    Rows without token counts (errors) are skipped; cached rows count, since a live call would
    have used the same tokens.

    Example:
        >>> rows = [{"prompt_tokens": 100, "completion_tokens": 20}, {"prompt_tokens": 300,
        ...          "completion_tokens": 40}, {"prompt_tokens": None, "completion_tokens": None}]
        >>> p = profile_from_results("m", "gpt-4o", rows, source="run r-1")
        >>> p.mean_prompt_tokens, p.mean_completion_tokens, p.n_requests
        (200.0, 30.0, 2)
    """
    counted = [(r["prompt_tokens"], r["completion_tokens"]) for r in results
               if r.get("prompt_tokens") is not None and r.get("completion_tokens") is not None]
    if not counted:
        raise ValueError(f"{source}: no result carries token counts")
    n = len(counted)
    return TokenProfile(model=model, price_model=price_model, n_requests=n, source=source,
                        mean_prompt_tokens=sum(p for p, _ in counted) / n,
                        mean_completion_tokens=sum(c for _, c in counted) / n, evidence_ids=evidence_ids)


MAPPED_LABEL = "MedHELM average over the mapped benchmarks, not your workload"




def medhelm_token_profile(published_model: str, price_model: str,
                          benchmarks: Iterable[str] | None = None) -> TokenProfile:
    """Mean tokens per request of a published model, over ``benchmarks`` (all 37 when None).

    The means are weighted by instances (tokens over the benchmarks ÷ their instances). Over the
    dossier's mapped benchmarks they are what MedHELM sent for tasks like the intended use's, yet still
    not the hospital's own workload, and the source says so; the completion side is the max-tokens
    budget, an upper bound.

    Example:
        >>> p = medhelm_token_profile("GPT-4o (2024-05-13)", "gpt-4o")
        >>> round(p.mean_prompt_tokens), p.n_requests
        (9390, 26166)
        >>> p = medhelm_token_profile("GPT-4o (2024-05-13)", "gpt-4o", ["ProxySender", "PrivacyDetection"])
        >>> round(p.mean_prompt_tokens, 1), p.n_requests
        (216.0, 600)
    """
    if benchmarks is not None:
        return _mapped_profile(published_model, price_model, list(benchmarks))
    df = published_costs()
    df = df[df["model"] == published_model]
    if df.empty:
        raise ValueError(f"no published MedHELM costs for {published_model!r}")
    total = df[df["benchmark"] == "ALL"].set_index("item")["value"].astype(float)
    per_bench = df[df["benchmark"] != "ALL"]
    n = int(per_bench["test_instances"].astype(int).sum())
    return TokenProfile(
        model=published_model, price_model=price_model, n_requests=n,
        mean_prompt_tokens=total["Total Input Tokens (tokens)"] / n,
        mean_completion_tokens=total["Total Output Tokens (tokens)"] / n,
        source=("MedHELM average over all 37 benchmarks, not your workload: token totals ÷ instances "
                "(som-shahlab/medhelm token_utilization.csv); completion tokens are the max-tokens budget, "
                "an upper bound"))


def _mapped_profile(published_model: str, price_model: str, benchmarks: list[str]) -> TokenProfile:
    t = benchmark_tokens()
    t = t[(t["model"] == published_model) & (t["benchmark"].isin(benchmarks))]
    if t.empty:
        raise ValueError(f"no MedHELM token figures for {published_model!r} on "
                         f"{', '.join(benchmarks) or 'no benchmark'}")
    n = int(t["instances"].sum())
    prompt = float((t["mean_prompt_tokens"] * t["instances"]).sum()) / n
    completion = float((t["mean_completion_budget"] * t["instances"]).sum()) / n
    names = ", ".join(sorted(t["benchmark"]))
    return TokenProfile(
        model=published_model, price_model=price_model, n_requests=n, mean_prompt_tokens=prompt,
        mean_completion_tokens=completion,
        source=(f"{MAPPED_LABEL} ({names}; {n:,} instances): prompt tokens derived from MedHELM's "
                "per-benchmark cost estimates (as published); completion tokens are the "
                "max-tokens budget, an upper bound"))


def from_run_summary(summary: Any, price_model: str | None = None) -> tuple[TokenProfile, EvaluationCostItem]:
    """Token profile and measured evaluation cost of a finished run (a ``RunSummary``).

    Means are over answered instances (errored ones sent tokens but gave no answer, so they are
    left out of the means; their cost is in the run's dollars). The profile is keyed by the run's
    model string, as its local-run evidence is.

    Example:
        >>> from types import SimpleNamespace as S
        >>> run = S(run_id="r-1", model="openai/gpt-4o", benchmark_id="pubmedqa", n=10, n_errors=0,
        ...         prompt_tokens=5000, completion_tokens=800, cost_usd=0.0205, cost_known=True)
        >>> profile, item = from_run_summary(run)
        >>> profile.mean_prompt_tokens, item.usd
        (500.0, 0.0205)
    """
    answered = summary.n - summary.n_errors
    if answered <= 0:
        raise ValueError(f"run {summary.run_id}: no answered instance, so no token means")
    profile = TokenProfile(
        model=summary.model, price_model=price_model or summary.model, n_requests=answered,
        mean_prompt_tokens=summary.prompt_tokens / answered,
        mean_completion_tokens=summary.completion_tokens / answered,
        source=f"local run {summary.run_id} on {summary.benchmark_id} ({answered} answered requests)")
    unknown = "" if summary.cost_known else " (some prices unknown: a lower bound)"
    label = f"run {summary.run_id}: {summary.model} on {summary.benchmark_id}{unknown}"
    item = EvaluationCostItem(label=label, usd=summary.cost_usd, kind="measured", source=summary.run_id)
    return profile, item
