"""Jobs across processes sharing one database: shown as running elsewhere, stopped from elsewhere."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta

from evaluator.runs.jobs import JobManager, job_status, owner_is_running
from governance.dossier.store import Store
from governance.runs.operations.jobs import cancel_run, job_elsewhere
from tests.calc_answers import calculator_answers

ROW = {"job_id": "job-x", "kind": "benchmark", "job_key": "key-x", "label": "", "run_id": None,
       "state": "running", "done": 4, "total": 10, "note": "", "error": None, "result": None,
       "started_at": "2026-01-01T00:00:00+00:00"}


def test_a_job_of_another_live_process_reads_as_running_there_then_interrupted_when_it_dies(any_store):
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        owner = f"{socket.gethostname()} pid {other.pid}"
        any_store.runs.save_job({**ROW, "owner": owner})
        status = job_status(any_store, "job-x", JobManager())
        assert (status.state, status.elsewhere) == ("running", owner)
        assert status.running and not status.alive  # working, but not in this process
        assert (status.done, status.total) == (4, 10)
        assert job_elsewhere(any_store, "key-x", JobManager()).job_id == "job-x"
    finally:
        other.kill()
        other.wait()
    status = job_status(any_store, "job-x", JobManager())
    assert (status.state, status.elsewhere, status.running) == ("interrupted", None, False)
    assert job_elsewhere(any_store, "key-x", JobManager()) is None


def test_a_process_on_another_host_counts_as_running_while_its_row_is_fresh():
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    assert owner_is_running("app-2.hospital.org pid 4242", now - timedelta(seconds=30), now=now)
    assert not owner_is_running("app-2.hospital.org pid 4242", now - timedelta(minutes=10), now=now)
    assert not owner_is_running("app-2.hospital.org pid 4242", None, now=now)
    assert not owner_is_running(None, now, now=now)  # a row from before owners were recorded
    assert not owner_is_running(f"{socket.gethostname()} pid {os.getpid()}", now, now=now)  # this process


CHILD = textwrap.dedent("""
    import json, sys
    from evaluator.runs.jobs import wait_job
    from governance.dossier.store import Store
    from governance.runs.operations.jobs import build_request, start_run

    store = Store.open_url(sys.argv[1])
    request = build_request("calc_builtin", "openai/fake-calc", api_base=sys.argv[2], limit=40, concurrency=1)
    job = start_run(store, request)
    print(json.dumps({"job_id": job.job_id, "run_key": job.run_key}), flush=True)
    final = wait_job(job, poll_s=0.05)
    print(json.dumps({"state": final.state, "done": final.done}), flush=True)
""")


def test_a_run_in_another_app_process_is_followed_and_stopped_from_this_one(pg_url, llm_server, tmp_path):
    llm_server.configure(answer=calculator_answers(count=40), latency_s=0.1)
    env = {**os.environ, "MEDASSURE_HOME": str(tmp_path / "other-home")}
    child = subprocess.Popen([sys.executable, "-c", CHILD, pg_url, llm_server.url], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        started = json.loads(child.stdout.readline() or "{}")
        assert started, child.stderr.read()
        store = Store.open_url(pg_url)
        deadline = time.monotonic() + 60
        seen = None
        while time.monotonic() < deadline:
            seen = job_elsewhere(store, started["run_key"], JobManager())
            if seen is not None and seen.done >= 3:
                break
            time.sleep(0.1)
        assert seen is not None and seen.state == "running" and seen.elsewhere.endswith(f"pid {child.pid}")
        assert cancel_run(started["run_key"], JobManager(), store=store)  # not a job of this process
        final = json.loads(child.stdout.readline())
        assert final["state"] == "cancelled" and 3 <= final["done"] < 40
        assert job_status(store, started["job_id"], JobManager()).state == "cancelled"
        store.close()
    finally:
        child.kill()
        child.wait()
