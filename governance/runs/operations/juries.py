"""Scoring a finished free-text run with the LLM jury from the app: judges, estimate, job, evidence.

Why here and shaped so: ``medassure jury`` and the Run evidence page must judge a run the same
way, so the pass itself is ``evaluator.jury.panel.run_jury`` (the function the CLI calls, with
its dataset check and any gate it applies), run as a ``jury`` job of the one job manager under
the CLI's job key, so a page and a terminal judging the same run share one live job. What this
module adds is what a form needs before anything is sent: which runs a jury applies to (the
benchmark has a jury block or free-text answers), the judges offered (the benchmark's jury, else
MedHELM's vendor trio, then the dossier's candidate endpoints), a dry-run estimate per judge from
the same prompts and cache keys the first pass will use, and the jury's result turned into
Evidence (scale 1-5, ``n_unscored`` and the reasons in its caveat) attached as a new version.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from evaluator.benchmarks.specs import BenchmarkError, get_benchmark
from evaluator.evidence.record import Evidence
from evaluator.jury.panel import (
    DEFAULT_JUDGES,
    JuryConfig,
    JuryError,
    jury_config_for,
    load_jury_summary,
    skipped_reasons,
)
from evaluator.jury.passes import JudgeSpec
from evaluator.jury.prompt import judge_messages
from evaluator.jury.rubrics import get_rubric
from evaluator.jury.scores import JurySummary
from evaluator.loaders import DatasetError, get_loader
from evaluator.runs.jobs import JOBS, Job, JobManager
from evaluator.runs.phi_gate import run_attestation
from evaluator.runs.plan import estimate_run
from evaluator.runs.runner import RunOptions
from evaluator.runs.store import sha256_of
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage, DossierVersion
from governance.evidence.attach import attach_evidence
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require, update_as
from governance.runs.operations.jobs import key_problem, stored_request
from governance.runs.operations.jury_cases import JuryCases, jury_cases
from governance.runs.operations.view import _subcategory
from governance.scenarios.operations.local import labelled_evidence


class JuryRunError(ValueError):
    """A jury that cannot be planned or started as asked, with a message for the form."""


def jury_applies(benchmark_id: str) -> bool:
    """Whether a run of this benchmark has free-text answers a jury can score.

    Example:
        >>> jury_applies("medication_qa"), jury_applies("calc_builtin")
        (True, False)
    """
    try:
        spec = get_benchmark(benchmark_id)
    except BenchmarkError:
        return False
    return spec.jury is not None or spec.answer_type == "free_text"


def vendor(model: str) -> str:
    """The vendor a litellm model string belongs to, for the vendor-diversity check.

    Example:
        >>> vendor("together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo"), vendor("gpt-4o")
        ('meta-llama', 'openai')
    """
    parts = model.lower().split("/")
    if parts[0] in ("together_ai", "bedrock", "vertex_ai", "openrouter", "azure_ai") and len(parts) > 2:
        return parts[1]
    if len(parts) > 1:
        return parts[0]
    for prefix, name in (("gpt", "openai"), ("o1", "openai"), ("o3", "openai"), ("claude", "anthropic"),
                         ("llama", "meta-llama"), ("gemini", "google")):
        if parts[0].startswith(prefix):
            return name
    return parts[0]


def default_judges(benchmark_id: str) -> list[str]:
    """The benchmark's own jury, else MedHELM's three vendors (OpenAI, Anthropic, Meta)."""
    try:
        settings = get_benchmark(benchmark_id).jury
    except BenchmarkError:
        settings = None
    return list(settings.judges if settings else DEFAULT_JUDGES)


def judge_options(dossier: Dossier, benchmark_id: str) -> list[str]:
    """Judges to choose from: the defaults, MedHELM's trio, then the dossier's candidate endpoints."""
    endpoints = [c.endpoint.model for c in dossier.candidates if c.endpoint is not None]
    return list(dict.fromkeys([*default_judges(benchmark_id), *DEFAULT_JUDGES, *endpoints]))


class JuryRequest(BaseModel):
    """What the form asks for: the run, the judges and how to reach them (a key's variable NAME only)."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    """The candidate run to judge."""
    judges: tuple[str, ...]
    """litellm model strings of the judges (three or more, different models)."""
    api_base: str | None = None
    """One OpenAI-compatible server for every judge (None: each provider's own)."""
    api_key_env: str | None = None
    """Name of the environment variable holding the judges' key."""
    dataset_path: str | None = None
    """The dataset file the run was made on (None: built in, or the one stored with the run)."""
    concurrency: int = Field(default=8, ge=1)
    """Judge requests in flight."""
    max_cost_usd: float | None = Field(default=None, gt=0)
    """Stop before the jury's new spending passes this (every judge needs a price)."""
    phi_approved: bool = False
    """The judges' endpoints are approved for PHI (else the PHI gate asks for a de-identification
    attestation of the run's cases)."""
    batch: bool = False
    """Send the judge requests as provider batches at the batch rate (``RunOptions.batch``; no cost cap)."""
    method: Literal["medhelm", "helm-0.5", "strict"] | None = None
    """``medhelm`` (MedHELM's arithmetic, medhelm 0.8.0), ``helm-0.5`` (crfm-helm 0.5.16's) or ``strict``
    (ours); None: the benchmark's default."""


class JudgeEstimate(BaseModel):
    """The first pass of one judge, before sending anything."""

    judge: str
    """Judge model."""
    vendor: str
    """Its vendor."""
    n_to_send: int
    """Judge requests to send (cached ones are free)."""
    n_cached: int
    """Judge requests the response cache answers."""
    prompt_tokens: int
    """Prompt tokens of the requests to send."""
    completion_tokens_max: int
    """Upper bound: requests × the judge's max tokens."""
    cost_usd_max: float | None
    """Upper-bound USD (None: no price known for this judge)."""
    price_source: str | None
    """Where the price comes from."""


class JuryPlan(BaseModel):
    """The dry run of a jury: what it would judge and send, and what stands in its way."""

    request: JuryRequest
    """The request estimated."""
    benchmark_id: str
    """Benchmark of the candidate run."""
    candidate_model: str
    """Model whose responses are judged."""
    rubric_id: str
    """Rubric the judges apply."""
    method: str = "strict"
    """The jury's headline method (``medhelm`` or ``strict``)."""
    max_tokens: int = 1024
    """Output budget per judge reply under that method."""
    n_instances: int
    """Answered instances of the run."""
    n_judged: int
    """Instances with a response to judge."""
    skipped: dict[str, int]
    """Instances not sent to the judges, by reason."""
    judges: list[JudgeEstimate]
    """One estimate per judge."""
    cost_usd_max: float | None
    """Sum over judges (None when a judge has no known price)."""
    n_vendors: int
    """Distinct vendors among the judges (MedHELM uses three)."""
    key_problems: list[str]
    """Why a judge's key cannot be read (the jury would fail those requests)."""
    note: str = ("upper bound: every judge reply counted at its full max_tokens; repair requests for "
                 "unreadable replies and retries are not included")
    """How to read the figures."""


def _config(request: JuryRequest, spec: Any) -> JuryConfig:
    try:
        config = jury_config_for(spec, list(request.judges), request.api_base or None,
                                 request.api_key_env or None, request.concurrency, method=request.method)
    except (JuryError, ValueError) as exc:
        raise JuryRunError(str(exc)) from None
    if request.phi_approved:  # as ``medassure jury --phi-approved``
        config = config.model_copy(update={"judges": tuple(j.model_copy(update={"phi_approved": True})
                                                           for j in config.judges)})
    return config


def _inputs(store: DossierStorage, request: JuryRequest) -> tuple[dict[str, Any], JuryCases, JuryConfig]:
    """The run, its cases (the dataset given or stored, or the scenario version's) and the jury config."""
    with store.for_thread() as db:
        run = db.runs.get_run(request.run_id)
        if run is None:
            raise JuryRunError(f"no run {request.run_id!r} in this database")
        if str(run["benchmark_id"]).startswith("jury:"):
            raise JuryRunError(f"{request.run_id} is a judge run; pick the run of the model being judged")
        path = request.dataset_path or run_dataset_path(store, run["run_key"])
        try:
            cases = jury_cases(db, run, path)
        except (BenchmarkError, DatasetError) as exc:
            raise JuryRunError(str(exc)) from None
    return run, cases, _config(request, cases.spec)


def run_jury_applies(store: DossierStorage, run_id: str, benchmark_id: str) -> bool:
    """``jury_applies`` for a stored run: a local scenario's run when it holds a free-text case."""
    if jury_applies(benchmark_id):
        return True
    with store.for_thread() as db:
        version = db.scenarios.version_of_run(run_id)
        cases = db.scenarios.instances(version.scenario_id, version.version) if version else []
    return any(i.answer_type == "free_text" for i in cases)


def needs_dataset_file(store: DossierStorage, record: Any) -> bool:
    """Whether the jury form must ask for the run's dataset file (not built in, not stored, no scenario)."""
    if run_dataset_path(store, record.run_key) is not None:
        return False
    with store.for_thread() as db:
        if db.scenarios.version_of_run(record.run_id) is not None:
            return False
    try:
        spec = get_benchmark(record.benchmark_id)
    except BenchmarkError:
        return False
    return get_loader(spec.loader).needs_file and not spec.dataset_path


def run_dataset_path(store: DossierStorage, run_key: str) -> str | None:
    """The dataset file stored with the run's request (None: built in, or not stored)."""
    request = stored_request(store, run_key)
    return request.dataset_path if request is not None else None


def plan_jury(store: DossierStorage, request: JuryRequest) -> JuryPlan:
    """Estimate the jury without sending anything: per judge, requests, tokens and upper-bound cost.

    The prompts and cache keys are the first pass's own, so judge replies already in the cache
    (an earlier jury over the same responses) are counted as free.

    Raises:
        JuryRunError: unknown run, unreadable dataset, fewer than three different judges.
    """
    run, cases, config = _inputs(store, request)
    instances = cases.instances
    rubric = get_rubric(config.rubric_id)
    judge_spec = JudgeSpec(id=f"jury:{run['benchmark_id']}", rubric_id=rubric.id,
                           rubric_hash=rubric.content_hash(), stage="judge", max_tokens=config.max_tokens)
    with store.for_thread() as db:
        results = {r["instance_id"]: r for r in db.runs.results(request.run_id)}
        known = [i for i in instances if i.id in results]
        if len(known) < len(results):
            raise JuryRunError(f"{len(results) - len(known)} instance(s) of run {request.run_id} are not in "
                               "the dataset given; give the dataset file the run was made on")
        reasons = skipped_reasons(known, results, cases.not_judged)
        judged = [i for i in known if i.id not in reasons]
        texts = {i.id: results[i.id]["response_text"] for i in judged}
        estimates = []
        for endpoint in config.judges:
            est = estimate_run(judge_spec, judged, endpoint, store=db.runs,
                               render=lambda _s, i: judge_messages(rubric, i, texts[i.id]))
            estimates.append(JudgeEstimate(
                judge=endpoint.model, vendor=vendor(endpoint.model), n_to_send=est.n_to_send,
                n_cached=est.n_cached + est.n_already_done, prompt_tokens=est.prompt_tokens,
                completion_tokens_max=est.completion_tokens_max, cost_usd_max=est.cost_usd_max,
                price_source=est.price_source))
    costs = [e.cost_usd_max for e in estimates]
    problems = [p for p in (key_problem(j) for j in config.judges) if p]
    return JuryPlan(request=request, benchmark_id=run["benchmark_id"], candidate_model=run["model"],
                    rubric_id=rubric.id, method=config.method, max_tokens=config.max_tokens,
                    n_instances=len(known), n_judged=len(judged),
                    skipped=dict(Counter(reasons.values())), judges=estimates,
                    cost_usd_max=None if None in costs else sum(costs),
                    n_vendors=len({e.vendor for e in estimates}), key_problems=problems)


def jury_job_key(run_id: str, config: JuryConfig) -> str:
    """The CLI's key: one live jury per run and jury configuration."""
    return f"jury:{run_id}:{sha256_of(config.model_dump(mode='json'))[:12]}"


def start_jury(store: DossierStorage, request: JuryRequest, jobs: JobManager = JOBS, *,
               actor: Actor | None = None) -> Job:
    """Start (or resume) the jury in the background; returns its job (the live one if it works already).

    A stopped jury started again sends only what is not cached: judge replies already paid for
    are answered from the response cache. The job's ``brief`` holds the ``jury_id``.

    Raises:
        JuryRunError: as ``plan_jury``, or a judge's key variable that is not set.
    """
    require((actor or Actor.named()).identity, "editor", "start a jury (paid judge calls)")
    _, cases, config = _inputs(store, request)
    instances = cases.instances
    problems = [p for p in (key_problem(j) for j in config.judges) if p]
    if problems:
        raise JuryRunError("; ".join(problems))
    options = RunOptions(concurrency=request.concurrency, max_cost_usd=request.max_cost_usd,
                         batch=request.batch)
    with store.for_thread() as db:  # the PHI gate of run_jury lets attested cases through
        attestation = run_attestation(db, request.run_id, request.dataset_path)

    def work(db: DossierStorage, job: Job) -> JurySummary:
        from evaluator.jury.panel import run_jury

        def progress(done: int, total: int, row: dict[str, Any] | None) -> None:
            note = f"{row['judge']} ({row['stage']})" if row else None
            job.on_progress(done, total, None, note=note)

        summary = run_jury(db, request.run_id, instances, config, on_progress=progress, options=options,
                           cancel=job.cancel_event, attestation=attestation, not_judged=cases.not_judged,
                           stored_cases=cases.scenario is not None)
        job.set_brief({"jury_id": summary.jury_id, "status": summary.status, "n_scored": summary.n_scored,
                       "n_unscored": summary.n_unscored})
        return summary

    return jobs.start(store, "jury", jury_job_key(request.run_id, config), work,
                      total=len(instances) * len(config.judges), label=f"jury of {request.run_id}",
                      request=request)


def run_juries(store: DossierStorage, run_id: str) -> list[JurySummary]:
    """The stored juries of a candidate run, newest first, each recomputed from its judgements."""
    with store.for_thread() as db:
        ids = [j["jury_id"] for j in db.juries.list_juries() if j["run_id"] == run_id]
        return [load_jury_summary(db.juries, i) for i in ids]


def jury_evidence(
    summary: JurySummary,
    dossier: Dossier | None = None,
    date: datetime | None = None,
    scenario_subcategories: list[str] | None = None,
) -> list[Evidence]:
    """The jury's Evidence (provenance ``local-run``), tagged with the dossier's matching subcategory.

    A jury of a local scenario's run takes the subcategories the scenario is mapped to
    (``scenario_subcategories``), as the scenario's own evidence does, so the coverage map and the
    rules count it for the job; a benchmark's jury takes the benchmark's accepted subcategory.
    """
    found = summary.to_evidence(date=date or datetime.now(UTC))
    if scenario_subcategories:
        return [labelled_evidence(e, scenario_subcategories) for e in found]
    extra = _subcategory(summary.benchmark_id, dossier)
    return [e.model_copy(update=extra) for e in found]


def attach_jury(store: DossierStorage, dossier_id: str, jury_id: str, *,
                actor: Actor) -> DossierVersion:
    """Attach a completed jury's score as evidence (a new version authored by ``actor``).

    Raises:
        JuryRunError: no such jury, a jury that stopped early (start it again to finish), or nothing scored.
    """
    require(actor.identity, "editor", "attach a jury as evidence", dossier_id)
    with store.for_thread() as db:
        record = db.juries.get(jury_id)
        if record is None:
            raise JuryRunError(f"no stored jury {jury_id!r}")
        summary = load_jury_summary(db.juries, jury_id)
        scenario = db.scenarios.version_of_run(summary.run_id)
    subcategories = list(scenario.subcategory_ids) if scenario is not None else None
    if summary.status != "completed":
        raise JuryRunError(f"jury {jury_id} is {summary.status}: start it again to finish (judge replies "
                           "already paid for come from the cache) before attaching")
    def attach(current: Dossier) -> Dossier:
        evidence = jury_evidence(summary, current, record.get("finished_at") or record["created_at"],
                                 scenario_subcategories=subcategories)
        if not evidence:
            raise JuryRunError(f"jury {jury_id} scored no instance: {summary.unscored_reasons}")
        return attach_evidence(current, evidence, by=actor.name)

    # onto the latest version, in one step: a change another reviewer saved meanwhile is kept
    return update_as(store, actor, dossier_id, attach, action="attach a jury as evidence",
                     note=f"evidence: attached LLM jury {jury_id} of run {summary.run_id} "
                          f"({summary.benchmark_id} × {summary.candidate_model}; "
                          f"{summary.n_unscored} unscored)")


def attached_first(juries: list[dict[str, Any]], dossier: Dossier) -> list[dict[str, Any]]:
    """Stored juries with those whose score is attached to the dossier first (order otherwise kept).

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="demo", owner="me", intended_use=example_intended_use())
        >>> [j["jury_id"] for j in attached_first([{"jury_id": "a"}, {"jury_id": "b"}], d)]
        ['a', 'b']
    """
    attached = {e.source for e in dossier.evidence
                if e.metric == "jury_score" and e.provenance == "local-run"}
    return sorted(juries, key=lambda j: j["jury_id"] not in attached)
