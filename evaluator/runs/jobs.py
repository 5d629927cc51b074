"""Benchmark runs in background threads of the app process, with a status a page can poll.

Why this shape: a run takes minutes to hours, longer than any one Streamlit script run, and a
browser reload starts a new session. So the run lives in a thread owned by this process, not by
a session, and is found again by its *run key* (the runner's identity for resuming) in one
process-wide registry. The thread writes every finished instance to the store through the
runner, so pages render progress and results from the store; the ``RunStatus`` here only adds
what the store cannot say: whether a thread is still working, and the error that ended it.
DuckDB connections are not thread-safe, so the thread gets its own cursor of the app's one
connection (one writer per file). Cancelling sets an event the runner checks between requests;
requests in flight finish and are kept, and starting the same request again resumes the run.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import duckdb
from pydantic import BaseModel, ConfigDict, Field

from evaluator.gateway.llm import ModelEndpoint
from evaluator.runs.runner import run_benchmark
from evaluator.runs.summary import RunSummary


class RunRequest(BaseModel):
    """What to run: one benchmark, its dataset, one endpoint and the run's limits."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    benchmark_id: str = Field(min_length=1)
    """Benchmark id (``data/benchmarks/<id>.yaml``)."""
    dataset_path: str | None = None
    """Dataset file on this machine; None for benchmarks that need none (built-in calculators)."""
    endpoint: ModelEndpoint
    """The candidate model as it is called (no key: only the NAME of its environment variable)."""
    concurrency: int = Field(default=8, ge=1, le=256)
    """Requests in flight at most."""
    max_cost_usd: float | None = Field(default=None, gt=0)
    """Stop before this run's new spending passes this many USD (needs a known price)."""
    limit: int | None = Field(default=None, ge=1)
    """First N instances only; None for all."""


class RunProgress(BaseModel):
    """A snapshot of a background run, as the thread last reported it."""

    model_config = ConfigDict(frozen=True)

    run_key: str
    """The run's identity for resuming."""
    run_id: str | None
    """Run id once the runner has created or found the run."""
    state: str
    """``starting``, ``running``, a runner status (``completed``, ``cancelled``, ...) or ``error``."""
    done: int
    """Instances with a result so far (those of earlier invocations included)."""
    total: int
    """Instances in the run."""
    alive: bool
    """True while the thread is working."""
    cancel_requested: bool
    """True once someone asked the run to stop."""
    error: str | None
    """Why the thread ended without a summary, if it did."""
    summary: RunSummary | None
    """The runner's summary once it returned."""
    elapsed_s: float
    """Seconds since this invocation started."""


class RunStatus:
    """Thread-safe progress of one background run; the runner's ``on_progress`` writes it."""

    def __init__(self, run_key: str, total: int) -> None:
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self.run_key, self.total, self.done = run_key, total, 0
        self.run_id: str | None = None
        self.state, self.error = "starting", None
        self.summary: RunSummary | None = None

    def on_progress(self, done: int, total: int, row: dict[str, Any] | None) -> None:
        """The runner's progress callback (called from the run's event loop)."""
        with self._lock:
            self.done, self.total, self.state = done, total, "running"
            if row is not None and self.run_id is None:
                self.run_id = str(row["run_id"])

    def finish(self, summary: RunSummary) -> None:
        """Record the runner's summary."""
        with self._lock:
            self.summary, self.run_id, self.state = summary, summary.run_id, summary.status
            self.done = summary.n

    def fail(self, message: str) -> None:
        """Record why the thread stopped without a summary."""
        with self._lock:
            self.state, self.error = "error", message

    def snapshot(self, alive: bool, cancel_requested: bool) -> RunProgress:
        """A consistent copy of the status."""
        with self._lock:
            return RunProgress(run_key=self.run_key, run_id=self.run_id, state=self.state, done=self.done,
                               total=self.total, alive=alive, cancel_requested=cancel_requested,
                               error=self.error, summary=self.summary,
                               elapsed_s=time.monotonic() - self._started)


class RunJob:
    """One background invocation of the runner for one request."""

    def __init__(self, request: RunRequest, run_key: str, total: int) -> None:
        self.request, self.run_key = request, run_key
        self.status = RunStatus(run_key, total)
        self.cancel_event = threading.Event()
        self.thread: threading.Thread | None = None

    @property
    def alive(self) -> bool:
        """True while the thread is working."""
        return self.thread is not None and self.thread.is_alive()

    def cancel(self) -> None:
        """Ask the run to stop after the requests in flight (they are kept)."""
        self.cancel_event.set()

    def progress(self) -> RunProgress:
        """The current snapshot."""
        return self.status.snapshot(self.alive, self.cancel_event.is_set())

    def join(self, timeout: float | None = None) -> RunProgress:
        """Wait for the thread (at most ``timeout`` seconds) and return the snapshot."""
        if self.thread is not None:
            self.thread.join(timeout)
        return self.progress()

    def run(self, con: duckdb.DuckDBPyConnection, spec: Any, instances: list) -> None:
        """Thread body: run (or resume) the benchmark on ``con`` (this thread's own cursor), then close it."""
        try:
            req = self.request
            summary = run_benchmark(con, spec, instances, req.endpoint, concurrency=req.concurrency,
                                    max_cost_usd=req.max_cost_usd, on_progress=self.status.on_progress,
                                    cancel=self.cancel_event)
            self.status.finish(summary)
        except Exception as exc:  # noqa: BLE001 - shown on the page; the run itself is resumable
            self.status.fail(f"{type(exc).__name__}: {exc}")
        finally:
            con.close()


class RunJobs:
    """The runs working in this process, by run key (one live job per key).

    Example:
        >>> jobs = RunJobs()
        >>> jobs.get("no-such-key") is None
        True
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, RunJob] = {}

    def get(self, run_key: str) -> RunJob | None:
        """The latest job for this key (alive or finished), if this process started one."""
        with self._lock:
            return self._jobs.get(run_key)

    def start(self, cursor: duckdb.DuckDBPyConnection, request: RunRequest, run_key: str, spec: Any,
              instances: list) -> RunJob:
        """Start a job unless one with this key is alive (then return that one and close ``cursor``)."""
        with self._lock:
            current = self._jobs.get(run_key)
            if current is not None and current.alive:
                cursor.close()
                return current
            job = RunJob(request, run_key, len(instances))
            job.thread = threading.Thread(target=job.run, args=(cursor, spec, instances), daemon=True,
                                          name=f"run-{run_key[:8]}")
            self._jobs[run_key] = job
            job.thread.start()
            return job

    def live(self) -> list[RunJob]:
        """Jobs whose thread is still working."""
        with self._lock:
            return [j for j in self._jobs.values() if j.alive]


JOBS = RunJobs()
"""The process-wide registry the app uses (tests may build their own)."""
