"""The app's DuckDB connection lets go of the file when idle, so another process can open it (issue 27,
item 14). Whether another process gets in is checked for real: a child process opens the file."""

from __future__ import annotations

import subprocess
import sys
import time

import duckdb
import pytest

from evaluator.storage.idle import IdleReleasingConnection
from governance.dossier.store import Store

PROBE = ("import sys, duckdb\n"
         "try:\n    duckdb.connect(sys.argv[1], read_only=True).close(); print('open')\n"
         "except duckdb.IOException:\n    print('locked')\n")


def other_process_can_open(path) -> bool:
    out = subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True, timeout=60)
    return out.stdout.strip() == "open"


def wait_released(con, timeout=5.0) -> None:
    deadline = time.monotonic() + timeout
    while con.holds_file:
        assert time.monotonic() < deadline, "the file was not let go of"
        time.sleep(0.02)


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "x.duckdb"
    duckdb.connect(str(p)).execute("CREATE TABLE t (x INT); INSERT INTO t VALUES (1)").close()
    return p


def test_idle_file_is_let_go_of_and_reopened_on_use(path):
    con = IdleReleasingConnection(lambda: duckdb.connect(str(path)), idle_s=3.0)
    try:
        assert con.execute("SELECT x FROM t").fetchone() == (1,)
        assert not other_process_can_open(path)  # a child process starts in well under 3 s
        wait_released(con, timeout=10)
        assert other_process_can_open(path)
        assert con.execute("SELECT count(*) FROM t").fetchone() == (1,) and con.opens == 2
    finally:
        con.close()


def test_a_live_cursor_or_an_open_transaction_keeps_the_file(path):
    con = IdleReleasingConnection(lambda: duckdb.connect(str(path)), idle_s=0.05)
    try:
        cur = con.cursor()  # a background run's for_thread() view
        time.sleep(0.4)
        assert con.holds_file and cur.execute("SELECT x FROM t").fetchone() == (1,)
        cur.close()
        del cur
        wait_released(con)
        con.execute("BEGIN TRANSACTION")
        con.execute("INSERT INTO t VALUES (2)")
        time.sleep(0.4)
        assert con.holds_file, "released inside a transaction"
        con.execute("COMMIT")
        wait_released(con)
        assert con.execute("SELECT count(*) FROM t").fetchone() == (2,)
    finally:
        con.close()


def test_the_store_works_across_releases_and_a_reader_gets_in(tmp_path):
    store = Store.open(tmp_path / "medassure.duckdb", release_when_idle=0.2)
    try:
        from governance.dossier.record import Dossier
        from governance.intended_use.records import example_intended_use

        d = Dossier(title="Idle", owner="me", intended_use=example_intended_use())
        store.save(d, author="me")
        wait_released(store._con)
        assert other_process_can_open(tmp_path / "medassure.duckdb")
        reader = Store.open(tmp_path / "medassure.duckdb")  # the CLI's open, in-process here
        try:
            assert reader.load(d.id).version == 1
        finally:
            reader.close()
        assert store.load(d.id).version == 1 and store.history(d.id)[0].author == "me"
    finally:
        store.close()


def test_a_finished_background_job_does_not_keep_the_file(tmp_path):
    """Issue 36 item 8: the job manager keeps a finished job for its status; the job kept the store view it
    had closed, whose cursor counted as live, so after any run the idle app held the file for good."""
    from evaluator.runs.jobs import JobManager

    store = Store.open(tmp_path / "medassure.duckdb", release_when_idle=0.2)
    try:
        jobs = JobManager()
        job = jobs.start(store, "benchmark", "key-1", lambda stores, job: None)
        job.join(30)
        assert jobs.get("key-1") is job  # kept for its status
        wait_released(store._con)
        assert other_process_can_open(tmp_path / "medassure.duckdb")
    finally:
        store.close()
