"""The transport decision: the openai SDK for an OpenAI-compatible ``--api-base``, litellm otherwise.

The two transports must differ only in client CPU: one benchmark run through each, against the
local test server and into separate stores, stores the same answers, token counts, costs and
cache keys; only the stored request says which transport made the calls.
"""

from __future__ import annotations

import pytest

from cli import build_parser
from cli.run_support import endpoint_from_args
from evaluator.benchmarks.specs import get_benchmark
from evaluator.gateway.llm import ModelEndpoint, default_transport
from evaluator.loaders import load_instances
from evaluator.runs.jobs import RunRequest
from evaluator.runs.plan import plan_run
from governance.dossier.store import Store
from governance.runs.operations.jobs import build_request, run_and_wait

N = 6


def cli_endpoint(*argv: str) -> ModelEndpoint:
    return endpoint_from_args(build_parser().parse_args(["run", "--benchmark", "calc_builtin", *argv]))


def transport_of(*argv: str) -> str:
    return cli_endpoint(*argv).transport


def test_default_follows_the_endpoint_and_the_flag_still_forces_litellm():
    base = ["--api-base", "http://gpu01.hospital.local:8000/v1"]
    assert transport_of("--model", "openai/llama-3.3-70b", *base) == "openai"
    assert transport_of("--model", "hosted_vllm/meditron", *base) == "openai"
    assert transport_of("--model", "openai/llama-3.3-70b", *base, "--transport", "litellm") == "litellm"
    assert transport_of("--model", "gpt-4o") == "litellm"
    assert transport_of("--model", "azure/gpt4o-tenant", "--api-base", "https://x.azure.com") == "litellm"
    assert transport_of("--model", "ollama_chat/llama3", "--api-base", "http://127.0.0.1:11434") == "litellm"
    assert default_transport("openai/gpt-4o", None) == "litellm", "no server given: the provider's own API"
    page = build_request("calc_builtin", "openai/m", api_base="http://127.0.0.1:9/v1")
    assert page.endpoint.transport == "openai"
    assert build_request("calc_builtin", "gpt-4o").endpoint.transport == "litellm"


def _run(tmp_path, name: str, server_url: str, transport: str):
    store = Store.open(tmp_path / name / "medassure.duckdb")
    endpoint = ModelEndpoint(name="fake", model="openai/fake", api_base=server_url, transport=transport,
                             input_price_per_mtok=2.0, output_price_per_mtok=8.0)
    done = run_and_wait(store, RunRequest(benchmark_id="calc_builtin", endpoint=endpoint, limit=N))
    with store.for_thread() as db:
        results = db.runs.results(done.run_id)
        request = db.runs.stored_request(run_id=done.run_id)
        keys = plan_run(get_benchmark("calc_builtin"), load_instances(get_benchmark("calc_builtin"), limit=N),
                        endpoint).cache_keys
        cached = db.runs.cache_lookup(keys)
    store.close()
    return done.summary, results, request, keys, cached


@pytest.mark.parametrize("reply", ["Answer: 12", "The result is 7.5 mg, so Answer: 7.5"])
def test_both_transports_store_the_same_results(tmp_path, llm_server, reply):
    llm_server.configure(answer=lambda r: reply)
    a_sum, a_rows, a_req, a_keys, a_cache = _run(tmp_path, "litellm", llm_server.url, "litellm")
    b_sum, b_rows, b_req, b_keys, b_cache = _run(tmp_path, "openai", llm_server.url, "openai")
    assert llm_server.hits == 2 * N
    assert (a_req["transport"], b_req["transport"]) == ("litellm", "openai")
    same = ("instance_id", "response_text", "parsed", "score", "unparsed", "prompt_tokens",
            "completion_tokens", "cost_usd", "error")
    assert [{k: r[k] for k in same} for r in a_rows] == [{k: r[k] for k in same} for r in b_rows]
    assert all(r["response_text"] == reply for r in a_rows) and len(a_rows) == N
    # known answer: the fake counts whitespace-separated words; USD 2 / 8 per 1M tokens
    r = a_rows[0]
    assert r["completion_tokens"] == len(reply.split())
    assert r["cost_usd"] == pytest.approx((2.0 * r["prompt_tokens"] + 8.0 * r["completion_tokens"]) / 1e6)
    assert a_keys == b_keys and set(a_cache) == set(b_cache) == set(a_keys)
    assert a_cache == b_cache
    assert (a_sum.cost_usd, a_sum.prompt_tokens, a_sum.completion_tokens) == pytest.approx(
        (b_sum.cost_usd, b_sum.prompt_tokens, b_sum.completion_tokens))
