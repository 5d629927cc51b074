"""The model gateway against the local OpenAI-compatible server (real HTTP through litellm)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from evaluator.gateway.errors import LLMError, classify_exception, parse_retry_after
from evaluator.gateway.llm import (
    DUMMY_KEY,
    ModelEndpoint,
    api_key_for,
    call_options,
    complete,
    count_prompt_tokens,
)
from evaluator.gateway.prices import resolve_price, table_prices

MESSAGES = [{"role": "user", "content": "What is the anion gap?"}]


def endpoint(server, **kw) -> ModelEndpoint:
    base = dict(
        name="fake",
        model="openai/fake",
        api_base=server.url,
        timeout_s=5.0,
        input_price_per_mtok=2.0,
        output_price_per_mtok=10.0,
    )
    return ModelEndpoint(**{**base, **kw})


def call(ep, messages=MESSAGES, params=None):
    return asyncio.run(complete(ep, messages, params or {"max_tokens": 8}))


def test_complete_returns_text_usage_and_cost(llm_server):
    llm_server.configure(answer=lambda req: f"model={req['model']} max={req['max_tokens']}")
    out = call(endpoint(llm_server))
    assert out.text == "model=fake max=8"
    assert out.prompt_tokens == 5 and out.completion_tokens == 2
    assert out.cost_usd == pytest.approx((5 * 2.0 + 2 * 10.0) / 1e6)
    assert out.latency_s > 0


TRANSPORTS = pytest.mark.parametrize("transport", ["litellm", "openai"])


@TRANSPORTS
@pytest.mark.parametrize(
    ("fault", "kind", "status"),
    [
        ("429", "rate_limit", 429),
        ("500", "server", 500),
        ("malformed", "malformed", 500),
        ("hang", "timeout", 408),
    ],
)
def test_transient_faults_are_retryable(llm_server, fault, kind, status, transport):
    llm_server.configure(fault_rate=1.0, fault_kinds=(fault,), retry_after="1.5", hang_s=2.0)
    with pytest.raises(LLMError) as info:
        call(endpoint(llm_server, timeout_s=0.3, transport=transport))
    err = info.value
    assert (err.kind, err.retryable) == (kind, True)
    if transport == "litellm" or fault in ("429", "500"):
        assert err.status == status
    assert err.retry_after == (1.5 if fault == "429" else None)
    assert llm_server.hits == 1, "litellm's own retries must be off"


@TRANSPORTS
def test_an_answer_over_the_size_cap_is_an_error_not_a_stored_answer(llm_server, transport):
    """Issue 25, item 12: a 60 MB answer was stored; an answer over the cap fails its case instead."""
    from evaluator.gateway.llm import MAX_ANSWER_CHARS

    llm_server.configure(answer=lambda req: "x" * (MAX_ANSWER_CHARS + 1))
    with pytest.raises(LLMError, match="over the 1,000,000-character cap") as info:
        call(endpoint(llm_server, transport=transport))
    assert (info.value.kind, info.value.retryable) == ("malformed", False)
    llm_server.configure(answer=lambda req: "x" * 1000)
    assert len(call(endpoint(llm_server, transport=transport)).text) == 1000


@TRANSPORTS
@pytest.mark.parametrize(("fault", "kind"), [("401", "auth"), ("400", "bad_request")])
def test_auth_and_bad_request_are_fatal(llm_server, fault, kind, transport):
    llm_server.configure(fault_rate=1.0, fault_kinds=(fault,))
    with pytest.raises(LLMError) as info:
        call(endpoint(llm_server, transport=transport))
    assert (info.value.kind, info.value.retryable) == (kind, False)


def test_refused_connection_is_retryable():
    ep = ModelEndpoint(name="down", model="openai/fake", api_base="http://127.0.0.1:9/v1", timeout_s=2)
    with pytest.raises(LLMError) as info:
        call(ep)
    assert info.value.retryable and info.value.kind == "connection"


@TRANSPORTS
def test_key_read_from_named_env_var_and_sent(llm_server, monkeypatch, transport):
    monkeypatch.setenv("FAKE_LLM_KEY", "sk-test-secret-123")
    llm_server.configure(answer=lambda req: req["model"])
    out = call(endpoint(llm_server, api_key_env="FAKE_LLM_KEY", transport=transport))
    assert llm_server.auth_headers == {"Bearer sk-test-secret-123"}
    assert out.text == "fake" and out.cost_usd is not None


def test_openai_transport_needs_api_base():
    with pytest.raises(ValidationError, match="give api_base"):
        ModelEndpoint(name="x", model="gpt-4o", transport="openai")


def test_missing_key_dummy_for_local_clear_error_for_remote(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    local = ModelEndpoint(
        name="l", model="openai/m", api_base="http://localhost:8000/v1", api_key_env="NO_SUCH_KEY_VAR"
    )
    assert api_key_for(local) == DUMMY_KEY
    remote = local.model_copy(update={"api_base": "https://llm.hospital.example/v1"})
    with pytest.raises(LLMError, match="NO_SUCH_KEY_VAR is not set") as info:
        api_key_for(remote)
    assert not info.value.retryable


def test_endpoint_refuses_keys_in_place_of_names():
    with pytest.raises(ValidationError, match="NAME of an environment variable"):
        ModelEndpoint(name="x", model="gpt-4o", api_key_env="sk-abc-123")
    with pytest.raises(ValidationError, match="secrets"):
        ModelEndpoint(name="x", model="gpt-4o", extra_params={"api_key": "sk-abc"})
    with pytest.raises(ValidationError, match="secrets"):
        ModelEndpoint(name="x", model="azure/d", extra_params={"extra_headers": {"api-key": "k"}})
    ok = ModelEndpoint(name="x", model="azure/d", extra_params={"api_version": "2024-06-01", "max_tokens": 5})
    assert ok.extra_params["api_version"] == "2024-06-01"


def test_call_options_turn_litellm_retries_off_and_carry_no_key(monkeypatch):
    monkeypatch.setenv("K_ENV", "sk-never-in-options")
    ep = ModelEndpoint(name="x", model="gpt-4o", api_key_env="K_ENV", timeout_s=7)
    opts = call_options(ep, {"temperature": 0})
    assert opts["max_retries"] == 0 and opts["timeout"] == 7 and "api_key" not in opts
    assert opts["input_cost_per_token"] == pytest.approx(2.5e-6)


def test_prices_override_then_table_then_litellm():
    assert resolve_price("gpt-4o", 1.0, 2.0).source == "endpoint override"
    gemini = resolve_price("gemini/gemini-1.5-pro")
    assert (gemini.input_per_mtok, gemini.output_per_mtok) == (1.25, 5.0)
    assert gemini.source.startswith("MedAssure's price list")  # data/prices.csv, named in words
    assert resolve_price("gpt-4o").source.startswith("litellm")
    assert resolve_price("openai/some-local-model") is None
    assert all(p.source.split(": ", 1)[1] for p in table_prices().values()), "every row names its source"


def test_retry_after_forms():
    assert parse_retry_after({"retry-after-ms": "1500"}) == 1.5
    assert parse_retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=1445412470.0) == 10.0
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after(None) is None


def test_unknown_exception_is_fatal_other():
    err = classify_exception(ValueError("weird"))
    assert (err.kind, err.retryable) == ("other", False)


def test_count_prompt_tokens_uses_tokenizer():
    n, method = count_prompt_tokens(ModelEndpoint(name="x", model="gpt-4o"), MESSAGES)
    assert 5 <= n <= 20 and method == "litellm.token_counter"


def test_llm_is_the_only_importer_of_litellm():
    import ast
    from pathlib import Path

    repo = Path(__file__).resolve().parents[3]
    importers = set()
    for folder in ("evaluator", "governance", "reports", "pages"):
        for path in (repo / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module]
                if any(n.split(".")[0] == "litellm" for n in names):
                    importers.add(str(path.relative_to(repo)))
    assert importers == {"evaluator/gateway/llm.py"}
