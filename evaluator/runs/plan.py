"""What a run will send, what identifies it, and what it may cost — before anything is sent.

Why separate from the runner: the dry-run estimate, the run key used for resuming and the
cache keys all derive from the same rendered prompts, and the UI shows the estimate without
importing the async machinery. The cost estimate is an upper bound: prompt tokens are counted
with litellm's tokenizer for the model (or characters/4 when it has none) and every completion
is assumed to use the full ``max_tokens`` budget, as MedHELM's own cost table does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import render_messages
from evaluator.gateway.llm import ModelEndpoint, count_prompt_tokens
from evaluator.runs.store import RunStore, cache_key, sha256_of

DEFAULT_MAX_TOKENS = 512
Render = Callable[[Any, Instance], list[dict[str, Any]]]


def default_render(spec: Any, instance: Instance) -> list[dict[str, Any]]:
    """``evaluator.benchmarks.specs.render_messages`` (imported when first needed)."""
    return render_messages(spec, instance)


def generation_params(spec: Any) -> dict[str, Any]:
    """Parameters sent with every request of a benchmark (part of the cache and run keys).

    Example:
        >>> generation_params(type("S", (), {"max_tokens": 64})())
        {'temperature': 0.0, 'max_tokens': 64}
    """
    temperature = getattr(spec, "temperature", None)
    return {
        "temperature": float(temperature) if temperature is not None else 0.0,
        "max_tokens": int(getattr(spec, "max_tokens", None) or DEFAULT_MAX_TOKENS),
    }


def spec_fingerprint(spec: Any) -> Any:
    """A JSON-able view of the spec for hashing."""
    dump = getattr(spec, "model_dump", None)
    return dump(mode="json") if callable(dump) else repr(spec)


class RunPlan(BaseModel):
    """The requests a run consists of and the keys that identify it."""

    benchmark_id: str
    """Benchmark id from the spec."""
    instances: list[Instance]
    """Instances in order (after ``limit``)."""
    messages: list[list[dict[str, Any]]]
    """Rendered chat messages per instance."""
    cache_keys: list[str]
    """Response-cache key per instance."""
    params: dict[str, Any]
    """Generation parameters."""
    hashes: dict[str, str]
    """SHA-256 of the spec, of all rendered prompts, and of the instances."""
    run_key: str
    """Identity of the run for resuming: hashes + model identity + parameters."""


def plan_run(
    spec: Any,
    instances: Sequence[Instance],
    endpoint: ModelEndpoint,
    *,
    limit: int | None = None,
    render: Render | None = None,
) -> RunPlan:
    """Render every prompt and derive the run and cache keys.

    Example:
        >>> plan = plan_run(spec, instances, endpoint, limit=10)   # doctest: +SKIP
    """
    chosen = list(instances[:limit] if limit is not None else instances)
    ids = [i.id for i in chosen]
    if len(set(ids)) != len(ids):
        raise ValueError("instance ids must be unique within a run")
    render = render or default_render
    messages = [render(spec, inst) for inst in chosen]
    params = generation_params(spec)
    identity = endpoint.identity()
    hashes = {
        "spec": sha256_of(spec_fingerprint(spec)),
        "prompt": sha256_of(messages),
        "dataset": sha256_of([i.model_dump(mode="json") for i in chosen]),
    }
    return RunPlan(
        benchmark_id=str(getattr(spec, "id", "unknown")),
        instances=chosen,
        messages=messages,
        cache_keys=[cache_key(identity, params, m) for m in messages],
        params=params,
        hashes=hashes,
        run_key=sha256_of({"hashes": hashes, "model": identity, "params": params}),
    )


class RunEstimate(BaseModel):
    """Dry-run estimate: what would be sent and its upper-bound cost."""

    n: int
    """Instances in the run."""
    n_already_done: int
    """Instances an unfinished run with the same key already holds (not re-sent)."""
    n_cached: int
    """Instances answered from the response cache (free)."""
    n_to_send: int
    """Instances that need a model call."""
    prompt_tokens: int
    """Prompt tokens of the instances to send."""
    completion_tokens_max: int
    """Upper bound: ``n_to_send × max_tokens``."""
    cost_usd_max: float | None
    """Upper-bound cost in USD; None when the model's price is unknown."""
    price_source: str | None
    """Where the price comes from."""
    token_method: str
    """How prompt tokens were counted."""
    note: str
    """How to read the figures."""


def estimate_run(
    spec: Any,
    instances: Sequence[Instance],
    endpoint: ModelEndpoint,
    *,
    limit: int | None = None,
    store: RunStore | None = None,
    render: Render | None = None,
    fresh: bool = False,
    batch: bool = False,
) -> RunEstimate:
    """Estimate tokens and cost before sending anything (cache and resume taken into account if ``store``).

    With ``fresh`` (a run that observes the model: ``RunOptions.fresh``) nothing comes from the cache
    or an earlier run. With ``batch`` the price is the batch rate (``evaluator.gateway.batch``).

    Example:
        >>> est = estimate_run(spec, instances, endpoint, store=store)   # doctest: +SKIP
        >>> est.cost_usd_max                                             # doctest: +SKIP
        0.0123
    """
    plan = plan_run(spec, instances, endpoint, limit=limit, render=render)
    done: set[str] = set()
    cached: set[str] = set()
    if store is not None and not fresh:
        run_id = store.find_resumable(plan.run_key)
        done = store.finished_ids(run_id) if run_id else set()
        cached = set(store.cache_lookup(plan.cache_keys))
    to_send = [
        (m, k)
        for inst, m, k in zip(plan.instances, plan.messages, plan.cache_keys, strict=True)
        if inst.id not in done and k not in cached
    ]
    counted = [count_prompt_tokens(endpoint, m) for m, _ in to_send]
    prompt_tokens = sum(c for c, _ in counted)
    completion_max = len(to_send) * plan.params["max_tokens"]
    if batch:
        from evaluator.gateway.batch import batch_price

        price = batch_price(endpoint)
    else:
        price = endpoint.price()
    return RunEstimate(
        n=len(plan.instances),
        n_already_done=len(done),
        n_cached=sum(
            1
            for inst, k in zip(plan.instances, plan.cache_keys, strict=True)
            if inst.id not in done and k in cached
        ),
        n_to_send=len(to_send),
        prompt_tokens=prompt_tokens,
        completion_tokens_max=completion_max,
        cost_usd_max=price.cost(prompt_tokens, completion_max) if price else None,
        price_source=price.source if price else None,
        token_method=counted[0][1] if counted else "none to send",
        note="upper bound: every completion counted at max_tokens; retries not included",
    )
