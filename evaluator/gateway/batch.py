"""OpenAI's Batch API: many chat requests as one job, at the provider's batch rate.

Why a module of its own: a direct run sends one request per case and is paid at the list price; the
Batch API (``/v1/files`` and ``/v1/batches``, offered by OpenAI, Azure OpenAI and servers that implement
it) takes the whole set as one JSON-lines file, answers within a window (24 hours) and is priced lower.
The runner (``evaluator.runs.batch_leg``) submits, records the batch id, polls, and reads the answers
back into the same result rows and response cache as a direct run.

The protocol, as documented by OpenAI: upload the input file (``POST /files``, ``purpose=batch``; one
line per request: ``custom_id``, ``method``, ``url``, ``body``), create the batch (``POST /batches`` with
``input_file_id``, ``endpoint`` and ``completion_window``), poll it (``GET /batches/{id}``: ``status``
``validating`` → ``in_progress`` → ``finalizing`` → ``completed``, or ``failed`` / ``expired`` /
``cancelled``; ``request_counts``), then read ``output_file_id`` and ``error_file_id``
(``GET /files/{id}/content``; one line per request: ``custom_id``, ``response`` with ``status_code`` and
``body``, or ``error``). Plain HTTP through httpx, so any OpenAI-compatible server works; Azure's
deployment-scoped URLs and ``api-version`` are not handled here.

Every response is capped in bytes while it is read (``evaluator.gateway.capped_http``): a JSON reply
at ``MAX_RESPONSE_BYTES``, like one chat answer; an output or error file line by line, each line (one
request's answer) at ``MAX_RESPONSE_BYTES`` and the file at that many bytes per request sent, so a
file is never bigger than the direct calls it replaces could have read.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from evaluator.gateway.errors import LLMError
from evaluator.gateway.limits import MAX_RESPONSE_BYTES
from evaluator.gateway.llm import Completion, ModelEndpoint, api_key_for, completion_from_reply
from evaluator.gateway.prices import Price, batch_price_of

CHAT_URL = "/v1/chat/completions"
FINISHED = ("completed", "failed", "expired", "cancelled")
"""Batch statuses after which nothing more will be answered."""


@dataclass
class BatchState:
    """What the provider says of one batch."""

    batch_id: str
    status: str
    total: int = 0
    completed: int = 0
    failed: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        """Nothing more will be answered (completed, failed, expired or cancelled)."""
        return self.status in FINISHED


def batch_price(endpoint: ModelEndpoint) -> Price | None:
    """The batch rate: litellm's map where the provider publishes one, else the endpoint's own prices.

    Example:
        >>> p = batch_price(ModelEndpoint(name="x", model="gpt-4o-mini"))
        >>> (round(p.input_per_mtok, 3), round(p.output_per_mtok, 3))
        (0.075, 0.3)
    """
    if endpoint.input_price_per_mtok is not None or endpoint.output_price_per_mtok is not None:
        return Price(endpoint.input_price_per_mtok or 0.0, endpoint.output_price_per_mtok or 0.0,
                     "endpoint override (taken as the batch rate)")
    return batch_price_of(endpoint.model)


def request_lines(endpoint: ModelEndpoint, requests: Sequence[tuple[str, Sequence[Mapping[str, Any]]]],
                  params: Mapping[str, Any]) -> bytes:
    """The batch input file: one JSON line per (custom id, messages).

    Example:
        >>> ep = ModelEndpoint(name="x", model="openai/m", api_base="http://127.0.0.1:1/v1")
        >>> line = json.loads(request_lines(ep, [("k1", [{"role": "user", "content": "hi"}])], {}))
        >>> line["custom_id"], line["url"], line["body"]["model"]
        ('k1', '/v1/chat/completions', 'm')
    """
    from evaluator.gateway.openai_transport import served_model_name  # lazy: imports the openai SDK

    model, extra = served_model_name(endpoint.model), {**endpoint.extra_params, **params}
    lines = [
        json.dumps({"custom_id": cid, "method": "POST", "url": CHAT_URL,
                    "body": {"model": model, "messages": list(msgs), **extra}}, ensure_ascii=False)
        for cid, msgs in requests
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


class BatchClient:
    """The files and batches endpoints of one OpenAI-compatible server (async, httpx)."""

    def __init__(self, endpoint: ModelEndpoint) -> None:
        from evaluator.gateway.capped_http import capped_client  # imports httpx (with openai and litellm)

        if not endpoint.api_base and not endpoint.model.startswith(("openai/", "gpt-", "o1", "o3", "o4")):
            raise LLMError(f"{endpoint.name}: batch runs need an OpenAI-compatible server (give --api-base)",
                           kind="bad_request", retryable=False)
        self.endpoint = endpoint
        base = (endpoint.api_base or "https://api.openai.com/v1").rstrip("/")
        key = api_key_for(endpoint)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._options = {"base_url": base, "headers": headers, "timeout": endpoint.timeout_s}
        self._http = capped_client(**self._options)

    async def close(self) -> None:
        """Release the connection pool."""
        await self._http.aclose()

    async def _json(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        import httpx

        try:
            response = await self._http.request(method, path, **kw)
        except httpx.HTTPError as exc:
            raise LLMError(f"batch API {method} {path}: {type(exc).__name__}", kind="connection",
                           retryable=True) from None
        if response.status_code >= 400:
            raise LLMError(f"batch API {method} {path}: HTTP {response.status_code} {response.text[:300]}",
                           kind="server" if response.status_code >= 500 else "bad_request",
                           retryable=response.status_code >= 500 or response.status_code == 429)
        try:
            return response.json()
        except ValueError:
            raise LLMError(f"batch API {method} {path}: not JSON", kind="malformed", retryable=True) from None

    async def submit(self, lines: bytes, metadata: Mapping[str, str] | None = None) -> BatchState:
        """Upload the input file and create the batch; its first state."""
        uploaded = await self._json("POST", "/files", data={"purpose": "batch"},
                                    files={"file": ("medassure-batch.jsonl", lines, "application/jsonl")})
        created = await self._json("POST", "/batches", json={
            "input_file_id": uploaded["id"], "endpoint": CHAT_URL, "completion_window": "24h",
            "metadata": dict(metadata or {})})
        return state_of(created)

    async def poll(self, batch_id: str) -> BatchState:
        """The batch's state now."""
        return state_of(await self._json("GET", f"/batches/{batch_id}"))

    async def lines(self, file_id: str, requests: int = 1) -> list[dict[str, Any]]:
        """The JSON lines of an output or error file of a batch of ``requests`` requests, read as they
        arrive: a line over ``MAX_RESPONSE_BYTES`` or a file over that many bytes per request is refused
        (``ResponseTooLarge``) before it is all read."""
        import httpx

        from evaluator.gateway.capped_http import capped_client

        path = f"/files/{file_id}/content"
        out: list[dict[str, Any]] = []
        async with capped_client(MAX_RESPONSE_BYTES * max(1, requests), **self._options) as http:
            try:
                async with http.stream("GET", path) as response:
                    if response.status_code >= 400:
                        raise LLMError(f"batch API file {file_id}: HTTP {response.status_code}",
                                       kind="server", retryable=True)
                    async for line in capped_lines(response.aiter_bytes(), MAX_RESPONSE_BYTES):
                        out.append(json.loads(line))
            except httpx.HTTPError as exc:
                raise LLMError(f"batch API file {file_id}: {type(exc).__name__}", kind="connection",
                               retryable=True) from None
        return out


async def capped_lines(chunks: AsyncIterator[bytes], cap: int) -> AsyncIterator[bytes]:
    """The non-blank lines of a byte stream; a line longer than ``cap`` is refused as it grows."""
    from evaluator.gateway.capped_http import ResponseTooLarge

    pending = bytearray()
    async for chunk in chunks:
        pending += chunk
        if b"\n" in chunk:  # split only when a line ends: a long line is not rescanned per chunk
            *done, rest = pending.split(b"\n")
            pending = bytearray(rest)
            for line in done:
                if line.strip():
                    yield bytes(line)
        if len(pending) > cap:
            raise ResponseTooLarge(f"holds a line of more than {cap:,} bytes", cap)
    if pending.strip():
        yield bytes(pending)


def state_of(obj: Mapping[str, Any]) -> BatchState:
    """A ``BatchState`` from the provider's batch object."""
    counts = obj.get("request_counts") or {}
    errors = [str(e.get("message", e)) for e in ((obj.get("errors") or {}).get("data") or [])]
    return BatchState(batch_id=str(obj["id"]), status=str(obj.get("status", "")),
                      total=int(counts.get("total") or 0), completed=int(counts.get("completed") or 0),
                      failed=int(counts.get("failed") or 0), output_file_id=obj.get("output_file_id"),
                      error_file_id=obj.get("error_file_id"), errors=errors)


def completion_of(line: Mapping[str, Any], price: Price | None) -> Completion | LLMError:
    """One output or error line as the answer (priced at ``price``) or the error it holds."""
    response = line.get("response") or {}
    error = line.get("error")
    status = int(response.get("status_code") or 0)
    if error or status >= 400 or not response.get("body"):
        detail = error or (response.get("body") or {}).get("error") or {}
        message = detail.get("message") if isinstance(detail, Mapping) else str(detail)
        return LLMError(f"batch request failed: HTTP {status or '?'} {message or 'no answer'}",
                        kind="server", retryable=False)
    body = response["body"]
    try:
        reply = json.loads(json.dumps(body), object_hook=lambda d: SimpleNamespace(**d))
        return completion_from_reply(reply, price, 0.0)
    except LLMError as exc:
        return exc
