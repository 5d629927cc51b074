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
from typing import TYPE_CHECKING, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from evaluator.benchmarks import BenchmarkError, BenchmarkSpec, JurySettings, get_benchmark, prompt_hash
from evaluator.gateway.llm import ModelEndpoint

if TYPE_CHECKING:
    from governance.dossier.record import Dossier
    from governance.dossier.store import Store

ItemKind = Literal["benchmark", "scenario"]
_SCENARIO_BENCHMARK = re.compile(r"^(?P<sid>[a-z0-9_]+)_v(?P<version>\d+)$")


class PlanEndpoint(BaseModel):
    """The endpoint a run was sent to, as far as it can be known (never a key)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """Endpoint label given when the run started."""
    model: str
    """litellm model string the run used."""
    api_base: str | None = None
    """Server the run was sent to (None: the provider's default)."""
    api_key_env: str | None = None
    """NAME of the environment variable holding the key, when known (never the key)."""
    extra_params: dict[str, Any] = Field(default_factory=dict)
    """Extra call options of the endpoint (no secrets), when known."""
    transport: Literal["litellm", "openai"] = "litellm"
    """Client used to call it (does not change answers)."""
    input_price_per_mtok: float | None = None
    """Price override (USD per 1M prompt tokens), when one was given."""
    output_price_per_mtok: float | None = None
    """Price override (USD per 1M completion tokens), when one was given."""
    phi_approved: bool = False
    """Whether the endpoint was approved for PHI when the run was made."""
    known_from: str = "run record"
    """Where these facts come from (``run record`` or ``run record + stored request``)."""

    def endpoint(self, concurrency: int = 8) -> ModelEndpoint:
        """The ``ModelEndpoint`` to call (the key is read from ``api_key_env`` at call time).

        Example:
            >>> PlanEndpoint(name="a", model="openai/m", api_base="http://127.0.0.1:9/v1").endpoint().model
            'openai/m'
        """
        return ModelEndpoint(name=self.name, model=self.model, api_base=self.api_base,
                             api_key_env=self.api_key_env, extra_params=self.extra_params,
                             transport=self.transport, input_price_per_mtok=self.input_price_per_mtok,
                             output_price_per_mtok=self.output_price_per_mtok, phi_approved=self.phi_approved,
                             max_concurrency=max(1, concurrency))


class PlanPrompt(BaseModel):
    """The prompt a run used: its template text and hashes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    system_prompt: str
    """System message ('' for none)."""
    prompt_template: str
    """User message template ({context}, {question}, {choices})."""
    template_hash: str
    """``evaluator.benchmarks.prompt_hash`` of the two texts above."""
    rendered_hash: str | None = None
    """The run's hash of every rendered prompt (None when the run store did not record it)."""


class PlanItem(BaseModel):
    """One local run behind the dossier's evidence, with everything needed to run it again."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ItemKind
    """``benchmark`` (data/benchmarks) or ``scenario`` (a local scenario version)."""
    benchmark: str
    """Benchmark as the evidence names it (e.g. ``calc_builtin`` or ``Refills [sc_1 v2]``)."""
    benchmark_id: str
    """Spec id the run used (for a scenario ``<scenario_id>_v<version>``)."""
    scenario_id: str | None = None
    """Local scenario id (scenario items only)."""
    scenario_version: int | None = None
    """Local scenario version (scenario items only)."""
    dataset_hash: str | None = None
    """SHA-256 of the instances as run (checked again before a re-run)."""
    dataset_path: str | None = None
    """Dataset file, when the run needed one and it is known."""
    n_instances: int = 0
    """Instances the run planned."""
    spec_hash: str | None = None
    """Hash of the benchmark spec as run."""
    prompt: PlanPrompt | None = None
    """The prompt (None when the benchmark spec is no longer available)."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Generation parameters sent with every request (temperature, max_tokens)."""
    endpoint: PlanEndpoint
    """Where the run was sent."""
    judge: JurySettings | None = None
    """LLM-jury configuration of the benchmark, if it has one."""
    run_id: str
    """The run whose results are the baseline."""
    evidence_ids: list[str] = Field(default_factory=list)
    """Dossier evidence records produced by this run."""
    metrics: list[str] = Field(default_factory=list)
    """Metrics of those evidence records."""
    model_label: str
    """Candidate as the evidence names it (the decision names candidates this way)."""
    rerunnable: bool = True
    """False when the run cannot be repeated (offline demo answers, run not in this database)."""
    note: str = ""
    """Why an item is not re-runnable, or what a reader must know."""


class EvidencePlan(BaseModel):
    """The frozen plan of a dossier: one item per local run behind its evidence."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    frozen_at: AwareDatetime
    """When the plan was frozen."""
    frozen_by: str
    """Who froze it (the person recording the decision)."""
    items: list[PlanItem] = Field(default_factory=list)
    """Local runs, in evidence order."""
    other_evidence: int = 0
    """Published or imported evidence records, which cannot be re-run here."""
    note: str = ""
    """How to read the plan."""

    @property
    def rerunnable(self) -> list[PlanItem]:
        """Items that can be run again."""
        return [i for i in self.items if i.rerunnable]

    def display_rows(self) -> list[dict[str, Any]]:
        """One plain row per item, as pages list the plan (hashes shortened, never a key)."""
        return [{"benchmark": i.benchmark, "kind": i.kind, "candidate": i.model_label,
                 "model": i.endpoint.model, "server": i.endpoint.api_base or "provider default",
                 "key variable": i.endpoint.api_key_env or "", "dataset hash": (i.dataset_hash or "")[:12],
                 "prompt hash": i.prompt.template_hash[:12] if i.prompt else "", "run": i.run_id,
                 "re-runnable": "yes" if i.rerunnable else f"no: {i.note}"} for i in self.items]


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


def _scenario_of(con, benchmark_id: str, run_id: str) -> tuple[str, int, bool] | None:
    """(scenario id, version, phi_approved) when the run was made on a local scenario."""
    from evaluator.scenarios import ScenarioStore

    match = _SCENARIO_BENCHMARK.match(benchmark_id)
    if not match:
        return None
    sid, version = match["sid"], int(match["version"])
    runs = [r for r in ScenarioStore(con).runs(sid, version) if r["run_id"] == run_id]
    return (sid, version, bool(runs[0]["phi_approved"])) if runs else None


def _spec_for(con, benchmark_id: str, scenario: tuple[str, int, bool] | None) -> BenchmarkSpec | None:
    if scenario is not None:
        from evaluator.scenarios import ScenarioStore, scenario_spec

        try:
            return scenario_spec(ScenarioStore(con).get(scenario[0], scenario[1]))
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


def _item(con, run: dict[str, Any], evidence: list) -> PlanItem:
    import json

    from evaluator.runs.store import RunStore

    scenario = _scenario_of(con, run["benchmark_id"], run["run_id"])
    spec = _spec_for(con, run["benchmark_id"], scenario)
    params = json.loads(run["params"]) if isinstance(run["params"], str) else dict(run["params"] or {})
    request = RunStore(con, journal_dir=None).stored_request(run["run_id"], run["run_key"])
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


def freeze_plan(store: Store, dossier: Dossier, *, by: str = "", at: datetime | None = None) -> EvidencePlan:
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
    from evaluator.runs.store import RunStore

    by_run: dict[str, list] = {}
    for e in dossier.evidence:
        if e.provenance == "local-run" and e.run_id:
            by_run.setdefault(e.run_id, []).append(e)
    others = sum(1 for e in dossier.evidence if e.provenance != "local-run" or not e.run_id)
    cur = store.cursor()
    try:
        runs = RunStore(cur, journal_dir=None)
        items = []
        for run_id, evidence in by_run.items():
            run = runs.get_run(run_id)
            items.append(_item(cur, run, evidence) if run else _missing_item(run_id, evidence))
    finally:
        cur.close()
    if items:
        note = (f"{len(items)} local run(s) frozen; {others} published or imported record(s) cannot be "
                "re-run here.")
    else:
        note = (f"No local-run evidence: nothing here can be re-run; published and imported evidence "
                f"({others} record(s)) stays as it is.")
    return EvidencePlan(frozen_at=at or datetime.now(UTC), frozen_by=by or "unknown", items=items,
                        other_evidence=others, note=note)
