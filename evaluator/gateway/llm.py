"""The model gateway: the one place that talks to models, and the only importer of litellm.

Why this shape: every model call in MedAssure (benchmark runs, the jury) goes through
``complete``, so secrets, prices, timeouts and error classes are handled once. litellm is
imported lazily (it takes seconds) and configured per call: its own retries are off
(``max_retries=0``; the runner retries, counts attempts and honours ``Retry-After``), the
timeout and our resolved price are passed with each request, and no litellm module global is
set except ``suppress_debug_info`` (see ``_litellm``). Errors come out as ``LLMError`` with a
``retryable`` flag, so callers never need litellm's exception tree.

An endpoint names the *environment variable* holding its key, never the key; the key is read
per call and never stored. Prices per 1M tokens come from the endpoint override, else
``data/prices.csv`` (models litellm's bundled map lacks), else litellm's bundled map (offline:
``LITELLM_LOCAL_MODEL_COST_MAP=True``).

An endpoint may use ``transport="openai"`` for an OpenAI-compatible server: the same
request goes through the openai SDK directly, with about half of litellm's client CPU per call
(``evaluator.gateway.openai_transport``; figures in ``bench/runner_throughput.py``).
``default_transport`` says which one a new endpoint gets when nobody chose: the openai SDK for an
OpenAI-compatible server named by ``api_base``, litellm for every hosted provider. Prices, cache
keys and answers do not depend on the transport (``identity`` leaves it out).

Every response body is capped in bytes while it is read, before any JSON parsing
(``MAX_RESPONSE_BYTES``, ``evaluator.gateway.capped_http``): the openai transport's client is capped,
and litellm is given a capped client per call (``litellm_client``) for the providers it reaches over
the openai SDK (``openai``, ``azure``) or its own HTTP handler (``CAPPED_HANDLER_PROVIDERS``). Other
litellm providers (Bedrock, Vertex, Gemini, ...) keep litellm's own client: only the character cap,
after parsing, applies to them (docs/known-limits.md).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from evaluator.gateway.errors import LLMError, MissingKeyError, classify_exception
from evaluator.gateway.limits import MAX_ANSWER_CHARS, MAX_RESPONSE_BYTES
from evaluator.gateway.prices import Price, resolve_price
from evaluator.gateway.secrets import looks_like_secret, remember_endpoint_secrets, remember_secret, scrub_url

__all__ = ["MAX_ANSWER_CHARS", "MAX_RESPONSE_BYTES", "Completion", "LLMError", "ModelEndpoint", "complete",
           "count_prompt_tokens", "default_transport", "resolve_price"]

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
DUMMY_KEY = "sk-local-no-key"
_SECRET_NAME = re.compile(r"(key|secret|password|credential|token|authorization)$", re.IGNORECASE)


def _secret_names(params: Mapping[str, Any]) -> list[str]:
    """Names in ``params`` (and in header dicts inside it) that would carry a secret."""
    bad = [k for k in params if _SECRET_NAME.search(k)]
    for name, value in params.items():
        if isinstance(value, Mapping):
            bad += [f"{name}.{k}" for k in value if _SECRET_NAME.search(str(k))]
    return sorted(bad)


class ModelEndpoint(BaseModel):
    """A model as MedAssure calls it: litellm model string, where it lives, limits, prices.

    Example:
        >>> e = ModelEndpoint(name="ward model", model="openai/llama-3.3-70b", api_base="http://127.0.0.1:8000/v1")
        >>> e.is_local, e.api_key_env is None
        (True, True)
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    """Label shown to the committee (e.g. ``GPT-4o via Azure (hospital tenant)``)."""
    model: str = Field(min_length=1)
    """litellm model string, e.g. ``gpt-4o``, ``azure/<deployment>``, ``openai/<name>`` for vLLM/Ollama."""
    api_base: str | None = None
    """Base URL for Azure or an OpenAI-compatible server (``http://host:8000/v1``); None: provider default."""
    api_key_env: str | None = None
    """NAME of the environment variable holding the key (never the key); None lets litellm use its default."""
    extra_params: dict[str, Any] = Field(default_factory=dict)
    """Extra litellm call options (``api_version`` for Azure, ``top_p``, ...); no secrets allowed."""
    input_price_per_mtok: float | None = Field(default=None, ge=0)
    """Override: USD per 1M prompt tokens (wins over every table)."""
    output_price_per_mtok: float | None = Field(default=None, ge=0)
    """Override: USD per 1M completion tokens."""
    max_concurrency: int = Field(default=8, ge=1, le=1024)
    """Most requests in flight at once for this endpoint."""
    requests_per_minute: float | None = Field(default=None, gt=0)
    """Rate limit the runner keeps to (None: no limit)."""
    phi_approved: bool = False
    """Whether the hospital approved sending protected health information to this endpoint."""
    timeout_s: float = Field(default=60.0, gt=0)
    """Per-request timeout in seconds; all attempts of one case share a deadline of twice this
    (``evaluator.runs.retry.RetryPolicy.case_deadline``)."""
    transport: Literal["litellm", "openai"] = "litellm"
    """``openai``: call an OpenAI-compatible ``api_base`` with the openai SDK directly (less client
    CPU per call, see ``evaluator.gateway.openai_transport``); ``litellm`` (default) reaches every
    provider."""

    @field_validator("model")
    @classmethod
    def _not_a_key(cls, model: str) -> str:
        if looks_like_secret(model):
            raise ValueError("the model string looks like an API key; give the model's name, and the NAME of "
                             "the environment variable that holds the key (--api-key-env / Key variable)")
        return model

    @model_validator(mode="after")
    def _openai_transport_needs_a_server(self) -> ModelEndpoint:
        if self.transport == "openai" and not self.api_base:
            raise ValueError("transport 'openai' is for OpenAI-compatible servers: give api_base")
        return self

    @field_validator("api_key_env")
    @classmethod
    def _looks_like_a_variable_name(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
            raise ValueError(
                "api_key_env must be the NAME of an environment variable (e.g. OPENAI_API_KEY), not a key"
            )
        return value

    @field_validator("extra_params")
    @classmethod
    def _no_secrets(cls, value: dict[str, Any]) -> dict[str, Any]:
        bad = _secret_names(value)
        if bad:
            raise ValueError(f"extra_params may not carry secrets or keys ({bad}); use api_key_env")
        return value

    @property
    def is_local(self) -> bool:
        """True when ``api_base`` points at this machine (loopback)."""
        return bool(self.api_base) and (urlparse(self.api_base).hostname or "") in LOCAL_HOSTS

    def price(self) -> Price | None:
        """USD per 1M tokens (override, our table, or litellm's map); None when unknown."""
        return resolve_price(self.model, self.input_price_per_mtok, self.output_price_per_mtok)

    def identity(self) -> dict[str, Any]:
        """What determines the answers (model and server), for cache keys and run records.

        The server URL is scrubbed (no user part, no query values): a key in the URL never reaches a
        key or a record, and a URL without either is used as it is.
        """
        remember_endpoint_secrets(self.api_key_env, self.api_base)
        return {"model": self.model, "api_base": self.safe_api_base}

    @property
    def safe_api_base(self) -> str | None:
        """``api_base`` as it may be stored or shown: scheme, host, port and path, no credentials."""
        return scrub_url(self.api_base)


class Completion(BaseModel):
    """One model answer with what it cost."""

    model_config = ConfigDict(frozen=True)

    text: str
    """The assistant message content ("" when the model returned none)."""
    prompt_tokens: int = 0
    """Prompt tokens as the server reported them."""
    completion_tokens: int = 0
    """Completion tokens as the server reported them."""
    cost_usd: float | None = None
    """Price of this call in USD; None when the model's price is unknown."""
    latency_s: float = 0.0
    """Wall time of the request."""
    finish_reason: str | None = None
    """Why generation stopped (``stop``, ``length``, ...) when the server says."""
    served_model: str | None = None
    """The ``model`` the reply names: what the server says answered (a vendor's dated version may stand
    behind the name asked for); None when the reply names none."""
    system_fingerprint: str | None = None
    """The reply's ``system_fingerprint`` (the served build and configuration), when the server sends one."""


def _litellm() -> Any:
    """Import litellm offline-safe. Sets ONE module global, on purpose.

    ``suppress_debug_info`` has no per-call equivalent: without it litellm prints "Give
    Feedback / Get Help" banners to *stdout* for every mapped error (exception_mapping_utils),
    which corrupts the CLI's JSON output. It only silences those prints.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


OPENAI_COMPATIBLE_PREFIXES = ("openai/", "hosted_vllm/")
"""litellm prefixes whose calls go to ``{api_base}/chat/completions`` with OpenAI's wire protocol (vLLM,
a LiteLLM proxy, an on-premises gateway, Ollama's ``/v1``). ``ollama/``, ``ollama_chat/`` and
``azure/`` speak other protocols and stay with litellm."""


def default_transport(model: str, api_base: str | None) -> Literal["litellm", "openai"]:
    """The transport to use when none was chosen.

    ``openai`` for an OpenAI-compatible server given by ``api_base`` (the same requests at about 40%
    less client CPU per call); ``litellm`` for hosted providers named by their litellm model string.

    Example:
        >>> default_transport("openai/llama-3.3-70b", "http://gpu01:8000/v1")
        'openai'
        >>> default_transport("gpt-4o", None), default_transport("azure/gpt4o", "https://x.openai.azure.com")
        ('litellm', 'litellm')
    """
    if api_base and model.startswith(OPENAI_COMPATIBLE_PREFIXES):
        return "openai"
    return "litellm"


def api_key_for(endpoint: ModelEndpoint) -> str | None:
    """The key to send, read from the environment now; raises ``MissingKeyError`` when required.

    Example:
        >>> api_key_for(ModelEndpoint(name="x", model="openai/m", api_base="http://127.0.0.1:1/v1"))
        'sk-local-no-key'
    """
    remember_endpoint_secrets(None, endpoint.api_base)
    if endpoint.api_key_env:
        key = os.environ.get(endpoint.api_key_env)
        if key:
            remember_secret(key)  # so an echo of it in an error body is scrubbed
            return key
        if endpoint.is_local:
            return DUMMY_KEY
        raise MissingKeyError(
            f"environment variable {endpoint.api_key_env} is not set; it must hold the "
            f"API key for {endpoint.name} ({endpoint.model})"
        )
    return DUMMY_KEY if endpoint.api_base else None


def call_options(endpoint: ModelEndpoint, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The per-call litellm options (key excluded) for an endpoint and generation parameters."""
    options: dict[str, Any] = {**endpoint.extra_params, **(params or {})}
    options.update(model=endpoint.model, max_retries=0, timeout=endpoint.timeout_s)
    if endpoint.api_base:
        options["api_base"] = endpoint.api_base
    price = endpoint.price()
    if price is not None:  # spares litellm its own (slow, sometimes failing) cost lookup
        options["input_cost_per_token"] = price.input_per_mtok / 1e6
        options["output_cost_per_token"] = price.output_per_mtok / 1e6
    return options


CAPPED_HANDLER_PROVIDERS = frozenset({
    "hosted_vllm", "ollama_chat", "anthropic", "groq", "together_ai", "mistral", "deepseek", "openrouter",
    "xai", "fireworks_ai"})
"""litellm providers whose chat call goes through litellm's ``AsyncHTTPHandler`` and takes one per call
(litellm 1.110: ``base_llm_http_handler``, or Anthropic's handler); each gets a capped one."""


def litellm_client(litellm: Any, endpoint: ModelEndpoint, key: str | None) -> Any | None:
    """The client to hand litellm for this call, its HTTP capped in bytes; None where we have none.

    One per (event loop, server, key): connections stay pooled across calls. ``openai`` gets an
    ``AsyncOpenAI``, ``azure`` an ``AsyncAzureOpenAI`` and the providers in ``CAPPED_HANDLER_PROVIDERS``
    an ``AsyncHTTPHandler``, each over litellm's own HTTP client with its routes capped
    (``capped_http.cap_routes``); litellm then uses that client
    as it is (its own cached clients are not consulted). No litellm global is touched.
    """
    from evaluator.gateway.capped_http import cap_routes, pooled

    try:
        _, provider, _, base = litellm.get_llm_provider(model=endpoint.model, api_base=endpoint.api_base)
    except Exception:  # noqa: BLE001 - litellm will say what is wrong with the model string itself
        return None
    if provider in ("openai", "azure"):
        from litellm.llms.openai.common_utils import BaseOpenAILLM
        from openai import AsyncAzureOpenAI, AsyncOpenAI

        def http() -> Any:  # litellm's own client for the openai SDK (its aiohttp transport), capped
            return pooled(("litellm-http", base), lambda: cap_routes(BaseOpenAILLM._get_async_http_client()))

    if provider == "openai":
        base = base or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE") or \
            "https://api.openai.com/v1"
        key = key or os.environ.get("OPENAI_API_KEY")
        if not key:
            return None  # litellm reports the missing key in its own words
        return pooled(("litellm-openai", base, _digest(key)), lambda: AsyncOpenAI(
            base_url=base, api_key=key, max_retries=0, http_client=http()))
    if provider == "azure" and base:
        key = key or os.environ.get("AZURE_API_KEY")
        version = endpoint.extra_params.get("api_version") or os.environ.get("AZURE_API_VERSION") or \
            litellm.AZURE_DEFAULT_API_VERSION
        if not key:
            return None  # Entra ID tokens and the like: litellm builds that client itself
        return pooled(("litellm-azure", base, version, _digest(key)), lambda: AsyncAzureOpenAI(
            azure_endpoint=base, api_key=key, api_version=version, max_retries=0, http_client=http()))
    if provider in CAPPED_HANDLER_PROVIDERS:
        from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler

        def handler() -> Any:
            made = AsyncHTTPHandler(timeout=endpoint.timeout_s)  # litellm's own client and transport
            made.client = cap_routes(made.client)  # the setter: litellm no longer swaps it for another
            return made

        return pooled(("litellm-handler", provider, base), handler)
    return None


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def completion_from_reply(response: Any, price: Price | None, latency: float) -> Completion:
    """A chat reply (litellm's response object, or one read back from a batch's output file) as a
    ``Completion``: its text (capped at ``MAX_ANSWER_CHARS``), tokens and cost at ``price``.

    Raises:
        LLMError: no choices (retryable), or an answer over the cap (not retryable).
    """
    choices = getattr(response, "choices", None) or []
    if not choices:
        raise LLMError("response has no choices", kind="malformed", retryable=True)
    message = choices[0].message
    text = getattr(message, "content", None) or ""
    if len(text) > MAX_ANSWER_CHARS:
        raise LLMError(f"the answer is {len(text):,} characters long, over the {MAX_ANSWER_CHARS:,}-"
                       "character cap; it was not stored", kind="malformed", retryable=False)
    usage = getattr(response, "usage", None)
    prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion = int(getattr(usage, "completion_tokens", 0) or 0)
    return Completion(
        text=text,
        prompt_tokens=prompt,
        completion_tokens=completion,
        cost_usd=price.cost(prompt, completion) if price else None,
        latency_s=latency,
        finish_reason=getattr(choices[0], "finish_reason", None),
        served_model=_text_or_none(getattr(response, "model", None)),
        system_fingerprint=_text_or_none(getattr(response, "system_fingerprint", None)),
    )


def _text_or_none(value: Any) -> str | None:
    """A served-identity field as text; None when the reply leaves it out or empty."""
    return str(value) if isinstance(value, str) and value else None


async def complete(
    endpoint: ModelEndpoint, messages: Sequence[Mapping[str, Any]], params: Mapping[str, Any] | None = None
) -> Completion:
    """Send one chat request (one attempt; no retries) and return the answer with its cost.

    Raises:
        LLMError: with ``retryable`` True for 429 (``retry_after`` set when the server said),
            5xx, timeouts, connection failures and malformed bodies; False for auth, bad
            request, not found and a missing key.

    Example:
        >>> ep = ModelEndpoint(name="local", model="openai/m", api_base=server_url)  # doctest: +SKIP
        >>> asyncio.run(complete(ep, [{"role": "user", "content": "hi"}])).text    # doctest: +SKIP
        'STUB ANSWER'
    """
    key = api_key_for(endpoint)
    if endpoint.transport == "openai":
        from evaluator.gateway.openai_transport import openai_chat  # lazy: the openai SDK costs ~1.4 s
    else:
        litellm = _litellm()  # import (seconds, once) before the clock and the timeout start
    start = time.perf_counter()
    try:
        # Backstop in case a transport ignores ``timeout`` (no extra task, unlike wait_for).
        async with asyncio.timeout(endpoint.timeout_s + 5):
            if endpoint.transport == "openai":
                response = await openai_chat(
                    endpoint.api_base or "",
                    endpoint.model,
                    messages,
                    key,
                    endpoint.timeout_s,
                    {**endpoint.extra_params, **(params or {})},
                )
            else:
                options = call_options(endpoint, params)
                if key is not None:
                    options["api_key"] = key
                client = litellm_client(litellm, endpoint, key)
                if client is not None:
                    options["client"] = client
                response = await litellm.acompletion(messages=list(messages), **options)
    except LLMError:
        raise
    except Exception as exc:  # noqa: BLE001 - every failure is classified, none escapes raw
        raise classify_exception(exc) from None
    return completion_from_reply(response, endpoint.price(), time.perf_counter() - start)


def count_prompt_tokens(endpoint: ModelEndpoint, messages: Sequence[Mapping[str, Any]]) -> tuple[int, str]:
    """Prompt tokens of ``messages`` and how they were counted (litellm tokenizer or chars/4).

    Example:
        >>> ep = ModelEndpoint(name="x", model="openai/m")
        >>> count_prompt_tokens(ep, [{"role": "user", "content": "abcd" * 10}])[0] > 0
        True
    """
    try:
        return int(
            _litellm().token_counter(model=endpoint.model, messages=list(messages))
        ), "litellm.token_counter"
    except Exception:  # noqa: BLE001 - an unknown tokenizer falls back to the rough rule
        chars = sum(len(str(m.get("content", ""))) for m in messages)
        return max(1, chars // 4), "characters/4"
