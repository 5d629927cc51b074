"""The one job manager: status from the store, interrupted jobs, resume from a stored request, cancel."""

from __future__ import annotations

import threading

import pytest

from evaluator.runs.jobs import JobManager, job_status, wait_job
from governance.runs.operations.jobs import build_request, resume_run, start_run
from tests.calc_answers import calculator_answers


@pytest.fixture
def store(any_store):
    """The job manager keeps its state in the store: each test runs on both backends."""
    return any_store


@pytest.fixture
def calc_server(llm_server):
    return llm_server.configure(answer=calculator_answers(count=20))


def test_a_finished_job_is_read_back_from_the_store_by_another_manager(store, calc_server):
    request = build_request("calc_builtin", "openai/fake-calc", api_base=calc_server.url, limit=6)
    mine = JobManager()
    done = start_run(store, request, mine).join(60)
    assert done.state == "completed" and (done.done, done.total) == (6, 6)

    with store.for_thread() as db:
        here = job_status(db, done.job_id, mine)
        elsewhere = job_status(db, done.job_id, JobManager())  # e.g. after an app restart
    assert here.alive is False and here.summary.n == 6
    assert (elsewhere.state, elsewhere.done, elsewhere.total) == ("completed", 6, 6)
    assert elsewhere.kind == "benchmark" and elsewhere.run_id == done.run_id
    assert elsewhere.brief == {"run_id": done.run_id, "status": "completed", "n": 6}
    assert elsewhere.run_key == done.run_key and elsewhere.summary is None and not elsewhere.alive


def test_a_job_cut_off_by_its_process_reads_as_interrupted(store):
    assert job_status(store, "job-dead", JobManager()) is None, "no job table yet: nothing, no error"
    store.runs.save_job({
        "job_id": "job-dead", "kind": "scenario", "job_key": "k", "label": "", "run_id": None,
        "state": "running", "done": 4, "total": 10, "note": "", "error": None, "result": None,
        "started_at": "2026-01-01T00:00:00+00:00"})
    status = job_status(store, "job-dead", JobManager())
    assert job_status(store, "job-none", JobManager()) is None
    assert (status.state, status.done, status.total, status.alive) == ("interrupted", 4, 10, False)


def test_a_cancelled_run_resumes_from_its_stored_request_in_a_new_manager(store, calc_server):
    calc_server.configure(latency_s=0.05)
    request = build_request("calc_builtin", "openai/fake-calc", api_base=calc_server.url, limit=12,
                            concurrency=1)
    first = JobManager()
    job = start_run(store, request, first)
    reached = threading.Event()
    while not reached.wait(0.02):
        if job.progress().done >= 3:
            reached.set()
    assert first.cancel(job.run_key)
    stopped = job.join(30)
    assert stopped.state == "cancelled" and stopped.done < 12

    restarted = JobManager()  # knows nothing of the request: it is read from the store
    resumed = wait_job(resume_run(store, job.run_key, restarted), poll_s=0.02)
    assert resumed.state == "completed" and resumed.run_id == stopped.run_id and resumed.summary.resumed
    assert resumed.summary.new_requests == 12 - stopped.done
    assert set(calc_server.hits_by_prompt.values()) == {1}, "no instance sent twice"


def test_generic_work_reports_progress_errors_and_one_live_job_per_key(store):
    jobs, gate = JobManager(), threading.Event()
    seen = []

    def work(db, job):
        assert db is not store and db.path == store.path, "the job works on its own view of the stores"
        for i in range(1, 4):
            job.on_progress(i, 3, None, note=f"step {i}")
        gate.wait(10)
        return {"fine": True}

    job = jobs.start(store, "jury", "key-1", work, total=3)
    assert jobs.start(store, "jury", "key-1", work) is job and jobs.live() == [job]
    gate.set()
    end = wait_job(job, lambda d, t, _row: seen.append((d, t)), poll_s=0.01)
    assert seen == [(1, 3), (2, 3), (3, 3)] and end.state == "completed" and end.note == "step 3"
    assert end.result == {"fine": True} and jobs.live() == []

    def broken(db, job):
        raise ValueError("no such judge")

    failed = jobs.start(store, "jury", "key-2", broken).join(10)
    assert failed.state == "error" and failed.error == "ValueError: no such judge"
    assert isinstance(jobs.get("key-2").exception, ValueError)
