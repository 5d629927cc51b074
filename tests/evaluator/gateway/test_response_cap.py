"""Issue 35 item 6: a response is capped in bytes while it is read, before any JSON parsing, on every
transport. The local server sends 40 MB bodies (a declared Content-Length, chunked with none, a gzip
bomb); the call must fail with our error naming the byte cap, the server must see the connection cut
before it sent much past the cap, and the client's peak memory must stay far below the body."""

from __future__ import annotations

import asyncio
import gzip
import time
import tracemalloc
import zlib

import pytest

from evaluator.gateway.capped_http import CappedTransport, capped_client, transports_of
from evaluator.gateway.errors import LLMError, classify_exception
from evaluator.gateway.limits import MAX_ANSWER_CHARS, MAX_RESPONSE_BYTES
from evaluator.gateway.llm import ModelEndpoint, complete
from tests.fakes import OVERSIZE_BYTES, OVERSIZE_KINDS, _gzip_bomb

MESSAGES = [{"role": "user", "content": "What is the anion gap?"}]
SOCKET_SLACK = 16_000_000
"""What loopback socket buffers can hold past the point where the client stops reading."""
ROUTES = {
    "openai transport": dict(model="openai/fake", transport="openai"),
    "litellm openai": dict(model="openai/fake"),
    "litellm hosted_vllm (its own HTTP handler)": dict(model="hosted_vllm/fake"),
    "litellm azure": dict(model="azure/fake", extra_params={"api_version": "2024-06-01"}),
}


def endpoint(server, route: str) -> ModelEndpoint:
    base = server.url.removesuffix("/v1") if "azure" in route else server.url
    return ModelEndpoint(name="fake", api_base=base, timeout_s=20.0, **ROUTES[route])


def server_log(server) -> list[dict]:
    """The fake's log of oversized answers, once the handler has finished writing (it may notice the
    cut connection a moment after the client has given up)."""
    deadline = time.monotonic() + 10
    while not server.oversize_log and time.monotonic() < deadline:
        time.sleep(0.01)
    return server.oversize_log


def call(ep: ModelEndpoint):
    return asyncio.run(complete(ep, MESSAGES))


def test_the_byte_cap_is_derived_from_the_character_cap():
    assert MAX_RESPONSE_BYTES == 6 * MAX_ANSWER_CHARS + 2_000_000 == 8_000_000
    assert OVERSIZE_BYTES > 4 * MAX_RESPONSE_BYTES  # the fake's bodies are far over it


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("kind", OVERSIZE_KINDS)
def test_an_oversized_body_is_refused_while_read(llm_server, route, kind):
    ep = endpoint(llm_server, route)
    assert call(ep).text == "STUB ANSWER"  # the route works, and its imports are done before measuring
    llm_server.configure(fault_for=lambda request: kind)
    _gzip_bomb()  # built once, outside the measurement (the server runs in this process)
    tracemalloc.start()
    try:
        with pytest.raises(LLMError, match="over the 8,000,000-byte cap") as info:
            call(ep)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (info.value.kind, info.value.retryable) == ("too_large", False)
    assert peak < 3 * MAX_RESPONSE_BYTES, f"peak {peak:,} bytes: the body was buffered"
    [log] = server_log(llm_server)
    if kind == "gzip_bomb":
        assert log["sent"] < 100_000  # all of it was sent; the cap is on what it inflates to
    else:
        assert log["cut"], "the client read the whole body"
        assert log["sent"] < MAX_RESPONSE_BYTES + SOCKET_SLACK < OVERSIZE_BYTES
    llm_server.configure(fault_for=None)
    assert call(ep).text == "STUB ANSWER"  # the next call on the same pooled client is fine


@pytest.mark.parametrize("route", ["openai transport", "litellm openai"])
def test_an_answer_under_both_caps_still_arrives_gzipped_or_not(llm_server, route):
    answer = "é" * (MAX_ANSWER_CHARS // 2)  # json.dumps escapes it: 6 bytes a character, 3 MB
    llm_server.configure(answer=lambda request: answer)
    assert call(endpoint(llm_server, route)).text == answer


def test_every_route_of_every_client_is_capped(monkeypatch):
    """httpx builds a transport per proxy named in the environment; each must be capped too, in our
    Batch API client, the openai SDK's default (on httpx2) and litellm's own clients (litellm's
    aiohttp transport takes proxies itself, inside the one capped route)."""
    from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler
    from litellm.llms.openai.common_utils import BaseOpenAILLM
    from openai import DefaultAsyncHttpxClient

    from evaluator.gateway.capped_http import cap_routes

    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    clients = {"batch": capped_client(), "openai SDK": cap_routes(DefaultAsyncHttpxClient()),
               "litellm openai": cap_routes(BaseOpenAILLM._get_async_http_client()),
               "litellm handler": cap_routes(AsyncHTTPHandler().client)}
    for name, client in clients.items():
        routes = transports_of(client)
        assert routes and all(isinstance(t, CappedTransport) for t in routes), name
    assert len(transports_of(clients["batch"])) == len(transports_of(clients["openai SDK"])) == 3  # 2 proxies
    import httpx2

    assert isinstance(clients["openai SDK"], httpx2.AsyncClient), "the SDK's own httpx, not ours"


def test_the_error_is_found_inside_the_sdks_wrapping():
    from evaluator.gateway.capped_http import ResponseTooLarge

    try:
        try:
            raise ResponseTooLarge("declares 9 bytes")
        except LLMError as inner:
            raise RuntimeError("Connection error.") from inner
    except RuntimeError as outer:
        err = classify_exception(outer)
    assert (err.kind, err.retryable) == ("too_large", False) and "8,000,000-byte cap" in str(err)


def test_a_gzip_body_is_decoded_in_bounded_steps():
    """The transport decodes gzip itself: a small answer comes out whole, without Content-Encoding."""
    import httpx

    body = gzip.compress(b'{"ok": "' + b"y" * 200_000 + b'"}')

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Accept-Encoding"] == "gzip, deflate"
        return httpx.Response(200, headers={"Content-Encoding": "gzip"}, content=body)

    async def fetch(cap: int):
        client = httpx.AsyncClient(transport=CappedTransport(httpx.MockTransport(handler), cap))
        try:
            return await client.get("http://fake/")
        finally:
            await client.aclose()

    response = asyncio.run(fetch(MAX_RESPONSE_BYTES))
    assert len(response.json()["ok"]) == 200_000 and "content-encoding" not in response.headers
    with pytest.raises(LLMError, match="passed 100,000 bytes decoded"):
        asyncio.run(fetch(100_000))


@pytest.mark.parametrize("transport", ["openai", "litellm"])
def test_a_run_records_the_oversized_case_as_an_error_and_answers_the_others(llm_server, transport):
    """One case's server sends an endless body: that case fails once (not retried), nothing of it is
    cached, the other cases are answered and scored."""
    import duckdb

    from evaluator.runs.runner import run_benchmark
    from tests.evaluator.runs.test_runner import FAST_RETRY, Spec, cases, render, score
    from tests.fakes import last_user_text

    llm_server.configure(answer=lambda r: "A",
                         fault_for=lambda r: "endless" if "c002" in last_user_text(r) else None)
    con = duckdb.connect()
    ep = ModelEndpoint(name="fake", model="openai/fake", api_base=llm_server.url, timeout_s=20.0,
                       transport=transport)
    s = run_benchmark(con, Spec(), cases(5), ep, render=render, score=score, options=FAST_RETRY)
    assert (s.status, s.n, s.n_errors, s.errors, s.n_scored) == ("completed", 5, 1, {"too_large": 1}, 4)
    assert llm_server.hits_by_prompt["case c002: A or B?"] == 1, "the same server sends the same: no retry"
    assert [e["cut"] for e in server_log(llm_server)] == [True]
    assert con.execute("SELECT count(*) FROM response_cache").fetchone() == (4,)
    [error] = con.execute("SELECT error FROM run_results WHERE instance_id = 'c002'").fetchone()
    assert "8,000,000-byte cap" in error


def test_a_batch_file_is_capped_per_line_and_per_request(llm_server):
    """The Batch API's output file is read line by line: a line over the cap, or a file over the cap
    per request sent, is refused as it is read; a file within both comes back whole."""
    from evaluator.gateway.batch import BatchClient

    ep = ModelEndpoint(name="fake", model="openai/fake", api_base=llm_server.url, timeout_s=20.0)
    line = b'{"custom_id": "k", "pad": "' + b"x" * 3_000_000 + b'"}\n'
    files = llm_server.batches.files
    files["file-ok"], files["file-long-line"] = line * 3, b'{"pad": "' + b"x" * 10_000_000 + b'"}\n'

    async def read(file_id: str, requests: int):
        client = BatchClient(ep)
        try:
            return await client.lines(file_id, requests)
        finally:
            await client.close()

    assert [len(x["pad"]) for x in asyncio.run(read("file-ok", 3))] == [3_000_000] * 3
    with pytest.raises(LLMError, match="declares 9,000,090 bytes") as info:
        asyncio.run(read("file-ok", 1))  # three answers' worth for one request
    assert (info.value.kind, info.value.retryable) == ("too_large", False)
    with pytest.raises(LLMError, match="holds a line of more than 8,000,000 bytes"):
        asyncio.run(read("file-long-line", 4))


@pytest.mark.parametrize(("encoding", "body", "outcome"), [
    ("deflate", zlib.compress(b'{"ok": 1}'), {"ok": 1}),
    ("br", b"\x0b\x02\x80{}\x03", "Content-Encoding 'br', which was not asked for"),
])
def test_deflate_is_decoded_and_an_encoding_not_asked_for_is_refused(encoding, body, outcome):
    import httpx

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"Content-Encoding": encoding}, content=body)

    async def fetch():
        async with httpx.AsyncClient(transport=CappedTransport.wrap(httpx.MockTransport(handler))) as client:
            return (await client.get("http://fake/")).json()

    if isinstance(outcome, dict):
        assert asyncio.run(fetch()) == outcome
    else:
        with pytest.raises(LLMError, match=outcome):
            asyncio.run(fetch())
