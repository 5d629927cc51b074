"""What can go wrong with a model call, in two kinds: worth retrying, or not.

Why a module of its own: the runner decides retries from ``LLMError.retryable`` and
``retry_after`` alone, and tests can build errors without importing litellm. litellm's
exceptions subclass the openai SDK's (``RateLimitError`` → ``APIStatusError``, ``Timeout`` →
``APIConnectionError``) and all carry ``status_code``; classification reads that status and the
class names, so it needs no import of litellm either. Measured against the test server
(STACK_NOTES §4e): a refused connection and a malformed JSON body both arrive as
``InternalServerError`` with status 500, a hang as ``Timeout`` (408), a 429 keeps the server's
headers on ``litellm_response_headers``.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from typing import Any

from evaluator.gateway.secrets import scrub_text

RETRYABLE_STATUS = {408, 409, 425, 429}
FATAL_KINDS = {
    401: "auth",
    403: "permission",
    404: "not_found",
    400: "bad_request",
    413: "too_large",
    422: "bad_request",
}


class LLMError(Exception):
    """A failed model call, classified. Its message is scrubbed of secrets (``evaluator.gateway.secrets``):
    servers echo request headers in error bodies, and this text is stored with the run.

    Attributes:
        kind: short name (``rate_limit``, ``server``, ``timeout``, ``connection``, ``malformed``,
            ``auth``, ``bad_request``, ``not_found``, ``missing_key``, ``too_large`` (a 413, or a
            response over the byte cap: ``evaluator.gateway.capped_http``), ``other``).
        retryable: whether trying again later may succeed.
        status: HTTP status when there was one.
        retry_after: seconds the server asked us to wait (429), if it said.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        retryable: bool,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(scrub_text(message) or "")
        self.kind = kind
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after

    def short(self) -> str:
        """One line for the results table: ``kind (status): message``."""
        status = f" {self.status}" if self.status else ""
        return f"{self.kind}{status}: {str(self)[:300]}"


class MissingKeyError(LLMError):
    """The endpoint names an environment variable that is not set (and it is not local)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="missing_key", retryable=False)


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date).

    Example:
        >>> parse_retry_after({"Retry-After": "2"})
        2.0
        >>> parse_retry_after({"retry-after-ms": "250"})
        0.25
    """
    if not headers:
        return None
    lower = {str(k).lower(): str(v) for k, v in dict(headers).items()}
    if "retry-after-ms" in lower:
        try:
            return max(0.0, float(lower["retry-after-ms"]) / 1000)
        except ValueError:
            pass
    value = lower.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, parsed.timestamp() - (now if now is not None else time.time()))


def _headers_of(exc: BaseException) -> Mapping[str, str] | None:
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    try:
        return dict(headers) if headers is not None else None
    except (TypeError, ValueError):
        return None


def classify_exception(exc: BaseException) -> LLMError:
    """Turn any exception from a model call into an ``LLMError``.

    Example:
        >>> classify_exception(TimeoutError("slow")).kind
        'timeout'
    """
    ours = _ours_in_chain(exc)
    if ours is not None:
        return ours
    names = {cls.__name__ for cls in type(exc).__mro__}
    status = getattr(exc, "status_code", None)
    status = int(status) if isinstance(status, int) else None
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "Timeout" in names or "APITimeoutError" in names or isinstance(exc, TimeoutError):
        return LLMError(message, kind="timeout", retryable=True, status=status)
    if status == 429 or "RateLimitError" in names:
        return LLMError(
            message,
            kind="rate_limit",
            retryable=True,
            status=429,
            retry_after=parse_retry_after(_headers_of(exc)),
        )
    if "JSONDecodeError" in names or "APIResponseValidationError" in names:  # a 200 with a broken body
        return LLMError(message, kind="malformed", retryable=True, status=status)
    if "APIConnectionError" in names or isinstance(exc, ConnectionError):
        return LLMError(message, kind="connection", retryable=True, status=status)
    if status is not None and (status >= 500 or status in RETRYABLE_STATUS):
        lowered = message.lower()
        kind = (
            "connection"
            if "connection error" in lowered
            else (
                "malformed" if any(w in lowered for w in ("unterminated", "expecting", "json")) else "server"
            )
        )
        return LLMError(message, kind=kind, retryable=True, status=status)
    if status in FATAL_KINDS:
        return LLMError(message, kind=FATAL_KINDS[status], retryable=False, status=status)
    if "AuthenticationError" in names:
        return LLMError(message, kind="auth", retryable=False, status=status)
    if "BadRequestError" in names:
        return LLMError(message, kind="bad_request", retryable=False, status=status)
    return LLMError(f"{type(exc).__name__}: {message}", kind="other", retryable=False, status=status)


def _ours_in_chain(exc: BaseException) -> LLMError | None:
    """An ``LLMError`` that ``exc`` is or wraps: the openai SDK and litellm wrap what our HTTP layer
    (``evaluator.gateway.capped_http``) raises inside them, e.g. a response over the byte cap."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, LLMError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def error_record(err: LLMError) -> dict[str, Any]:
    """The error as plain data (for logs and worker processes)."""
    return {
        "message": str(err),
        "kind": err.kind,
        "retryable": err.retryable,
        "status": err.status,
        "retry_after": err.retry_after,
    }


def error_from_record(record: Mapping[str, Any]) -> LLMError:
    """Inverse of ``error_record``."""
    return LLMError(
        str(record["message"]),
        kind=str(record["kind"]),
        retryable=bool(record["retryable"]),
        status=record.get("status"),
        retry_after=record.get("retry_after"),
    )
