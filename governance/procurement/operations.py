"""Cost figures read from the dossier's own runs: what each run was charged, and its token profile.

Why in the operations: the arithmetic (``governance.procurement.measured_cost.measure``,
``governance.procurement.cost_inputs.profile_from_results``) is pure; reading the per-instance
results of the dossier's runs takes the run store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from governance.procurement.cost_inputs import profile_from_results
from governance.procurement.measured_cost import MeasuredCost, measure
from governance.procurement.records import TokenProfile

if TYPE_CHECKING:
    from evaluator.storage.components import ComponentStores
    from governance.dossier.record import Dossier


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


def run_token_profile(store: ComponentStores, dossier: Any, model: str,
                      price_model: str) -> TokenProfile | None:
    """Token means from the dossier's own local runs of ``model`` (None when none carries tokens).

    The runs are those named by the dossier's local-run evidence for that model; errored results and
    results without token counts (e.g. demo answers recorded without calling a model) are left out.

    Example:
        >>> run_token_profile(store, dossier, "openai/gpt-4o", "gpt-4o").source  # doctest: +SKIP
        "this dossier's own runs (run-1; 40 requests)"
    """
    run_ids = sorted({e.run_id for e in dossier.evidence
                      if e.provenance == "local-run" and e.model == model and e.run_id})
    if not run_ids:
        return None
    rows = [r for rid in run_ids for r in store.runs.results(rid)
            if r.get("error") is None and (r.get("prompt_tokens") or 0) > 0]
    if not rows:
        return None
    evidence = tuple(e.id for e in dossier.evidence if e.run_id in run_ids and e.model == model)
    source = f"this dossier's own runs ({', '.join(run_ids)}; {len(rows)} requests)"
    return profile_from_results(model, price_model, rows, evidence_ids=evidence, source=source)
