"""Rubric grading from the Local scenarios page: what a run offers, the estimate, the job, the results.

Why here and shaped so: the page must grade a run exactly as ``medassure grade`` does, so its job
calls the CLI's operation (``grading.grade_scenario_run``, with its role check, endpoints, key check
and the PHI gate of ``evaluator.grading``) in the one job manager, under a key per run and grader
panel so a rerun of the page finds the live job. What this module adds is what a form needs before
anything is sent: whether the run's cases carry rubrics at all (else the page says so plainly), a
dry-run estimate per grader priced from the very prompts and cache keys the grading will use
(criteria × responses per grader; replies already in the cache are free), and the stored gradings
of a run, shown as they were computed.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from evaluator.grading import GradingError, GradingResult, load_grading
from evaluator.grading.grade import GraderSpec, grader_items, grading_inputs
from evaluator.runs.jobs import JOBS, Job, JobManager
from evaluator.runs.plan import estimate_run
from evaluator.runs.store import sha256_of
from governance.dossier.storage import DossierStorage
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require
from governance.scenarios.operations.grading import (
    GradeRequest,
    grade_scenario_run,
    grader_endpoints,
    key_problem,
)


class RubricCoverage(BaseModel):
    """How many of a scenario run's answered cases carry a rubric (the page grades only those)."""

    n_free_text: int
    """Answered free-text cases of the run."""
    n_rubric: int
    """Answered cases with rubric criteria."""
    n_criteria: int
    """Criteria over those cases (one grader call each, per grader)."""


class GraderEstimate(BaseModel):
    """One grader's pass, before sending anything."""

    grader: str
    """Grader model."""
    n_to_send: int
    """Grader requests to send (cached ones are free)."""
    n_cached: int
    """Requests the response cache (or an earlier pass) answers."""
    prompt_tokens: int
    """Prompt tokens of the requests to send."""
    cost_usd_max: float | None
    """Upper-bound USD (None: no price known for this grader)."""
    price_source: str | None
    """Where the price comes from."""


class GradingPlan(BaseModel):
    """The dry run of a grading: calls, tokens and cost per grader, and what stands in its way."""

    request: GradeRequest
    """The request estimated."""
    candidate_model: str
    """Model whose responses are graded."""
    n_responses: int
    """Answered rubric cases (responses to grade)."""
    n_criteria: int
    """Criteria over those cases."""
    graders: list[GraderEstimate]
    """One estimate per grader."""
    cost_usd_max: float | None
    """Sum over graders (None when a grader has no known price)."""
    key_problems: list[str] = Field(default_factory=list)
    """Why a grader's key cannot be read (nothing is started until it can)."""
    note: str = "upper bound: every grader reply counted at its full max_tokens; retries are not included"
    """How to read the figures."""


def rubric_coverage(store: DossierStorage, run_id: str) -> RubricCoverage | None:
    """The run's answered free-text and rubric cases; None when it is not a local-scenario run."""
    with store.for_thread() as db:
        version = db.scenarios.version_of_run(run_id)
        if version is None:
            return None
        answered = {r["instance_id"] for r in db.runs.results(run_id) if r["error"] is None}
        cases = [c for c in db.scenarios.instances(version.scenario_id, version.version) if c.id in answered]
    rubric = [c for c in cases if c.rubric]
    return RubricCoverage(n_free_text=sum(c.answer_type == "free_text" for c in cases), n_rubric=len(rubric),
                          n_criteria=sum(len(c.rubric) for c in rubric))


def plan_grading(store: DossierStorage, request: GradeRequest) -> GradingPlan:
    """Estimate the grading without sending anything: per grader, requests, tokens and upper-bound cost.

    Raises:
        GradingError: unknown run, not a scenario run, no answered rubric case, a grader named twice.
    """
    endpoints = grader_endpoints(request, check_keys=False)
    with store.for_thread() as db:
        run, _, cases, results = grading_inputs(db, request.run_id)
        answered = [c for c in cases if results[c.id]["error"] is None]
        items = grader_items(answered, {c.id: results[c.id]["response_text"] or "" for c in answered})
        spec = GraderSpec(id=f"grade:{run['benchmark_id']}")
        estimates = []
        for endpoint in endpoints:
            est = estimate_run(spec, items.pseudo, endpoint, store=db.runs,
                               render=lambda _s, i: items.messages[i.id])
            estimates.append(GraderEstimate(
                grader=endpoint.model, n_to_send=est.n_to_send, n_cached=est.n_cached + est.n_already_done,
                prompt_tokens=est.prompt_tokens, cost_usd_max=est.cost_usd_max,
                price_source=est.price_source))
    costs = [e.cost_usd_max for e in estimates]
    return GradingPlan(request=request, candidate_model=run["model"], n_responses=len(answered),
                       n_criteria=len(items.pseudo), graders=estimates,
                       cost_usd_max=None if None in costs else sum(costs),
                       key_problems=list(dict.fromkeys(p for p in map(key_problem, endpoints) if p)))


def grading_job_key(request: GradeRequest) -> str:
    """One live grading per run and grader panel (and server)."""
    panel = {"graders": list(request.graders), "api_base": request.api_base}
    return f"grading:{request.run_id}:{sha256_of(panel)[:12]}"


def start_grading(store: DossierStorage, request: GradeRequest, jobs: JobManager = JOBS, *,
                  actor: Actor) -> Job:
    """Start (or resume) the grading in the background; returns its job (the live one if it works already).

    The job calls ``grade_scenario_run``, the CLI's operation; a grading started again after a stop
    sends only what is not in the cache. The job's ``brief`` holds the ``grading_id``.

    Raises:
        PermissionDenied: the actor is not an editor.
        GradingError: as ``plan_grading``, or a grader's key variable that is not set.
    """
    require(actor.identity, "editor", "grade a run against its rubrics (paid grader calls)")
    plan = plan_grading(store, request)
    if plan.key_problems:
        raise GradingError("; ".join(plan.key_problems))

    def work(db: Any, job: Job) -> GradingResult:
        def progress(done: int, total: int, row: dict[str, Any] | None) -> None:
            job.on_progress(done, total, None, note=(row or {}).get("grader"))

        result = grade_scenario_run(db, request, actor=actor, on_progress=progress, cancel=job.cancel_event)
        job.set_brief({"grading_id": result.grading_id, "status": result.status, "n": result.n})
        return result

    return jobs.start(store, "grading", grading_job_key(request), work,
                      total=plan.n_criteria * len(request.graders), label=f"grading of {request.run_id}",
                      request=request)


def run_gradings(store: DossierStorage, run_id: str) -> list[GradingResult]:
    """The gradings of a run that have a result, newest first, as they were stored."""
    with store.for_thread() as db:
        found = []
        for row in db.gradings.list_gradings(run_id):
            try:
                found.append(load_grading(db, row["grading_id"]))
            except GradingError:  # one that broke off before its verdicts were summed
                continue
        return found
