"""Running a local scenario: its benchmark spec, the PHI gate, and the run itself.

Why a gate inside the run function as well as in the page and the CLI: the page and the CLI call
``phi_gate`` first to *explain* a block before anything happens, and ``run_scenario`` calls it
again, so no caller can reach the runner with identifiers bound for an endpoint that is not
approved for PHI. It is the one gate of the run manager (``evaluator.runs.phi_gate``); a
de-identification attestation recorded for the version's cases (its content hash) or for the file
it was imported from (its SHA-256) lets flagged cases through.
The run itself is the ordinary runner (cache, resume, budget) on a spec derived
from ``data/benchmarks/generic.yaml``: each case is scored by its own answer type, free-text
cases stay unscored (and are counted) until a jury is configured. Pages and the CLI start it in
the background with ``start_scenario`` (the one job manager, ``evaluator.runs.jobs``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import BenchmarkSpec, get_benchmark, prompt_hash
from evaluator.gateway.llm import ModelEndpoint
from evaluator.phi import PhiCheck
from evaluator.phi.attestation import DeidentificationAttestation
from evaluator.runs.jobs import JOBS, Job, JobManager
from evaluator.runs.phi_gate import PhiBlocked, attestation_for, check_phi
from evaluator.runs.plan import plan_run
from evaluator.runs.request import request_record
from evaluator.runs.runner import ProgressFn, RunOptions, main_metric_name, run_benchmark
from evaluator.runs.store import now_iso, sha256_of
from evaluator.runs.summary import RunSummary, summarize_run
from evaluator.scenarios.store import ScenarioVersion
from evaluator.scoring.responses import score_response

if TYPE_CHECKING:
    from evaluator.storage.components import ComponentStores


class ScenarioRunBlocked(PhiBlocked):
    """A scenario run refused by the PHI gate; ``check.explanation`` says why and what to do."""


def scenario_spec(version: ScenarioVersion) -> BenchmarkSpec:
    """The benchmark a scenario version runs as: the generic spec with its own id and subcategories.

    Example:
        >>> from datetime import UTC, datetime
        >>> v = ScenarioVersion(scenario_id="sc_1", version=2, hash="h", parent_hash=None, name="Refills",
        ...     dossier_id=None, subcategory_ids=["patient_provider_messaging"], source_name=None,
        ...     source_format=None, source_sha256=None, column_mapping=None, n_instances=1, tag_names=[],
        ...     phi=None, redaction=None, note="", author="me", created_at=datetime.now(UTC))
        >>> scenario_spec(v).id, scenario_spec(v).metrics
        ('sc_1_v2', ('accuracy',))
    """
    base = get_benchmark("generic")
    return base.model_copy(
        update={
            "id": f"{version.scenario_id}_v{version.version}",
            "title": f"{version.name} (local scenario, version {version.version})",
            "description": f"Local scenario {version.scenario_id} version {version.version} "
            f"({version.n_instances} "
            f"cases, content hash {version.hash[:12]}).",
            "subcategory_ids": tuple(version.subcategory_ids),
            "dataset_source": version.source_name or "local",
        }
    )


def phi_gate(instances: list[Instance], endpoint: ModelEndpoint,
             attestation: DeidentificationAttestation | None = None) -> PhiCheck:
    """The PHI check of exactly these cases against this endpoint (page, CLI and ``run_scenario``).

    Example:
        >>> ep = ModelEndpoint(name="vendor", model="gpt-4o")
        >>> phi_gate([Instance(id="1", context="MRN 1234567", reference="x")], ep).allowed
        False
    """
    return check_phi(instances, [endpoint], attestation=attestation)


def version_attestation(stores: ComponentStores,
                        version: ScenarioVersion) -> DeidentificationAttestation | None:
    """The attestation covering this version's cases (content hash) or its source file (SHA-256)."""
    return attestation_for(stores, version.hash, version.source_sha256)


def scenario_gate(stores: ComponentStores, version: ScenarioVersion, instances: list[Instance],
                  endpoint: ModelEndpoint) -> PhiCheck:
    """``phi_gate`` with the version's recorded attestation, if any (what the page shows before Run)."""
    return check_phi(instances, [endpoint], attestation=lambda: version_attestation(stores, version))


def _gated_cases(stores: ComponentStores, scenario_id: str, version: int | None, limit: int | None,
                 endpoint: ModelEndpoint) -> tuple[ScenarioVersion, list[Instance], PhiCheck]:
    """The scenario version, its first ``limit`` cases and the allowed gate check for ``endpoint``."""
    chosen = stores.scenarios.get(scenario_id, version)
    instances = stores.scenarios.instances(chosen.scenario_id, chosen.version)[:limit]
    check = scenario_gate(stores, chosen, instances, endpoint)
    if not check.allowed:
        raise ScenarioRunBlocked(check)
    return chosen, instances, check


def run_scenario(
    stores: ComponentStores,
    scenario_id: str,
    endpoint: ModelEndpoint,
    *,
    version: int | None = None,
    concurrency: int = 8,
    max_cost_usd: float | None = None,
    limit: int | None = None,
    on_progress: ProgressFn | None = None,
    cancel: Any = None,
) -> RunSummary:
    """Run (or resume) one scenario version on one endpoint, after the PHI gate.

    Raises:
        ScenarioRunBlocked: identifiers found and the endpoint is not approved for PHI.
        KeyError: no such scenario or version.

    Example:
        >>> summary = run_scenario(store, "sc_3f9a1c2b", endpoint, on_progress=bar)  # doctest: +SKIP
    """
    chosen, instances, check = _gated_cases(stores, scenario_id, version, limit, endpoint)
    summary = run_benchmark(
        stores,
        scenario_spec(chosen),
        instances,
        endpoint,
        concurrency=concurrency,
        max_cost_usd=max_cost_usd,
        on_progress=on_progress,
        cancel=cancel,
        options=RunOptions(phi_check=check),
    )
    stores.scenarios.record_run(chosen, summary.run_id, endpoint.name, endpoint.phi_approved)
    return summary


def start_scenario(
    stores: ComponentStores,
    scenario_id: str,
    endpoint: ModelEndpoint,
    *,
    version: int | None = None,
    concurrency: int = 8,
    max_cost_usd: float | None = None,
    limit: int | None = None,
    jobs: JobManager = JOBS,
) -> Job:
    """Start (or resume) ``run_scenario`` in the background through the job manager; returns its job.

    The PHI gate is checked here first (and again by ``run_scenario``), the run key is the runner's,
    so a second start of a working run returns that job, and the request (endpoint without a key,
    scenario version, limits) is stored beside the run. The job's thread works on ``stores.for_thread()``.

    Raises:
        ScenarioRunBlocked: identifiers found and the endpoint is not approved for PHI.
        KeyError: no such scenario or version.

    Example:
        >>> job = start_scenario(store, "sc_3f9a1c2b", endpoint)  # doctest: +SKIP
        >>> job.join(60).state                                     # doctest: +SKIP
        'completed'
    """
    chosen, instances, _ = _gated_cases(stores, scenario_id, version, limit, endpoint)
    spec = scenario_spec(chosen)
    record = request_record(
        "scenario", benchmark_id=spec.id, endpoint=endpoint, prompt_hash=prompt_hash(spec),
        options={"limit": limit, "concurrency": concurrency, "max_cost_usd": max_cost_usd},
        scenario={"scenario_id": chosen.scenario_id, "version": chosen.version})

    def work(db: ComponentStores, job: Job) -> RunSummary:
        return run_scenario(db, chosen.scenario_id, endpoint, version=chosen.version,
                            concurrency=concurrency, max_cost_usd=max_cost_usd, limit=limit,
                            on_progress=job.on_progress, cancel=job.cancel_event)

    return jobs.start(stores, "scenario", plan_run(spec, instances, endpoint).run_key, work,
                      total=len(instances), record=record,
                      label=f"{chosen.name} v{chosen.version} × {endpoint.model}")


def record_offline_run(
    stores: ComponentStores,
    version: ScenarioVersion,
    model: str,
    answers: Mapping[str, str],
    *,
    endpoint_name: str,
) -> str:
    """Store answers produced without calling a model (demo data) as a completed, scored run.

    The answers go through the same scorer as a live run, so the stored results, the summary
    and the subgroup table are computed exactly as for a real run. Returns the run id.

    Example:
        >>> run_id = record_offline_run(store, v, "demo", {"c1": "A"}, endpoint_name="demo")  # doctest: +SKIP
    """
    spec = scenario_spec(version)
    instances = stores.scenarios.instances(version.scenario_id, version.version)
    runs = stores.runs
    params = {"offline": True, "answers_sha256": sha256_of(dict(answers))}
    run_id = runs.create_run(
        run_key=sha256_of({"offline": params, "spec": spec.id, "model": model}),
        benchmark_id=spec.id,
        hashes={"dataset": version.hash},
        model=model,
        endpoint_name=endpoint_name,
        api_base=None,
        params=params,
        n_planned=len(instances),
    )
    rows = []
    for inst in instances:
        text = answers.get(inst.id)
        scored = score_response(spec, inst, text) if text is not None else None
        rows.append(
            {
                "run_id": run_id,
                "instance_id": inst.id,
                "response_text": text,
                "parsed": scored.parsed if scored else None,
                "score": scored.score if scored else None,
                "unparsed": scored.unparsed if scored else None,
                "metrics": dict(scored.metrics) if scored else {},
                "prompt_tokens": 0,
                "completion_tokens": 0,
                "cost_usd": 0.0,
                "latency_s": 0.0,
                "attempts": 0,
                "cached": False,
                "error": None if scored else "no answer given",
                "finished_at": now_iso(),
            }
        )
    runs.insert_results(rows)
    summary = summarize_run(
        runs,
        run_id,
        main_metric_name(spec),
        cache_hits=0,
        new_requests=0,
        resumed=False,
        elapsed_s=0.0,
        status="completed",
    )
    runs.set_status(run_id, "completed", summary.model_dump(mode="json", exclude={"metrics"}))
    stores.scenarios.record_run(version, run_id, endpoint_name, phi_approved=False)
    return run_id
