"""A candidate's quoted price as USD per 1,000 requests at the dossier's expected volume.

Why a conversion at all: vendors quote per token or per seat, and the committee compares one
number, USD per 1,000 requests (the unit of the cost rule and the Cost page). The conversion:

* **per token**: cost per request = mean prompt tokens × input price + mean completion tokens ×
  output price (prices per 1M tokens, so ÷ 1,000,000); per 1,000 requests = × 1,000; per month =
  cost per request × the intended use's expected monthly volume. The token means are the
  dossier's own token profile for the candidate's evidence model (Cost page: measured in a local
  run, or entered), else MedHELM's average over the benchmarks the dossier maps to (whose
  completion side is the max-tokens budget, an upper bound, and labelled "not your workload");
  the committee's per-request token override, when set, replaces either. Without any, the cost
  is unknown.
* **per seat**: the month costs seats × USD per seat whatever the traffic, so per 1,000 requests
  = seats × USD per seat ÷ expected monthly volume × 1,000. With no expected volume (0) there is no
  per-request figure. A seat price is cheaper per request the more the seats are used: the figure
  is only as good as the volume estimate, and the basis text says so.

The basis of every figure is returned in words next to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from evaluator.evidence.medhelm import benchmark_tokens
from governance.evidence.attach import mapped_benchmarks
from governance.procurement.candidates import candidate_models
from governance.procurement.cost import with_workload
from governance.procurement.cost_inputs import medhelm_token_profile
from governance.procurement.records import Candidate, TokenProfile

if TYPE_CHECKING:
    from governance.dossier.record import Dossier


class CandidateCost(BaseModel):
    """What one candidate would cost, and how that figure was reached."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cost_per_1k: float | None
    """USD per 1,000 requests (None: unknown)."""
    monthly_cost: float | None
    """USD per month at the expected volume (None: unknown)."""
    basis: str
    """How the figures were computed, or why there are none."""


def token_profile(dossier: Dossier, candidate: Candidate) -> TokenProfile | None:
    """Mean tokens per request for a candidate, with the committee's workload override applied.

    The dossier's own profile (measured in its runs, or entered) comes first; else MedHELM's average
    over the benchmarks the dossier maps to (labelled "not your workload"); None without either.
    """
    models = candidate_models(dossier, candidate)
    settings = dossier.cost
    profiles = {p.model: p for p in (settings.profiles if settings else [])}
    for m in models:
        if m in profiles:
            return with_workload(profiles[m], settings)
    mapped = [b.name for b in mapped_benchmarks(dossier)]
    published = set(benchmark_tokens()["model"])
    for m in models:
        if m in published and mapped:
            try:
                profile = medhelm_token_profile(m, price_model=candidate.model_id, benchmarks=mapped)
                return with_workload(profile, settings)
            except ValueError:
                continue
    return None


def per_token_cost(prompt_tokens: float, completion_tokens: float, input_per_mtok: float,
                   output_per_mtok: float, volume: int) -> tuple[float, float]:
    """USD per 1,000 requests and per month for a per-token price.

    Example:
        >>> per_token_cost(1000, 200, 2.5, 10.0, volume=40_000)
        (4.5, 180.0)
    """
    per_request = (prompt_tokens * input_per_mtok + completion_tokens * output_per_mtok) / 1e6
    return per_request * 1000, per_request * volume


def per_seat_cost(usd_per_seat_month: float, seats: int, volume: int) -> tuple[float | None, float]:
    """USD per 1,000 requests (None without a volume) and per month for a seat price.

    Example:
        >>> per_seat_cost(30.0, 25, volume=40_000)
        (18.75, 750.0)
    """
    monthly = usd_per_seat_month * seats
    return (monthly / volume * 1000 if volume > 0 else None), monthly


def candidate_cost(dossier: Dossier, candidate: Candidate) -> CandidateCost:
    """The candidate's price converted to USD per 1,000 requests (see the module docstring).

    Example:
        >>> candidate_cost(dossier, candidate).cost_per_1k  # doctest: +SKIP
        18.75
    """
    p = candidate.pricing
    volume = dossier.intended_use.expected_monthly_volume
    quoted = f" (quote: {p.source})" if p is not None and p.source else ""
    if p is None:
        return CandidateCost(cost_per_1k=None, monthly_cost=None, basis="no price recorded")
    if p.kind == "per_seat":
        per_1k, monthly = per_seat_cost(p.usd_per_seat_month, p.seats, volume)
        if per_1k is None:
            return CandidateCost(cost_per_1k=None, monthly_cost=monthly, basis=(
                f"{p.seats} seats × USD {p.usd_per_seat_month:,.2f} a month; no expected monthly volume in "
                f"the intended use, so no cost per request{quoted}"))
        return CandidateCost(cost_per_1k=per_1k, monthly_cost=monthly, basis=(
            f"per seat: {p.seats} seats × USD {p.usd_per_seat_month:,.2f} = USD {monthly:,.2f} a month ÷ "
            f"{volume:,} expected requests × 1,000; falls if volume rises{quoted}"))
    profile = token_profile(dossier, candidate)
    if profile is None:
        return CandidateCost(cost_per_1k=None, monthly_cost=None, basis=(
            f"per token USD {p.input_usd_per_mtok:g} / {p.output_usd_per_mtok:g} per 1M, but no token means "
            "for this candidate: add a token profile on the Cost page"))
    per_1k, monthly = per_token_cost(profile.mean_prompt_tokens, profile.mean_completion_tokens,
                                     p.input_usd_per_mtok, p.output_usd_per_mtok, volume)
    return CandidateCost(cost_per_1k=per_1k, monthly_cost=monthly, basis=(
        f"per token: {profile.mean_prompt_tokens:,.0f} prompt × USD {p.input_usd_per_mtok:g} + "
        f"{profile.mean_completion_tokens:,.0f} completion × USD {p.output_usd_per_mtok:g} per 1M tokens, "
        f"× 1,000 requests; tokens: {profile.source}{quoted}"))
