"""Grading a scenario run's free-text responses against each case's rubric, one call per criterion.

Why shaped so: each grader's pass is an ordinary run of the runner over one item per case ×
criterion (id ``<case>::c<k>``), whose prompt is the grader prompt, so the response cache, retries,
cost and resume come from the runner, exactly as for a jury; a grading started again after a stop
sends only what was not answered. The graders read the cases and the model's outputs, so both pass
the PHI gate for every grader before anything is recorded or sent. The verdicts are stored per
grader as they come, and the result (``GradingResult``, HealthBench's rule from ``rule``) is
computed once, from the stored verdicts, and stored with the grading.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict

from evaluator.benchmarks.instance import Instance
from evaluator.gateway.llm import ModelEndpoint
from evaluator.grading.prompt import PROMPT_HASH, grader_messages, read_grader_reply
from evaluator.grading.records import CaseResult, CriterionResult, GradingResult, TagScore, Unparsed
from evaluator.grading.rule import TIE_RULE, bootstrap_std, case_score, clipped_mean, majority, tag_scores
from evaluator.phi.attestation import DeidentificationAttestation
from evaluator.runs.phi_gate import require_phi_clearance, run_attestation
from evaluator.runs.runner import RunOptions, run_async
from evaluator.storage.components import ComponentStores, as_stores

Progress = Callable[[int, int, dict[str, Any] | None], None]


class GradingError(ValueError):
    """A grading that cannot be made as asked (unknown run, not a scenario run, no rubric cases)."""


class GraderSpec(BaseModel):
    """What the runner sees as the "benchmark" of one grader pass (part of its run and cache keys)."""

    model_config = ConfigDict(frozen=True)

    id: str
    """``grade:<benchmark id of the candidate run>``."""
    prompt_hash: str = PROMPT_HASH
    """SHA-256 of the grader prompt, so an edited prompt never reuses an old run."""
    max_tokens: int = 1024
    """Output budget per grader reply."""
    temperature: float = 0.0
    """Deterministic grading."""
    metrics: tuple[str, ...] = ("criteria_met",)
    """The run's main metric: the share of criteria met."""


class _Reading(NamedTuple):
    parsed: str | None
    score: float | None
    unparsed: bool
    metrics: dict[str, float]


def _runner_score(_spec: Any, _item: Instance, text: str) -> _Reading:
    reading = read_grader_reply(text)
    if reading.met is None:
        return _Reading(None, None, True, {})
    return _Reading(json.dumps(reading.met), float(reading.met), False, {})


def item_id(case_id: str, k: int) -> str:
    """The runner's id of criterion ``k`` (0-based) of a case.

    Example:
        >>> item_id("hb-1", 0)
        'hb-1::c1'
    """
    return f"{case_id}::c{k + 1}"


def _inputs(
    stores: ComponentStores, run_id: str
) -> tuple[dict[str, Any], Any, list[Instance], dict[str, Any]]:
    run = stores.runs.get_run(run_id)
    if run is None:
        raise GradingError(f"no run {run_id!r} in this database")
    version = stores.scenarios.version_of_run(run_id)
    if version is None:
        raise GradingError(
            f"run {run_id} is not a local-scenario run: rubric grading reads the rubric each "
            "case was imported with (import the cases with a rubric column, or HealthBench's JSONL)"
        )
    results = {r["instance_id"]: r for r in stores.runs.results(run_id)}
    cases = [
        c
        for c in stores.scenarios.instances(version.scenario_id, version.version)
        if c.rubric and c.id in results
    ]
    if not cases:
        raise GradingError(
            f"run {run_id} has no answered case with a rubric (scenario {version.scenario_id} "
            f"version {version.version})"
        )
    return run, version, cases, results


def _verdict_rows(runs: Any, grader_run_id: str, items: dict[str, tuple[str, int]]) -> list[dict[str, Any]]:
    rows = []
    for r in runs.results(grader_run_id):
        if r["instance_id"] not in items:
            continue
        case_id, k = items[r["instance_id"]]
        if r["error"] is not None:
            rows.append(
                {
                    "instance_id": case_id,
                    "criterion_index": k,
                    "met": None,
                    "explanation": None,
                    "reason": f"grader call failed: {r['error']}",
                }
            )
            continue
        reading = read_grader_reply(r["response_text"])
        rows.append(
            {
                "instance_id": case_id,
                "criterion_index": k,
                "met": reading.met,
                "explanation": reading.explanation,
                "reason": reading.reason,
            }
        )
    return rows


class GraderItems(NamedTuple):
    """One grader pass's items: case × criterion, with the prompts the grader reads."""

    items: dict[str, tuple[str, int]]
    """Runner item id -> (case id, criterion index)."""
    messages: dict[str, list[dict[str, str]]]
    """Runner item id -> the grader's messages."""
    pseudo: list[Instance]
    """The items as the runner sees them."""


def grader_items(answered: Sequence[Instance], responses: dict[str, str]) -> GraderItems:
    """The items of a grader pass (also what an estimate prices, so its cache keys are the pass's own)."""
    items: dict[str, tuple[str, int]] = {}
    messages: dict[str, list[dict[str, str]]] = {}
    pseudo: list[Instance] = []
    for case in answered:
        for k, criterion in enumerate(case.rubric):
            iid = item_id(case.id, k)
            items[iid] = (case.id, k)
            messages[iid] = grader_messages(case, criterion, responses[case.id])
            pseudo.append(Instance(id=iid, context=messages[iid][0]["content"], answer_type="free_text"))
    return GraderItems(items, messages, pseudo)


def grading_inputs(
    stores: ComponentStores, run_id: str
) -> tuple[dict[str, Any], Any, list[Instance], dict[str, Any]]:
    """The candidate run, its scenario version, its answered rubric cases and its results by case.

    Raises:
        GradingError: unknown run, not a scenario run, or no answered case with a rubric.
    """
    return _inputs(as_stores(stores), run_id)


async def grade_run_async(
    stores: ComponentStores,
    run_id: str,
    graders: Sequence[ModelEndpoint],
    *,
    options: RunOptions | None = None,
    on_progress: Progress | None = None,
    cancel: Any = None,
    attestation: DeidentificationAttestation | None = None,
) -> GradingResult:
    """Grade every answered rubric case of ``run_id`` with each grader; see the module docstring.

    Raises:
        GradingError: unknown run, not a scenario run, no rubric case, or no grader.
        PhiBlocked: likely identifiers in the cases or outputs bound for a grader not approved for PHI,
            and no attestation; nothing is sent and no grading is recorded.
    """
    if not graders:
        raise GradingError("give at least one grader model")
    if len({g.model for g in graders}) != len(graders):
        raise GradingError("each grader may be named once")
    options = options or RunOptions()
    stores = as_stores(stores)
    run, version, cases, results = _inputs(stores, run_id)
    answered = [c for c in cases if results[c.id]["error"] is None]
    responses = {c.id: results[c.id]["response_text"] or "" for c in answered}
    check = require_phi_clearance(
        answered,
        list(graders),
        outputs=responses,
        attestation=attestation or (lambda: run_attestation(stores, run_id)),
    )
    options = replace(options, phi_check=check)
    gradings = stores.gradings
    grading_id = gradings.create(
        run_id=run_id,
        scenario_id=version.scenario_id,
        scenario_version=version.version,
        candidate_model=run["model"],
        graders=[g.model for g in graders],
        prompt_hash=PROMPT_HASH,
    )
    items, messages, pseudo = grader_items(answered, responses)
    spec = GraderSpec(id=f"grade:{run['benchmark_id']}")
    status, base = "completed", 0
    for grader in graders:

        def report(done: int, _total: int, _row: Any, offset: int = base, name: str = grader.model) -> None:
            if on_progress:
                on_progress(offset + done, len(pseudo) * len(graders), {"grader": name})

        summary = await run_async(
            stores.journaled_runs,
            spec,
            pseudo,
            grader,
            options,
            render=lambda _s, i: messages[i.id],
            score=_runner_score,
            on_progress=report,
            cancel=cancel,
        )
        base += len(pseudo)
        gradings.add_verdicts(
            grading_id, grader.model, summary.run_id, _verdict_rows(stores.runs, summary.run_id, items)
        )
        if summary.status != "completed":
            status = summary.status
            break
    result = summarise(
        grading_id,
        run_id,
        cases,
        results,
        gradings.verdicts(grading_id),
        [g.model for g in graders],
        status,
        scenario=(version.scenario_id, version.version),
        candidate_model=run["model"],
    )
    gradings.finish(grading_id, status, result.model_dump(mode="json"))
    return result


def _tag_summary(values: dict[str, list[float]]) -> dict[str, TagScore]:
    return {
        tag: TagScore(score=clipped_mean(v), n=len(v), bootstrap_std=bootstrap_std(v))
        for tag, v in sorted(values.items())
    }


def summarise(
    grading_id: str,
    run_id: str,
    cases: Sequence[Instance],
    results: dict[str, dict[str, Any]],
    verdicts: Sequence[dict[str, Any]],
    graders: Sequence[str],
    status: str,
    *,
    scenario: tuple[str | None, int | None] = (None, None),
    candidate_model: str | None = None,
) -> GradingResult:
    """The grading's result from its stored verdicts (pure: HealthBench's rule, ``rule``)."""
    votes: dict[tuple[str, int], dict[str, bool | None]] = {}
    unparsed: list[Unparsed] = []
    by_case = {c.id: c for c in cases}
    for v in verdicts:
        votes.setdefault((v["instance_id"], int(v["criterion_index"])), {})[v["grader"]] = v["met"]
        if v["met"] is None and v["instance_id"] in by_case:
            criterion = by_case[v["instance_id"]].rubric[int(v["criterion_index"])].criterion
            unparsed.append(
                Unparsed(
                    id=v["instance_id"],
                    criterion=criterion,
                    grader=v["grader"],
                    reason=v["reason"] or "no verdict",
                )
            )
    per_case, tags, example_tags = [], {}, {}
    for case in cases:
        criteria = []
        for k, c in enumerate(case.rubric):
            given = votes.get((case.id, k), {})
            ballot = {g: given.get(g) for g in graders}
            criteria.append(
                CriterionResult(
                    criterion=c.criterion,
                    points=c.points,
                    tags=list(c.tags),
                    met=majority(list(ballot.values()), c.points),
                    votes=ballot,
                )
            )
        error = results[case.id]["error"]
        missing = next((k for k, c in enumerate(criteria) if c.met is None), None)
        if error is not None or missing is not None:
            why = (
                f"candidate call failed: {error}"
                if error is not None
                else f"no readable grader verdict on criterion {missing + 1}"
            )
            per_case.append(CaseResult(id=case.id, score=None, criteria=criteria, unscored_reason=why))
            continue
        met = [bool(c.met) for c in criteria]
        per_tag = tag_scores(case.rubric, met)
        score = case_score(case.rubric, met)
        per_case.append(CaseResult(id=case.id, score=score, criteria=criteria, tag_scores=per_tag))
        for tag, value in per_tag.items():
            tags.setdefault(tag, []).append(value)
        for name, value in case.subgroups.items():
            example_tags.setdefault(name if value == "yes" else f"{name}:{value}", []).append(score)
    scores = [c.score for c in per_case if c.score is not None]
    return GradingResult(
        grading_id=grading_id,
        run_id=run_id,
        scenario_id=scenario[0],
        scenario_version=scenario[1],
        candidate_model=candidate_model,
        graders=list(graders),
        status=status,
        n=len(scores),
        n_cases=len(cases),
        n_unscored=len(cases) - len(scores),
        score=clipped_mean(scores),
        mean_unclipped=sum(scores) / len(scores) if scores else None,
        bootstrap_std=bootstrap_std(scores),
        per_case=per_case,
        by_tag=_tag_summary(tags),
        by_example_tag=_tag_summary(example_tags),
        n_calls=len(verdicts),
        n_unparsed=len(unparsed),
        unparsed=unparsed,
        tie_rule=TIE_RULE,
    )


def grade_run(
    stores: ComponentStores, run_id: str, graders: Sequence[ModelEndpoint], **kwargs: Any
) -> GradingResult:
    """Synchronous entry point (CLI, a page's job thread)."""
    return asyncio.run(grade_run_async(stores, run_id, graders, **kwargs))


def load_grading(stores: ComponentStores, grading_id: str) -> GradingResult:
    """A stored grading's result as it was computed.

    Raises:
        GradingError: no such grading, or one that never finished.
    """
    record = stores.gradings.get(grading_id)
    if record is None:
        raise GradingError(f"no grading {grading_id!r} in this database")
    if record["result"] is None:
        raise GradingError(f"grading {grading_id} has no result (it stopped before its verdicts were summed)")
    return GradingResult.model_validate(record["result"])
