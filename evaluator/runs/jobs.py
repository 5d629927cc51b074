"""The one job manager: every model-calling run works in a background thread, its status in the store.

Why this shape: a run takes minutes to hours, longer than any one Streamlit script run, and a
browser reload starts a new session. So benchmark runs, local-scenario runs, re-evaluation
re-runs and jury passes all work in a thread owned by this process, not by a session, started
by ``JobManager.start`` with a *work* function and found again by their key (for a benchmark or
scenario run, the runner's run key). The thread writes its status (state, done/total, error, a
short result) to the store's ``run_jobs`` table as it goes, and the run itself writes every
finished instance, so a page rerun, a second tab or a restarted app reads the status from the
store (``job_status``); a job that was working when its process died reads as ``interrupted``.
Pages poll, the CLI and notebooks block on ``wait_job``: the same manager everywhere.

On a shared PostgreSQL database several app processes read the same rows: each row names the
process that runs it (``owner``), so another process shows the job as running there (with its
progress from the store) rather than as interrupted, and its Cancel sets a flag in the row that
the owning job reads the next time it saves its status.

DuckDB connections are not thread-safe, so the thread gets its own view of the stores
(``ComponentStores.for_thread()``, a cursor of the app's one connection: one writer per file),
which it closes when the job ends. Cancelling sets an event the work checks between requests;
requests in flight finish and are kept, and starting the same request again resumes the run.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from evaluator.gateway.secrets import scrub_text
from evaluator.runs.job_progress import LIVE_STATES, JobProgress
from evaluator.runs.request import RunRequest
from evaluator.runs.summary import RunSummary
from evaluator.storage.db import db_errors

if TYPE_CHECKING:
    from evaluator.runs.store import RunStore
    from evaluator.storage.components import ComponentStores

__all__ = ["JOBS", "Job", "JobManager", "JobProgress", "RunJob", "RunJobs", "RunProgress", "RunRequest",
           "job_status", "wait_job"]

Work = Callable[["ComponentStores", "Job"], Any]
"""A job's work: called with the thread's own view of the stores and the job (its progress reporter)."""
SAVE_EVERY_S = 0.5
OWNER = f"{socket.gethostname()} pid {os.getpid()}"
"""This process, as a job row names it (``owner``)."""
ELSEWHERE_STALE_S = 300.0
"""A job owned by a process on another host counts as still running while its row changed this recently."""


RunProgress = JobProgress


class Job:
    """One background invocation of a work function; it is its own progress reporter."""

    def __init__(self, kind: str, key: str, *, total: int = 0, label: str = "", request: Any = None,
                 record: dict[str, Any] | None = None) -> None:
        self.job_id = f"job-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        self.kind, self.run_key, self.label, self.request, self.record = kind, key, label, request, record
        self.cancel_event = threading.Event()
        self.thread: threading.Thread | None = None
        self.exception: BaseException | None = None
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._started_at = datetime.now(UTC)
        self._store: RunStore | None = None
        self._saved_at = 0.0
        self.done, self.total, self.note = 0, total, ""
        self.run_id: str | None = None
        self.state, self.error = "starting", None
        self.result: Any = None
        self.brief: dict[str, Any] | None = None
        self.counts: list[tuple[int, int]] = []
        """Every (done, total) reported, in order, so a waiter that polls misses none."""

    # ---- reporting (called by the work, on the job's thread) -----------------------------------
    def on_progress(self, done: int, total: int, row: dict[str, Any] | None = None,
                    note: str | None = None) -> None:
        """The runner's progress callback; also records the run id from the first result row."""
        with self._lock:
            if (done, total) != (self.done, self.total) or not self.counts:
                self.counts.append((done, total))
            self.done, self.total, self.state = done, total, "running"
            if note is not None:
                self.note = scrub_text(note) or ""
            if row is not None and self.run_id is None and row.get("run_id"):
                self.run_id = str(row["run_id"])
        self._save()

    def set_brief(self, brief: dict[str, Any]) -> None:
        """A short JSON result to keep in the store (e.g. ``{"addendum_id": ...}``)."""
        with self._lock:
            self.brief = dict(brief)

    # ---- control -------------------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        """True while the thread is working."""
        return self.thread is not None and self.thread.is_alive()

    def cancel(self) -> None:
        """Ask the job to stop after the requests in flight (they are kept)."""
        self.cancel_event.set()

    def progress(self) -> JobProgress:
        """The current snapshot."""
        with self._lock:
            summary = self.result if isinstance(self.result, RunSummary) else None
            return JobProgress(job_id=self.job_id, kind=self.kind, run_key=self.run_key, label=self.label,
                               run_id=self.run_id, state=self.state, done=self.done, total=self.total,
                               note=self.note, alive=self.alive, cancel_requested=self.cancel_event.is_set(),
                               error=self.error, summary=summary, result=self.result, brief=self.brief,
                               elapsed_s=time.monotonic() - self._started)

    def join(self, timeout: float | None = None) -> JobProgress:
        """Wait for the thread (at most ``timeout`` seconds) and return the snapshot."""
        if self.thread is not None:
            self.thread.join(timeout)
        return self.progress()

    # ---- the thread ----------------------------------------------------------------------------
    def _row(self) -> dict[str, Any]:
        with self._lock:
            return {"job_id": self.job_id, "kind": self.kind, "job_key": self.run_key, "label": self.label,
                    "run_id": self.run_id, "state": self.state, "done": self.done, "total": self.total,
                    "note": self.note, "error": self.error, "result": self.brief,
                    "started_at": self._started_at, "owner": OWNER}

    def _save(self, force: bool = False) -> None:
        """Write the status row, at most every ``SAVE_EVERY_S`` unless forced (best effort)."""
        now = time.monotonic()
        if self._store is None or (not force and now - self._saved_at < SAVE_EVERY_S):
            return
        self._saved_at = now
        # best effort: the status in memory still holds, and the run's results are in the store anyway
        with contextlib.suppress(*db_errors()):
            self._store.save_job(self._row())
            if self.alive and not self.cancel_event.is_set() and self._store.cancel_requested(self.job_id):
                self.cancel_event.set()  # asked from another process sharing the database

    def _finish(self, result: Any) -> None:
        with self._lock:
            self.result = result
            self.run_id = getattr(result, "run_id", None) or self.run_id
            status = getattr(result, "status", None)
            self.state = status if isinstance(status, str) else "completed"
            if isinstance(result, RunSummary):
                self.done, self.total = result.n, max(self.total, result.n)
                self.counts.append((self.done, self.total))
                self.brief = {"run_id": result.run_id, "status": result.status, "n": result.n,
                              **(self.brief or {})}

    def _fail(self, exc: BaseException) -> None:
        with self._lock:
            self.exception = exc
            self.state, self.error = "error", scrub_text(f"{type(exc).__name__}: {exc}")

    def run(self, stores: ComponentStores, work: Work) -> None:
        """Thread body: store request and status, do the work on ``stores`` (this thread's view), close it."""
        try:
            self._store = stores.runs
            if self.record is not None:
                self._store.record_request(self.run_key, self.kind, self.record)
            self._save(force=True)
            self._finish(work(stores, self))
            if self.record is not None and self.run_id:
                self._store.link_request(self.run_key, self.run_id)
        except Exception as exc:  # noqa: BLE001 - shown on the page; a run itself is resumable
            self._fail(exc)
        finally:
            self._save(force=True)
            stores.close()
            # The finished job stays in ``JOBS`` for its status; its closed cursor must not stay with it: the
            # app's store keeps the DuckDB file while any cursor of it lives (issue 36 item 8: after a run the
            # idle app never let go, and `medassure review status` waited 15 s and exited 2).
            self._store = None


RunJob = Job


class JobManager:
    """The jobs working in this process, by key (one live job per key).

    Example:
        >>> jobs = JobManager()
        >>> jobs.get("no-such-key") is None
        True
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}

    def get(self, key: str) -> Job | None:
        """The latest job for this key (alive or finished), if this process started one."""
        with self._lock:
            return self._jobs.get(key)

    def by_id(self, job_id: str) -> Job | None:
        """The job with this id, if this process started it."""
        with self._lock:
            return next((j for j in self._jobs.values() if j.job_id == job_id), None)

    def start(self, stores: ComponentStores, kind: str, key: str,
              work: Work, *, total: int = 0, label: str = "",
              request: Any = None, record: dict[str, Any] | None = None) -> Job:
        """Start ``work(view, job)`` in a thread unless a job with this key is alive (then return it).

        Args:
            stores: the app's stores; the thread works on ``stores.for_thread()`` and closes it.
            kind: ``benchmark``, ``scenario``, ``reevaluation`` or ``jury``.
            key: one live job per key (a run key for runs).
            work: does the job; reports through ``job.on_progress`` and checks ``job.cancel_event``.
            total: items, when known before starting.
            label: what the job does, in words.
            request: the request object (kept in memory to resume).
            record: the request as stored beside the run (``evaluator.runs.request``); None: not stored.
        """
        with self._lock:
            current = self._jobs.get(key)
            if current is not None and current.alive:
                return current
            job = Job(kind, key, total=total, label=label, request=request, record=record)
            job.thread = threading.Thread(target=job.run, args=(stores.for_thread(), work), daemon=True,
                                          name=f"{kind}-{key[:8]}")
            self._jobs[key] = job
            job.thread.start()
            return job

    def live(self) -> list[Job]:
        """Jobs whose thread is still working."""
        with self._lock:
            return [j for j in self._jobs.values() if j.alive]

    def cancel(self, key: str) -> bool:
        """Ask the live job with this key to stop; False when none is working."""
        job = self.get(key)
        if job is None or not job.alive:
            return False
        job.cancel()
        return True


RunJobs = JobManager

JOBS = JobManager()
"""The process-wide manager the app, the CLI and notebooks use (tests may build their own)."""


def job_status(stores: ComponentStores, job_id: str, jobs: JobManager = JOBS) -> JobProgress | None:
    """A job's status: live from this process when it runs here, else from the store; None if unknown.

    A job stored as working whose thread is not in this process was cut off (the app restarted):
    it reads as ``interrupted``; starting the same request again resumes its run.
    """
    job = jobs.by_id(job_id)
    if job is not None:
        return job.progress()
    row = stores.read_job(job_id)
    if row is None:
        return None
    owner = row.get("owner")
    live = row["state"] in LIVE_STATES
    elsewhere = owner if live and owner_is_running(owner, row.get("updated_at")) else None
    state = "interrupted" if live and elsewhere is None else row["state"]
    return JobProgress(job_id=job_id, kind=row["kind"], run_key=row["job_key"], label=row["label"] or "",
                       run_id=row["run_id"], state=state, done=row["done"] or 0, total=row["total"] or 0,
                       note=row["note"] or "", alive=False, error=row["error"], brief=row["result"],
                       cancel_requested=bool(row.get("cancel_requested")), elsewhere=elsewhere)


def owner_is_running(owner: str | None, updated_at: datetime | None, *, now: datetime | None = None) -> bool:
    """Whether the process a job row names still runs (this function is asked about jobs not in this process).

    On this host: its process id is alive (and is not this process, whose jobs the manager knows).
    On another host, which cannot be asked: the row changed within ``ELSEWHERE_STALE_S``. A row
    without an owner was written before owners were recorded: its process is taken as gone.

    Example:
        >>> owner_is_running(f"{socket.gethostname()} pid {os.getpid()}", None)
        False
        >>> owner_is_running("other-host pid 1", datetime.now(UTC))
        True
    """
    host, _, pid = (owner or "").partition(" pid ")
    if not host or not pid.isdigit():
        return False
    if host == socket.gethostname():
        if int(pid) == os.getpid():
            return False
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    if updated_at is None:
        return False
    if updated_at.tzinfo is None:  # stored in UTC
        updated_at = updated_at.replace(tzinfo=UTC)
    age = ((now or datetime.now(UTC)) - updated_at).total_seconds()
    return age <= ELSEWHERE_STALE_S


def wait_job(job: Job, on_progress: Callable[..., Any] | None = None, *, poll_s: float = 0.2) -> JobProgress:
    """Block until the job ends, reporting ``(done, total, None)`` for every count the job reported.

    For the CLI, notebooks and scripts. Ctrl-C cancels the job (requests in flight finish and are
    kept) and is raised again; ``on_progress`` is closed at the end when it has a ``close()``.
    """
    seen: tuple[int, int] | None = None
    reported = 0
    try:
        while True:
            progress = job.join(poll_s)
            counts = job.counts[reported:]
            reported += len(counts)
            final = [] if progress.alive else [(progress.done, progress.total)]
            for count in [*counts, *final] if on_progress is not None else []:
                if count != seen:
                    seen = count
                    on_progress(*count, None)
            if not progress.alive:
                return progress
    except KeyboardInterrupt:
        job.cancel()
        job.join()
        raise
    finally:
        close = getattr(on_progress, "close", None)
        if callable(close):
            close()
