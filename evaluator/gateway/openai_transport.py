"""Opt-in fast transport for OpenAI-compatible servers (vLLM, Ollama, llama.cpp): the openai SDK.

Why it exists: on our 2-core machine litellm spends ~10-13 ms of client CPU per call (cost
lookups, logging objects, response conversion; STACK_NOTES' table measured 3-4 ms on a faster
machine) against ~4-5 ms for the openai SDK that litellm itself wraps. Against a fast on-prem
server that CPU, not the server, caps a run. An endpoint with ``transport="openai"`` skips
litellm and posts the same chat-completions request with the SDK; errors are the SDK's own
classes, which litellm's subclass, so ``classify_exception`` treats both alike. litellm stays the
default and the only way to reach every other provider.

One ``AsyncOpenAI`` client per (event loop, base URL) keeps connections pooled; it holds a
placeholder key, and the real key is read from the environment and sent per request. Its HTTP client
is the SDK's default with every route capped (``evaluator.gateway.capped_http``): the response body
is capped in bytes while it is read, before the SDK parses it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openai import AsyncOpenAI, DefaultAsyncHttpxClient  # this module is imported only when used

from evaluator.gateway.capped_http import cap_routes, pooled

PREFIXES = ("openai/", "hosted_vllm/", "ollama_chat/")


def served_model_name(model: str) -> str:
    """The model name the server knows (litellm's provider prefix removed).

    Example:
        >>> served_model_name("openai/meta-llama/Llama-3.3-70B-Instruct")
        'meta-llama/Llama-3.3-70B-Instruct'
    """
    for prefix in PREFIXES:
        if model.startswith(prefix):
            return model[len(prefix) :]
    return model


def _client(api_base: str) -> AsyncOpenAI:
    return pooled(("openai-transport", api_base), lambda: AsyncOpenAI(
        base_url=api_base, api_key="placeholder-key-sent-per-request", max_retries=0,
        http_client=sdk_http_client(api_base)))


def sdk_http_client(api_base: str) -> Any:
    """The openai SDK's default HTTP client (its ``httpx2``, its pool limits), every route capped;
    one per (event loop, server)."""
    return pooled(("sdk-http", api_base), lambda: cap_routes(DefaultAsyncHttpxClient()))


async def openai_chat(
    api_base: str,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    key: str | None,
    timeout_s: float,
    params: Mapping[str, Any],
) -> Any:
    """One chat-completions request with the openai SDK (no retries); returns the SDK response."""
    headers = {"Authorization": f"Bearer {key}"} if key else None
    return await _client(api_base).chat.completions.create(
        model=served_model_name(model),
        messages=list(messages),
        timeout=timeout_s,
        extra_headers=headers,
        **dict(params),
    )
