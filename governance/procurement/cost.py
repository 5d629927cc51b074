"""Cost-performance: what each candidate would cost at this dossier's volume, and for what score.

Why this shape: a committee compares candidates on money as well as on evidence, and both sides
of the comparison must be traceable. Cost per request is mean tokens per request × the price per
token. Token means come from the hospital's own runs when there are any, else from MedHELM's
average over the benchmarks the dossier maps to (not the hospital's workload, and labelled so;
its output side is the max-tokens budget, an upper bound; ``governance.procurement.cost_inputs``
builds both); the committee's own tokens-per-request estimate (``CostSettings.workload_*``)
replaces either. Prices are those of the tested snapshot (``evaluator.gateway.prices.snapshot_price``:
an endpoint override, our table, then litellm's bundled map, read offline; an undated price
standing in for a dated snapshot is said to be assumed). From that follow the cost per 1,000
requests, the monthly cost at the intended use's volume, and the cost per acceptable output
(cost ÷ pass rate, only where the score is a share of correct outputs).
MedHELM's own dollar figures are shown beside ours, labelled as the budget-based upper bounds they
are, never mixed into our numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from pydantic import BaseModel

from evaluator.evidence.medhelm import published_costs
from evaluator.evidence.record import Evidence
from evaluator.gateway.prices import snapshot_price
from governance.evidence.select import is_share, preferred
from governance.procurement.candidates import candidate_models
from governance.procurement.records import CostSettings, EvaluationCostItem, TokenProfile

if TYPE_CHECKING:
    from governance.dossier.record import Dossier
    from governance.procurement.measured_cost import MeasuredCost

MEDHELM_BASIS = "MedHELM published estimate: budget-based upper bound at 2025 list prices, not an invoice"


class CostRow(BaseModel):
    """One candidate's cost and score."""

    model: str
    """Candidate."""
    price_model: str
    """litellm model string priced."""
    price_source: str | None
    """Where the price comes from; None when no source knows the model."""
    input_per_mtok: float | None
    """USD per 1M prompt tokens."""
    output_per_mtok: float | None
    """USD per 1M completion tokens."""
    mean_prompt_tokens: float
    """Mean prompt tokens per request."""
    mean_completion_tokens: float
    """Mean completion tokens per request."""
    token_source: str
    """Where the token means come from."""
    cost_per_1k: float | None
    """USD per 1,000 requests."""
    monthly_cost: float | None
    """USD per month at the dossier's expected volume."""
    score: float | None
    """Normalized 0-1 score on the score benchmark."""
    score_evidence_id: str | None
    """Evidence the score comes from."""
    pass_rate: float | None
    """Share of acceptable outputs, when the score is such a share."""
    cost_per_1k_acceptable: float | None
    """USD per 1,000 acceptable outputs (cost ÷ pass rate)."""
    on_frontier: bool = False
    """On the cost-score Pareto frontier (no candidate is cheaper and at least as good)."""
    note: str = ""
    """What to keep in mind when reading the row."""
    measured_per_1k: float | None = None
    """USD per 1,000 requests as charged in the dossier's own runs (None: not measured)."""
    measured_source: str = ""
    """Where the measured figure comes from (``measured on N instances of run R``), or why there is none."""


class PendingCost(BaseModel):
    """A candidate named in the evidence (or recorded) with no token profile yet: what is known so far."""

    model: str
    """Candidate as named in the evidence, or the recorded candidate's model id."""
    score: float | None
    """Normalized 0-1 score on the score benchmark, when the evidence has one."""
    score_evidence_id: str | None
    """Evidence the score comes from."""
    pass_rate: float | None
    """Share of acceptable outputs, when the score is such a share."""
    note: str
    """What is missing for a cost, in words."""


class CostReport(BaseModel):
    """The cost-performance table of a dossier."""

    rows: list[CostRow]
    """One row per candidate with a token profile."""
    monthly_volume: int
    """Expected requests per month (from the intended use)."""
    score_benchmark: str | None
    """Benchmark the score column is on."""
    evaluation_cost_measured: float
    """USD our own runs (and jury) cost."""
    evaluation_cost_published: float
    """USD of MedHELM's published upper-bound estimates for the evidence we rely on."""
    evaluation_items: list[EvaluationCostItem]
    """The items behind the two totals."""
    published: list[dict]
    """MedHELM's published cost estimates for these models, each labelled with its basis."""
    pending: list[PendingCost] = []
    """Candidates with evidence (or recorded) but no token profile and no measured run: not costed yet."""


def with_workload(profile: TokenProfile, settings: CostSettings | None) -> TokenProfile:
    """The profile with the committee's per-request token override applied, its source saying so.

    Example:
        >>> p = TokenProfile(model="m", price_model="gpt-4o", mean_prompt_tokens=9000,
        ...                  mean_completion_tokens=130, source="MedHELM average")
        >>> q = with_workload(p, CostSettings(workload_prompt_tokens=600))
        >>> q.mean_prompt_tokens, q.mean_completion_tokens, q.source.startswith("prompt tokens")
        (600.0, 130.0, True)
    """
    if settings is None:
        return profile
    prompt, completion = settings.workload_prompt_tokens, settings.workload_completion_tokens
    if prompt is None and completion is None:
        return profile
    said = [f"{what} tokens per request set by the committee for this workload"
            for what, v in (("prompt", prompt), ("completion", completion)) if v is not None]
    return profile.model_copy(update={
        "mean_prompt_tokens": profile.mean_prompt_tokens if prompt is None else float(prompt),
        "mean_completion_tokens": profile.mean_completion_tokens if completion is None else float(completion),
        "source": f"{' and '.join(said)} (otherwise: {profile.source})"})


def cost_per_request(profile: TokenProfile) -> tuple[float | None, object]:
    """USD per request and the resolved price of the tested snapshot (None, None when unknown).

    The snapshot is the one the profile's model names (``GPT-4o (2024-05-13)`` is priced as
    ``gpt-4o-2024-05-13`` when a source knows it); see ``evaluator.gateway.prices.snapshot_price``.

    Example:
        >>> p = TokenProfile(model="m", price_model="gpt-4o", mean_prompt_tokens=1000,
        ...                  mean_completion_tokens=100, source="example")
        >>> round(cost_per_request(p)[0], 6)
        0.0035
    """
    price = snapshot_price(profile.price_model, profile.model, profile.input_price_per_mtok,
                           profile.output_price_per_mtok)
    if price is None:
        return None, None
    usd = (
        profile.mean_prompt_tokens * price.input_per_mtok
        + profile.mean_completion_tokens * price.output_per_mtok
    ) / 1e6
    return usd, price


def pareto_frontier(points: Iterable[tuple[str, float, float]]) -> set[str]:
    """Names not dominated by another point (cheaper-or-equal and better-or-equal, one strictly).

    Example:
        >>> sorted(pareto_frontier([("a", 1, 0.5), ("b", 2, 0.9), ("c", 3, 0.8), ("d", 1, 0.4)]))
        ['a', 'b']
    """
    pts = list(points)
    return {
        name
        for name, cost, score in pts
        if not any(c <= cost and s >= score and (c < cost or s > score) for _, c, s in pts)
    }


def _score_evidence(evidence: list[Evidence], benchmark: str | None) -> dict[str, Evidence]:
    kept, _ = preferred(e for e in evidence if benchmark and e.benchmark == benchmark)
    out: dict[str, Evidence] = {}
    for e in kept:  # one metric per model: a share beats another metric
        if e.model not in out or (is_share(e) and not is_share(out[e.model])):
            out[e.model] = e
    return out


def default_score_benchmark(evidence: list[Evidence], models: list[str]) -> str | None:
    """The benchmark with share-type scores for most of these models (then any scores), if any."""
    counts: dict[str, tuple[int, int]] = {}
    for e in evidence:
        if e.model in models:
            shares, alls = counts.get(e.benchmark, (0, 0))
            counts[e.benchmark] = (shares + is_share(e), alls + 1)
    return max(counts, key=lambda b: counts[b]) if counts else None


def published_cost_rows(models: list[str], benchmark: str | None) -> list[dict]:
    """MedHELM's estimated costs (total and on ``benchmark``) for the published models among ``models``."""
    df = published_costs()
    df = df[df["model"].isin(models)]
    rows = []
    for model, g in df.groupby("model", sort=False):
        total = g[(g["benchmark"] == "ALL") & (g["item"] == "Total Cost (USD)")]["value"]
        row = {
            "model": model,
            "total_usd_37_benchmarks": float(total.iloc[0]) if len(total) else None,
            "benchmark": benchmark,
            "benchmark_usd": None,
            "benchmark_instances": None,
            "usd_per_instance": None,
            "basis": MEDHELM_BASIS,
        }
        bench = g[g["benchmark"] == benchmark]
        if len(bench):
            usd, n = float(bench["value"].iloc[0]), int(bench["test_instances"].iloc[0])
            row.update(benchmark_usd=usd, benchmark_instances=n, usd_per_instance=usd / n if n else None)
        rows.append(row)
    return rows


def published_evaluation_items(evidence: Iterable[Evidence]) -> list[EvaluationCostItem]:
    """What MedHELM estimated it spent (jury included) producing each published record we rely on.

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> [i.usd for i in published_evaluation_items(published_evidence(["MedicationQA"], ["DeepSeek R1"]))]
        [104.67]
    """
    df = published_costs()
    df = df[df["benchmark"] != "ALL"].set_index(["model", "benchmark"])
    items = []
    for e in evidence:
        if e.provenance == "published" and (e.model, e.benchmark) in df.index:
            row = df.loc[(e.model, e.benchmark)]
            row = row.iloc[0] if row.ndim > 1 else row
            items.append(
                EvaluationCostItem(
                    label=f"MedHELM: {e.model} on {e.benchmark} (jury included)",
                    usd=float(row["value"]),
                    kind="published_upper_bound",
                    source=str(row["source"]),
                )
            )
    return items


def measured_evaluation_items(
    measured: Mapping[str, MeasuredCost], listed: Iterable[EvaluationCostItem] = ()
) -> list[EvaluationCostItem]:
    """What the dossier's own runs cost, one item per model, as measured in the run store.

    A run already listed by hand (its id the ``source`` of a listed item) is not counted twice: such a
    model's item is left out. The dollars are those charged for answered requests that were sent
    (``MeasuredCost.usd_total``); cached answers cost nothing.

    Example:
        >>> from governance.procurement.measured_cost import MeasuredCost
        >>> m = MeasuredCost(model="openai/x", run_ids=["r-1"], n_answered=2, n_charged=2,
        ...                  mean_prompt_tokens=200, mean_completion_tokens=30, usd_total=0.0054,
        ...                  usd_per_instance=0.0027, source="measured on 2 instances of run r-1")
        >>> [(i.usd, i.source) for i in measured_evaluation_items({"openai/x": m})]
        [(0.0054, 'r-1')]
    """
    by_hand = {i.source for i in listed if i.kind == "measured"}
    return [
        EvaluationCostItem(label=f"{m.model}: {m.source}", usd=m.usd_total, kind="measured",
                           source=", ".join(m.run_ids))
        for m in measured.values()
        if not by_hand.intersection(m.run_ids)
    ]


def measured_profile(m: MeasuredCost) -> TokenProfile:
    """A token profile from a measured cost, priced as the run's own model string."""
    return TokenProfile(model=m.model, price_model=m.model, mean_prompt_tokens=m.mean_prompt_tokens,
                        mean_completion_tokens=m.mean_completion_tokens, n_requests=m.n_answered,
                        source=f"this dossier's own runs ({m.source})")


def cost_report(dossier: Dossier, score_benchmark: str | None = None,
                measured: Mapping[str, MeasuredCost] | None = None) -> CostReport:
    """Cost table, frontier and evaluation cost of a dossier.

    Args:
        dossier: the dossier (its cost settings, evidence and expected volume are read).
        score_benchmark: benchmark for the score column, overriding the stored choice (a view
            choice on the Cost page that must not create a new version).
        measured: what the dossier's own runs cost per model (``measured_cost.measured_costs``):
            shown beside the list-price figure; a measured model without a token profile gets a
            row from its measured tokens.

    Example:
        >>> report = cost_report(dossier)  # doctest: +SKIP
        >>> [r.model for r in report.rows if r.on_frontier]  # doctest: +SKIP
        ['Llama 3.3 Instruct (70B)']
    """
    settings = dossier.cost or CostSettings()
    profiles = {p.model: with_workload(p, settings) for p in settings.profiles}
    measured = measured or {}
    for m in measured.values():
        profiles.setdefault(m.model, with_workload(measured_profile(m), settings))
    volume = dossier.intended_use.expected_monthly_volume
    bench = (
        score_benchmark
        or settings.score_benchmark
        or default_score_benchmark(dossier.evidence, list(profiles))
    )
    scores = _score_evidence(dossier.evidence, bench)
    rows = []
    for p in profiles.values():
        usd, price = cost_per_request(p)
        e = scores.get(p.model)
        share = e is not None and is_share(e)
        notes = [] if price else [f"no price known for {p.price_model!r}: set an override"]
        if e is not None and not share:
            notes.append(f"{e.metric} is not a share of correct outputs: no cost per acceptable output")
        per_1k = usd * 1000 if usd is not None else None
        rows.append(
            CostRow(
                model=p.model,
                price_model=p.price_model,
                price_source=price.source if price else None,
                input_per_mtok=price.input_per_mtok if price else None,
                output_per_mtok=price.output_per_mtok if price else None,
                mean_prompt_tokens=p.mean_prompt_tokens,
                mean_completion_tokens=p.mean_completion_tokens,
                token_source=p.source,
                cost_per_1k=per_1k,
                monthly_cost=usd * volume if usd is not None else None,
                score=e.normalized_score if e else None,
                score_evidence_id=e.id if e else None,
                pass_rate=e.score if share else None,
                cost_per_1k_acceptable=per_1k / e.score
                if share and per_1k is not None and e.score > 0
                else None,
                note="; ".join(notes),
                **measured_fields(measured.get(p.model)),
            )
        )
    frontier = pareto_frontier(
        (r.model, r.cost_per_1k, r.score) for r in rows if r.cost_per_1k is not None and r.score is not None
    )
    rows = [r.model_copy(update={"on_frontier": r.model in frontier}) for r in rows]
    items = [
        *settings.evaluation_costs,
        *measured_evaluation_items(measured, settings.evaluation_costs),
        *published_evaluation_items(dossier.evidence),
    ]
    pending = pending_candidates(dossier, set(profiles), bench)
    return CostReport(
        rows=rows,
        monthly_volume=volume,
        score_benchmark=bench,
        evaluation_items=items,
        evaluation_cost_measured=sum(i.usd for i in items if i.kind == "measured"),
        evaluation_cost_published=sum(i.usd for i in items if i.kind == "published_upper_bound"),
        published=published_cost_rows(list(profiles) + [e.model for e in dossier.evidence], bench),
        pending=pending,
    )


NO_PROFILE = ("no token profile yet: choose it below under \"Token profile of a candidate\" (Priced as, "
              "and the tokens per request: measured in a run, MedHELM's average, or your own)")


def pending_candidates(dossier: Dossier, costed: set[str], benchmark: str | None) -> list[PendingCost]:
    """Every evidence model, and every recorded candidate without evidence, that has no cost row yet.

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> from governance.intended_use.records import example_intended_use
        >>> from governance.dossier.record import Dossier
        >>> d = Dossier(title="dosing", owner="me", intended_use=example_intended_use(),
        ...             evidence=published_evidence(["MedCalc-Bench"], ["GPT-4o (2024-05-13)"]))
        >>> [(p.model, round(p.score, 3)) for p in pending_candidates(d, set(), "MedCalc-Bench")]
        [('GPT-4o (2024-05-13)', 0.188)]
    """
    scores = _score_evidence(dossier.evidence, benchmark)
    names = list(dict.fromkeys(e.model for e in dossier.evidence))
    names += [c.model_id for c in dossier.candidates if not candidate_models(dossier, c)]
    out = []
    for name in dict.fromkeys(names):
        if name in costed:
            continue
        e = scores.get(name)
        out.append(PendingCost(model=name, score=e.normalized_score if e else None,
                               score_evidence_id=e.id if e else None,
                               pass_rate=e.score if e is not None and is_share(e) else None,
                               note=NO_PROFILE if e else NO_PROFILE + "; no score on the score benchmark"))
    return out


def measured_fields(m: MeasuredCost | None) -> dict:
    """The cost row's measured columns for one model (empty when it was not measured)."""
    if m is None:
        return {}
    return {"measured_per_1k": m.usd_per_1k,
            "measured_source": m.source + (f" ({m.note})" if m.note else "")}
