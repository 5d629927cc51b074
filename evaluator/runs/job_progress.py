"""What a page, the CLI or a notebook sees of a background job: one snapshot model.

Why its own module: the snapshot is read two ways, live from the job's thread in this process
and from the store's ``run_jobs`` row in any process (``evaluator.runs.jobs.job_status``), and
both must look the same to the page that polls it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from evaluator.runs.summary import RunSummary

LIVE_STATES = ("starting", "running")
"""States of a job whose thread is (or was, if its process died) still working."""


class JobProgress(BaseModel):
    """A snapshot of a background job, as the thread last reported it (or as the store holds it)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    job_id: str
    """The job's id (``job-...``), its row in the store."""
    kind: str
    """``benchmark``, ``scenario``, ``reevaluation`` or ``jury``."""
    run_key: str
    """The job's key: a run's identity for resuming, or a kind-specific key (one live job per key)."""
    label: str = ""
    """What the job does, in words."""
    run_id: str | None
    """Run id once the work has created or found the run."""
    state: str
    """``starting``, ``running``, a final status (``completed``, ``cancelled``, ...), ``error`` or
    ``interrupted`` (the process that ran it stopped)."""
    done: int
    """Items with a result so far (those of earlier invocations included)."""
    total: int
    """Items in the job (0 until known)."""
    note: str = ""
    """What the job is working on now (e.g. the benchmark of a re-evaluation)."""
    alive: bool
    """True while the thread is working."""
    cancel_requested: bool
    """True once someone asked the job to stop."""
    error: str | None
    """Why the job ended without a result, if it did."""
    summary: RunSummary | None = None
    """The runner's summary, when the work returned one."""
    result: Any = None
    """What the work returned (this process only; the store keeps ``brief``)."""
    brief: dict[str, Any] | None = None
    """A short JSON result kept in the store (e.g. the run id, an addendum id)."""
    elapsed_s: float = 0.0
    """Seconds since this invocation started (0 when read from the store)."""
    elsewhere: str | None = None
    """The process running the job when it is another one sharing the database (``host pid N``), else None."""

    @property
    def running(self) -> bool:
        """True while the job works, in this process (``alive``) or in another one (``elsewhere``)."""
        return self.alive or self.elsewhere is not None
