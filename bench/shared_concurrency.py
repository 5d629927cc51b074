"""Two app processes and one CLI process writing one dossier: PostgreSQL beside DuckDB.

Issue 17 asks for several app processes and command-line runs at once. This script runs the
workload of ``tests/shared_writers.py`` (two app writers saving title changes with the shown
version as expected parent, redoing each refused save; one writer running the real ``medassure``
command) and prints, per backend: saves attempted, stored, lost, silent overwrites, conflicts
reported, and the wall time from the common start to the last writer's end.

* PostgreSQL: a throw-away server (``tests/pg_server.py``); every writer keeps its store open, as
  the app does. Run twice: the CLI writer running ``medassure signoff`` (its save names the version
  it loaded, and is refused when another came first) and ``medassure dossier update`` (it applies
  its intended use to the latest version in one step, ``Store.update``, so it never conflicts and
  must never undo an app writer's title: counted under "overwrites").
* DuckDB: one writing process per file, so every writer opens the file for each load and each
  save and waits for it (``MEDASSURE_LOCK_WAIT``); an app that kept it open would lock the others
  out for good.

Prints figures; it is not a timed test (the machine is shared). Measured 2026-12-01, 15 saves each,
2 shared cores: PostgreSQL/signoff 45 stored, 0 lost, 21 conflicts reported, 23 s; PostgreSQL/dossier
update 45, 0 lost, 0 overwrites seen (its load-to-save window is milliseconds), 19 conflicts, 19 s;
DuckDB 45, 0 lost, 26 conflicts, 22 s (the CLI's ~1.2 s start-up dominates every backend).

Usage: .venv/bin/python bench/shared_concurrency.py [--n 15] [--skip-duckdb] [--quick]
(``--quick``, for ``make bench-smoke``: 2 saves per writer, about 10 s per backend.)
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("MEDASSURE_SIGNING_KEY", "bench-only-signing-key")

from governance import Store  # noqa: E402
from tests.shared_writers import DOSSIER_ID, run_writers, setup_dossier, tally  # noqa: E402

COLUMNS = ("attempted", "saved", "stored_versions", "lost", "overwrites", "conflicts", "errors", "chain_ok",
           "wall_seconds")


@contextlib.contextmanager
def _home(home: str):
    """``MEDASSURE_HOME`` set to the writers' home while the tally reads: the chain's anchors are sealed with
    the record key kept there, so checked with another home's key every chain read as broken (chain_ok
    False in every row of this bench before)."""
    saved = os.environ.get("MEDASSURE_HOME")
    os.environ["MEDASSURE_HOME"] = home
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("MEDASSURE_HOME", None)
        else:
            os.environ["MEDASSURE_HOME"] = saved


def run_postgres(n: int, cli: str) -> dict | str:
    """The workload on a fresh database of a throw-away server; its figures or why it could not run."""
    from tests.pg_server import PostgresServer, PostgresUnavailable

    try:
        server = PostgresServer()
    except PostgresUnavailable as exc:
        return f"skipped: {exc}"
    with server, tempfile.TemporaryDirectory() as tmp:
        url = server.create_database("bench")
        store = Store.open_url(url)
        setup_dossier(store)
        store.close()
        env = {"MEDASSURE_DATABASE_URL": url, "MEDASSURE_HOME": str(Path(tmp) / "home")}
        outcome = run_writers(env, n, cli=cli)
        with _home(env["MEDASSURE_HOME"]):  # the writers' record key seals the anchors the tally checks
            store = Store.open_url(url)
            try:
                return tally(store, DOSSIER_ID, outcome)
            finally:
                store.close()


def run_duckdb(n: int) -> dict:
    """The workload on one DuckDB file, each writer opening it per step and waiting its turn."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        store = Store.open(home / "medassure.duckdb")
        setup_dossier(store)
        store.close()
        env = {"MEDASSURE_HOME": str(home), "MEDASSURE_LOCK_WAIT": "120"}
        saved_url = os.environ.pop("MEDASSURE_DATABASE_URL", None)
        try:
            outcome = run_writers(env, n, reopen=True)
        finally:
            if saved_url is not None:
                os.environ["MEDASSURE_DATABASE_URL"] = saved_url
        with _home(str(home)):
            store = Store.open(home / "medassure.duckdb")
            try:
                return tally(store, DOSSIER_ID, outcome)
            finally:
                store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, help="saves per writer (default 15; --quick 2)")
    parser.add_argument("--skip-duckdb", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a small workload (make bench-smoke)")
    args = parser.parse_args()
    args.n = args.n or (2 if args.quick else 15)
    rows: list[tuple[str, dict | str]] = [
        ("postgresql, cli=signoff", run_postgres(args.n, "signoff")),
        ("postgresql, cli=dossier update", run_postgres(args.n, "update")),
    ]
    if not args.skip_duckdb:
        rows.append(("duckdb (open per step), cli=signoff", run_duckdb(args.n)))
    print(f"2 app writers + 1 CLI writer, {args.n} saves each")
    print(f"{'backend':<38}" + "".join(f"{c:>16}" for c in COLUMNS))
    for label, figures in rows:
        if isinstance(figures, str):
            print(f"{label:<38}  {figures}")
            continue
        print(f"{label:<38}" + "".join(f"{figures[c]!s:>16}" for c in COLUMNS))
        for e in figures["overwrite_detail"][:2] + figures["lost_detail"][:2]:
            print(f"{'':<38}  e.g. {e['writer']} {e['value']!r} version {e['version']}")


if __name__ == "__main__":
    main()
