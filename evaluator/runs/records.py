"""The records a run writes per instance, and its spending cap.

Kept apart from the runner's control flow so that what a stored result contains (tokens,
cost, attempts, score or error) is readable in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.benchmarks.instance import Instance
from evaluator.gateway.llm import Completion, ModelEndpoint
from evaluator.runs.retry import CallOutcome
from evaluator.runs.store import now_iso

Score = Callable[[Any, Instance, str], Any]

NOTE_KEY = "note"
"""Key of a per-instance scoring note inside a result's ``metrics`` (a string, so never read as a metric):
how the instance was scored when that needs saying, e.g. MedCalc-Bench limits derived by the authors' rule."""

SUBGROUPS_KEY = "subgroups"
"""Key of the instance's subgroup tags inside a result's ``metrics`` (a mapping, so never read as a metric):
the run's results carry them so that its Evidence reports subgroup scores (calculator, sex, age band)."""


class Budget:
    """Spending cap for one invocation: reserve an upper bound before sending, settle after."""

    def __init__(self, cap: float | None) -> None:
        self.cap, self.spent, self.reserved, self.stopped = cap, 0.0, 0.0, False

    def reserve(self, estimate: float) -> bool:
        if self.cap is not None and self.spent + self.reserved + estimate > self.cap:
            self.stopped = True
            return False
        self.reserved += estimate
        return True

    def settle(self, estimate: float, actual: float | None) -> None:
        self.reserved -= estimate
        self.spent += actual or 0.0


def result_row(
    run_id: str, instance: Instance, outcome: CallOutcome | None, cached: dict | None, spec: Any, score: Score
) -> dict[str, Any]:
    comp = outcome.completion if outcome else None
    text = cached["text"] if cached else (comp.text if comp else None)
    row: dict[str, Any] = {
        "run_id": run_id,
        "instance_id": instance.id,
        "response_text": text,
        "parsed": None,
        "score": None,
        "unparsed": None,
        "metrics": {SUBGROUPS_KEY: dict(instance.subgroups)} if instance.subgroups else {},
        "cached": cached is not None,
        "finished_at": now_iso(),
        "prompt_tokens": cached["prompt_tokens"] if cached else (comp.prompt_tokens if comp else None),
        "completion_tokens": cached["completion_tokens"]
        if cached
        else (comp.completion_tokens if comp else None),
        "cost_usd": 0.0 if cached else (comp.cost_usd if comp else None),
        "latency_s": comp.latency_s if comp else None,
        "attempts": outcome.attempts if outcome else 0,
        "error": outcome.error.short() if outcome and outcome.error else None,
        "served_model": cached.get("served_model") if cached else (comp.served_model if comp else None),
        "system_fingerprint": cached.get("system_fingerprint") if cached else (
            comp.system_fingerprint if comp else None),
    }
    if text is not None:
        try:
            result = score(spec, instance, text)
        except Exception as exc:  # noqa: BLE001 - a scorer bug must not lose a paid answer
            row["error"] = f"scoring: {type(exc).__name__}: {exc}"[:300]  # re-scored from cache on resume
            return row
        note = getattr(result, "note", None)  # a scorer's word on how this instance was graded, if any
        row.update(
            parsed=result.parsed,
            score=result.score,
            unparsed=bool(result.unparsed),
            metrics=row["metrics"] | dict(result.metrics or {}) | ({NOTE_KEY: note} if note else {}),
        )
    return row


def cache_row(key: str, endpoint: ModelEndpoint, comp: Completion) -> dict[str, Any]:
    """The ``response_cache`` row for a fresh answer."""
    return {
        "key": key,
        "model": endpoint.model,
        "api_base": endpoint.safe_api_base,
        "response_text": comp.text,
        "prompt_tokens": comp.prompt_tokens,
        "completion_tokens": comp.completion_tokens,
        "cost_usd": comp.cost_usd,
        "created_at": now_iso(),
        "served_model": comp.served_model,
        "system_fingerprint": comp.system_fingerprint,
    }
