"""Persist each finished instance at once, yet write DuckDB in batches.

Why this shape: a run must never lose an answer it has paid for, but DuckDB single-row inserts
cost ~5 ms each on our 2-core machine (STACK_NOTES §7, and measured again here), a third of
litellm's own client CPU per call, while a batch of hundreds costs ~6-20 ms. So every finished
result is first appended as one JSON line to a per-run journal file with a single ``os.write``
(≈10 µs; once it returns, the kernel holds the bytes and a SIGKILL of this process cannot lose
them), and a writer thread moves the journal's new lines into DuckDB in one transaction every
``flush_every`` results or ``flush_ms`` ms (default 500), after an ``fsync`` of the journal
(group commit). The journal is deleted once the run's writer closes with everything committed;
a journal left behind by a killed process is replayed into DuckDB (idempotently: results and
cache rows upsert) before the run resumes. A cache row is replaced by a newer answer to the same
request, so after a run that asked the model again (``RunOptions.fresh``) the cache holds what was
last observed, not what a model behind the same name said before.

At-most-lost window: none for a process crash or SIGKILL (the journal line is written before a
result counts as finished). For an OS crash or power loss, results finished in the last
``flush_ms`` before the crash may be lost (written but not yet fsynced); the resumed run
re-requests those instances (paying again), it never duplicates them. A database without a file
(``:memory:``) has no journal: nothing there survives the process anyway.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from evaluator.gateway.secrets import scrub_text, scrub_url
from evaluator.storage.db import is_postgres, upsert_sql

RESULT_COLUMNS = (
    "run_id",
    "instance_id",
    "response_text",
    "parsed",
    "score",
    "unparsed",
    "metrics",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "latency_s",
    "attempts",
    "cached",
    "error",
    "finished_at",
    "served_model",
    "system_fingerprint",
)
CACHE_COLUMNS = (
    "key",
    "model",
    "api_base",
    "response_text",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "created_at",
    "served_model",
    "system_fingerprint",
)
_RESULT_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("instance_id", pa.string()),
        ("response_text", pa.string()),
        ("parsed", pa.string()),
        ("score", pa.float64()),
        ("unparsed", pa.bool_()),
        ("metrics", pa.string()),
        ("prompt_tokens", pa.int64()),
        ("completion_tokens", pa.int64()),
        ("cost_usd", pa.float64()),
        ("latency_s", pa.float64()),
        ("attempts", pa.int64()),
        ("cached", pa.bool_()),
        ("error", pa.string()),
        ("finished_at", pa.string()),
        ("served_model", pa.string()),
        ("system_fingerprint", pa.string()),
    ]
)
_CACHE_SCHEMA = pa.schema(
    [
        ("key", pa.string()),
        ("model", pa.string()),
        ("api_base", pa.string()),
        ("response_text", pa.string()),
        ("prompt_tokens", pa.int64()),
        ("completion_tokens", pa.int64()),
        ("cost_usd", pa.float64()),
        ("created_at", pa.string()),
        ("served_model", pa.string()),
        ("system_fingerprint", pa.string()),
    ]
)


def insert_batch(cur: duckdb.DuckDBPyConnection, results: list[dict], cache: list[dict]) -> None:
    """Upsert results and cache rows in one transaction (a batch's duplicates: last wins)."""
    latest = {(r["run_id"], r["instance_id"]): r for r in results}
    unique_cache = {c["key"]: c for c in cache}
    cur.execute("BEGIN TRANSACTION")
    try:
        if is_postgres(cur):
            _insert_rows(cur, list(latest.values()), list(unique_cache.values()))
        elif latest:
            rows = [{**r, "metrics": json.dumps(r.get("metrics") or {})} for r in latest.values()]
            cur.register("_result_batch", pa.Table.from_pylist(rows, schema=_RESULT_SCHEMA))
            cur.execute(
                f"INSERT OR REPLACE INTO run_results ({', '.join(RESULT_COLUMNS)}) "
                f"SELECT * REPLACE (CAST(finished_at AS TIMESTAMPTZ) AS finished_at, "
                f"CAST(metrics AS JSON) AS metrics) FROM _result_batch"
            )
            cur.unregister("_result_batch")
        if unique_cache and not is_postgres(cur):
            cur.register(
                "_cache_batch", pa.Table.from_pylist(list(unique_cache.values()), schema=_CACHE_SCHEMA)
            )
            cur.execute(
                f"INSERT OR REPLACE INTO response_cache ({', '.join(CACHE_COLUMNS)}) "
                f"SELECT * REPLACE (CAST(created_at AS TIMESTAMPTZ) AS created_at) FROM _cache_batch"
            )
            cur.unregister("_cache_batch")
        cur.execute("COMMIT")
    except BaseException:
        cur.execute("ROLLBACK")
        raise


def _insert_rows(cur: Any, results: list[dict], cache: list[dict]) -> None:
    """``insert_batch`` on PostgreSQL: the same upserts, row by row in one transaction.

    (DuckDB's fast path reads the batch as an Arrow table; a server takes the rows as parameters.)
    """
    if results:
        cur.executemany(upsert_sql("run_results", RESULT_COLUMNS, ["run_id", "instance_id"]),
                        [[json.dumps(r.get("metrics") or {}) if c == "metrics" else r.get(c)
                          for c in RESULT_COLUMNS] for r in results])
    if cache:
        cur.executemany(upsert_sql("response_cache", CACHE_COLUMNS, ["key"]),
                        [[c.get(k) for k in CACHE_COLUMNS] for c in cache])


def read_journal(path: Path) -> tuple[list[dict], list[dict]]:
    """Results and cache rows in a journal; a torn last line (killed mid-write) is skipped."""
    results: list[dict] = []
    cache: list[dict] = []
    for line in path.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        results.append(record["r"])
        if record.get("c"):
            cache.append(record["c"])
    return results, cache


def replay_journals(con: duckdb.DuckDBPyConnection, journal_dir: Path | None) -> int:
    """Move every journal left by a dead writer into DuckDB, then delete it; returns results replayed.

    A journal whose writer is alive (its ``flock`` is held, in this or another process) is skipped.
    """
    if journal_dir is None or not journal_dir.is_dir():
        return 0
    replayed = 0
    for path in sorted(journal_dir.glob("*.jsonl")):
        fd = os.open(path, os.O_RDONLY)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            results, cache = read_journal(path)
            cur = con.cursor()
            try:
                insert_batch(cur, results, cache)
            finally:
                cur.close()
            path.unlink()
            replayed += len(results)
        finally:
            os.close(fd)
    return replayed


def _scrubbed(
    result: Mapping[str, Any], cache: Mapping[str, Any] | None
) -> tuple[Mapping[str, Any], Mapping[str, Any] | None]:
    """The rows with secrets scrubbed from the error text and the cached server URL (last line of defence)."""
    if result.get("error"):
        result = {**result, "error": scrub_text(result["error"])}
    if cache and cache.get("api_base"):
        cache = {**cache, "api_base": scrub_url(cache["api_base"])}
    return result, cache


class ResultWriter:
    """Journal-then-batch writer for one run; ``add`` from the event loop, ``close`` at the end.

    Example:
        >>> w = ResultWriter(con, journal_path=None)   # doctest: +SKIP
        >>> w.add(result_row, cache_row); w.close()    # doctest: +SKIP
    """

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        journal_path: Path | None,
        flush_every: int = 256,
        flush_ms: float = 500.0,
    ) -> None:
        self._cur = con.cursor()
        self._flush_every = flush_every
        self._flush_s = flush_ms / 1000
        self._pending: list[tuple[dict, dict | None]] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closing = False
        self.error: BaseException | None = None
        self.committed = 0
        self.flushes = 0
        self._journal_path = journal_path
        self._fd: int | None = None
        if journal_path is not None:
            journal_path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(journal_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        self._thread = threading.Thread(target=self._loop, name="result-writer", daemon=True)
        self._thread.start()

    def add(self, result: Mapping[str, Any], cache: Mapping[str, Any] | None = None) -> None:
        """Record one finished instance: journal line now, DuckDB within ``flush_ms``."""
        if self.error is not None:
            raise RuntimeError(f"result writer failed: {self.error}") from self.error
        result, cache = _scrubbed(result, cache)
        if self._fd is not None:
            line = json.dumps({"r": result, "c": cache}, ensure_ascii=False, default=str).encode() + b"\n"
            view = memoryview(line)
            while view:
                view = view[os.write(self._fd, view) :]
        with self._lock:
            self._pending.append((dict(result), dict(cache) if cache else None))
            full = len(self._pending) >= self._flush_every
        if full:
            self._wake.set()

    def add_many(self, rows: Iterable[tuple[Mapping[str, Any], Mapping[str, Any] | None]]) -> None:
        """``add`` for several rows."""
        for result, cache in rows:
            self.add(result, cache)

    def _flush(self) -> None:
        with self._lock:
            batch, self._pending = self._pending, []
        if not batch:
            return
        if self._fd is not None:
            os.fsync(self._fd)
        insert_batch(self._cur, [r for r, _ in batch], [c for _, c in batch if c])
        self.committed += len(batch)
        self.flushes += 1

    def _loop(self) -> None:
        while True:
            self._wake.wait(self._flush_s)
            self._wake.clear()
            try:
                self._flush()
            except BaseException as exc:  # noqa: BLE001 - surfaced to the event loop by add()/close()
                self.error = exc
                return
            if self._closing:
                with self._lock:
                    if not self._pending:
                        return

    def close(self) -> None:
        """Commit everything, then remove the journal (kept if the commit failed)."""
        self._closing = True
        self._wake.set()
        self._thread.join()
        if self.error is None:
            try:
                self._flush()
            except BaseException as exc:  # noqa: BLE001
                self.error = exc
        self._cur.close()
        if self._fd is not None:
            if self.error is None and self._journal_path is not None:
                self._journal_path.unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = None
        if self.error is not None:
            raise RuntimeError(f"result writer failed: {self.error}") from self.error
