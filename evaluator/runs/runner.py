"""Run one benchmark on one endpoint: bounded, rate-limited, retried, cached, resumable.

Why this shape: committees pay per token and runs take hours against hosted APIs, so the
runner (1) looks every prompt up in the response cache in one query before sending anything (unless the
run must observe the model: ``RunOptions.fresh``, for re-evaluations and ``run --fresh``),
(2) resumes an unfinished run with the same run key, skipping instances already answered,
(3) records each finished instance at once through the journal-then-batch writer, (4) keeps
at most ``concurrency`` requests in flight (fixed worker coroutines pulling from a queue, not a
task per instance) and under the endpoint's requests-per-minute, (5) reserves the upper-bound
cost of a request before sending it, so ``max_cost_usd`` is never crossed as long as the
estimate holds, and (6) stops cleanly on cancel (in-flight requests finish and are kept).
With ``workers > 1`` the model calls run in that many processes (``evaluator.runs.workers``) to
use more cores; scoring and persistence stay here, in the one process that owns DuckDB.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import duckdb

from evaluator.benchmarks.instance import Instance
from evaluator.gateway.llm import ModelEndpoint, count_prompt_tokens
from evaluator.phi import PhiCheck
from evaluator.runs.phi_gate import runner_gate
from evaluator.runs.plan import Render, RunEstimate, RunPlan, estimate_run, plan_run
from evaluator.runs.records import Budget, Score, cache_row, result_row
from evaluator.runs.retry import CallOutcome, RateLimiter, RetryPolicy, call_with_retries
from evaluator.runs.store import RESUMABLE, RunStore
from evaluator.runs.summary import RunSummary, summarize_run
from evaluator.runs.workers import RunLease, WorkerPool
from evaluator.scoring.responses import score_response
from evaluator.storage.db import is_raw_connection

if TYPE_CHECKING:
    from evaluator.storage.components import ComponentStores

__all__ = ["RunOptions", "RunSummary", "RunEstimate", "estimate_run", "run_async", "run_benchmark"]

ProgressFn = Callable[[int, int, dict[str, Any] | None], None]


class CancelFlag(Protocol):
    """``threading.Event`` or ``asyncio.Event``: anything with ``is_set()``."""

    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class RunOptions:
    """How to run (none of this changes the answers, so none of it is in the run key)."""

    concurrency: int = 8
    """Requests in flight at most (capped by the endpoint's ``max_concurrency``)."""
    max_cost_usd: float | None = None
    """Stop before new spending in this invocation would pass this (needs a known price)."""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    """Retry policy for retryable failures."""
    workers: int = 1
    """Processes making model calls (1: this process; 2+: a worker pool, see evaluator.runs.workers)."""
    flush_every: int = 256
    """Results per DuckDB batch."""
    flush_ms: float = 500.0
    """Longest a result waits in the journal before its batch is written."""
    seed: int = 0
    """Seed of the backoff jitter."""
    phi_check: PhiCheck | None = None
    """The caller's allowed PHI gate check for exactly this run (``evaluator.runs.phi_gate``: an
    attestation, or a jury's outputs checked too); None: the runner checks the cases itself."""
    fresh: bool = False
    """Observe the model: read no response-cache row and resume no earlier run (except
    ``resume_run_id``), so every instance is asked again (a re-evaluation, ``run --fresh``)."""
    resume_run_id: str | None = None
    """With ``fresh``: the unfinished run of the same key this invocation continues (its own resume)."""
    batch: bool = False
    """Send what is not answered as one provider batch at the batch rate (``evaluator.runs.batch_leg``)."""
    batch_poll_s: float = 30.0
    """Seconds between polls of the batch."""


def default_score(spec: Any, instance: Instance, text: str) -> Any:
    """``evaluator.scoring.responses.score_response`` (imported when first needed)."""
    return score_response(spec, instance, text)


def main_metric_name(spec: Any) -> str:
    """The spec's ``main_metric``, else the first metric it names, else ``score``."""
    metrics = getattr(spec, "metrics", None) or []
    if getattr(spec, "main_metric", None) in metrics:
        return str(spec.main_metric)
    first = metrics[0] if metrics else "score"
    return str(getattr(first, "name", first))


async def run_async(
    store: RunStore,
    spec: Any,
    instances: Sequence[Instance],
    endpoint: ModelEndpoint,
    options: RunOptions | None = None,
    *,
    limit: int | None = None,
    on_progress: ProgressFn | None = None,
    cancel: CancelFlag | None = None,
    render: Render | None = None,
    score: Score | None = None,
    pool: Any = None,
) -> RunSummary:
    """Run (or resume) ``spec`` over ``instances`` on ``endpoint``; see the module docstring.

    Raises:
        PhiBlocked: likely identifiers in the cases, bound for an endpoint not approved for PHI, and no
            allowed ``options.phi_check`` from the caller (nothing is stored or sent).

    Example:
        >>> summary = await run_async(RunStore(con), spec, instances, endpoint)   # doctest: +SKIP
    """
    options = options or RunOptions()
    score = score or default_score
    started = time.perf_counter()
    plan: RunPlan = plan_run(spec, instances, endpoint, limit=limit, render=render)
    runner_gate(spec, plan.instances, endpoint, options.phi_check)  # the PHI gate, before anything is stored
    price = endpoint.price()
    if options.batch and (options.max_cost_usd is not None or pool is not None):
        raise ValueError("a batch run is paid as one job: it takes no cost cap and no worker processes "
                         "(the cost estimate is shown before it is submitted)")
    if options.max_cost_usd is not None and price is None:
        raise ValueError(
            f"no price known for {endpoint.model}: set a price override on the endpoint "
            "to enforce max_cost_usd"
        )
    run_id = _resumable(store, plan.run_key, options)
    resumed = run_id is not None
    if run_id is None:
        run_id = store.create_run(
            run_key=plan.run_key,
            benchmark_id=plan.benchmark_id,
            hashes=plan.hashes,
            model=endpoint.model,
            endpoint_name=endpoint.name,
            api_base=endpoint.api_base,
            params=plan.params,
            n_planned=len(plan.instances),
        )
    lease_path = store.lease_path(run_id)
    # No request is sent while workers of an earlier invocation of this run may still answer one.
    lease = await RunLease.acquire(lease_path) if lease_path is not None else None
    if lease is not None and pool is not None and hasattr(pool, "hold_lease"):
        try:
            await pool.hold_lease(lease.path)
        except BaseException:
            lease.release()
            raise
    if resumed:
        store.set_status(run_id, "running")
    finished = store.finished_ids(run_id)
    todo = [
        (i, m, k)
        for i, m, k in zip(plan.instances, plan.messages, plan.cache_keys, strict=True)
        if i.id not in finished
    ]
    cached = {} if options.fresh else store.cache_lookup([k for _, _, k in todo])
    total, done = len(plan.instances), len(finished)
    counters = {"cache_hits": 0, "new_requests": 0}
    status = "failed"
    writer = store.writer(run_id, options.flush_every, options.flush_ms)

    def record(row: dict[str, Any], new_cache: dict[str, Any] | None) -> None:
        nonlocal done
        writer.add(row, new_cache)
        done += 1
        if on_progress:
            on_progress(done, total, row)

    try:
        if on_progress:
            on_progress(done, total, None)
        queue: deque[tuple[Instance, list[dict], str]] = deque()
        for inst, msgs, key in todo:
            if key in cached:
                counters["cache_hits"] += 1
                record(result_row(run_id, inst, None, cached[key], spec, score), None)
            else:
                queue.append((inst, msgs, key))
        budget = Budget(options.max_cost_usd)
        limiter = RateLimiter(endpoint.requests_per_minute)
        rng = random.Random(options.seed)
        stop = cancel.is_set if cancel is not None else (lambda: False)
        batch: dict[str, CallOutcome] | None = None
        if options.batch and queue:
            from evaluator.runs.batch_leg import batch_outcomes

            batch = await batch_outcomes(
                store, run_id, endpoint, list(queue), plan.params, stop=stop, poll_s=options.batch_poll_s,
                on_state=(lambda _state: on_progress(done, total, None)) if on_progress else None,
            )
            # None: stopped while the provider works; the workers see the stop and the run ends cancelled,
            # its batch id kept for the resume
        paid: set[str] = set()

        async def send(msgs: list[dict]) -> CallOutcome:
            if pool is not None:
                return await pool.call(msgs, plan.params)
            return await call_with_retries(
                endpoint, msgs, plan.params, options.retry, limiter, rng, stop=stop
            )

        async def worker() -> None:
            while queue and not stop() and not budget.stopped:
                inst, msgs, key = queue.popleft()
                estimate = 0.0
                if options.max_cost_usd is not None and price is not None:
                    estimate = price.cost(count_prompt_tokens(endpoint, msgs)[0], plan.params["max_tokens"])
                if not budget.reserve(estimate):
                    queue.appendleft((inst, msgs, key))
                    return
                if batch is not None:  # answered by the batch: one request per distinct key was paid
                    outcome = batch[key]
                    if key in paid:
                        outcome = CallOutcome(outcome.completion, outcome.error, 0)
                    paid.add(key)
                else:
                    outcome = await send(msgs)
                comp = outcome.completion
                budget.settle(estimate, comp.cost_usd if comp else 0.0)
                counters["new_requests"] += outcome.attempts
                new_cache = cache_row(key, endpoint, comp) if comp is not None else None
                record(result_row(run_id, inst, outcome, None, spec, score), new_cache)

        concurrency = max(1, min(options.concurrency, endpoint.max_concurrency))
        try:
            async with asyncio.TaskGroup() as group:  # one failing worker stops the others
                for _ in range(concurrency):
                    group.create_task(worker())
        except BaseExceptionGroup as group_error:
            raise group_error.exceptions[0] from None
        status = (
            "budget_exceeded"
            if queue and budget.stopped
            else "cancelled"
            if queue and stop()
            else "completed"
        )
    except (asyncio.CancelledError, KeyboardInterrupt):
        status = "cancelled"
        raise
    finally:
        try:
            writer.close()
        finally:
            if lease is not None:
                lease.release()
            summary = summarize_run(
                store,
                run_id,
                main_metric_name(spec),
                status=status,
                resumed=resumed,
                elapsed_s=time.perf_counter() - started,
                **counters,
            )
            store.set_status(run_id, status, summary.model_dump(mode="json", exclude={"metrics"}))
    return summary


def _resumable(store: RunStore, run_key: str, options: RunOptions) -> str | None:
    """The unfinished run to continue: the latest with the key, or with ``fresh`` only the one named."""
    if not options.fresh:
        return store.find_resumable(run_key)
    if options.resume_run_id is None:
        return None
    run = store.get_run(options.resume_run_id) or {}
    if run.get("run_key") != run_key or run.get("status") not in RESUMABLE:
        raise ValueError(f"run {options.resume_run_id} is not an unfinished run of this request")
    return options.resume_run_id


@contextlib.asynccontextmanager
async def _call_pool(endpoint: ModelEndpoint, opts: RunOptions):
    """Worker processes for model calls when ``opts.workers`` > 1, else None (calls stay in this process)."""
    if opts.workers <= 1:
        yield None
        return

    async with WorkerPool(endpoint, processes=opts.workers, retry=opts.retry, seed=opts.seed) as pool:
        yield pool


def run_benchmark(
    con: duckdb.DuckDBPyConnection | ComponentStores,
    spec: Any,
    instances: Sequence[Instance],
    endpoint: ModelEndpoint,
    *,
    concurrency: int = 8,
    max_cost_usd: float | None = None,
    limit: int | None = None,
    on_progress: ProgressFn | None = None,
    cancel: CancelFlag | None = None,
    options: RunOptions | None = None,
    render: Render | None = None,
    score: Score | None = None,
) -> RunSummary:
    """Synchronous entry point (CLI, Streamlit thread): run or resume, return the summary.

    ``con`` is the component stores (the dossier ``Store`` is one) or, inside the evaluator and its
    tests, a raw DuckDB connection.

    Example:
        >>> s = run_benchmark(con, get_benchmark("calc"), load_instances(spec), endpoint,
        ...                   concurrency=16, max_cost_usd=2.0)              # doctest: +SKIP
        >>> s.n, s.n_unparsed, s.score.mean, s.cache_hits, s.new_requests   # doctest: +SKIP
    """
    base = options or RunOptions()
    opts = RunOptions(**{**base.__dict__, "concurrency": concurrency, "max_cost_usd": max_cost_usd})
    store = RunStore(con) if is_raw_connection(con) else con.journaled_runs

    async def main() -> RunSummary:
        async with _call_pool(endpoint, opts) as pool:
            return await run_async(store, spec, instances, endpoint, opts, limit=limit,
                                   on_progress=on_progress, cancel=cancel, render=render, score=score,
                                   pool=pool)

    return asyncio.run(main())
