"""How fast do 1,000,000 monitoring-feed rows import and give a status, and how much memory does it take?

Prints figures; it is not a timed test (the machine is shared). A child process writes a synthetic feed
(six months of one approved candidate: 5% audited, 2% of audits material, latency, tokens, cost, review
time, a site tag) as Parquet and as CSV, so this process's peak memory is the import's own. Then, for each
file, on a fresh DuckDB store with a decided dossier: ``import_feed`` (validated whole in SQL, deduplicated,
stored, recorded) and ``monitoring_status`` (aggregates in SQL, Wilson rates, the CUSUM), timed separately.

Usage: .venv/bin/python bench/monitoring_feed.py [--rows 1000000] [--quick] [--postgres] [--no-baseline]
[--formats parquet,csv] [--seal-baseline] [--insert-baseline] [--staged-baseline] [--serial-baseline]
[--profile]
(``--quick``, for ``make bench-smoke``: 50,000 rows; ``--no-baseline`` skips PostgreSQL's old batched
inserts; ``--seal-baseline`` runs each backend first with the seal's SQL before issue 35 item 7;
``--insert-baseline``, with ``--postgres``: a leg ``pg-oc`` first whose rows go in by ``INSERT ... ON
CONFLICT DO NOTHING`` as before the plain inserts of issue 35 item 7; ``--staged-baseline``: a leg
``pg-stg`` whose first import goes through the staging table (plain ``INSERT ... SELECT``) rather than
the direct ``COPY``; ``--serial-baseline``: a leg ``pg-ser`` whose reads go one after another on one
connection, as before the status's digests and aggregates went side by side (``store_reads``);
``--profile`` prints cProfile's top 15 functions of each import + status.) Each leg prints the
load average (``/proc/loadavg``, 1/5/15 min) before and after it: on a shared machine wall time means
little without it. Targets from issues 28 and 35: import + status of 1M rows < 10 s on DuckDB and < 15 s
on PostgreSQL, peak memory < 1 GB, on a 2-core machine.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GENERATE = """
import duckdb, sys
n, out = int(sys.argv[1]), sys.argv[2]
con = duckdb.connect()
con.execute('SET enable_progress_bar = false')
con.execute(f'''CREATE TABLE feed AS SELECT
  'out-' || i AS id,
  strftime(TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(CAST(i * (15552000.0 / {n}) AS BIGINT)),
           '%Y-%m-%dT%H:%M:%SZ') AS timestamp,
  'm-1' AS served_model, 'v1' AS prompt_version,
  CASE WHEN hash(i) % 100 < 80 THEN 'accepted' WHEN hash(i) % 100 < 95 THEN 'minor_edit'
       WHEN hash(i) % 100 < 97 THEN 'material_correction' ELSE 'discarded' END AS outcome,
  200 + hash(i * 7) % 1800 AS latency_ms, 300 + hash(i * 3) % 900 AS tokens_in,
  80 + hash(i * 5) % 300 AS tokens_out,
  round(0.0001 * (1 + hash(i * 11) % 20), 6) AS cost_usd, 'reviewer-' || (hash(i * 13) % 40) AS reviewer,
  15 + hash(i * 17) % 120 AS review_seconds,
  CASE WHEN hash(i * 19) % 100 < 5 THEN 'true' ELSE 'false' END AS audited,
  CASE WHEN hash(i * 19) % 100 < 5 THEN (CASE WHEN hash(i * 23) % 100 < 2 THEN 'material' ELSE 'correct' END)
       END AS audit_verdict,
  'site-' || (hash(i * 29) % 4) AS "tag:site"
FROM range({n}) t(i)''')
con.execute(f"COPY feed TO '{out}.parquet' (FORMAT parquet)")
con.execute(f"COPY feed TO '{out}.csv' (HEADER, DELIMITER ',')")
"""


def cpu_s() -> float:
    """CPU seconds this process has used (user + system): the figure that contention on a shared machine
    does not inflate the way it inflates wall time."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def mb(path: Path) -> float:
    """A file's size in MB."""
    return path.stat().st_size / 2**20


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages (``/proc/loadavg``), or ``?`` where it cannot be read."""
    try:
        return "/".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def top(profile: cProfile.Profile, lines: int = 15) -> str:
    """cProfile's top ``lines`` functions by cumulative time, as pstats prints them."""
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(lines)
    return out.getvalue()


def bench(path: Path, home: Path, n: int, url: str | None = None, profile: bool = False) -> dict:
    from governance.dossier.store import Store
    from governance.identity.actor import Actor
    from governance.monitoring.operations.feed import import_feed, monitoring_status
    from tests.governance.monitoring_fixtures import decided_dossier, monitoring_plan

    store = Store.open_url(url) if url else Store.open(home / "medassure.duckdb")
    dossier = decided_dossier(
        monitoring_plan(approved_prompt_version="v1"), decided_at=datetime(2025, 12, 31, tzinfo=UTC)
    )
    store.save(dossier, author="bench")
    now = datetime(2026, 7, 1, tzinfo=UTC)
    prof = cProfile.Profile() if profile else None
    load_before = loadavg()
    t0, c0 = time.perf_counter(), cpu_s()
    if prof:
        prof.enable()
    result = import_feed(store, dossier.id, path, actor=Actor.named("bench"), now=now)
    t1 = time.perf_counter()
    status = monitoring_status(store, dossier.id, now=now)
    if prof:
        prof.disable()
    t2, c2 = time.perf_counter(), cpu_s()
    load_after = loadavg()
    again = import_feed(store, dossier.id, path, actor=Actor.named("bench"), now=now)
    t3 = time.perf_counter()
    store.close()
    assert result.record.rows_added == n and again.record.rows_added == 0 and status.rows == n
    return {
        "import_s": t1 - t0,
        "status_s": t2 - t1,
        "reimport_s": t3 - t2,
        "cpu_s": c2 - c0,
        "status": status.status,
        "months": len(status.metrics.get("material_correction_share", [])),
        "cusum": status.cusum[0].note or status.cusum[0].baseline_source,
        "load": f"load {load_before} -> {load_after}",
        "profile": top(prof) if prof else "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="50,000 rows (make bench-smoke)")
    parser.add_argument("--postgres", action="store_true",
                        help="also on a throw-away PostgreSQL server (as the tests start one), beside DuckDB")
    parser.add_argument("--no-baseline", action="store_true",
                        help="with --postgres: skip the old batched inserts (slow at 1M rows)")
    parser.add_argument("--formats", default="parquet,csv", help="file formats to import (parquet,csv)")
    parser.add_argument("--profile", action="store_true", help="cProfile's top 15 of each import + status")
    parser.add_argument("--seal-baseline", action="store_true",
                        help="before each backend, a leg with the seal's SQL before issue 35 (duck-0, pg-0)")
    parser.add_argument("--insert-baseline", action="store_true",
                        help="with --postgres: a leg pg-oc, rows in by INSERT ... ON CONFLICT DO NOTHING")
    parser.add_argument("--staged-baseline", action="store_true",
                        help="with --postgres: a leg pg-stg, the first import through the staging table")
    parser.add_argument("--serial-baseline", action="store_true",
                        help="with --postgres: a leg pg-ser, the status's reads one after another")
    args = parser.parse_args()
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    if not formats or any(f not in ("parquet", "csv") for f in formats):
        parser.error("--formats: parquet, csv or both")
    n = 50_000 if args.quick else args.rows
    server = None
    if args.postgres:
        from tests.pg_server import PostgresServer

        server = PostgresServer()
        server.start()
    try:
        run_all(n, server, formats=formats, baseline=not args.no_baseline, profile=args.profile,
                seal_baseline=args.seal_baseline, insert_baseline=args.insert_baseline,
                staged_baseline=args.staged_baseline, serial_baseline=args.serial_baseline)
    finally:
        if server is not None:
            server.stop()


def batched_send_pg(self, work, dossier_id, candidate, import_id, tags):
    """The baseline: the PostgreSQL leg before COPY (``executemany`` in batches of 5,000 rows)."""
    from governance.monitoring.store import FEED_COLUMNS

    marks = ", ".join(["?"] * (len(FEED_COLUMNS.split(",")) + 3))
    insert = (f"INSERT INTO monitoring_feed (dossier_id, candidate, {FEED_COLUMNS}, import_id) "
              f"VALUES ({marks}) ON CONFLICT DO NOTHING")
    self.con.execute("BEGIN TRANSACTION")
    before = self._count(self.con, dossier_id, candidate)
    rows = work.execute(f"SELECT {FEED_COLUMNS} FROM feed_clean ORDER BY _row")
    while batch := rows.fetchmany(5_000):
        self.con.executemany(insert, [(dossier_id, candidate, *r, import_id) for r in batch])
    for tag in tags:
        col = '"' + tag.replace('"', '""') + '"'
        found = work.execute(f"SELECT row_key, {col} FROM feed_clean WHERE {col} IS NOT NULL").fetchall()
        self.con.executemany("INSERT INTO monitoring_feed_tags VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                             [(dossier_id, candidate, k, tag[4:], v) for k, v in found])
    added = self._count(self.con, dossier_id, candidate) - before
    seal = self._seal(self.con, dossier_id, import_id)
    self.con.execute("COMMIT")
    return added, seal


def old_seal_sql() -> tuple:
    """The seal's SQL before issue 35 item 7 (a ``||`` per piece), as ``(_field, _hash)``: the same digest."""
    from governance.monitoring import store_seals

    def field(column: str, pg: bool = False) -> str:
        if column.split(".")[-1] in store_seals._TEXTS or column in store_seals._TEXTS:
            return f"coalesce(CAST(length({column}) AS VARCHAR) || ':' || {column}, '-')"
        return f"coalesce(CAST({column} AS VARCHAR), '-')"

    return field, lambda fields, pg=False: "md5(" + " || '|' || ".join(fields) + ")"


def run_all(n: int, server, formats: tuple[str, ...] | list[str] = ("parquet", "csv"), baseline: bool = True,
            profile: bool = False, seal_baseline: bool = False, insert_baseline: bool = False,
            staged_baseline: bool = False, serial_baseline: bool = False) -> None:
    with tempfile.TemporaryDirectory(prefix="medassure-bench-feed-") as tmp:
        stem = Path(tmp) / "feed"
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", GENERATE, str(n), str(stem)], check=True)
        print(
            f"generated {n:,} rows as Parquet ({mb(stem.with_suffix('.parquet')):.1f} MB) "
            f"and CSV ({mb(stem.with_suffix('.csv')):.1f} MB) in {time.perf_counter() - t:.1f} s "
            "(child process)"
        )
        from governance.monitoring import store_feed_pg, store_reads, store_seals
        from governance.monitoring.store import MonitoringFeedStore as MonitoringStore

        copy_leg = MonitoringStore._send_pg
        seal = MonitoringStore._seal
        sealing = [0.0]

        def timed_seal(*args):  # how long the import's seal took, inside its transaction
            t0 = time.perf_counter()
            try:
                return seal(*args)
            finally:
                sealing[0] += time.perf_counter() - t0

        MonitoringStore._seal = staticmethod(timed_seal)
        seal_sql = (store_seals._field, store_seals._hash)
        insert_new, copy_first = store_feed_pg.insert_new, store_feed_pg.copy_first
        apart = store_reads.apart
        backends = [("duck-0", None)] if seal_baseline else []  # the seal's old SQL, then today's
        backends += [("duckdb", None)]
        if server is not None:  # the baseline (batched inserts) first, then COPY, on fresh databases
            backends += [("pg-batch", server)] if baseline else []
            backends += [("pg-0", server)] if seal_baseline else []
            backends += [("pg-oc", server)] if insert_baseline else []
            backends += [("pg-stg", server)] if staged_baseline else []
            backends += [("pg-ser", server)] if serial_baseline else []
            backends += [("postgres", server)]
        for (backend, pg), fmt in [(b, f) for b in backends for f in formats]:
            url = pg.create_database(f"bench_{backend.replace('-', '_')}_{fmt}") if pg is not None else None
            MonitoringStore._send_pg = batched_send_pg if backend == "pg-batch" else copy_leg
            store_seals._field, store_seals._hash = old_seal_sql() if backend.endswith("-0") else seal_sql
            store_feed_pg.insert_new = store_feed_pg.insert_on_conflict if backend == "pg-oc" else insert_new
            staged = backend in ("pg-oc", "pg-stg")  # through the staging table, as before the direct COPY
            store_feed_pg.copy_first = (lambda *a, **k: None) if staged else copy_first
            store_reads.apart = (lambda con: False) if backend == "pg-ser" else apart  # reads in series
            sealing[0] = 0.0
            r = bench(stem.with_suffix(f".{fmt}"), Path(tmp) / f"home-{backend}-{fmt}", n, url, profile)
            total = r["import_s"] + r["status_s"]
            print(
                f"{backend:8s} {fmt:8s} import {r['import_s']:6.2f} s ({n / r['import_s']:,.0f} rows/s; seal "
                f"{sealing[0]:5.2f} s over both imports)  "
                "status "
                f"{r['status_s']:5.2f} s  import + status {total:6.2f} s wall, "
                f"{r['cpu_s']:6.2f} s CPU  re-import (0 new) "
                f"{r['reimport_s']:5.2f} s  peak RSS so far {peak_mb():,.0f} MB  -> {r['status']}, "
                f"{r['months']} months; CUSUM: {r['cusum']}; {r['load']}",
                flush=True,
            )
            if r["profile"]:
                print(r["profile"], flush=True)
    print(f"peak RSS of this process: {peak_mb():,.0f} MB (target < 1,024 MB); target import + status < 10 s")


if __name__ == "__main__":
    main()
