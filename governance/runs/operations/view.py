"""What a local run has produced so far, read from the store, and its attachment as Evidence.

Why from the store: a run outlives the page that started it (a rerun, a reload, a dropped
connection), and its finished instances are written as they complete. So every view here is
rebuilt from the stored run and its results; the background job (``evaluator.runs.jobs``), when
this process has one, only adds whether it is still working and the error that stopped it, and
the request stored with the run lets a stopped run resume even after an app restart. A
finished run becomes ``Evidence`` (provenance ``local-run``) through the runner's own
``RunSummary.to_evidence``, so the CLI and the page produce identical records; attaching it
saves a new dossier version authored by the reviewer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel

from evaluator.benchmarks.specs import BenchmarkError, get_benchmark
from evaluator.evidence.record import Evidence
from evaluator.runs.jobs import JOBS, RunJobs, RunProgress
from evaluator.runs.reads import ResultRecord, RunReads, RunRecord
from evaluator.runs.runner import main_metric_name
from evaluator.runs.summary import RunSummary, summarize_run
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage, DossierVersion
from governance.evidence.attach import attach_evidence
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require, update_as
from governance.mapping.taxonomy import load_taxonomy
from governance.procurement.candidates import run_binding
from governance.runs.operations.jobs import RunInputError, job_elsewhere, runnable_benchmarks, stored_request

STOPPED = ("cancelled", "budget_exceeded", "failed")
T = TypeVar("T")


class RunView(BaseModel):
    """One run as a page shows it: progress, the latest results, and once finished, its evidence."""

    record: RunRecord
    """The stored run with its counts so far."""
    live: RunProgress | None
    """The background job of this process working on it, if any."""
    state: str
    """``running``, ``interrupted`` (stored as running, no job here), or the stored status."""
    recent: list[ResultRecord]
    """The latest results, newest first."""
    summary: RunSummary | None
    """Scores with intervals from the stored results (None while running or with no result)."""
    evidence: list[Evidence]
    """What attaching would add (completed runs only)."""
    attached: bool
    """True when every evidence record of the run is already on the dossier."""
    resumable_here: bool
    """True when the run's request is known (this process's, or the one stored with the run), so a
    Resume button can continue it."""


def _read(store: DossierStorage, fn: Callable[[RunReads], T]) -> T:
    """``fn`` on the run views over this thread's own cursor (a page polls while a run writes)."""
    with store.for_thread() as db:
        return fn(db.run_reads)


def dossier_runs(store: DossierStorage, dossier: Dossier, limit: int = 20,
                 jobs: RunJobs = JOBS) -> list[RunRecord]:
    """Stored runs of the benchmarks offered for this dossier, working ones first, then newest first.

    Example:
        >>> [r.run_id for r in dossier_runs(store, dossier)]   # doctest: +SKIP
        ['run-20260101-101500-a1b2c3']
    """
    ids = [b.id for b in runnable_benchmarks(dossier, include_unmapped=True)]
    runs = _read(store, lambda r: r.list_runs(ids, limit))
    working = {j.run_key for j in jobs.live()}
    return sorted(runs, key=lambda r: r.run_key not in working)


def run_record(store: DossierStorage, run_id: str) -> RunRecord | None:
    """One stored run with how far it got (None: no such run)."""
    return _read(store, lambda r: r.get_run_record(run_id))


def run_id_for_key(store: DossierStorage, run_key: str, jobs: RunJobs = JOBS) -> str | None:
    """The run a request's key points at: the job's run once known, else the newest stored one."""
    job = jobs.get(run_key)
    if job is not None and job.progress().run_id:
        return job.progress().run_id
    runs = [r for r in _read(store, lambda r: r.list_runs(None, 200)) if r.run_key == run_key]
    return runs[0].run_id if runs else None


def _subcategory(benchmark_id: str, dossier: Dossier | None) -> dict[str, str]:
    try:
        ids = list(get_benchmark(benchmark_id).subcategory_ids)
    except BenchmarkError:
        return {}
    accepted = dossier.mapping.accepted if dossier else []
    chosen = next((s for s in ids if s in accepted), ids[0] if ids else None)
    if chosen is None:
        return {}
    tax = load_taxonomy()
    return {"subcategory": tax.subcategory(chosen).name, "category": tax.category_of(chosen).name}


def stored_summary(store: DossierStorage, record: RunRecord) -> RunSummary | None:
    """The run's summary computed from its stored results (None when it has none)."""
    if record.n_results == 0:
        return None
    try:
        metric = main_metric_name(get_benchmark(record.benchmark_id))
    except BenchmarkError:
        metric = "score"
    with store.for_thread() as db:
        return summarize_run(db.runs, record.run_id, metric, cache_hits=0,
                             new_requests=0, resumed=False, elapsed_s=0.0)


def local_run_evidence(summary: RunSummary, record: RunRecord,
                       dossier: Dossier | None = None) -> list[Evidence]:
    """Evidence records (provenance ``local-run``) of a run, tagged with the dossier's matching subcategory.

    Example:
        >>> [e.provenance for e in local_run_evidence(summary, record)]   # doctest: +SKIP
        ['local-run']
    """
    extra = _subcategory(record.benchmark_id, dossier)
    if dossier is not None:  # the run counts for the candidate it was made for, not its model string
        name, candidate_id = run_binding(dossier, record.endpoint_name, record.model)
        if name != record.model:
            extra |= {"model": name, "endpoint_model": record.model, "candidate_id": candidate_id}
    date = record.finished_at or record.created_at
    return [e.model_copy(update=extra) for e in summary.to_evidence(date=date)]


def run_view(store: DossierStorage, run_id: str, dossier: Dossier, recent: int = 20,
             jobs: RunJobs = JOBS) -> RunView | None:
    """Everything the page shows about one run; None when no such run is stored.

    Example:
        >>> run_view(store, "run-x", dossier) is None   # doctest: +SKIP
        True
    """
    record = _read(store, lambda r: r.get_run_record(run_id))
    if record is None:
        return None
    job = jobs.get(record.run_key)
    progress = job.progress() if job is not None else None
    if (progress is None or not progress.alive) and record.status == "running":
        progress = job_elsewhere(store, record.run_key, jobs) or progress  # another app process runs it
    mine = progress is not None and (progress.run_id == run_id or
                                     (progress.run_id is None and record.status == "running"))
    live = progress if mine else None
    working = live is not None and live.running
    state = ("running" if working else
             "interrupted" if record.status == "running" else record.status)
    summary = None if working else stored_summary(store, record)
    done = summary and record.status == "completed"
    evidence = local_run_evidence(summary, record, dossier) if done else []
    attached_ids = {e.id for e in dossier.evidence}
    latest = _read(store, lambda r: r.recent_results(run_id, recent))
    return RunView(record=record, live=live, state=state, recent=latest,
                   summary=summary, evidence=evidence,
                   attached=bool(evidence) and all(e.id in attached_ids for e in evidence),
                   resumable_here=not working and state in (*STOPPED, "interrupted")
                   and (job is not None or stored_request(store, record.run_key) is not None))


def attach_run(store: DossierStorage, dossier_id: str, run_id: str, *,
               actor: Actor) -> DossierVersion:
    """Attach a completed run's evidence to the dossier as a new version authored by ``actor``.

    Raises:
        RunInputError: no such run, or the run has not completed (resume it first).

    Example:
        >>> v = attach_run(store, "D-demo-portal", run_id, actor=Actor.named("dr.lee"))  # doctest: +SKIP
        >>> v.dossier.evidence[-1].provenance                             # doctest: +SKIP
        'local-run'
    """
    require(actor.identity, "editor", "attach a run as evidence", dossier_id)
    record = _read(store, lambda r: r.get_run_record(run_id))
    if record is None:
        raise RunInputError(f"no stored run {run_id!r}")
    if record.status != "completed":
        raise RunInputError(f"run {run_id} is {record.status} ({record.n_results} of {record.n_planned} "
                            "instances): resume it to completion before attaching")
    summary = stored_summary(store, record)
    if summary is None or not summary.metrics:
        raise RunInputError(f"run {run_id} has no scored instance to attach")
    # onto the latest version, in one step: a change another reviewer saved meanwhile is kept
    return update_as(
        store, actor, dossier_id,
        lambda d: attach_evidence(d, local_run_evidence(summary, record, d), by=actor.name),
        note=f"evidence: attached local run {run_id} ({record.benchmark_id} × {record.model})",
        action="attach a run as evidence")
