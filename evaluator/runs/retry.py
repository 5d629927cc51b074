"""Retries with backoff, and a requests-per-minute limiter, for model calls.

Why ours and not litellm's: litellm's ``num_retries`` needs tenacity, multiplies with the
openai SDK's own retries (2N+1 attempts, STACK_NOTES §4e) and hides how many attempts were
made. Here the gateway makes exactly one attempt per call and this module decides: retry only
what ``LLMError.retryable`` says may succeed later, wait ``max(Retry-After, backoff)`` with
full jitter, and count every attempt so the run can report requests actually sent.

Why one deadline per case: with a timeout per attempt only, a hung server cost six timeouts per case
(373 s at the default 60 s). Now all attempts of one case share ``RetryPolicy.case_deadline``: each
attempt's timeout is what is left of it, and no retry starts (or waits) past it.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaluator.gateway.errors import LLMError
from evaluator.gateway.llm import Completion, ModelEndpoint, complete

RESENT_NOTE = ("requests that were in flight when it stopped are sent again: their answers were never "
               "recorded, so they count, and may be billed, twice")
"""What a resume message says about requests in flight when a run stopped (or its process was killed)."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry a retryable failure."""

    max_attempts: int = 6
    """Attempts per instance including the first."""
    base_s: float = 0.5
    """Backoff before the 2nd attempt; doubles each time."""
    max_s: float = 30.0
    """Longest wait between attempts."""
    max_retry_after_s: float = 120.0
    """Longest server-requested wait we honour (a longer Retry-After fails the instance)."""
    case_deadline_s: float | None = None
    """Longest one case may take over all its attempts and waits; None: twice the endpoint's timeout."""

    def case_deadline(self, endpoint: ModelEndpoint) -> float:
        """Seconds one case may take in all (``case_deadline_s``, else twice the per-request timeout).

        Example:
            >>> RetryPolicy().case_deadline(ModelEndpoint(name="x", model="openai/m", timeout_s=60))
            120.0
        """
        return self.case_deadline_s if self.case_deadline_s is not None else 2 * endpoint.timeout_s

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based).

        Example:
            >>> RetryPolicy(base_s=1, max_s=8).delay(1, 5.0, random.Random(0)) >= 5.0
            True
        """
        exp = min(self.max_s, self.base_s * 2 ** (attempt - 1))
        jittered = exp / 2 + rng.uniform(0, exp / 2)
        return max(jittered, retry_after or 0.0)


class RateLimiter:
    """Spaces request starts evenly to stay under ``requests_per_minute`` (no bursts).

    Example:
        >>> limiter = RateLimiter(None)   # no limit: acquire returns at once
    """

    def __init__(self, requests_per_minute: float | None) -> None:
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self._next = 0.0
        self._lock = asyncio.Lock() if self.interval else None

    async def acquire(self) -> None:
        """Wait for the next free slot."""
        if self._lock is None:
            return
        async with self._lock:
            now = time.monotonic()
            wait = self._next - now
            self._next = max(now, self._next) + self.interval
        if wait > 0:
            await asyncio.sleep(wait)


@dataclass
class CallOutcome:
    """What happened to one instance's request after all attempts."""

    completion: Completion | None
    """The answer, or None when every attempt failed."""
    error: LLMError | None
    """The last error when no answer came."""
    attempts: int
    """Requests sent for this instance (each retry counts)."""


Caller = Callable[[ModelEndpoint, Sequence[Mapping[str, Any]], Mapping[str, Any]], Awaitable[Completion]]


async def call_with_retries(
    endpoint: ModelEndpoint,
    messages: Sequence[Mapping[str, Any]],
    params: Mapping[str, Any],
    policy: RetryPolicy,
    limiter: RateLimiter,
    rng: random.Random,
    caller: Caller = complete,
    stop: Callable[[], bool] | None = None,
) -> CallOutcome:
    """One instance's request with retries; never raises an ``LLMError`` (it is returned).

    ``stop`` (e.g. a cancel flag's ``is_set``) ends the retrying early: the last error is
    returned, so the instance is stored as failed and retried when the run resumes.

    Example:
        >>> outcome = asyncio.run(call_with_retries(ep, msgs, {}, RetryPolicy(), RateLimiter(None),
        ...                                         random.Random(0)))  # doctest: +SKIP
    """
    attempt = 0
    deadline = time.monotonic() + policy.case_deadline(endpoint)
    while True:
        attempt += 1
        await limiter.acquire()
        left = deadline - time.monotonic()
        attempt_endpoint = endpoint if left >= endpoint.timeout_s else endpoint.model_copy(
            update={"timeout_s": max(left, 0.001)})
        try:
            return CallOutcome(await caller(attempt_endpoint, messages, params), None, attempt)
        except LLMError as err:
            too_long = err.retry_after is not None and err.retry_after > policy.max_retry_after_s
            if not err.retryable or attempt >= policy.max_attempts or too_long or (stop and stop()):
                return CallOutcome(None, err, attempt)
            wait = policy.delay(attempt, err.retry_after, rng)
            if time.monotonic() + wait >= deadline:
                return CallOutcome(None, LLMError(
                    f"{err} (gave up after {attempt} attempt(s): this case's deadline of "
                    f"{policy.case_deadline(endpoint):g} s would pass before another)",
                    kind=err.kind, retryable=True, status=err.status, retry_after=err.retry_after), attempt)
            await asyncio.sleep(wait)
