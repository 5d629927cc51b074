"""What was asked for when a run started, in a form that can be stored and started again.

Why a stored request: the run store records what a run *did* (hashes of spec, prompts and
instances, model, server, parameters), but not everything needed to *repeat* it: the dataset
file, the NAME of the key variable, the transport, the limits. Those used to live only in the
memory of the process that started the run, so after an app restart a decided dossier could no
longer be re-run faithfully. ``request_record`` turns a request into plain JSON that is written
beside the run (``RunStore.record_request``); it carries the key variable's name and never its
value, and drops any extra endpoint option whose name says it is a secret.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from evaluator.gateway.llm import ModelEndpoint
from evaluator.gateway.secrets import scrub_url

SECRET_WORDS = ("key", "token", "secret", "password", "authorization", "credential")
"""Extra endpoint options whose name contains one of these are never stored."""


class RunRequest(BaseModel):
    """What to run: one benchmark, its dataset, one endpoint and the run's limits."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    benchmark_id: str = Field(min_length=1)
    """Benchmark id (``data/benchmarks/<id>.yaml``)."""
    dataset_path: str | None = None
    """Dataset file on this machine; None for benchmarks that need none (built-in calculators)."""
    endpoint: ModelEndpoint
    """The candidate model as it is called (no key: only the NAME of its environment variable)."""
    concurrency: int = Field(default=8, ge=1, le=1024)
    """Requests in flight at most."""
    max_cost_usd: float | None = Field(default=None, gt=0)
    """Stop before this run's new spending passes this many USD (needs a known price)."""
    limit: int | None = Field(default=None, ge=1)
    """First N instances only; None for all."""
    workers: int = Field(default=1, ge=1, le=64)
    """Processes making model calls (1: the run's own thread)."""
    fresh: bool = False
    """Ask the model for every instance: no response-cache answer and no earlier run resumed
    (``RunOptions.fresh``; ``medassure run --fresh``)."""
    batch: bool = False
    """Send the requests as one provider batch at the batch rate (``RunOptions.batch``; ``medassure run
    --batch``)."""


def file_sha256(path: str | Path | None) -> str | None:
    """SHA-256 of a file's bytes, or None when there is no such file.

    Example:
        >>> file_sha256(None) is None
        True
    """
    if not path or not Path(path).is_file():
        return None
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def endpoint_record(endpoint: ModelEndpoint) -> dict[str, Any]:
    """The endpoint as plain JSON without secrets: the key variable's NAME only.

    Example:
        >>> e = ModelEndpoint(name="a", model="openai/m", api_key_env="K", extra_params={"top_k": 5})
        >>> r = endpoint_record(e); (r["api_key_env"], r["extra_params"])
        ('K', {'top_k': 5})
    """
    data = endpoint.model_dump(mode="json")
    data["api_base"] = scrub_url(endpoint.api_base)  # a key in the URL is never stored
    data["extra_params"] = {k: v for k, v in (endpoint.extra_params or {}).items()
                            if not any(w in k.lower() for w in SECRET_WORDS)}
    return data


def request_record(kind: str, *, benchmark_id: str, endpoint: ModelEndpoint, dataset_path: str | None = None,
                   prompt_hash: str | None = None, options: dict[str, Any] | None = None,
                   scenario: dict[str, Any] | None = None) -> dict[str, Any]:
    """The stored form of a run request (JSON-safe; never a key value).

    Args:
        kind: ``benchmark``, ``scenario`` or ``rerun``.
        benchmark_id: the spec id the run uses.
        endpoint: the endpoint called.
        dataset_path: the dataset file, when the benchmark needs one.
        prompt_hash: ``evaluator.benchmarks.specs.prompt_hash`` of the spec as run (the prompt version).
        options: limits such as ``limit``, ``concurrency``, ``max_cost_usd``.
        scenario: ``{"scenario_id": ..., "version": ...}`` for a local scenario.

    Example:
        >>> r = request_record("benchmark", benchmark_id="calc_builtin",
        ...                    endpoint=ModelEndpoint(name="a", model="openai/m", api_key_env="K"))
        >>> r["api_key_env"], r["transport"], r["dataset_sha256"]
        ('K', 'litellm', None)
    """
    return {"kind": kind, "benchmark_id": benchmark_id, "dataset_path": dataset_path,
            "dataset_sha256": file_sha256(dataset_path), "prompt_hash": prompt_hash,
            "endpoint": endpoint_record(endpoint), "api_key_env": endpoint.api_key_env,
            "transport": endpoint.transport, "options": dict(options or {}), "scenario": scenario}


def record_of(request: RunRequest, prompt_hash: str | None = None) -> dict[str, Any]:
    """``request_record`` of a benchmark ``RunRequest``."""
    return request_record("benchmark", benchmark_id=request.benchmark_id, endpoint=request.endpoint,
                          dataset_path=request.dataset_path, prompt_hash=prompt_hash,
                          options={"limit": request.limit, "concurrency": request.concurrency,
                                   "max_cost_usd": request.max_cost_usd, "workers": request.workers,
                                   "fresh": request.fresh})


def request_from_record(record: dict[str, Any]) -> RunRequest:
    """The ``RunRequest`` a stored benchmark record describes (to resume or repeat it).

    Example:
        >>> e = ModelEndpoint(name="a", model="openai/m")
        >>> request_from_record(record_of(RunRequest(benchmark_id="calc_builtin", endpoint=e, limit=3))).limit
        3
    """
    options = record.get("options") or {}
    return RunRequest(benchmark_id=record["benchmark_id"], dataset_path=record.get("dataset_path"),
                      endpoint=ModelEndpoint.model_validate(record["endpoint"]),
                      concurrency=options.get("concurrency") or 8, max_cost_usd=options.get("max_cost_usd"),
                      limit=options.get("limit"), workers=options.get("workers") or 1,
                      fresh=bool(options.get("fresh")))
