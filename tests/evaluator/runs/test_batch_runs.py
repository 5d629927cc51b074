"""Batch-priced runs (issue 37 item 4) against the fake server's Batch API (tests/fake_batches.py)."""

from __future__ import annotations

import threading

import duckdb
import pytest

from evaluator.gateway.batch import batch_price
from evaluator.gateway.llm import ModelEndpoint
from evaluator.runs.runner import RunOptions, run_benchmark
from evaluator.runs.store import RunStore
from tests.evaluator.runs.test_runner import FAST_RETRY, cases, render, score
from tests.evaluator.runs.test_runner import Spec as DoubleSpec

BATCH = RunOptions(**{**FAST_RETRY.__dict__, "batch": True, "batch_poll_s": 0.05})


def _endpoint(server, model="openai/fake", **kw) -> ModelEndpoint:
    return ModelEndpoint(name="fake", model=model, api_base=server.url, timeout_s=5.0, **kw)


def _answers(con, run_id):
    rows = RunStore(con).results(run_id)
    return {r["instance_id"]: (r["response_text"], r["score"]) for r in rows}


def test_a_batch_run_gives_the_direct_runs_results_at_the_batch_price(llm_server):
    llm_server.configure(answer=lambda r: "A" if "c00" in r["messages"][-1]["content"] else "B",
                         completion_tokens=2)
    # gpt-4o-mini: litellm's map publishes both rates (0.15/0.60 per 1M direct, 0.075/0.30 batch)
    direct_con, batch_con = duckdb.connect(), duckdb.connect()
    direct = run_benchmark(direct_con, DoubleSpec(), cases(12), _endpoint(llm_server, "gpt-4o-mini"),
                           render=render, score=score, options=FAST_RETRY)
    hits = llm_server.hits
    batched = run_benchmark(batch_con, DoubleSpec(), cases(12), _endpoint(llm_server, "gpt-4o-mini"),
                            render=render, score=score, options=BATCH)
    assert llm_server.hits == hits  # no direct request: everything went through the batch
    assert (llm_server.batches.created, llm_server.batches.lines_answered) == (1, 12)
    assert batched.status == "completed" and batched.n == direct.n == 12
    assert _answers(batch_con, batched.run_id) == _answers(direct_con, direct.run_id)
    assert batched.score.mean == direct.score.mean and batched.new_requests == 12
    price = batch_price(_endpoint(llm_server, "gpt-4o-mini"))
    assert price.source.startswith("litellm bundled cost map, batch rate")
    tokens = batched.prompt_tokens, batched.completion_tokens
    assert tokens == (direct.prompt_tokens, direct.completion_tokens)
    expected = (tokens[0] * 0.075 + tokens[1] * 0.30) / 1e6
    assert batched.cost_usd == pytest.approx(expected) and direct.cost_usd == pytest.approx(2 * expected)
    assert RunStore(batch_con).latest_batch(batched.run_id) is not None


def test_an_interrupted_batch_run_resumes_by_polling_the_same_batch(llm_server):
    llm_server.configure(answer=lambda r: "A")
    llm_server.batches.polls_in_progress = 10**6  # the provider is still working when we stop
    con = duckdb.connect()
    stop = threading.Event()
    polled = []

    def progress(done, total, row):
        polled.append(done)
        if len(polled) >= 3:
            stop.set()

    cut = run_benchmark(con, DoubleSpec(), cases(6), _endpoint(llm_server, input_price_per_mtok=1.0,
                                                                output_price_per_mtok=2.0),
                        render=render, score=score, options=BATCH, cancel=stop, on_progress=progress)
    assert cut.status == "cancelled" and cut.n == 0 and llm_server.batches.created == 1
    first = RunStore(con).latest_batch(cut.run_id)
    llm_server.batches.polls_in_progress = 0  # the batch completes meanwhile
    rest = run_benchmark(con, DoubleSpec(), cases(6), _endpoint(llm_server, input_price_per_mtok=1.0,
                                                                 output_price_per_mtok=2.0),
                         render=render, score=score, options=BATCH)
    assert rest.run_id == cut.run_id and rest.status == "completed" and rest.n == 6
    assert llm_server.batches.created == 1 and RunStore(con).latest_batch(rest.run_id) == first
    assert llm_server.hits == 0  # nothing went as a direct request, nothing was paid twice


def test_a_failed_batch_line_is_an_error_that_a_later_run_retries(llm_server):
    from evaluator.runs.plan import plan_run

    llm_server.configure(answer=lambda r: "A")
    ep = _endpoint(llm_server, input_price_per_mtok=0.0, output_price_per_mtok=0.0)
    plan = plan_run(DoubleSpec(), cases(4), ep, render=render)
    llm_server.batches.fail_custom_ids = {plan.cache_keys[1]}
    con = duckdb.connect()
    first = run_benchmark(con, DoubleSpec(), cases(4), ep, render=render, score=score, options=BATCH)
    assert (first.n, first.n_errors) == (4, 1)
    error = next(r["error"] for r in RunStore(con).results(first.run_id) if r["error"])
    assert "injected batch line failure" in error
    llm_server.batches.fail_custom_ids = set()
    again = run_benchmark(con, DoubleSpec(), cases(4), ep, render=render, score=score, options=BATCH)
    assert again.n_errors == 0 and llm_server.batches.created == 2 and llm_server.batches.lines_answered == 4


def test_a_batch_run_refuses_a_cost_cap_and_worker_processes(llm_server):
    with pytest.raises(ValueError, match="paid as one job"):
        ep = _endpoint(llm_server, input_price_per_mtok=1.0, output_price_per_mtok=1.0)
        run_benchmark(duckdb.connect(), DoubleSpec(), cases(2), ep, render=render, score=score, options=BATCH,
                      max_cost_usd=1.0)
