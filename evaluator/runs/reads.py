"""Read-only views of stored runs for pages that watch a run while it is being written.

Why a separate module: ``RunStore`` serves the runner (create, resume, write, summarize) and
returns every result of a run; a page polling a live run once a second needs the list of runs,
counts, and only the latest few results. These queries read the same tables (``runs``,
``run_results``, declared by ``evaluator.runs.store``) and write nothing, so they are safe to run
on their own cursor while the runner's writer thread inserts batches on another.
"""

from __future__ import annotations

import json
from datetime import datetime

import duckdb
from pydantic import BaseModel

from evaluator.runs.store import MIGRATIONS
from evaluator.storage.db import apply_migrations

_COUNTS = {"n_results": "count(*)", "n_errors": "count(x.error)",
           "n_unparsed": "count(*) FILTER (x.unparsed)", "n_scored": "count(x.score)",
           "mean_score": "avg(x.score)"}
_RUN_COLUMNS = ("r.run_id, r.run_key, r.benchmark_id, r.model, r.endpoint_name, r.api_base, r.status, "
                "r.n_planned, r.created_at, r.finished_at, "
                + ", ".join(f"(SELECT {expr} FROM run_results x WHERE x.run_id = r.run_id) AS {name}"
                            for name, expr in _COUNTS.items()))


class RunRecord(BaseModel):
    """One stored run with how far it got."""

    run_id: str
    """Run identifier."""
    run_key: str
    """Identity used for resuming (same benchmark, prompts, instances, model and parameters)."""
    benchmark_id: str
    """Benchmark id."""
    model: str
    """litellm model string."""
    endpoint_name: str
    """Endpoint label given when the run started."""
    api_base: str | None
    """Server the run was sent to (None: the provider's default)."""
    status: str
    """``running``, ``completed``, ``cancelled``, ``budget_exceeded`` or ``failed``."""
    n_planned: int
    """Instances in the run."""
    n_results: int
    """Instances with a stored result (answered or errored)."""
    n_errors: int
    """Stored results without an answer."""
    n_unparsed: int
    """Answers that could not be parsed (scored wrong)."""
    n_scored: int
    """Results with a main-metric score."""
    mean_score: float | None
    """Mean main-metric score so far (no interval: the run summary gives that)."""
    created_at: datetime
    """When the run was first started."""
    finished_at: datetime | None
    """When it last stopped (None while running)."""


class ResultRecord(BaseModel):
    """One stored instance result, as a page lists it."""

    instance_id: str
    """Instance id."""
    parsed: str | None
    """Answer read from the reply (None when unreadable or errored)."""
    score: float | None
    """Main-metric score (None when errored or unscorable)."""
    unparsed: bool | None
    """True when no answer could be read from the reply."""
    cached: bool
    """Answered from the response cache."""
    error: str | None
    """Why there is no answer, when there is none."""
    response_text: str | None
    """The model's reply."""
    metrics: dict[str, float]
    """Every metric of this instance."""
    finished_at: datetime | None
    """When the result was recorded."""


def ensure_run_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Create the run tables if no run was ever stored (a fresh database)."""
    apply_migrations(con, "runs", MIGRATIONS)


def _record(cur: duckdb.DuckDBPyConnection, row: tuple) -> RunRecord:
    data = dict(zip([d[0] for d in cur.description], row, strict=True))
    data["n_planned"] = data["n_planned"] or 0
    data["endpoint_name"] = data["endpoint_name"] or data["model"]
    return RunRecord.model_validate(data)


def list_runs(con: duckdb.DuckDBPyConnection, benchmark_ids: list[str] | None = None,
              limit: int = 20) -> list[RunRecord]:
    """Stored runs, newest first, optionally only of some benchmarks.

    Example:
        >>> con = duckdb.connect(); ensure_run_tables(con); list_runs(con)
        []
    """
    sql = f"SELECT {_RUN_COLUMNS} FROM runs r"
    params: list = []
    if benchmark_ids is not None:
        sql += " WHERE r.benchmark_id IN (SELECT unnest(?::VARCHAR[]))"
        params.append(list(benchmark_ids))
    cur = con.execute(sql + " ORDER BY r.created_at DESC LIMIT ?", [*params, limit])
    return [_record(cur, row) for row in cur.fetchall()]


def get_run_record(con: duckdb.DuckDBPyConnection, run_id: str) -> RunRecord | None:
    """One stored run, or None.

    Example:
        >>> con = duckdb.connect(); ensure_run_tables(con); get_run_record(con, "run-x") is None
        True
    """
    cur = con.execute(f"SELECT {_RUN_COLUMNS} FROM runs r WHERE r.run_id = ?", [run_id])
    row = cur.fetchone()
    return _record(cur, row) if row else None


def recent_results(con: duckdb.DuckDBPyConnection, run_id: str, limit: int = 20) -> list[ResultRecord]:
    """The latest ``limit`` results of a run, newest first.

    Example:
        >>> con = duckdb.connect(); ensure_run_tables(con); recent_results(con, "run-x")
        []
    """
    cur = con.execute(
        "SELECT instance_id, parsed, score, unparsed, cached, error, response_text, metrics, finished_at "
        "FROM run_results WHERE run_id = ? ORDER BY finished_at DESC, instance_id DESC LIMIT ?",
        [run_id, limit])
    names = [d[0] for d in cur.description]
    out = []
    for row in cur.fetchall():
        rec = dict(zip(names, row, strict=True))
        metrics = json.loads(rec["metrics"]) if rec["metrics"] else {}
        rec["metrics"] = {k: float(v) for k, v in metrics.items()
                          if isinstance(v, int | float) and not isinstance(v, bool)}
        rec["cached"] = bool(rec["cached"])
        out.append(ResultRecord.model_validate(rec))
    return out


class RunReads:
    """The read-only run views over one connection (or a thread's cursor); writes nothing.

    Example:
        >>> reads = RunReads(duckdb.connect())
        >>> reads.list_runs(), reads.get_run_record("run-x"), reads.recent_results("run-x")
        ([], None, [])
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        ensure_run_tables(con)

    def list_runs(self, benchmark_ids: list[str] | None = None, limit: int = 20) -> list[RunRecord]:
        """Stored runs, newest first, optionally only of some benchmarks."""
        return list_runs(self.con, benchmark_ids, limit)

    def get_run_record(self, run_id: str) -> RunRecord | None:
        """One stored run, or None."""
        return get_run_record(self.con, run_id)

    def recent_results(self, run_id: str, limit: int = 20) -> list[ResultRecord]:
        """The latest ``limit`` results of a run, newest first."""
        return recent_results(self.con, run_id, limit)
