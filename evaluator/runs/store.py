"""Runs, their per-instance results and the response cache, in the app's one DuckDB file.

Why this shape: a run is one model × one benchmark × one prompt and dataset version. Its
identity for resuming is the *run key*, a hash of exactly those (spec, rendered prompts,
instances, model, server, generation parameters); an unfinished run with the same key is
continued rather than restarted. Results are keyed (run_id, instance_id), so resuming can
never duplicate an instance. The response cache is keyed by SHA-256 of the canonical JSON of
(model identity, parameters, messages), as HELM's caching client does, so a second run of the
same prompts costs nothing. A run that must observe the model (a re-evaluation, ``run --fresh``)
reads no cache row and resumes no run but its own (``RunOptions.fresh``); each answer keeps the
served identity its reply carried (``served_identities``). Writes go through ``ResultWriter``
(journal, then batched DuckDB inserts; see ``evaluator.runs.writer`` for the loss window). API keys
are never passed here.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from evaluator.gateway.secrets import scrub_url
from evaluator.runs.writer import ResultWriter, insert_batch, replay_journals
from evaluator.storage.db import apply_migrations, is_postgres, missing_table_errors, upsert_sql

MIGRATIONS = [
    """
    CREATE TABLE runs (
        run_id VARCHAR PRIMARY KEY, run_key VARCHAR NOT NULL, benchmark_id VARCHAR NOT NULL,
        spec_hash VARCHAR, prompt_hash VARCHAR, dataset_hash VARCHAR, model VARCHAR NOT NULL,
        endpoint_name VARCHAR, api_base VARCHAR, params JSON, status VARCHAR NOT NULL,
        n_planned INTEGER, created_at TIMESTAMPTZ NOT NULL, finished_at TIMESTAMPTZ, totals JSON
    );
    CREATE INDEX runs_by_key ON runs (run_key);
    CREATE TABLE run_results (
        run_id VARCHAR NOT NULL, instance_id VARCHAR NOT NULL, response_text VARCHAR, parsed VARCHAR,
        score DOUBLE, unparsed BOOLEAN, metrics JSON, prompt_tokens BIGINT, completion_tokens BIGINT,
        cost_usd DOUBLE, latency_s DOUBLE, attempts BIGINT, cached BOOLEAN, error VARCHAR,
        finished_at TIMESTAMPTZ, PRIMARY KEY (run_id, instance_id)
    );
    CREATE TABLE response_cache (
        key VARCHAR PRIMARY KEY, model VARCHAR, api_base VARCHAR, response_text VARCHAR,
        prompt_tokens BIGINT, completion_tokens BIGINT, cost_usd DOUBLE, created_at TIMESTAMPTZ
    );
    """,
    # 2: the request that started a run (no secrets) and the status of background jobs, so that a
    # page rerun, a second tab or a restarted app reads them from the store (evaluator.runs.jobs).
    """
    CREATE TABLE run_requests (
        run_key VARCHAR NOT NULL, run_id VARCHAR, kind VARCHAR NOT NULL, request JSON NOT NULL,
        recorded_at TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE run_jobs (
        job_id VARCHAR PRIMARY KEY, kind VARCHAR NOT NULL, job_key VARCHAR NOT NULL, label VARCHAR,
        run_id VARCHAR, state VARCHAR NOT NULL, done INTEGER, total INTEGER, note VARCHAR, error VARCHAR,
        result JSON, started_at TIMESTAMPTZ NOT NULL, updated_at TIMESTAMPTZ NOT NULL
    );
    """,
    # 3: several processes share a PostgreSQL database: which process runs a job (so another one shows
    # it as running there, not as interrupted), and a stop asked for from another process.
    """
    ALTER TABLE run_jobs ADD COLUMN owner VARCHAR;
    ALTER TABLE run_jobs ADD COLUMN cancel_requested BOOLEAN;
    """,
    # 4: the served identity each answer carried (the reply's ``model`` and ``system_fingerprint``), so a
    # re-evaluation can say when another model answered behind the same name and URL.
    """
    ALTER TABLE run_results ADD COLUMN served_model VARCHAR;
    ALTER TABLE run_results ADD COLUMN system_fingerprint VARCHAR;
    ALTER TABLE response_cache ADD COLUMN served_model VARCHAR;
    ALTER TABLE response_cache ADD COLUMN system_fingerprint VARCHAR;
    """,
    # 5: batch runs (``run --batch``): the provider's batch id, so an interrupted run polls the batch it
    # submitted instead of paying for a second one. Insert only (a failed batch's successor is a new row).
    """
    CREATE TABLE run_batches (
        run_id VARCHAR NOT NULL, batch_id VARCHAR NOT NULL, n_requests INTEGER NOT NULL,
        submitted_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (run_id, batch_id)
    );
    """,
]
RESUMABLE = ("running", "cancelled", "budget_exceeded", "failed")


def canonical_json(obj: Any) -> str:
    """Sorted keys, no spaces, UTF-8 kept: one text per value.

    Example:
        >>> canonical_json({"b": 1, "a": [1, 2]})
        '{"a":[1,2],"b":1}'
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def sha256_of(obj: Any) -> str:
    """SHA-256 hex of the canonical JSON of ``obj``."""
    return hashlib.sha256(canonical_json(obj).encode()).hexdigest()


def cache_key(model_identity: dict[str, Any], params: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    """The response-cache key of one request.

    Example:
        >>> msgs = [{"role": "user", "content": "x"}]
        >>> len(cache_key({"model": "m", "api_base": None}, {"temperature": 0}, msgs))
        64
    """
    return sha256_of({"model": model_identity, "params": params, "messages": messages})


def now_iso() -> str:
    """Current UTC time as ISO 8601."""
    return datetime.now(UTC).isoformat()


def journal_dir_for(con: duckdb.DuckDBPyConnection) -> Path | None:
    """``<database file>.journal/`` beside the DuckDB file; None for an in-memory database.

    On PostgreSQL, the folder the store was opened with (``PgConnection.journal_dir``, under
    ``$MEDASSURE_HOME``), so a killed run's answers are replayed there too.
    """
    if is_postgres(con):
        return con.journal_dir
    row = con.execute(
        "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchone()
    if not row or not row[0]:
        return None
    db = Path(row[0])
    return db.with_name(db.name + ".journal")


def read_job(con: duckdb.DuckDBPyConnection, job_id: str) -> dict[str, Any] | None:
    """One background job's status row, read only (no migration, for pages that poll every second).

    Returns None when there is no such job or no job table yet.
    """
    try:
        cur = con.execute("SELECT * FROM run_jobs WHERE job_id = ?", [job_id])
    except missing_table_errors():
        return None
    row = cur.fetchone()
    if not row:
        return None
    rec = dict(zip([d[0] for d in cur.description], row, strict=True))
    rec["result"] = json.loads(rec["result"]) if rec["result"] else None
    return rec


class RunStore:
    """Run records, results and the response cache over a DuckDB connection.

    Example:
        >>> store = RunStore(duckdb.connect())
        >>> store.find_resumable("no-such-key") is None
        True
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, journal_dir: Path | None | str = "auto") -> None:
        self.con = con
        apply_migrations(con, "runs", MIGRATIONS)
        self.journal_dir = journal_dir_for(con) if journal_dir == "auto" else journal_dir
        self.recover()

    def recover(self) -> int:
        """Replay journals left by killed runs; returns how many results were recovered."""
        return replay_journals(self.con, self.journal_dir if isinstance(self.journal_dir, Path) else None)

    def lease_path(self, run_id: str) -> Path | None:
        """The run's lease file beside its journal (``evaluator.runs.workers.RunLease``); None in memory."""
        return self.journal_dir / f"{run_id}.lease" if isinstance(self.journal_dir, Path) else None

    def _journal_path(self, run_id: str) -> Path | None:
        return self.journal_dir / f"{run_id}.jsonl" if isinstance(self.journal_dir, Path) else None

    def find_resumable(self, run_key: str) -> str | None:
        """The latest unfinished run with this key, if any."""
        row = self.con.execute(
            f"SELECT run_id FROM runs WHERE run_key = ? AND status IN {RESUMABLE} "
            "ORDER BY created_at DESC LIMIT 1",
            [run_key],
        ).fetchone()
        return row[0] if row else None

    def create_run(
        self,
        *,
        run_key: str,
        benchmark_id: str,
        hashes: dict[str, str],
        model: str,
        endpoint_name: str,
        api_base: str | None,
        params: dict[str, Any],
        n_planned: int,
    ) -> str:
        """Insert a new run in status ``running``; returns its id."""
        run_id = f"run-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        self.con.execute(
            "INSERT INTO runs (run_id, run_key, benchmark_id, spec_hash, prompt_hash, dataset_hash, model, "
            "endpoint_name, api_base, params, status, n_planned, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, now())",
            [
                run_id,
                run_key,
                benchmark_id,
                hashes.get("spec"),
                hashes.get("prompt"),
                hashes.get("dataset"),
                model,
                endpoint_name,
                scrub_url(api_base),  # a key in the URL's user part or query is never stored
                canonical_json(params),
                n_planned,
            ],
        )
        return run_id

    def set_status(self, run_id: str, status: str, totals: dict[str, Any] | None = None) -> None:
        """Update a run's status (and totals); a terminal status stamps ``finished_at``."""
        finished = "now()" if status != "running" else "NULL"
        self.con.execute(
            f"UPDATE runs SET status = ?, totals = ?, finished_at = {finished} WHERE run_id = ?",
            [status, canonical_json(totals) if totals is not None else None, run_id],
        )

    def record_batch(self, run_id: str, batch_id: str, n_requests: int) -> None:
        """Note the batch a run submitted (before polling it, so an interrupt never loses its id)."""
        self.con.execute("INSERT INTO run_batches VALUES (?, ?, ?, ?)",
                         [run_id, batch_id, n_requests, datetime.now(UTC)])

    def latest_batch(self, run_id: str) -> str | None:
        """The id of the batch the run submitted last; None when it submitted none."""
        row = self.con.execute(
            "SELECT batch_id FROM run_batches WHERE run_id = ? ORDER BY submitted_at DESC LIMIT 1", [run_id]
        ).fetchone()
        return str(row[0]) if row else None

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        """One run record as a dict, or None."""
        cur = self.con.execute("SELECT * FROM runs WHERE run_id = ?", [run_id])
        row = cur.fetchone()
        return dict(zip([d[0] for d in cur.description], row, strict=True)) if row else None

    def finished_ids(self, run_id: str) -> set[str]:
        """Instances of the run that have an answer (errored ones are retried on resume)."""
        rows = self.con.execute(
            "SELECT instance_id FROM run_results WHERE run_id = ? AND error IS NULL", [run_id]
        ).fetchall()
        return {r[0] for r in rows}

    def results(self, run_id: str) -> list[dict[str, Any]]:
        """All result rows of a run, metrics decoded, in instance order."""
        cur = self.con.execute("SELECT * FROM run_results WHERE run_id = ? ORDER BY instance_id", [run_id])
        names = [d[0] for d in cur.description]
        out = []
        for row in cur.fetchall():
            rec = dict(zip(names, row, strict=True))
            rec["metrics"] = json.loads(rec["metrics"]) if rec["metrics"] else {}
            out.append(rec)
        return out

    def cache_lookup(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """Cached responses for the given keys (one query for all of them)."""
        if not keys:
            return {}
        cur = self.con.execute(
            "SELECT key, response_text, prompt_tokens, completion_tokens, cost_usd, served_model, "
            "system_fingerprint FROM response_cache WHERE key IN (SELECT unnest(?::VARCHAR[]))",
            [keys],
        )
        return {
            k: {"text": t, "prompt_tokens": p, "completion_tokens": c, "cost_usd": cost,
                "served_model": served, "system_fingerprint": fingerprint}
            for k, t, p, c, cost, served, fingerprint in cur.fetchall()
        }

    def served_identities(self, run_id: str) -> list[dict[str, Any]]:
        """Who answered a run: each (served model, system fingerprint) its answers named, with how many.

        Answers stored before identities were recorded, and replies that named none, count under
        ``None`` values. Most frequent first.
        """
        rows = self.con.execute(
            "SELECT served_model, system_fingerprint, count(*) AS n FROM run_results "
            "WHERE run_id = ? AND error IS NULL AND response_text IS NOT NULL "
            "GROUP BY served_model, system_fingerprint",
            [run_id],
        ).fetchall()
        out = [{"model": m, "system_fingerprint": f, "n": int(n)} for m, f, n in rows]
        return sorted(out, key=lambda r: (-r["n"], str(r["model"]), str(r["system_fingerprint"])))

    def own_unfinished_rerun(self, run_key: str, created_after: Any) -> str | None:
        """An unfinished re-run (request kind ``rerun``) with this key, started after ``created_after``.

        A re-evaluation that was cancelled or cut off left it; the same re-evaluation started again
        continues it (its own resume) instead of asking again for what it already observed.
        """
        row = self.con.execute(
            f"SELECT r.run_id FROM runs r WHERE r.run_key = ? AND r.status IN {RESUMABLE} "
            "AND r.created_at > ? AND EXISTS (SELECT 1 FROM run_requests q WHERE q.run_key = r.run_key "
            "AND q.kind = 'rerun' AND (q.run_id = r.run_id OR q.run_id IS NULL)) "
            "ORDER BY r.created_at DESC LIMIT 1",
            [run_key, created_after],
        ).fetchone()
        return row[0] if row else None

    def insert_results(self, rows: list[dict[str, Any]]) -> None:
        """Write finished result rows in one transaction (answers made without the runner: demo data)."""
        cur = self.con.cursor()
        try:
            insert_batch(cur, rows, [])
        finally:
            cur.close()

    def writer(self, run_id: str, flush_every: int = 256, flush_ms: float = 500.0) -> ResultWriter:
        """A journal-then-batch writer for this run (close it in a ``finally``)."""
        return ResultWriter(self.con, self._journal_path(run_id), flush_every=flush_every, flush_ms=flush_ms)

    # ---- run requests and background jobs (migration 2) --------------------------------------
    def record_request(self, run_key: str, kind: str, request: dict[str, Any],
                       run_id: str | None = None) -> None:
        """Store the request that starts a run (``evaluator.runs.request.request_record``; no secrets)."""
        self.con.execute(
            "INSERT INTO run_requests (run_key, run_id, kind, request, recorded_at) "
            "VALUES (?, ?, ?, ?, now())",
            [run_key, run_id, kind, canonical_json(request)],
        )

    def link_request(self, run_key: str, run_id: str) -> None:
        """Tie the requests recorded under ``run_key`` without a run to the run they started."""
        self.con.execute("UPDATE run_requests SET run_id = ? WHERE run_key = ? AND run_id IS NULL",
                         [run_id, run_key])

    def stored_request(self, run_id: str | None = None, run_key: str | None = None) -> dict[str, Any] | None:
        """The latest request recorded for this run (else for this run key), decoded; None if none."""
        for column, value in (("run_id", run_id), ("run_key", run_key)):
            if value is None:
                continue
            row = self.con.execute(
                f"SELECT request FROM run_requests WHERE {column} = ? ORDER BY recorded_at DESC LIMIT 1",
                [value],
            ).fetchone()
            if row:
                return json.loads(row[0])
        return None

    def save_job(self, job: dict[str, Any]) -> None:
        """Insert or update one background job's status row (keys: the ``run_jobs`` columns)."""
        cols = ["job_id", "kind", "job_key", "label", "run_id", "state", "done", "total", "note", "error",
                "result", "started_at", "owner"]
        values = [canonical_json(job[c]) if c == "result" and job.get(c) is not None else job.get(c)
                  for c in cols]
        self.con.execute(upsert_sql("run_jobs", [*cols, "updated_at"], ["job_id"]),
                         [*values, datetime.now(UTC)])

    def request_cancel(self, job_id: str) -> bool:
        """Ask the job to stop from any process (its own process reads this when it next saves its status).

        Returns False when there is no such job or it is no longer working.
        """
        row = self.con.execute(
            "UPDATE run_jobs SET cancel_requested = true WHERE job_id = ? "
            "AND state IN ('starting', 'running') RETURNING job_id", [job_id]).fetchone()
        return row is not None

    def cancel_requested(self, job_id: str) -> bool:
        """True once someone (in any process) asked this job to stop."""
        row = self.con.execute("SELECT cancel_requested FROM run_jobs WHERE job_id = ?", [job_id]).fetchone()
        return bool(row and row[0])

    def get_job(self, job_id: str) -> dict[str, Any] | None:
        """One job's status row (``result`` decoded), or None."""
        return read_job(self.con, job_id)

    def latest_job_id(self, job_key: str, kind: str | None = None) -> str | None:
        """The newest job started for this key (and kind), if any."""
        sql = "SELECT job_id FROM run_jobs WHERE job_key = ?" + (" AND kind = ?" if kind else "")
        row = self.con.execute(sql + " ORDER BY started_at DESC LIMIT 1",
                               [job_key, kind] if kind else [job_key]).fetchone()
        return row[0] if row else None
