"""Retry decisions, backoff and the requests-per-minute limiter (no server needed)."""

from __future__ import annotations

import asyncio
import random
import time

from evaluator.gateway.errors import LLMError
from evaluator.gateway.llm import Completion, ModelEndpoint
from evaluator.runs.retry import RateLimiter, RetryPolicy, call_with_retries

EP = ModelEndpoint(name="x", model="openai/x", api_base="http://127.0.0.1:1/v1")
FAST = RetryPolicy(max_attempts=4, base_s=0.001, max_s=0.002)


def scripted(*events):
    """A caller that raises or returns the scripted events in order."""
    queue = list(events)

    async def caller(endpoint, messages, params):
        event = queue.pop(0)
        if isinstance(event, Exception):
            raise event
        return Completion(text=event)

    return caller


def retry(*events, policy=FAST, stop=None):
    return asyncio.run(
        call_with_retries(
            EP, [], {}, policy, RateLimiter(None), random.Random(0), caller=scripted(*events), stop=stop
        )
    )


def rate_limited(after=None):
    return LLMError("429", kind="rate_limit", retryable=True, status=429, retry_after=after)


def test_retryable_errors_are_retried_until_success():
    out = retry(rate_limited(), LLMError("boom", kind="server", retryable=True), "ok")
    assert (out.completion.text, out.error, out.attempts) == ("ok", None, 3)


def test_fatal_error_is_not_retried():
    out = retry(LLMError("bad key", kind="auth", retryable=False), "never")
    assert (out.completion, out.error.kind, out.attempts) == (None, "auth", 1)


def test_gives_up_after_max_attempts():
    out = retry(*[rate_limited()] * 4, "too late")
    assert (out.completion, out.error.kind, out.attempts) == (None, "rate_limit", 4)


def test_retry_after_is_honoured_and_an_absurd_one_fails():
    t0 = time.perf_counter()
    out = retry(rate_limited(after=0.2), "ok")
    assert out.completion and time.perf_counter() - t0 >= 0.2
    out = retry(rate_limited(after=3600), "ok", policy=RetryPolicy(max_retry_after_s=60))
    assert out.completion is None and out.attempts == 1


def test_stop_flag_ends_retrying():
    out = retry(rate_limited(), "ok", stop=lambda: True)
    assert out.completion is None and out.attempts == 1


def test_backoff_grows_with_jitter_and_is_capped():
    policy, rng = RetryPolicy(base_s=1.0, max_s=8.0), random.Random(1)
    delays = [policy.delay(a, None, rng) for a in (1, 2, 3, 4, 5, 6)]
    assert 0.5 <= delays[0] <= 1.0 and 1.0 <= delays[1] <= 2.0 and all(4.0 <= d <= 8.0 for d in delays[3:])
    assert policy.delay(1, 5.0, rng) == 5.0


def test_rate_limiter_spaces_requests():
    async def five() -> float:
        limiter = RateLimiter(600)  # one every 0.1 s
        t0 = time.perf_counter()
        for _ in range(5):
            await limiter.acquire()
        return time.perf_counter() - t0

    assert 0.38 <= asyncio.run(five()) < 1.0


def test_a_hung_server_costs_one_deadline_per_case_not_one_timeout_per_attempt():
    """Issue 25, item 12: six attempts each waited the full timeout (373 s a case at the default)."""
    timeouts = []

    async def hung(endpoint, messages, params):
        timeouts.append(endpoint.timeout_s)
        await asyncio.sleep(endpoint.timeout_s)
        raise LLMError("timed out", kind="timeout", retryable=True)

    slow = EP.model_copy(update={"timeout_s": 0.2})
    policy = RetryPolicy(max_attempts=6, base_s=0.001, max_s=0.002)
    t0 = time.perf_counter()
    out = asyncio.run(call_with_retries(slow, [], {}, policy, RateLimiter(None), random.Random(0),
                                        caller=hung))
    elapsed = time.perf_counter() - t0
    assert out.completion is None and out.error.kind == "timeout" and "deadline of 0.4 s" in str(out.error)
    assert elapsed < 0.6, elapsed  # 2 x the timeout, where six attempts took 1.2 s
    assert timeouts[0] == 0.2 and all(t <= 0.2 for t in timeouts) and sum(timeouts) <= 0.41
