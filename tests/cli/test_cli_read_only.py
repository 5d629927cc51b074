"""Commands that only read open the DuckDB file read-only, so they read beside another reader (issue 36,
item 8).

DuckDB lets one process write a file or many read it (STACK_NOTES §7). ``dossier show/list/history``,
``review status`` and ``monitor status`` used to open it read-write, so one reading command (or a
notebook reading the file) locked out the next for ``MEDASSURE_LOCK_WAIT`` seconds, then exit 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from governance.dossier.record import Dossier
from governance.dossier.store import Store
from governance.intended_use.records import example_intended_use
from tests.browser.conftest import REPO


@pytest.fixture
def saved(tmp_path):
    home = tmp_path / "home"
    store = Store.open(home / "medassure.duckdb")
    version = store.save(Dossier(title="Portal replies", owner="alice", intended_use=example_intended_use()),
                         "alice")
    store.close()  # most components' tables not made yet: the first reading command makes them, once
    return home, version.dossier.id


def cli(home, *argv) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEDASSURE_HOME": str(home), "MEDASSURE_LOCK_WAIT": "1"}
    return subprocess.run([sys.executable, "-m", "cli", *argv], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)


def test_reading_commands_read_beside_another_reader(saved):
    home, dossier_id = saved
    first = cli(home, "dossier", "list")  # the first read makes the tables not made yet (read-write, once)
    assert first.returncode == 0, first.stderr
    reader = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time, duckdb
            con = duckdb.connect({str(home / "medassure.duckdb")!r}, read_only=True)
            print("HOLDING", flush=True)
            sys.stdin.read()
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "HOLDING"
        reads = (["dossier", "show", dossier_id], ["dossier", "list"], ["dossier", "history", dossier_id])
        for argv in reads:
            proc = cli(home, *argv, "--format", "json")
            assert proc.returncode == 0 and "in use by" not in proc.stderr, (argv, proc.stderr[-300:])
        watched = cli(home, "monitor", "status", dossier_id, "--format", "json")  # read it, found nothing
        assert "nothing monitored yet" in watched.stderr and "in use by" not in watched.stderr, watched.stderr
        queue = cli(home, "review", "status", "rq-none", "--format", "json")  # read it, no such queue
        assert queue.returncode == 2 and "in use by" not in queue.stderr, queue.stderr
        refused = cli(home, "dossier", "update", dossier_id, "--file", "/nonexistent.json")
        assert refused.returncode == 2  # a writing command still opens read-write (or refuses its input)
    finally:
        reader.communicate("", timeout=30)


def test_a_read_only_open_beside_this_process_s_own_writer_falls_back(tmp_path):
    """In one process DuckDB refuses a second configuration of an open file: the read-only open uses the
    read-write one instead (tests and notebooks call the CLI in-process with a store open)."""
    path = tmp_path / "medassure.duckdb"
    writer = Store.open(path)
    try:
        use = example_intended_use()
        writer.save(Dossier(title="Portal replies", owner="alice", intended_use=use), "alice")
        reader = Store.open(path, read_only=True)
        assert [d.title for d in reader.list_dossiers()] == ["Portal replies"]
        reader.close()
    finally:
        writer.close()


def test_a_read_only_store_refuses_a_write(saved):
    home, _ = saved
    store = Store.open(home / "medassure.duckdb", read_only=True)
    try:
        with pytest.raises(Exception, match="read-only"):
            store.save(Dossier(title="Another use", owner="bob", intended_use=example_intended_use()), "bob")
    finally:
        store.close()
