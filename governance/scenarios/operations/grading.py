"""Grading a local scenario run against its cases' rubrics, from the CLI and the page's job.

Why here: grading is the scenario concept's way of scoring free-text cases, so the operation (role
check, the graders' endpoints from a model list and one server, keys checked before anything is
sent) sits with the scenario's other operations; the passes and HealthBench's rule are
``evaluator.grading``. A grading is paid work on the committee's behalf: editors start it. A
completed grading attaches to a dossier as the scenario's evidence for its candidate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from evaluator.gateway.errors import LLMError
from evaluator.gateway.llm import ModelEndpoint, api_key_for
from evaluator.grading import GradingError, GradingResult, grade_run, load_grading
from evaluator.grading.evidence import grading_evidence
from evaluator.phi.attestation import DeidentificationAttestation
from evaluator.runs.runner import RunOptions
from governance.dossier.storage import DossierStorage, DossierVersion
from governance.evidence.attach import attach_evidence
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require, update_as
from governance.scenarios.operations.local import labelled_evidence


class GradeRequest(BaseModel):
    """What ``medassure grade`` asks for: the run, the graders and how to reach them (a key's NAME only)."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    """The scenario run whose responses are graded."""
    graders: tuple[str, ...] = Field(min_length=1)
    """litellm model strings of the graders; with several, a criterion is met when most say so."""
    api_base: str | None = None
    """One OpenAI-compatible server for every grader (None: each provider's own)."""
    api_key_env: str | None = None
    """Name of the environment variable holding the graders' key."""
    concurrency: int = Field(default=8, ge=1)
    """Grader requests in flight."""
    phi_approved: bool = False
    """The graders' endpoints are approved for PHI (else the PHI gate asks for an attestation)."""
    batch: bool = False
    """Send the grader requests as provider batches at the batch rate (``RunOptions.batch``)."""


def key_problem(endpoint: ModelEndpoint) -> str | None:
    try:
        api_key_for(endpoint)
    except LLMError as exc:
        return str(exc)
    return None


def grader_endpoints(request: GradeRequest, *, check_keys: bool = True) -> list[ModelEndpoint]:
    """The graders as endpoints (an estimate lists key problems instead: ``check_keys=False``).

    Raises:
        GradingError: a grader named twice, or a key variable that cannot be read.
    """
    if len(set(request.graders)) != len(request.graders):
        raise GradingError(f"each grader may be named once: {', '.join(request.graders)}")
    endpoints = [
        ModelEndpoint(
            name=m,
            model=m,
            api_base=request.api_base,
            api_key_env=request.api_key_env,
            max_concurrency=request.concurrency,
            phi_approved=request.phi_approved,
        )
        for m in request.graders
    ]
    problems = [p for p in (key_problem(e) for e in endpoints) if p] if check_keys else []
    if problems:
        raise GradingError("; ".join(dict.fromkeys(problems)))
    return endpoints


def grade_scenario_run(
    store: DossierStorage,
    request: GradeRequest,
    *,
    actor: Actor,
    on_progress: Callable[[int, int, dict[str, Any] | None], None] | None = None,
    attestation: DeidentificationAttestation | None = None,
    cancel: Any = None,
) -> GradingResult:
    """Grade the run's responses against each case's rubric and store the grading.

    ``cancel`` (a ``threading.Event``, the page's job) stops it after the requests in flight.

    Raises:
        PermissionDenied: the actor is not an editor.
        GradingError: unknown run, not a scenario run, no rubric case, a grader's key missing.
        PhiBlocked: identifiers bound for a grader not approved for PHI, and no attestation.
    """
    require(actor.identity, "editor", "grade a run against its rubrics (paid grader calls)")
    endpoints = grader_endpoints(request)
    return grade_run(
        store,
        request.run_id,
        endpoints,
        options=RunOptions(concurrency=request.concurrency, batch=request.batch),
        on_progress=on_progress,
        attestation=attestation,
        cancel=cancel,
    )


def attach_grading(
    store: DossierStorage, dossier_id: str, grading_id: str, *, actor: Actor
) -> DossierVersion:
    """Attach a completed grading as the scenario's evidence for its candidate (a new version by ``actor``).

    The Evidence is the clipped mean case score on scale 0-1 with n and a BCa interval for a mean
    (``evaluator.grading.evidence``), labelled with the scenario's subcategories. Attaching it again
    adds nothing and saves no new version.

    Raises:
        PermissionDenied: the actor is not an editor of the dossier.
        DossierNotFound: no such dossier.
        GradingError: no such grading, one that stopped early, or one that scored no case.
    """
    require(actor.identity, "editor", "attach a grading as evidence", dossier_id)
    store.load(dossier_id)  # an unknown dossier is refused before anything else is read
    result = load_grading(store, grading_id)
    if result.status != "completed":
        raise GradingError(
            f"grading {grading_id} is {result.status}: run `medassure grade` again to finish it "
            "(grader replies already paid for come from the cache) before attaching"
        )
    with store.for_thread() as db:
        version = (
            db.scenarios.get(result.scenario_id, result.scenario_version)
            if result.scenario_id and result.scenario_version
            else None
        )
    if version is None:
        raise GradingError(f"grading {grading_id} names no stored scenario version")
    evidence = grading_evidence(result, f"{version.scenario_id}_v{version.version}")
    if evidence is None:
        raise GradingError(f"grading {grading_id} scored no case: nothing to attach")
    evidence = labelled_evidence(evidence, version.subcategory_ids)
    return update_as(
        store,
        actor,
        dossier_id,
        lambda d: attach_evidence(d, [evidence], by=actor.name),
        action="attach a grading as evidence",
        note=f"evidence: attached rubric grading {grading_id} of run {result.run_id} "
        f"({result.candidate_model}; score {result.score:.3f} over {result.n} cases)",
    )
