"""Local runs for a dossier against the local server: choices, estimate, run, cancel/resume, evidence."""

from __future__ import annotations

import time

import pytest

from evaluator.runs.jobs import RunJobs
from governance.demo.seed import DEMO_ID, seed_demo
from governance.identity import Actor
from governance.runs.operations.jobs import (
    RunInputError,
    build_request,
    cancel_run,
    estimate_request,
    resume_run,
    runnable_benchmarks,
    save_upload,
    start_run,
)
from governance.runs.operations.view import attach_run, dossier_runs, run_id_for_key, run_view
from tests.calc_answers import calculator_answers


@pytest.fixture
def demo(store):
    seed_demo(store)
    return store


@pytest.fixture
def calc_server(llm_server):
    return llm_server.configure(answer=calculator_answers(count=20))


def request(server, limit=10, **kw):
    return build_request("calc_builtin", "openai/fake-calc", api_base=server.url, limit=limit, **kw)


def wait_until(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_mapped_benchmarks_come_first_then_the_builtin_one(demo):
    dossier = demo.load(DEMO_ID).dossier
    offered = runnable_benchmarks(dossier)
    assert [b.id for b in offered] == ["medication_qa", "calc_builtin"]
    assert offered[0].mapped_to == ["Providing Patient Education Resources"] and offered[0].needs_file
    assert "jury" in offered[0].note
    assert offered[1].mapped_to == [] and not offered[1].needs_file
    everything = runnable_benchmarks(dossier, include_unmapped=True)
    assert [b.id for b in everything[:2]] == ["medication_qa", "calc_builtin"] and len(everything) == 8


def test_bad_requests_name_the_problem(calc_server):
    with pytest.raises(RunInputError, match="api_key_env"):
        request(calc_server, api_key_env="sk-live-123")
    with pytest.raises(RunInputError, match="no price is known"):
        request(calc_server, max_cost_usd=1.0)
    with pytest.raises(RunInputError, match="needs a dataset file"):
        estimate_request(None, build_request("medication_qa", "openai/x", api_base=calc_server.url))
    req = build_request("calc_builtin", "gpt-4o", api_key_env="MEDASSURE_TEST_NO_SUCH_KEY", limit=2)
    with pytest.raises(RunInputError, match="MEDASSURE_TEST_NO_SUCH_KEY is not set"):
        start_run(None, req, RunJobs())
    blank = build_request("calc_builtin", " openai/m ", api_base="  ", api_key_env="", dataset_path=" ")
    assert blank.endpoint.api_base is None and blank.endpoint.api_key_env is None
    assert blank.dataset_path is None and blank.endpoint.model == "openai/m"


def test_estimate_is_an_upper_bound_and_sends_nothing(demo, calc_server):
    view = estimate_request(demo, request(calc_server))
    est = view.estimate
    assert (est.n, est.n_to_send, est.n_already_done, est.n_cached) == (10, 10, 0, 0)
    assert est.completion_tokens_max == 10 * 64 and est.prompt_tokens > 0
    assert est.cost_usd_max is None and "upper bound" in est.note
    assert view.key_problem is None and len(view.run_key) == 64
    priced = estimate_request(demo, request(calc_server, input_price=1.0, output_price=2.0)).estimate
    assert priced.cost_usd_max == pytest.approx((priced.prompt_tokens * 1.0 + 640 * 2.0) / 1e6)
    assert calc_server.hits == 0


def test_run_completes_and_its_evidence_attaches_with_n_and_interval(demo, calc_server):
    jobs = RunJobs()
    req = request(calc_server)
    job = start_run(demo, req, jobs)
    progress = job.join(60)
    assert progress.state == "completed" and progress.done == 10 and not progress.alive
    assert calc_server.hits == 10
    summary = progress.summary
    assert summary.score.mean == 0.5 and summary.n_unparsed == 2 and summary.new_requests == 10

    dossier = demo.load(DEMO_ID)
    assert [r.run_id for r in dossier_runs(demo, dossier.dossier, jobs=jobs)] == [progress.run_id]
    view = run_view(demo, progress.run_id, dossier.dossier, jobs=jobs)
    assert view.state == "completed" and view.record.n_results == 10 and view.record.mean_score == 0.5
    assert len(view.recent) == 10 and {r.unparsed for r in view.recent} == {True, False}
    assert not view.attached and len(view.evidence) == 1

    v = attach_run(demo, DEMO_ID, progress.run_id, actor=Actor.named("dr.lee"))
    assert v.version == dossier.version + 1 and v.author == "dr.lee"
    ev = v.dossier.evidence[-1]
    assert ev.provenance == "local-run" and ev.run_id == progress.run_id and ev.source == progress.run_id
    assert ev.n == 10 and ev.score == 0.5 and ev.n_unparsed == 2
    # 5 of 10 correct: Wilson 0.2366–0.7634 (statsmodels proportion_confint, method="wilson")
    assert ev.ci_lower == pytest.approx(0.2365931, abs=1e-6)
    assert ev.ci_upper == pytest.approx(0.7634069, abs=1e-6)
    assert ev.ci_method.startswith("Wilson") and "coverage is approximate" in ev.ci_method
    assert ev.subcategory == "Supporting Diagnostic Decisions" and ev.model == "openai/fake-calc"
    assert attach_run(demo, DEMO_ID, progress.run_id,
                      actor=Actor.named("dr.lee")).version == v.version  # nothing new
    assert run_view(demo, progress.run_id, v.dossier, jobs=jobs).attached

    again = estimate_request(demo, req).estimate  # a finished run: a new identical run is all cache hits
    assert (again.n_cached, again.n_to_send) == (10, 0)


def test_cancel_then_resume_sends_no_duplicate_request(demo, calc_server):
    calc_server.configure(latency_s=0.05)
    jobs = RunJobs()
    req = request(calc_server, limit=20, concurrency=1)
    job = start_run(demo, req, jobs)
    assert start_run(demo, req, jobs) is job  # one live job per run key
    wait_until(lambda: job.progress().done >= 3)
    assert cancel_run(job.run_key, jobs)
    stopped = job.join(30)
    assert stopped.state == "cancelled" and 3 <= stopped.done < 20
    dossier = demo.load(DEMO_ID).dossier
    view = run_view(demo, stopped.run_id, dossier, jobs=jobs)
    assert view.state == "cancelled" and view.resumable_here and view.evidence == []
    with pytest.raises(RunInputError, match="resume it to completion"):
        attach_run(demo, DEMO_ID, stopped.run_id, actor=Actor.named("dr.lee"))
    assert estimate_request(demo, req).estimate.n_already_done == stopped.done

    resumed = resume_run(demo, job.run_key, jobs).join(60)
    assert resumed.state == "completed" and resumed.run_id == stopped.run_id and resumed.summary.resumed
    assert resumed.summary.new_requests == 20 - stopped.done
    assert len(calc_server.hits_by_prompt) == 20 and set(calc_server.hits_by_prompt.values()) == {1}
    assert run_id_for_key(demo, job.run_key, jobs) == stopped.run_id
    assert not cancel_run(job.run_key, jobs)


def test_resume_needs_a_request_this_process_knows(demo):
    with pytest.raises(RunInputError, match="enter the same benchmark"):
        resume_run(demo, "unknown-key", RunJobs())


def test_uploads_are_kept_by_content(tmp_path):
    first = save_upload("../my cases.csv", b"id,question\n1,q\n", tmp_path)
    assert first.parent == tmp_path / "uploads" and first.name.endswith("-my_cases.csv")
    assert save_upload("other.csv", b"id,question\n1,q\n", tmp_path).read_bytes() == first.read_bytes()
    assert save_upload("../my cases.csv", b"id,question\n1,q\n", tmp_path) == first


def test_a_budget_stop_resumes_with_a_larger_budget(demo, calc_server):
    jobs = RunJobs()
    prices = {"input_price": 1000.0, "output_price": 1000.0}  # ~0.2 USD per request at most
    stopped = start_run(demo, request(calc_server, max_cost_usd=0.5, **prices), jobs).join(60)
    assert stopped.state == "budget_exceeded" and 0 < stopped.done < 10
    larger = request(calc_server, max_cost_usd=100.0, **prices)
    assert estimate_request(demo, larger).estimate.n_already_done == stopped.done
    done = start_run(demo, larger, jobs).join(60)
    assert done.state == "completed" and done.run_id == stopped.run_id
    assert set(calc_server.hits_by_prompt.values()) == {1} and calc_server.hits == 10


def test_a_run_left_running_by_a_dead_process_shows_as_interrupted(demo):
    with demo.for_thread() as db:
        run_id = db.runs.create_run(
            run_key="k" * 64, benchmark_id="calc_builtin", hashes={}, model="openai/m", endpoint_name="m",
            api_base=None, params={}, n_planned=5)
    view = run_view(demo, run_id, demo.load(DEMO_ID).dossier, jobs=RunJobs())
    assert view.state == "interrupted" and not view.resumable_here and view.summary is None
    with pytest.raises(RunInputError, match="is running"):
        attach_run(demo, DEMO_ID, run_id, actor=Actor.named("dr.lee"))


# ---- the PHI gate on what is sent (issue 25, item 7) -------------------------------------------

HEADER = "id,context,question,reference\n"
FALSE_ALARM = HEADER + "1,Seen by Dr. Parkinson clinic team.,K?,4.1\n"  # attested: de-identified
REAL_PHI = HEADER + "1,Patient John Smith MRN 12345678 called.,K?,4.1\n"


def generic_request(server, path):
    return build_request("generic", "openai/m", api_base=server.url, dataset_path=str(path))


def test_a_file_swapped_after_the_estimate_is_checked_again_at_start(store, llm_server, tmp_path):
    from evaluator.runs.phi_gate import PhiBlocked

    path = tmp_path / "cases.csv"
    path.write_text(HEADER + "1,Potassium 4.1 mmol/L.,K?,4.1\n")
    req = generic_request(llm_server, path)
    assert estimate_request(store, req).phi.allowed
    path.write_text(REAL_PHI)
    with pytest.raises(PhiBlocked, match="Nothing was sent"):
        start_run(store, req, RunJobs())
    assert llm_server.hits == 0


def test_a_file_swapped_while_it_is_checked_is_not_covered_by_the_other_files_attestation(
        store, llm_server, tmp_path, monkeypatch):
    """The attestation is looked up by the file's hash *after* the cases were read: a swap in between
    (to an attested file) used to send the cases read before."""
    import governance.runs.operations.jobs as runs
    from evaluator.phi.attestation import AttestationInput
    from evaluator.runs.phi_gate import PhiBlocked
    from governance.scenarios.operations.deidentification import attest_file

    llm_server.configure(answer=lambda r: "4.1")
    path = tmp_path / "cases.csv"
    path.write_text(FALSE_ALARM)
    attest_file(store, path, AttestationInput(attested_by="Dr. P", method="safe_harbor"), None)
    path.write_text(REAL_PHI)
    real_load = runs.load_instances

    def load_then_swap(spec, p, limit=None):
        cases = real_load(spec, p, limit=limit)
        path.write_text(FALSE_ALARM)  # the attested file is back before the gate hashes it
        return cases

    monkeypatch.setattr(runs, "load_instances", load_then_swap)
    with pytest.raises(PhiBlocked, match="changed after its cases were read") as err:
        start_run(store, generic_request(llm_server, path), RunJobs())
    assert err.value.check.basis == "blocked" and llm_server.hits == 0
    # the attested file itself still runs on its attestation
    monkeypatch.setattr(runs, "load_instances", real_load)
    job = start_run(store, generic_request(llm_server, path), RunJobs())
    assert job.join(60).state == "completed" and llm_server.hits == 1
