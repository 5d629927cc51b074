"""HTTP clients whose responses are capped in bytes while they are read, before any parsing.

Why: a hostile or broken server can answer a chat request with 60 MB, an endless chunked body, or a
small gzip body that inflates to gigabytes. The openai SDK and litellm read the whole body into memory
and parse its JSON before our character cap (``MAX_ANSWER_CHARS``) could look at the answer. The HTTP
paths a model call takes (the openai transport; litellm's ``openai``, ``azure`` and
``llm.CAPPED_HANDLER_PROVIDERS``; the Batch API client) therefore go through ``CappedTransport``
(litellm's other providers, e.g. Gemini or Bedrock, are not: docs/known-limits.md): a ``Content-Length`` over
``MAX_RESPONSE_BYTES`` is refused before a byte of the body is read, and the body is counted as it
arrives, after gzip/deflate decoding done here in bounded steps (at most 64 KiB of output per step),
so reading stops, and the connection is closed, as soon as the count passes the cap. Streaming
responses are the same bodies and are capped the same way.

The refusal is ``ResponseTooLarge``, an ``LLMError`` that is not retryable (the same server sends the
same thing) and names the cap. The SDKs wrap exceptions raised inside their HTTP client;
``classify_exception`` finds ours in the chain and returns it as it is.

The clients are the ones the SDKs would have built themselves (the openai SDK's default, on its own
``httpx2``; litellm's, on its aiohttp transport), with each route wrapped (``cap_routes``), and they
are pooled, one per (event loop, key) through ``pooled``: connection pooling and client CPU stay as
they were.
"""

from __future__ import annotations

import asyncio
import importlib
import weakref
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

import httpx

from evaluator.gateway.errors import LLMError
from evaluator.gateway.limits import MAX_RESPONSE_BYTES

__all__ = ["CappedTransport", "ResponseTooLarge", "cap_routes", "capped_client", "pooled"]

LIMITS = httpx.Limits(max_connections=1000, max_keepalive_connections=100)
"""Connection pool per client: the openai SDK's defaults (``DEFAULT_CONNECTION_LIMITS``)."""
STEP = 64 * 1024
"""Most decoded bytes produced from compressed input at one time."""
ACCEPTED_ENCODINGS = "gzip, deflate"
"""What we ask for, and all we decode (here, in bounded steps); any other encoding is refused."""
_T = TypeVar("_T")
_POOL: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Any, Any]] = weakref.WeakKeyDictionary()


class ResponseTooLarge(LLMError):
    """A response over ``MAX_RESPONSE_BYTES``: refused while read, nothing parsed, stored or cached."""

    def __init__(self, what: str, cap: int = MAX_RESPONSE_BYTES) -> None:
        super().__init__(f"the server's response {what}, over the {cap:,}-byte cap on a response; reading "
                         "stopped there and nothing was stored", kind="too_large", retryable=False)


def _inflater(encoding: str) -> Callable[[bytes], Iterator[bytes]] | None:
    """A bounded-step decoder for ``encoding`` (None: the body is not encoded)."""
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        inflate = zlib.decompressobj(zlib.MAX_WBITS | 16)
    elif encoding == "deflate":  # zlib-wrapped, as the RFC says (a raw deflate stream does not decode)
        inflate = zlib.decompressobj(zlib.MAX_WBITS)
    else:
        raise LLMError(f"the server answered with Content-Encoding {encoding!r}, which was not asked for "
                       f"(we accept {ACCEPTED_ENCODINGS}); the body was not read", kind="malformed",
                       retryable=False)

    def steps(data: bytes) -> Iterator[bytes]:
        try:
            while True:
                piece = inflate.decompress(data, STEP)
                data = inflate.unconsumed_tail
                if piece:
                    yield piece
                if not data and len(piece) < STEP:
                    return
        except zlib.error as exc:
            raise LLMError(f"the server's {encoding} body does not decode ({exc})", kind="malformed",
                           retryable=True) from None

    return steps


class _CappedStream:
    """The body as it arrives, decoded, counted; stops and closes the connection past the cap.

    A mixin: ``_flavour`` makes it an ``AsyncByteStream`` of the httpx the client uses."""

    def __init__(self, inner: Any, cap: int, inflate: Callable[[bytes], Iterator[bytes]] | None) -> None:
        self._inner, self._cap, self._inflate = inner, cap, inflate

    async def __aiter__(self) -> AsyncIterator[bytes]:
        raw = decoded = 0
        async for chunk in self._inner:
            raw += len(chunk)
            if raw > self._cap:
                await self._refuse(f"passed {self._cap:,} bytes as sent")
            for piece in self._inflate(chunk) if self._inflate else (chunk,):
                decoded += len(piece)
                if decoded > self._cap:
                    await self._refuse(f"passed {self._cap:,} bytes" + (" decoded" if self._inflate else ""))
                yield piece

    async def _refuse(self, what: str) -> None:
        await self._inner.aclose()  # an unfinished body: the connection is closed, not pooled
        raise ResponseTooLarge(what, self._cap)

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedTransport:
    """An httpx transport that caps each response body at ``cap`` bytes while it is read.

    It asks for gzip or deflate only and decodes them itself (the response it returns carries no
    ``Content-Encoding``), so the count is of the decoded bytes the caller would parse. A mixin:
    ``wrap`` makes one for the httpx the client uses (``httpx``, or ``httpx2``, the fork the openai
    SDK ships and uses by default), around the transport that client already had.
    """

    def __init__(self, inner: Any, cap: int = MAX_RESPONSE_BYTES) -> None:
        self.inner, self.cap = inner, cap

    @classmethod
    def wrap(cls, inner: Any, cap: int = MAX_RESPONSE_BYTES) -> CappedTransport:
        """A capped transport around ``inner``, of ``inner``'s httpx."""
        return _flavour(inner)[0](inner, cap)

    async def handle_async_request(self, request: Any) -> Any:
        request.headers["Accept-Encoding"] = ACCEPTED_ENCODINGS
        response = await self.inner.handle_async_request(request)
        try:
            declared = int(response.headers.get("Content-Length", "0") or 0)
            if declared > self.cap:
                raise ResponseTooLarge(f"declares {declared:,} bytes (Content-Length)", self.cap)
            encoding = response.headers.get("Content-Encoding", "").strip().lower()
            inflate = _inflater(encoding)
        except (LLMError, ValueError):
            await response.aclose()
            raise
        headers = response.headers
        if inflate is not None:  # decoded here: the caller must not decode again
            headers = [(k, v) for k, v in headers.multi_items()
                       if k.lower() not in ("content-encoding", "content-length")]
        # A new response around the body as a stream (one the inner transport had read already
        # would otherwise be taken as it is).
        stream = _flavour(self.inner)[1](response.stream, self.cap, inflate)
        return type(response)(response.status_code, headers=headers, extensions=response.extensions,
                              stream=stream)

    async def aclose(self) -> None:
        await self.inner.aclose()


_FLAVOURS: dict[str, tuple[type[CappedTransport], type[_CappedStream]]] = {}


def _flavour(transport: Any) -> tuple[type[CappedTransport], type[_CappedStream]]:
    """The capped transport and stream classes for the httpx (``httpx`` or ``httpx2``) of ``transport``."""
    name = type(transport).__module__.split(".")[0]
    hx = importlib.import_module(name if name in ("httpx", "httpx2") else "httpx")
    if hx.__name__ not in _FLAVOURS:
        stream = type("CappedStream", (_CappedStream, hx.AsyncByteStream), {})
        capped = type("CappedTransport", (CappedTransport, hx.AsyncBaseTransport), {})
        _FLAVOURS[hx.__name__] = (capped, stream)
    return _FLAVOURS[hx.__name__]


def cap_routes(client: Any, cap: int = MAX_RESPONSE_BYTES) -> Any:
    """``client`` (an ``httpx`` or ``httpx2`` ``AsyncClient``, as its maker built it: the openai SDK's
    default, litellm's own) with each of its routes capped: its transport and one per proxy that httpx
    took from HTTP(S)_PROXY. Returns the same client.

    Example:
        >>> c = cap_routes(httpx.AsyncClient())
        >>> all(isinstance(t, CappedTransport) for t in transports_of(c))
        True
    """
    wrap = CappedTransport.wrap
    if not isinstance(client._transport, CappedTransport):  # noqa: SLF001
        client._transport = wrap(client._transport, cap)  # noqa: SLF001
    client._mounts = {pattern: t if t is None or isinstance(t, CappedTransport) else wrap(t, cap)  # noqa: SLF001
                      for pattern, t in client._mounts.items()}  # noqa: SLF001
    return client


def capped_client(cap: int = MAX_RESPONSE_BYTES, **options: Any) -> httpx.AsyncClient:
    """A new ``httpx.AsyncClient`` (pool ``LIMITS``, redirects followed) with every route capped."""
    options.setdefault("follow_redirects", True)
    return cap_routes(httpx.AsyncClient(limits=LIMITS, **options), cap)


def transports_of(client: Any) -> list[Any]:
    """Every transport ``client`` may send through (its own and one per proxy mount)."""
    return [client._transport, *(t for t in client._mounts.values() if t is not None)]  # noqa: SLF001


def pooled(key: Any, make: Callable[[], _T]) -> _T:
    """The object made by ``make`` for ``key`` on the running event loop, made once per loop.

    HTTP clients bind to the loop they first ran on; one per (loop, key) keeps connections pooled.
    """
    per_loop = _POOL.setdefault(asyncio.get_running_loop(), {})
    if key not in per_loop:
        per_loop[key] = make()
    return per_loop[key]
