"""Producing local evidence for a dossier: which benchmarks to run, on what, at what cost.

Why here: the Run evidence page, and anything else that starts runs for a dossier, needs the
same choices (the benchmarks of the dossier's accepted subcategories first, then the built-in
calculator benchmark that needs no dataset), the same request checks (a dataset where one is
needed, a key variable that is set, a price when a budget is given) and the same dry-run
estimate before anything is sent. The runner does the work (``evaluator.runs.runner``); runs go to
background threads through the one job manager (``evaluator.runs.jobs``), which stores each
request beside its run; what a run produced is read back from the
store by ``governance.runs.operations.view``. No Streamlit here.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import (
    BenchmarkError,
    BenchmarkSpec,
    get_benchmark,
    list_benchmarks,
    prompt_hash,
)
from evaluator.gateway.errors import LLMError
from evaluator.gateway.llm import ModelEndpoint, api_key_for, default_transport
from evaluator.loaders import DatasetError, get_loader, load_instances
from evaluator.phi import PhiCheck
from evaluator.runs.jobs import JOBS, Job, JobManager, JobProgress, RunRequest, wait_job
from evaluator.runs.jobs import job_status as read_job_status
from evaluator.runs.phi_gate import PhiBlocked, benchmark_gate
from evaluator.runs.plan import RunEstimate, estimate_run, plan_run
from evaluator.runs.request import record_of, request_from_record
from evaluator.runs.summary import RunSummary
from evaluator.scenarios.run import start_scenario
from governance.dossier.labels import metric_label
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.dossier.store_opening import default_home
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require
from governance.mapping.taxonomy import load_taxonomy

if TYPE_CHECKING:
    from evaluator.runs.runner import ProgressFn

BUILTIN_ID = "calc_builtin"


class RunInputError(ValueError):
    """A run request that cannot be started, with a message for the person who filled the form."""


class RunnableBenchmark(BaseModel):
    """A benchmark offered for a dossier, with what running it needs."""

    id: str
    """Benchmark id."""
    title: str
    """Human-readable name."""
    description: str
    """What it tests and where its data comes from."""
    mapped_to: list[str]
    """Names of the dossier's accepted subcategories it gives evidence for (empty: not mapped)."""
    needs_file: bool
    """True when the user must give a dataset file."""
    file_format: str
    """Format the loader reads."""
    dataset_source: str
    """Where a committee obtains the official file."""
    answer_type: str
    """Main answer type."""
    metrics: list[str]
    """Metric names, main first."""
    note: str
    """What a reader must know before running it (e.g. the LLM jury is not run here)."""


def _offered(spec: BenchmarkSpec, accepted: list[str]) -> RunnableBenchmark:
    tax = load_taxonomy()
    loader = get_loader(spec.loader)
    note = ("MedHELM's main score here is its LLM jury; this run computes the reference metrics only "
            f"({', '.join(metric_label(m) for m in spec.metrics)})." if spec.jury else "")
    return RunnableBenchmark(
        id=spec.id, title=spec.title, description=spec.description,
        mapped_to=[tax.subcategory(s).name for s in spec.subcategory_ids if s in accepted],
        needs_file=loader.needs_file and not spec.dataset_path, file_format=loader.file_format,
        dataset_source=spec.dataset_source, answer_type=spec.answer_type, metrics=list(spec.metrics),
        note=note)


def runnable_benchmarks(dossier: Dossier, include_unmapped: bool = False) -> list[RunnableBenchmark]:
    """Benchmarks of the dossier's accepted subcategories, then the built-in one, then (optionally) the rest.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="demo", owner="me", intended_use=example_intended_use())
        >>> [b.id for b in runnable_benchmarks(d)]
        ['calc_builtin']
    """
    accepted = dossier.mapping.accepted
    specs = list_benchmarks()
    mapped = [s for s in specs if set(s.subcategory_ids) & set(accepted)]
    rest = [s for s in specs if s not in mapped]
    builtin = [s for s in rest if s.id == BUILTIN_ID]
    others = [s for s in rest if s.id != BUILTIN_ID] if include_unmapped else []
    return [_offered(s, accepted) for s in [*mapped, *builtin, *others]]


def suggested_models(dossier: Dossier) -> list[str]:
    """The dossier's candidate models, as first guesses for litellm model strings.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> suggested_models(Dossier(title="demo", owner="me", intended_use=example_intended_use()))[0]
        'gpt-4o'
    """
    return list(dossier.intended_use.candidate_models)


def _blank(value: str | None) -> str | None:
    return value.strip() if value and value.strip() else None


def build_request(benchmark_id: str, model: str, *, dataset_path: str | None = None,
                  api_base: str | None = None, api_key_env: str | None = None, name: str | None = None,
                  concurrency: int = 8,
                  max_cost_usd: float | None = None, limit: int | None = None,
                  input_price: float | None = None, output_price: float | None = None,
                  phi_approved: bool = False) -> RunRequest:
    """A checked run request from form values (blank strings count as not given).

    Raises:
        RunInputError: naming each field that is wrong.

    Example:
        >>> build_request("calc_builtin", "openai/m", api_base="http://127.0.0.1:9/v1", limit=5).limit
        5
    """
    model = (model or "").strip()
    try:
        endpoint = ModelEndpoint(name=_blank(name) or model or "?", model=model, api_base=_blank(api_base),
                                 api_key_env=_blank(api_key_env), max_concurrency=max(int(concurrency), 1),
                                 input_price_per_mtok=input_price, output_price_per_mtok=output_price,
                                 phi_approved=phi_approved,
                                 transport=default_transport(model, _blank(api_base)))
        request = RunRequest(benchmark_id=benchmark_id, dataset_path=_blank(dataset_path), endpoint=endpoint,
                             concurrency=concurrency, max_cost_usd=max_cost_usd or None, limit=limit or None)
    except ValidationError as exc:
        raise RunInputError("; ".join(f"{'.'.join(map(str, e['loc'])) or 'request'}: {e['msg']}"
                                      for e in exc.errors())) from None
    if request.max_cost_usd is not None and endpoint.price() is None:
        raise RunInputError(f"no price is known for {model}: give input and output prices "
                            "(USD per 1M tokens) to use a cost limit")
    return request


def save_upload(filename: str, data: bytes, home: Path | None = None) -> Path:
    """Keep an uploaded dataset under ``<home>/uploads`` named by its content hash; returns its path.

    The same bytes always land on the same path, so a re-upload after a reload resumes the same run.

    Example:
        >>> import tempfile
        >>> save_upload("my cases.csv", b"id,question\\n1,q\\n", Path(tempfile.mkdtemp())).name
        'd2e823b3d1b1-my_cases.csv'
    """
    folder = (home or default_home()) / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(filename).name).strip("._") or "dataset"
    path = folder / f"{hashlib.sha256(data).hexdigest()[:12]}-{safe}"
    if not path.exists():
        path.write_bytes(data)
    return path


def _load(request: RunRequest) -> tuple[BenchmarkSpec, list[Instance]]:
    try:
        spec = get_benchmark(request.benchmark_id)
        return spec, load_instances(spec, request.dataset_path, limit=request.limit)
    except (BenchmarkError, DatasetError) as exc:
        raise RunInputError(str(exc)) from None


def key_problem(endpoint: ModelEndpoint) -> str | None:
    """Why the endpoint's key cannot be read now, or None when it can (the key itself is never returned).

    Example:
        >>> key_problem(ModelEndpoint(name="x", model="gpt-4o", api_key_env="NO_SUCH_VARIABLE_XYZ"))[:29]
        'environment variable NO_SUCH_'
    """
    try:
        api_key_for(endpoint)
    except LLMError as exc:
        return str(exc)
    return None


class RunPlanView(BaseModel):
    """The dry run of a request: its run key, what it would send and its upper-bound cost."""

    request: RunRequest
    """The request estimated."""
    run_key: str
    """The run's identity (an unfinished run with this key is resumed)."""
    estimate: RunEstimate
    """Tokens and cost (an upper bound), with resume and cache taken into account."""
    key_problem: str | None
    """Why the key cannot be read, when it cannot (the run would fail every request)."""
    phi: PhiCheck | None = None
    """The PHI gate's check of the cases for this endpoint (a blocked run sends nothing)."""


def estimate_request(store: DossierStorage, request: RunRequest) -> RunPlanView:
    """Load the instances and estimate the run without sending anything.

    Raises:
        RunInputError: unknown benchmark, missing or unreadable dataset.

    Example:
        >>> req = build_request("calc_builtin", "openai/m", limit=5)
        >>> view = estimate_request(store, req)                    # doctest: +SKIP
        >>> view.estimate.n, view.estimate.cost_usd_max            # doctest: +SKIP
        (5, None)
    """
    spec, instances = _load(request)
    with store.for_thread() as db:
        estimate = estimate_run(spec, instances, request.endpoint, store=db.runs, fresh=request.fresh)
        phi = benchmark_gate(db, spec, instances, request.endpoint, request.dataset_path)
    return RunPlanView(request=request, run_key=plan_run(spec, instances, request.endpoint).run_key,
                       estimate=estimate, key_problem=key_problem(request.endpoint), phi=phi)


def _benchmark_work(request: RunRequest, spec: BenchmarkSpec, instances: list[Instance], phi: PhiCheck):
    """The job's work: run (or resume) the benchmark on the job's own view of the stores."""

    def work(db: DossierStorage, job: Job) -> RunSummary:
        from evaluator.runs.runner import RunOptions, run_benchmark

        return run_benchmark(db, spec, instances, request.endpoint, concurrency=request.concurrency,
                             max_cost_usd=request.max_cost_usd, on_progress=job.on_progress,
                             cancel=job.cancel_event,
                             options=RunOptions(workers=request.workers, phi_check=phi, fresh=request.fresh,
                                                batch=request.batch))

    return work


def start_run(store: DossierStorage, request: RunRequest, jobs: JobManager = JOBS, *,
              actor: Actor | None = None) -> Job:
    """Start (or resume) the request's run in a background thread; returns its job.

    An identical request whose run is unfinished continues it: finished instances are not sent
    again. While a job with the same run key is working, that job is returned instead. The
    request (no key, only its variable's name) is stored beside the run. ``actor`` is who starts it
    (default: the local login, ``Actor.named()``, as a notebook runs).

    Raises:
        RunInputError: bad benchmark or dataset, or a key variable that is not set.
        PhiBlocked: likely identifiers bound for an endpoint not approved for PHI and no attestation
            recorded for the dataset file (``evaluator.runs.phi_gate``); nothing is started.

    Example:
        >>> job = start_run(store, request)   # doctest: +SKIP
        >>> job.join(60).state                # doctest: +SKIP
        'completed'
    """
    require((actor or Actor.named()).identity, "editor", "start a run (paid model calls)")
    spec, instances = _load(request)
    problem = key_problem(request.endpoint)
    if problem:
        raise RunInputError(problem)
    phi = benchmark_gate(store, spec, instances, request.endpoint, request.dataset_path)
    if not phi.allowed:
        raise PhiBlocked(phi)
    run_key = plan_run(spec, instances, request.endpoint).run_key
    return jobs.start(store, "benchmark", run_key, _benchmark_work(request, spec, instances, phi),
                      total=len(instances), label=f"{spec.id} × {request.endpoint.model}", request=request,
                      record=record_of(request, prompt_hash(spec)))


def run_and_wait(store: DossierStorage, request: RunRequest, on_progress: ProgressFn | None = None, *,
                 poll_s: float = 0.2, jobs: JobManager = JOBS,
                 actor: Actor | None = None) -> JobProgress:
    """Start (or resume) the run as the Run evidence page does and wait for it, reporting progress.

    For notebooks, scripts and the CLI: the blocking face of the job manager. A Jupyter cell
    already runs an event loop, so the runner's own ``asyncio.run`` cannot be called from it; the
    run works in a background thread (``start_run``) and this waits (``evaluator.runs.jobs.wait_job``).
    ``on_progress`` gets ``(done, total, None)`` whenever the count changes. Stopping the cell
    (Ctrl-C) cancels the run; the same request started again resumes it.

    Args:
        store: the open store (the run and its results are written to it).
        request: from ``build_request``.
        on_progress: e.g. ``evaluator.tqdm_progress("calc_builtin")``; closed at the end when it
            has a ``close()``.
        poll_s: seconds between looks at the job.
        jobs: the job manager (the app's by default).

    Returns:
        The final snapshot: ``state`` (``completed``, ``cancelled``, ``budget_exceeded``, ...),
        ``run_id`` and the runner's ``summary``.

    Raises:
        RunInputError: as ``start_run``, or the run thread stopped with an error (its message).

    Example:
        >>> from evaluator import tqdm_progress
        >>> req = build_request("calc_builtin", "openai/m", api_base="http://127.0.0.1:8000/v1", limit=12)
        >>> done = run_and_wait(store, req, tqdm_progress("calc_builtin"))  # doctest: +SKIP
        >>> done.state, done.summary.n                                      # doctest: +SKIP
        ('completed', 12)
    """
    progress = wait_job(start_run(store, request, jobs, actor=actor), on_progress, poll_s=poll_s)
    if progress.state == "error":
        raise RunInputError(f"the run stopped with an error: {progress.error}")
    return progress


def cancel_run(run_key: str, jobs: JobManager = JOBS, *, store: DossierStorage | None = None) -> bool:
    """Ask the working job with this key to stop; False when none is working.

    The job may run in this process, or (given ``store``) in another app process sharing the
    database: then a stop is asked for in its row, which that process reads within a second.

    Example:
        >>> cancel_run("no-such-key", JobManager())
        False
    """
    if jobs.cancel(run_key):
        return True
    other = job_elsewhere(store, run_key, jobs) if store is not None else None
    if other is None:
        return False
    with store.for_thread() as db:
        return db.runs.request_cancel(other.job_id)


def job_elsewhere(store: DossierStorage, run_key: str, jobs: JobManager = JOBS) -> JobProgress | None:
    """The job with this key when another process sharing the database runs it now, else None."""
    with store.for_thread() as db:
        job_id = db.runs.latest_job_id(run_key)
        status = read_job_status(db, job_id, jobs) if job_id else None
    return status if status is not None and status.elsewhere else None


def stored_request(store: DossierStorage, run_key: str) -> RunRequest | None:
    """The benchmark request stored for this run key (None: none stored, or not a benchmark run)."""
    with store.for_thread() as db:
        record = db.runs.stored_request(run_key=run_key)
    return request_from_record(record) if record and record.get("kind") == "benchmark" else None


def resume_run(store: DossierStorage, run_key: str, jobs: JobManager = JOBS, *,
               actor: Actor | None = None) -> Job:
    """Start the same request again for a stopped run (it continues where it stopped).

    The request is this process's own when it started the run, else the one stored with the run,
    so a run cut off by an app restart resumes too.

    Raises:
        RunInputError: no request is known for that run (e.g. it was started before requests were
            stored): enter the same settings again; the estimate then shows the instances already done.
    """
    require((actor or Actor.named()).identity, "editor", "resume a run (paid model calls)")
    job = jobs.get(run_key)
    request = job.request if job is not None and isinstance(job.request, RunRequest) else None
    request = request or stored_request(store, run_key)
    if request is None:
        raise RunInputError("this run's request is not known here: enter the same benchmark, "
                            "dataset and endpoint again and press Estimate; finished instances are not "
                            "sent again")
    return start_run(store, request, jobs, actor=actor)


def job_status(store: DossierStorage, job_id: str, jobs: JobManager = JOBS) -> JobProgress | None:
    """A background job's status (live here, else from the store), for pages that poll it."""
    with store.for_thread() as db:
        return read_job_status(db, job_id, jobs)


def start_scenario_run(store: DossierStorage, scenario_id: str, endpoint: ModelEndpoint, *,
                       version: int | None = None,
                       concurrency: int = 8, limit: int | None = None, jobs: JobManager = JOBS,
                       actor: Actor | None = None) -> Job:
    """Start (or resume) a local-scenario run in the background (the PHI gate is checked first).

    Raises:
        ScenarioRunBlocked: identifiers bound for an endpoint not approved for PHI.
        RunInputError: no such scenario version, or the key variable is not set.
    """
    require((actor or Actor.named()).identity, "editor", "run a local scenario (paid model calls)")
    problem = key_problem(endpoint)
    if problem:
        raise RunInputError(problem)
    try:
        return start_scenario(store, scenario_id, endpoint, version=version, concurrency=concurrency,
                              limit=limit, jobs=jobs)
    except KeyError as exc:
        raise RunInputError(str(exc.args[0] if exc.args else exc)) from None
