"""A run's model calls as one provider batch (``RunOptions.batch``, ``medassure run --batch``).

Why apart from the runner: the runner sends what is not yet answered one request at a time; with
``batch`` it hands the same requests here first. They go to the provider as one Batch API job
(``evaluator.gateway.batch``), whose id is stored with the run before the first poll, so an interrupted
run (Ctrl-C, a killed process, a cancelled job) polls the batch it already paid for instead of
submitting a second one. The answers come back as ``CallOutcome``s keyed by the request's cache key, and
the runner records them exactly as it records direct answers: the same result rows, the same response
cache, the same scoring; only the price differs (the batch rate, ``batch_price``).

One request per distinct cache key is sent (a batch's ``custom_id`` must be unique, and two cases with
the same prompt are the same request); a request the batch did not answer (its line failed, or the batch
expired or was cancelled) comes back as an error, which a later run retries.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evaluator.gateway.batch import BatchClient, BatchState, batch_price, completion_of, request_lines
from evaluator.gateway.errors import LLMError
from evaluator.gateway.llm import Completion, ModelEndpoint
from evaluator.runs.retry import CallOutcome

POLL_S = 30.0
"""Seconds between polls of a batch (``RunOptions.batch_poll_s``)."""
FIRST_POLL_S = 0.5
"""The first wait; each later one doubles, up to ``poll_s``."""
RESUBMIT = ("failed", "expired", "cancelled")
"""A recorded batch in one of these states is not polled again: the missing requests go in a new one."""


async def batch_outcomes(
    store: Any,
    run_id: str,
    endpoint: ModelEndpoint,
    todo: Sequence[tuple[Any, list[dict], str]],
    params: Mapping[str, Any],
    *,
    stop: Callable[[], bool],
    on_state: Callable[[BatchState], None] | None = None,
    poll_s: float = POLL_S,
) -> dict[str, CallOutcome] | None:
    """Answers for ``todo`` (``(instance, messages, cache key)``) from one batch; None when stopped first.

    Raises:
        LLMError: the provider refused the upload or the batch (nothing was answered).
    """
    requests = list({key: msgs for _, msgs, key in todo}.items())
    client = BatchClient(endpoint)
    try:
        state = None
        known = store.latest_batch(run_id)
        if known is not None:
            state = await client.poll(known)
            if state.status in RESUBMIT:
                state = None
        if state is None:
            state = await client.submit(request_lines(endpoint, requests, params), {"medassure_run": run_id})
            store.record_batch(run_id, state.batch_id, len(requests))
        wait = min(FIRST_POLL_S, poll_s)  # a small batch may finish in seconds: poll soon, then less often
        while not state.finished:
            if on_state is not None:
                on_state(state)
            waited = time.monotonic()
            while time.monotonic() - waited < wait:
                if stop():
                    return None  # the batch stays recorded: a resume polls it
                await asyncio.sleep(min(0.2, poll_s))
            state = await client.poll(state.batch_id)
            wait = min(wait * 2, poll_s)
        if on_state is not None:
            on_state(state)
        price = batch_price(endpoint)
        lines: list[dict[str, Any]] = []
        for file_id in (state.output_file_id, state.error_file_id):
            if file_id:
                lines += await client.lines(file_id, len(requests))
    finally:
        await client.close()
    out: dict[str, CallOutcome] = {}
    for line in lines:
        got = completion_of(line, price)
        answer = got if isinstance(got, Completion) else None
        error = got if isinstance(got, LLMError) else None
        out[str(line.get("custom_id"))] = CallOutcome(completion=answer, error=error, attempts=1)
    for key, _ in requests:
        if key not in out:
            why = "; ".join(state.errors) or "no answer line for this request"
            out[key] = CallOutcome(completion=None, attempts=1, error=LLMError(
                f"batch {state.batch_id} ended {state.status}: {why}", kind="server", retryable=False))
    return out
