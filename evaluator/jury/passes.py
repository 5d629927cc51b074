"""One judge's passes over a jury's candidates: the first pass, then one repair pass.

Why a module of its own: this is where the jury meets the runner. Each pass is an ordinary
``run_async`` whose prompts are the fenced judge prompts and whose scorer reads replies with the
strict parser, so the cache, retries, cost and resume come from the runner. The stored
``response_text`` is then re-read with the same parser to decide, per instance, between a
score, a repair request (only after a *completed* first pass) and an unscored reason. The first
reply is also read with the rules of both MedHELM versions (``evaluator.jury.medhelm``; HELM asks
once, so the repair pass never changes those readings) and kept beside the strict one, so every
method comes from the same paid replies.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from evaluator.benchmarks.instance import Instance
from evaluator.gateway.llm import ModelEndpoint
from evaluator.jury.medhelm import HELM_METHODS, read_reply_both_ways
from evaluator.jury.prompt import judge_messages, parse_judge_reply, repair_messages
from evaluator.jury.rubrics import Rubric
from evaluator.runs.runner import RunOptions, run_async
from evaluator.runs.store import RunStore

Progress = Callable[[int, int, dict[str, Any] | None], None]


class JudgeSpec(BaseModel):
    """What the runner sees as the "benchmark" of one judge pass (part of its run and cache keys)."""

    model_config = ConfigDict(frozen=True)

    id: str
    """``jury:<benchmark id>``; the run's benchmark id."""
    rubric_id: str
    """Rubric applied."""
    rubric_hash: str
    """SHA-256 of the rubric, so an edited rubric never reuses an old run."""
    stage: Literal["judge", "repair"]
    """First pass, or the repair pass over unusable replies."""
    max_tokens: int = 1024
    """Output budget per judge reply."""
    temperature: float = 0.0
    """0, as in MedHELM."""
    metrics: tuple[str, ...] = ("jury_mean",)
    """The run's main metric: the judge's mean over criteria."""


class _Reading(NamedTuple):
    parsed: str | None
    score: float | None
    unparsed: bool
    metrics: dict[str, float]


def _runner_score(rubric: Rubric) -> Callable[[Any, Instance, str], _Reading]:
    def score(_spec: Any, _instance: Instance, text: str) -> _Reading:
        reading = parse_judge_reply(text, rubric)
        if reading.scores is None:
            return _Reading(None, None, True, {})
        values = {k: float(v) for k, v in reading.scores.items()}
        return _Reading(
            json.dumps(reading.scores, sort_keys=True), sum(values.values()) / len(values), False, values
        )

    return score


class JudgeTally:
    """Progress over every judge pass, and the runs' costs and request counts."""

    def __init__(self, total: int, on_progress: Progress | None) -> None:
        self.total, self.base, self.on_progress = total, 0, on_progress
        self.cost = 0.0
        self.new_requests = self.cache_hits = 0
        self.statuses: list[str] = []

    def hook(self, judge: str, stage: str) -> Progress:
        def report(done: int, _total: int, _row: dict[str, Any] | None) -> None:
            if self.on_progress:
                self.on_progress(self.base + done, self.total, {"judge": judge, "stage": stage})

        return report

    def capped(self, options: RunOptions) -> RunOptions:
        """``options`` with the jury's budget left for the next pass (earlier passes' cost is spent)."""
        if options.max_cost_usd is None:
            return options
        return replace(options, max_cost_usd=max(options.max_cost_usd - self.cost, 0.0))

    def add(self, summary: Any) -> None:
        self.base += summary.n
        self.cost += summary.cost_usd
        self.new_requests += summary.new_requests
        self.cache_hits += summary.cache_hits
        self.statuses.append(summary.status)


async def judge_one(
    runs: RunStore,
    spec: JudgeSpec,
    endpoint: ModelEndpoint,
    rubric: Rubric,
    judged: list[Instance],
    candidates: dict[str, str],
    options: RunOptions,
    tally: JudgeTally,
    cancel: Any,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Judge ``judged`` with one endpoint; returns judgement rows and the judge run ids.

    Example:
        >>> rows, run_ids = await judge_one(runs, spec, endpoint, rubric, judged, candidates,
        ...                                 RunOptions(), JudgeTally(3, None), None)  # doctest: +SKIP
    """
    first = {i.id: judge_messages(rubric, i, candidates[i.id]) for i in judged}
    s1 = await run_async(
        runs,
        spec,
        judged,
        endpoint,
        tally.capped(options),
        render=lambda _s, i: first[i.id],
        score=_runner_score(rubric),
        on_progress=tally.hook(endpoint.model, "judge"),
        cancel=cancel,
    )
    tally.add(s1)
    rows: dict[str, dict[str, Any]] = {}
    broken: dict[str, tuple[str, str]] = {}
    for r in runs.results(s1.run_id):
        if r["error"] is not None:
            rows[r["instance_id"]] = {
                "scores": None,
                "reason": f"judge call failed: {r['error']}",
                "calls": 1,
                "medhelm": {m: {"values": None, "reason": f"judge call failed: {r['error']}"}
                            for m in HELM_METHODS},
            }
            continue
        reading = parse_judge_reply(r["response_text"], rubric)
        rows[r["instance_id"]] = {
            "scores": reading.scores,
            "explanations": reading.explanations,
            "reason": reading.reason,
            "calls": 1,
            "medhelm": read_reply_both_ways(r["response_text"], rubric.criterion_names),
        }
        if reading.scores is None:
            broken[r["instance_id"]] = (r["response_text"] or "", reading.reason or "")
    run_ids = [s1.run_id]
    if broken and s1.status == "completed":
        tally.total += len(broken)
        repair = [i for i in judged if i.id in broken]
        msgs = {i.id: repair_messages(first[i.id], *broken[i.id], rubric) for i in repair}
        s2 = await run_async(
            runs,
            spec.model_copy(update={"stage": "repair"}),
            repair,
            endpoint,
            tally.capped(options),
            render=lambda _s, i: msgs[i.id],
            score=_runner_score(rubric),
            on_progress=tally.hook(endpoint.model, "repair"),
            cancel=cancel,
        )
        tally.add(s2)
        run_ids.append(s2.run_id)
        for r in runs.results(s2.run_id):
            first_reason = rows[r["instance_id"]]["reason"]
            helm = rows[r["instance_id"]]["medhelm"]  # HELM reads the first reply only
            if r["error"] is not None:
                reason = f"{first_reason}; repair call failed: {r['error']}"
                rows[r["instance_id"]] = {"scores": None, "reason": reason, "calls": 2, "medhelm": helm}
                continue
            reading = parse_judge_reply(r["response_text"], rubric)
            rows[r["instance_id"]] = {
                "scores": reading.scores,
                "explanations": reading.explanations,
                "calls": 2,
                "repaired": True,
                "reason": None if reading.scores else f"{first_reason}; after repair: {reading.reason}",
                "medhelm": helm,
            }
    out = [
        {
            "instance_id": iid,
            "repaired": False,
            "judge_run_id": run_ids[-1] if row.get("repaired") else run_ids[0],
            **row,
        }
        for iid, row in rows.items()
    ]
    return out, run_ids
