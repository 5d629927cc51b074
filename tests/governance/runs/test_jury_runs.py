"""Jury from the app's domain side: which runs qualify, the estimate, the job, the attached evidence."""

from __future__ import annotations

import pytest

from evaluator.runs.jobs import JobManager
from governance.demo.seed import DEMO_ID, seed_demo
from governance.identity import Actor
from governance.runs.operations.juries import (
    JuryRequest,
    JuryRunError,
    attach_jury,
    jury_applies,
    plan_jury,
    run_juries,
    start_jury,
    vendor,
)
from tests.governance.jury_fixtures import JUDGES, answer, free_text_run


@pytest.fixture
def judged_run(store, llm_server, tmp_path):
    llm_server.configure(answer=answer)
    run_id, path = free_text_run(store, llm_server, tmp_path)
    return run_id, path


def test_free_text_benchmarks_qualify_and_vendors_are_read():
    assert jury_applies("medication_qa") and jury_applies("aci_bench")
    assert not jury_applies("calc_builtin") and not jury_applies("no-such-benchmark")
    assert [vendor(m) for m in ("openai/gpt-4o-2024-05-13", "anthropic/claude-3-7-sonnet-20250219",
                                "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo")] == \
        ["openai", "anthropic", "meta-llama"]


def test_estimate_then_job_then_attach(store, judged_run, llm_server):
    run_id, path = judged_run
    sent_before = llm_server.hits
    request = JuryRequest(run_id=run_id, judges=JUDGES, api_base=llm_server.url, dataset_path=str(path),
                          phi_approved=True)
    plan = plan_jury(store, request)
    assert llm_server.hits == sent_before  # an estimate sends nothing
    assert (plan.n_instances, plan.n_judged, plan.skipped) == (4, 3, {"empty candidate response": 1})
    assert [e.n_to_send for e in plan.judges] == [3, 3, 3] and plan.n_vendors == 1
    # MedicationQA is MedHELM's: the medhelm method by default, with HELM's 4,096 output tokens per reply
    assert plan.method == "medhelm" and plan.max_tokens == 4096
    assert all(e.completion_tokens_max == 3 * 4096 for e in plan.judges)
    strict = plan_jury(store, request.model_copy(update={"method": "strict"}))
    assert strict.method == "strict" and all(e.completion_tokens_max == 3 * 1024 for e in strict.judges)
    assert plan.cost_usd_max is None and plan.key_problems == []  # openai/judge-* has no known price

    jobs = JobManager()
    job = start_jury(store, request, jobs)
    progress = job.join(60)
    assert progress.state == "completed", progress.error
    # 3 judges × 3 instances, plus one repair request per empty judge-c reply
    assert llm_server.hits - sent_before == 9 + 3
    jury_id = progress.brief["jury_id"]
    (summary,) = run_juries(store, run_id)
    assert summary.jury_id == jury_id and (summary.n_scored, summary.n_unscored) == (3, 1)
    # instance means 12/3, 7/3 and 14/3 (judges a and b agree; c gives nothing) and the empty answer at
    # MedHELM's lowest score 1.0: (4 + 7/3 + 14/3 + 1) / 4 = 3.0; strict leaves it out: 33/9 = 11/3
    assert summary.method == "medhelm" and summary.mean == pytest.approx(3.0) and summary.methods_differ
    assert summary.by_method["strict"].mean == pytest.approx(11 / 3)
    assert summary.by_method["strict"].n_unscored == summary.by_method["medhelm"].n_unscored == 1
    assert summary.by_judge["openai/judge-c"].n_unscored == 3
    assert summary.unscored_reasons["empty candidate response"] == 1

    again = plan_jury(store, request)
    # a second jury over the same responses sends nothing: every first-pass reply is in the cache
    assert [(e.n_to_send, e.n_cached) for e in again.judges] == [(0, 3)] * 3


def test_attach_jury_to_the_demo_dossier(home, llm_server, tmp_path):
    from governance.dossier.store import Store

    store = Store.open(home / "medassure.duckdb")
    try:
        seed_demo(store)
        llm_server.configure(answer=answer)
        run_id, path = free_text_run(store, llm_server, tmp_path)
        request = JuryRequest(run_id=run_id, judges=JUDGES, api_base=llm_server.url, dataset_path=str(path),
                          phi_approved=True)
        progress = start_jury(store, request, JobManager()).join(60)
        before = store.load(DEMO_ID)
        v = attach_jury(store, DEMO_ID, progress.brief["jury_id"], actor=Actor.named("dr.lee"))
        assert v.version == before.version + 1 and v.author == "dr.lee"
        ev = v.dossier.evidence[-1]
        # every instance is in a medhelm mean; the empty answer counts at the lowest score, as unparsed
        assert (ev.metric, ev.scale, ev.n, ev.n_unscored, ev.n_unparsed, ev.run_id) == (
            "jury_score", "1-5", 4, 0, 1, run_id)
        assert ev.score == pytest.approx(3.0) and "openai/judge-a" in ev.caveat
        assert "method medhelm" in ev.caveat
        assert "1 of 4 instance(s) without a valid judgement, counted at the lowest score 1.0" in ev.caveat
        assert "empty candidate response" in ev.caveat
        assert "the strict method gives 3.67 with 1 unscored" in ev.caveat
        # a strict jury on a MedHELM benchmark: its headline is strict, its evidence still medhelm
        strict = start_jury(store, request.model_copy(update={"method": "strict"}), JobManager()).join(60)
        v2 = attach_jury(store, DEMO_ID, strict.brief["jury_id"], actor=Actor.named("dr.lee"))
        ev2 = v2.dossier.evidence[-1]
        assert ev2.score == pytest.approx(3.0) and "method medhelm" in ev2.caveat
        assert ev.subcategory == "Providing Patient Education Resources"
        with pytest.raises(JuryRunError, match="no stored jury"):
            attach_jury(store, DEMO_ID, "jury-nope", actor=Actor.named("dr.lee"))
    finally:
        store.close()


def test_bad_requests_are_refused_with_reasons(store, judged_run, llm_server):
    run_id, path = judged_run
    with pytest.raises(JuryRunError, match="at least 3"):
        plan_jury(store, JuryRequest(run_id=run_id, judges=JUDGES[:2], dataset_path=str(path)))
    with pytest.raises(JuryRunError, match="no run 'run-nope'"):
        plan_jury(store, JuryRequest(run_id="run-nope", judges=JUDGES))
    with pytest.raises(JuryRunError, match="NO_SUCH_KEY_VAR"):
        start_jury(store, JuryRequest(run_id=run_id, judges=JUDGES, api_base="https://judges.example/v1",
                                      api_key_env="NO_SUCH_KEY_VAR", dataset_path=str(path)), JobManager())
    assert llm_server.hits == 4  # only the candidate run's requests
    # the PHI gate of run_jury applies: the answers look like they name someone, the judges are not approved
    blocked = start_jury(store, JuryRequest(run_id=run_id, judges=JUDGES, api_base=llm_server.url,
                                            dataset_path=str(path)), JobManager()).join(60)
    assert blocked.state == "error" and blocked.error.startswith("PhiBlocked: Blocked:")
    assert "Nothing was sent" in blocked.error and llm_server.hits == 4


def test_cancel_then_resume_sends_each_judge_request_once(store, judged_run, llm_server):
    import time

    run_id, path = judged_run
    llm_server.configure(latency_s=0.15)
    sent = llm_server.hits
    request = JuryRequest(run_id=run_id, judges=JUDGES, api_base=llm_server.url, dataset_path=str(path),
                          concurrency=1, phi_approved=True)
    jobs = JobManager()
    job = start_jury(store, request, jobs)
    deadline = time.monotonic() + 30
    while job.progress().done < 2:
        assert time.monotonic() < deadline and job.alive
        time.sleep(0.02)
    job.cancel()
    stopped = job.join(60)
    assert stopped.state == "cancelled" and 0 < llm_server.hits - sent < 12
    (first,) = run_juries(store, run_id)
    assert first.status == "cancelled"
    with pytest.raises(JuryRunError, match="start it again"):
        attach_jury(store, "D-any", first.jury_id, actor=Actor.named("dr.lee"))
    done = start_jury(store, request, jobs).join(60)
    assert done.state == "completed" and llm_server.hits - sent == 12  # nothing paid for twice
    assert run_juries(store, run_id)[0].n_scored == 3
