"""Worker processes die with their parent, and a resume never pays twice (issue 19, Runs).

Before: with ``--workers 2`` a SIGKILLed parent left its workers calling the model for seconds;
the answers they got were paid for, never recorded, and paid again on resume. The slow test
server here counts, per prompt, answers delivered to a live client (``ok_by_prompt``) apart from
requests whose client was gone by the time the answer was ready (``abandoned_by_prompt``).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from evaluator.benchmarks.specs import get_benchmark
from evaluator.gateway.llm import ModelEndpoint
from evaluator.loaders import load_instances
from evaluator.runs import workers
from evaluator.runs.runner import RunOptions, run_benchmark
from evaluator.runs.workers import RunBusyError
from tests.fakes import last_user_text

REPO = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="parent-death semantics tested on Linux")


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            out |= {int(c) for c in (task / "children").read_text().split()}
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def test_sigkilled_parent_takes_its_workers_along_and_resume_pays_nothing_twice(llm_server, tmp_path):
    n, latency = 16, 2.0
    llm_server.configure(answer=lambda r: "Answer: 42", latency_s=latency)
    db = tmp_path / "kill.duckdb"
    cmd = [sys.executable, "-m", "tests.evaluator.runs.run_child", str(db), llm_server.url, str(n),
           "60000", "2"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    parent = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while llm_server.hits < 8 and time.monotonic() < deadline and parent.poll() is None:
        time.sleep(0.02)  # the first 4 answered, the next 4 in flight in the two workers
    pids = _children(parent.pid)
    assert llm_server.hits >= 8 and len(pids) == 2, (llm_server.hits, pids, parent.poll())
    time.sleep(0.3)
    parent.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    parent.wait()
    while any(_alive(p) for p in pids) and time.monotonic() - killed_at < 5:
        time.sleep(0.01)
    gone_after = time.monotonic() - killed_at
    assert gone_after < 2.0, f"workers still alive {gone_after:.1f} s after the parent died"
    time.sleep(latency + 0.5)  # any survivor would have got (and been paid for) its answer by now
    late = [t - killed_at for t, _ in llm_server.request_times if t > killed_at + 0.2]
    assert late == [], f"requests after the parent died: {late}"
    cut_off = sum(llm_server.abandoned_by_prompt.values())
    assert cut_off >= 1, "the kill cut calls off mid-flight (else this test proves nothing)"
    assert max(llm_server.ok_by_prompt.values()) == 1

    out = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert (summary["n"], summary["status"], summary["resumed"]) == (n, "completed", True)
    spec = get_benchmark("calc_builtin")
    prompts = [last_user_text({"messages": spec_messages}) for spec_messages in _messages(spec, n)]
    assert [llm_server.ok_by_prompt[p] for p in prompts] == [1] * n, "an answer was paid for twice"
    for p in prompts:  # re-sent only what the kill cut off before its answer
        assert llm_server.hits_by_prompt[p] == 1 + llm_server.abandoned_by_prompt[p]
    con = duckdb.connect(str(db), read_only=True)
    sql = "SELECT count(DISTINCT instance_id) FROM run_results WHERE error IS NULL"
    assert con.execute(sql).fetchone() == (n,)
    con.close()


def _messages(spec, n):
    from evaluator.runs.plan import default_render

    return [default_render(spec, i) for i in load_instances(spec, limit=n)]


def test_resume_waits_for_a_live_holder_of_the_lease_then_refuses(llm_server, tmp_path, monkeypatch):
    spec = get_benchmark("calc_builtin")
    instances = load_instances(spec, limit=3)
    endpoint = ModelEndpoint(name="fake", model="openai/fake", api_base=llm_server.url, transport="openai",
                             input_price_per_mtok=0.0, output_price_per_mtok=0.0)
    db = tmp_path / "lease.duckdb"
    con = duckdb.connect(str(db))
    stop = threading.Event()
    stop.set()  # a cancelled run: nothing sent, resumable
    first = run_benchmark(con, spec, instances, endpoint, cancel=stop)
    assert (first.status, llm_server.hits) == ("cancelled", 0)
    lease = db.with_name(db.name + ".journal") / f"{first.run_id}.lease"
    holder = subprocess.Popen(  # stands in for a worker of an earlier invocation, still alive
        [sys.executable, "-c", "import fcntl,os,sys,time; fd=os.open(sys.argv[1], os.O_RDWR|os.O_CREAT); "
         "fcntl.flock(fd, fcntl.LOCK_SH); print('held', flush=True); time.sleep(60)", str(lease)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(workers, "LEASE_WAIT_S", 0.5)
        started = time.monotonic()
        with pytest.raises(RunBusyError, match="nothing was sent"):
            run_benchmark(con, spec, instances, endpoint, options=RunOptions(workers=1))
        assert time.monotonic() - started >= 0.5 and llm_server.hits == 0
    finally:
        holder.kill()
        holder.wait()
    again = run_benchmark(con, spec, instances, endpoint)
    assert (again.run_id, again.status, again.n, llm_server.hits) == (first.run_id, "completed", 3, 3)
    assert not lease.exists(), "the lease file goes with the run"
    con.close()
