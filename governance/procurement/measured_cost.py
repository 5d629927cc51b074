"""Measured cost: tokens and USD per instance from the dossier's own runs, beside quoted and list prices.

Why apart from ``governance.procurement.cost``: the cost table and the candidates comparison are
pure functions of a dossier version, while what a run actually cost lives in the run store (one
row per instance with its tokens and the USD the gateway charged). This module reads those rows
for the runs the dossier's local-run evidence names and reduces them to one figure per evidence
model, with its source in words ("measured on 40 instances of run R"), which callers that hold a
store pass to ``cost_report`` and ``compare_candidates``.

The arithmetic: token means are over answered instances (an errored one gave no answer, and an
answer recorded without calling a model, such as the demo's offline run, carries no tokens); USD
per instance is the dollars charged for the answered instances that were actually sent, divided
by their number. Answers from the response cache were not charged, so they are left out of the
dollar mean (counting them as free would understate the price); when every answer came from the
cache, or a price was unknown when the run was made, there is no measured dollar figure and the
note says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from evaluator.storage.components import ComponentStores
    from governance.dossier.record import Dossier


class MeasuredCost(BaseModel):
    """What one model's requests cost in the dossier's own runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    """Model as named in the evidence (the run's model string)."""
    run_ids: list[str]
    """Runs measured."""
    n_answered: int
    """Answered instances the token means are over."""
    n_charged: int
    """Of those, instances sent and charged (not from the cache) with a known cost."""
    mean_prompt_tokens: float
    """Mean prompt tokens per instance."""
    mean_completion_tokens: float
    """Mean completion tokens per instance."""
    usd_total: float
    """USD charged for the answered instances that were sent."""
    usd_per_instance: float | None
    """``usd_total / n_charged``; None when nothing was charged or a price was unknown."""
    source: str
    """In words, e.g. ``measured on 3 instances of run run-1``."""
    note: str = ""
    """Why there is no dollar figure, when there is none."""

    @property
    def usd_per_1k(self) -> float | None:
        """USD per 1,000 requests at the measured mean."""
        return None if self.usd_per_instance is None else self.usd_per_instance * 1000


def measure(model: str, results: Mapping[str, Sequence[Mapping[str, Any]]]) -> MeasuredCost | None:
    """Tokens and USD per instance from run results (``{run_id: rows}``); None when nothing was answered.

    Example:
        >>> rows = [{"prompt_tokens": 100, "completion_tokens": 20, "cost_usd": 0.00014, "cached": False,
        ...          "error": None},
        ...         {"prompt_tokens": 300, "completion_tokens": 40, "cost_usd": 0.00038, "cached": False,
        ...          "error": None}]
        >>> m = measure("openai/x", {"run-1": rows})
        >>> m.mean_prompt_tokens, round(m.usd_per_instance, 5), m.source
        (200.0, 0.00026, 'measured on 2 instances of run run-1')
    """
    answered = [(rid, r) for rid, rows in results.items() for r in rows
                if r.get("error") is None and (r.get("prompt_tokens") or 0) > 0
                and r.get("completion_tokens") is not None]
    if not answered:
        return None
    sent = [r for _, r in answered if not r.get("cached")]
    unpriced = [r for r in sent if r.get("cost_usd") is None]
    charged = [r for r in sent if r.get("cost_usd") is not None]
    runs = list(dict.fromkeys(rid for rid, _ in answered))
    n = len(answered)
    usd = sum(float(r["cost_usd"]) for r in charged)
    note = ""
    if unpriced:
        note = f"no price was known for {len(unpriced)} request(s) when the run was made"
    elif not charged:
        note = "every answer came from the response cache, so nothing was charged"
    counted = len(charged) if not note else n
    where = f"run {runs[0]}" if len(runs) == 1 else f"runs {', '.join(runs)}"
    return MeasuredCost(
        model=model, run_ids=runs, n_answered=n, n_charged=len(charged),
        mean_prompt_tokens=sum(float(r["prompt_tokens"]) for _, r in answered) / n,
        mean_completion_tokens=sum(float(r["completion_tokens"]) for _, r in answered) / n,
        usd_total=usd, usd_per_instance=None if note else usd / len(charged),
        source=f"measured on {counted} instance{'s' if counted != 1 else ''} of {where}", note=note)


def measured_costs(stores: ComponentStores, dossier: Dossier) -> dict[str, MeasuredCost]:
    """Measured cost per evidence model, from the runs the dossier's local-run evidence names.

    Jury records name the candidate run they judged, so that run is counted once; the judges'
    own calls are not the candidate's cost.

    Example:
        >>> measured_costs(store, dossier)["openai/gpt-4o"].usd_per_instance  # doctest: +SKIP
        0.0021
    """
    runs: dict[str, list[str]] = {}
    for e in dossier.evidence:
        if e.provenance == "local-run" and e.run_id:
            runs.setdefault(e.model, [])
            if e.run_id not in runs[e.model]:
                runs[e.model].append(e.run_id)
    out = {}
    with stores.for_thread() as db:
        for model, ids in runs.items():
            found = measure(model, {rid: db.runs.results(rid) for rid in ids})
            if found is not None:
                out[model] = found
    return out
