"""The frozen evidence plan: exactly what was run for a decision, so it can be run again.

Why freeze it at the decision: a committee approves a model *as it was evaluated* (these cases,
this prompt, this endpoint, these generation parameters). When a vendor later changes the model
or a team tunes the prompt, "re-evaluate" must re-run that same plan with only the change
applied, and say so if the cases or the prompt can no longer be reproduced. So the decision
records, for every local-run evidence record: the benchmark or local scenario and its dataset
hash, the prompt template with its hash, the endpoint (model string, server, the NAME of the key
variable, never a key), the generation parameters, the judge configuration, and the run id.

Where the facts come from: the run store records hashes, model, server and parameters of every
run, and the job manager (``evaluator.runs.jobs``) stores the request that started it beside it
(dataset file and its SHA-256, key variable NAME, transport, limits). Both are read from the
store, so a plan frozen after an app restart is the plan frozen before it; a run without a
stored request (made before requests were stored) leaves those fields empty. Published and
imported evidence cannot be re-run and is only counted.
The plan is stored on the dossier (``Dossier.evidence_plan``) before the decision's hash is
taken, so the committee's decision covers the plan too.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from evaluator.benchmarks.specs import BenchmarkError, BenchmarkSpec, get_benchmark, prompt_hash
from evaluator.gateway.llm import ModelEndpoint
from governance.evidence.plan_records import EvidencePlan, PlanEndpoint, PlanItem, PlanPrompt

if TYPE_CHECKING:
    from evaluator.storage.components import ComponentStores
    from governance.dossier.record import Dossier
    from governance.dossier.storage import DossierStorage

_SCENARIO_BENCHMARK = re.compile(r"^(?P<sid>[a-z0-9_]+)_v(?P<version>\d+)$")


def spec_with_prompt(spec: BenchmarkSpec, system_prompt: str, prompt_template: str) -> BenchmarkSpec:
    """A validated copy of ``spec`` with another prompt (placeholders checked as on load).

    Example:
        >>> s = spec_with_prompt(get_benchmark("calc_builtin"), "", "{question}")
        >>> s.prompt_template, s.system_prompt
        ('{question}', '')
    """
    data = spec.model_dump()
    data.update(system_prompt=system_prompt, prompt_template=prompt_template)
    return BenchmarkSpec.model_validate(data)


def plan_prompt(spec: BenchmarkSpec, rendered_hash: str | None = None) -> PlanPrompt:
    """The prompt part of a plan item for a spec.

    Example:
        >>> len(plan_prompt(get_benchmark("calc_builtin")).template_hash)
        64
    """
    return PlanPrompt(system_prompt=spec.system_prompt, prompt_template=spec.prompt_template,
                      template_hash=prompt_hash(spec), rendered_hash=rendered_hash)


def _scenario_of(stores: ComponentStores, benchmark_id: str, run_id: str) -> tuple[str, int, bool] | None:
    """(scenario id, version, phi_approved) when the run was made on a local scenario."""

    match = _SCENARIO_BENCHMARK.match(benchmark_id)
    if not match:
        return None
    sid, version = match["sid"], int(match["version"])
    runs = [r for r in stores.scenarios.runs(sid, version) if r["run_id"] == run_id]
    return (sid, version, bool(runs[0]["phi_approved"])) if runs else None


def _spec_for(stores: ComponentStores, benchmark_id: str,
              scenario: tuple[str, int, bool] | None) -> BenchmarkSpec | None:
    if scenario is not None:
        from evaluator.scenarios import scenario_spec  # lazy: +0.9 s, see _scenario_of

        try:
            return scenario_spec(stores.scenarios.get(scenario[0], scenario[1]))
        except KeyError:
            return None
    try:
        return get_benchmark(benchmark_id)
    except BenchmarkError:
        return None


def _known_endpoint(request: dict[str, Any] | None, run: dict[str, Any]) -> ModelEndpoint | None:
    """The stored request's endpoint when it is the endpoint the run record names (else None)."""
    if not request or not request.get("endpoint"):
        return None
    endpoint = ModelEndpoint.model_validate(request["endpoint"])
    return endpoint if (endpoint.model, endpoint.api_base) == (run["model"], run["api_base"]) else None


def _item(stores: ComponentStores, run: dict[str, Any], evidence: list) -> PlanItem:
    import json

    scenario = _scenario_of(stores, run["benchmark_id"], run["run_id"])
    spec = _spec_for(stores, run["benchmark_id"], scenario)
    params = json.loads(run["params"]) if isinstance(run["params"], str) else dict(run["params"] or {})
    request = stores.runs.stored_request(run["run_id"], run["run_key"])
    known = _known_endpoint(request, run)
    endpoint = PlanEndpoint(
        name=run["endpoint_name"] or run["model"], model=run["model"], api_base=run["api_base"],
        api_key_env=known.api_key_env if known else None,
        extra_params=dict(known.extra_params) if known else {},
        transport=known.transport if known else "litellm",
        input_price_per_mtok=known.input_price_per_mtok if known else None,
        output_price_per_mtok=known.output_price_per_mtok if known else None,
        phi_approved=scenario[2] if scenario else bool(known and known.phi_approved),
        known_from="run record + stored request" if known else "run record")
    offline = bool(params.get("offline"))
    notes = []
    if offline:
        notes.append("answers were recorded offline (demo data), not by calling an endpoint")
    if spec is None:
        notes.append(f"benchmark {run['benchmark_id']!r} is no longer available")
    if run["status"] != "completed":
        notes.append(f"the run is {run['status']}")
    return PlanItem(
        kind="scenario" if scenario else "benchmark", benchmark=evidence[0].benchmark,
        benchmark_id=run["benchmark_id"], scenario_id=scenario[0] if scenario else None,
        scenario_version=scenario[1] if scenario else None, dataset_hash=run["dataset_hash"],
        dataset_path=request.get("dataset_path") if known else None, n_instances=int(run["n_planned"] or 0),
        spec_hash=run["spec_hash"], prompt=plan_prompt(spec, run["prompt_hash"]) if spec else None,
        params={k: v for k, v in params.items() if k in ("temperature", "max_tokens")},
        endpoint=endpoint, judge=spec.jury if spec else None, run_id=run["run_id"],
        evidence_ids=[e.id for e in evidence], metrics=[e.metric for e in evidence],
        model_label=evidence[0].model, rerunnable=not notes, note="; ".join(notes))


def _missing_item(run_id: str, evidence: list) -> PlanItem:
    e = evidence[0]
    return PlanItem(kind="benchmark", benchmark=e.benchmark, benchmark_id=e.benchmark, run_id=run_id,
                    endpoint=PlanEndpoint(name=e.model, model=e.model), evidence_ids=[x.id for x in evidence],
                    metrics=[x.metric for x in evidence], model_label=e.model, rerunnable=False,
                    note=f"run {run_id} is not in this database (evidence imported from elsewhere)")


def freeze_plan(store: DossierStorage, dossier: Dossier, *, by: str = "",
                at: datetime | None = None) -> EvidencePlan:
    """The evidence plan of ``dossier`` as it stands: one item per local run behind its evidence.

    Args:
        store: the app's store (runs are read from its database).
        dossier: the dossier about to be decided.
        by: who freezes it.
        at: the time to record (default now).

    Example:
        >>> plan = freeze_plan(store, dossier, by="chair")  # doctest: +SKIP
        >>> [(i.benchmark_id, i.endpoint.model, i.dataset_hash[:8]) for i in plan.items]  # doctest: +SKIP
        [('calc_builtin', 'openai/fake-a', '3f9a1c2b')]
    """
    by_run: dict[str, list] = {}
    for e in dossier.evidence:
        if e.provenance == "local-run" and e.run_id:
            by_run.setdefault(e.run_id, []).append(e)
    others = sum(1 for e in dossier.evidence if e.provenance != "local-run" or not e.run_id)
    db = store.for_thread()
    try:
        runs = db.runs
        items = []
        for run_id, evidence in by_run.items():
            run = runs.get_run(run_id)
            items.append(_item(db, run, evidence) if run else _missing_item(run_id, evidence))
    finally:
        db.close()
    if items:
        note = (f"{len(items)} local run(s) frozen; {others} published or imported record(s) cannot be "
                "re-run here.")
    else:
        note = (f"No local-run evidence: nothing here can be re-run; published and imported evidence "
                f"({others} record(s)) stays as it is.")
    return EvidencePlan(frozen_at=at or datetime.now(UTC), frozen_by=by or "unknown", items=items,
                        other_evidence=others, note=note)
