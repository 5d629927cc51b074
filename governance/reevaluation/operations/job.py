"""Re-evaluation as a background job: started by the page, the CLI or a notebook the same way.

Why a job: a re-evaluation re-runs every re-runnable item of the frozen plan, which takes as
long as the runs did (minutes against a hosted API). Inside a Streamlit script a rerun would cut
it off, so it works in a thread of the one job manager (``evaluator.runs.jobs``), which keeps
its status (done/total per benchmark, error, the addendum id once saved) in the store for the
page to poll; the CLI blocks on the same job. The checks that need no model call (who, a
decision, something re-runnable) run before the job starts, so a refusal is immediate.
"""

from __future__ import annotations

from typing import Any

from evaluator.runs.jobs import JOBS, Job, JobManager, JobProgress, wait_job
from governance.dossier.storage import DossierStorage
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require
from governance.reevaluation.operations.addendum import ReevaluationResult, plan_to_rerun, reevaluate
from governance.reevaluation.operations.rerun import ReevaluationError
from governance.reevaluation.records import PlanChange


def job_key(dossier_id: str) -> str:
    """One live re-evaluation per dossier.

    Example:
        >>> job_key("D-1")
        'reevaluation:D-1'
    """
    return f"reevaluation:{dossier_id}"


def start_reevaluation(store: DossierStorage, dossier_id: str, change: PlanChange | None = None, *,
                       actor: Actor, concurrency: int = 8, jobs: JobManager = JOBS) -> Job:
    """Check, then start ``reevaluate`` in the background; returns its job (an alive one if working).

    The job's ``brief`` holds ``addendum_id``, ``version`` and the version's ``hash`` and ``parent_hash``
    once the addendum is saved (the page that started it records that version as its own).

    Raises:
        ReevaluationError: nobody named, no decision, nothing re-runnable.
        DossierNotFound: no such dossier.

    Example:
        >>> job = start_reevaluation(store, "D-1", PlanChange(model="openai/b"),
        ...                          actor=Actor.named("qa"))  # doctest: +SKIP
        >>> job.join(600).brief["addendum_id"]                                          # doctest: +SKIP
        'R-3f9a1c2b'
    """
    require(actor.identity, "editor", "re-evaluate (paid model calls)", dossier_id)
    _, plan, _ = plan_to_rerun(store, dossier_id, actor.name)
    change = change or PlanChange()
    total = sum(i.n_instances for i in plan.rerunnable)

    def work(db: DossierStorage, job: Job) -> ReevaluationResult:
        finished: dict[str, int] = {}

        def progress(benchmark: str, done: int, n: int) -> None:
            finished[benchmark] = done
            job.on_progress(sum(finished.values()), max(total, sum(finished.values())), None,
                            note=f"{benchmark}: {done}/{n}")

        result = reevaluate(db, dossier_id, change, actor=actor, concurrency=concurrency,
                            on_progress=progress,
                            cancel=job.cancel_event)
        job.set_brief({"addendum_id": result.addendum.id, "version": result.version.version,
                       "hash": result.version.hash, "parent_hash": result.version.parent_hash,
                       "would_change": result.addendum.impact.would_change,
                       "new_requests": result.addendum.new_requests})
        return result

    return jobs.start(store, "reevaluation", job_key(dossier_id), work, total=total,
                      label=f"re-evaluation of {dossier_id}: {change.describe()}", request=change)


def reevaluate_and_wait(store: DossierStorage, dossier_id: str, change: PlanChange | None = None, *,
                        actor: Actor, concurrency: int = 8, on_progress: Any = None, poll_s: float = 0.2,
                        jobs: JobManager = JOBS) -> ReevaluationResult:
    """``start_reevaluation`` and wait for it (CLI, notebooks); Ctrl-C cancels and nothing is saved.

    Raises:
        ReevaluationError: as ``reevaluate`` (the job's own error is raised again here).
    """
    progress: JobProgress = wait_job(start_reevaluation(store, dossier_id, change, actor=actor,
                                                        concurrency=concurrency, jobs=jobs),
                                     on_progress, poll_s=poll_s)
    job = jobs.by_id(progress.job_id)
    if job is not None and job.exception is not None:
        raise job.exception
    if not isinstance(progress.result, ReevaluationResult):
        raise ReevaluationError(f"the re-evaluation stopped: {progress.error or progress.state}")
    return progress.result
