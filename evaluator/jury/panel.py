"""The LLM jury: three or more judge models score a run's free-text responses on a rubric.

Why through the runner: a judge call is a model call like any other, so each judge pass is an
ordinary run of ``evaluator.runs.runner`` (its "benchmark" is a ``JudgeSpec``, its prompts are the
fenced judge prompts of ``evaluator.jury.prompt``). That gives the jury the response cache (a
second jury over the same responses costs nothing), retries with Retry-After, resuming, cost
accounting, the budget and progress, with no second copy of any of it. Judges run one after the
other so that one budget spans the whole jury and one process writes DuckDB.

A judge reply that cannot be read gets exactly one repair request (a second pass over just those
instances, asking for the JSON only); if that still fails, or the call itself failed, the
judgement is unscored with its reason. Scores and reasons go to ``evaluator.jury.store``;
``evaluator.jury.scores`` turns them into instance scores, breakdowns and Evidence. Defaults
follow MedHELM: three vendors (OpenAI, Anthropic, Meta's Llama), temperature 0. The jury's
``method`` (``medhelm`` on MedHELM's own benchmarks, ``strict`` on local scenarios) picks the
headline reading and the judges' output budget (HELM's 4,096 tokens, or our 1,024); ``helm-0.5``
reproduces the older crfm-helm 0.5.16 arithmetic. Every reading is recorded either way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import duckdb
from pydantic import BaseModel, ConfigDict, Field, model_validator

from evaluator.benchmarks.instance import Instance
from evaluator.gateway.llm import ModelEndpoint
from evaluator.jury.medhelm import METHODS, JuryMethod, default_jury_method, max_tokens_for
from evaluator.jury.passes import JudgeSpec, JudgeTally, Progress, judge_one
from evaluator.jury.rubrics import DEFAULT_RUBRIC, get_rubric
from evaluator.jury.scores import NOT_JUDGED, JurySummary, summarize_jury
from evaluator.jury.store import JuryStore
from evaluator.phi.attestation import DeidentificationAttestation
from evaluator.runs.phi_gate import require_phi_clearance, run_attestation
from evaluator.runs.runner import RunOptions
from evaluator.runs.store import RunStore, sha256_of
from evaluator.storage.db import is_raw_connection

if TYPE_CHECKING:
    from evaluator.storage.components import ComponentStores


def as_stores(con: Any) -> ComponentStores:
    """The component stores over ``con`` (a raw connection in evaluator tests)."""
    from evaluator.storage.components import as_stores as wrap

    return wrap(con)


DEFAULT_JUDGES = (
    "openai/gpt-4o-2024-05-13",
    "anthropic/claude-3-7-sonnet-20250219",
    "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
)
MIN_JUDGES = 3


class JuryError(ValueError):
    """A jury that cannot be run as asked, with a message for the user."""


class JuryConfig(BaseModel):
    """Which judges, which rubric, which method, how long a reply may be."""

    model_config = ConfigDict(frozen=True)

    judges: tuple[ModelEndpoint, ...] = Field(min_length=MIN_JUDGES)
    """Judge endpoints; at least three, each a different model."""
    rubric_id: str = DEFAULT_RUBRIC
    """Rubric id in ``data/rubrics``."""
    method: JuryMethod = "strict"
    """Headline reading: ``medhelm`` (MedHELM's arithmetic, medhelm 0.8.0), ``helm-0.5`` (crfm-helm
    0.5.16's) or ``strict`` (ours)."""
    max_tokens: int = Field(default=0, ge=0)
    """Output budget per judge reply; 0 (default): the method's, 4,096 MedHELM's, 1,024 ``strict``."""

    @model_validator(mode="after")
    def _budget(self) -> JuryConfig:
        if not self.max_tokens:
            object.__setattr__(self, "max_tokens", max_tokens_for(self.method))
        return self

    @model_validator(mode="after")
    def _distinct(self) -> JuryConfig:
        names = [j.model for j in self.judges]
        if len(set(names)) != len(names):
            raise ValueError(f"judges must be different models; got {names}")
        return self


def judge_endpoints(
    models: Sequence[str], api_base: str | None = None, api_key_env: str | None = None, concurrency: int = 8
) -> tuple[ModelEndpoint, ...]:
    """Endpoints for judge model strings (one server for all when ``api_base`` is given).

    Example:
        >>> [e.model for e in judge_endpoints(["openai/a", "openai/b"], "http://127.0.0.1:9/v1")]
        ['openai/a', 'openai/b']
    """
    return tuple(
        ModelEndpoint(
            name=m, model=m, api_base=api_base, api_key_env=api_key_env, max_concurrency=concurrency
        )
        for m in models
    )


def jury_config_for(
    spec: Any | None,
    judges: Sequence[str] | None = None,
    api_base: str | None = None,
    api_key_env: str | None = None,
    concurrency: int = 8,
    method: str | None = None,
) -> JuryConfig:
    """The jury for a benchmark: judges given > the spec's jury block > ``DEFAULT_JUDGES``; the
    method given, else ``medhelm`` for a MedHELM benchmark and ``strict`` otherwise.

    Raises:
        JuryError: fewer than three distinct judges, an unknown rubric or method, or a spec whose
            criteria differ from its rubric's.

    Example:
        >>> jury_config_for(None).rubric_id
        'default'
    """
    settings = getattr(spec, "jury", None)
    models = list(judges or (settings.judges if settings else DEFAULT_JUDGES))
    rubric_id = settings.rubric if settings else DEFAULT_RUBRIC
    try:
        rubric = get_rubric(rubric_id)
    except ValueError as exc:
        raise JuryError(str(exc)) from None
    if settings and (
        tuple(settings.criteria) != rubric.criterion_names
        or (settings.scale_min, settings.scale_max) != (rubric.scale_min, rubric.scale_max)
    ):
        raise JuryError(
            f"benchmark {spec.id!r} lists criteria {list(settings.criteria)} on "
            f"{settings.scale_min}-{settings.scale_max} but rubric {rubric_id!r} has "
            f"{list(rubric.criterion_names)} on {rubric.scale}"
        )
    if len(set(models)) < MIN_JUDGES:
        raise JuryError(f"a jury needs at least {MIN_JUDGES} different judge models; got {models}")
    method = method or (default_jury_method(spec.id) if spec is not None else "strict")
    if method not in METHODS:
        raise JuryError(f"unknown jury method {method!r}; known methods: {', '.join(METHODS)}")
    return JuryConfig(judges=judge_endpoints(models, api_base, api_key_env, concurrency), rubric_id=rubric_id,
                      method=method)


def check_dataset(run: dict[str, Any], result_ids: set[str], instances: Sequence[Instance], *,
                  verify_hash: bool = True) -> list[Instance]:
    """The run's instances, in load order, verified against the run's dataset hash.

    ``verify_hash=False`` for cases read from the run's own stored scenario version (they are what
    the run was made on by construction; an offline demo run records the version's hash instead).

    Raises:
        JuryError: an answered instance is missing from ``instances``, or their content differs
            from what the run was made on.
    """
    chosen = [i for i in instances if i.id in result_ids]
    missing = result_ids - {i.id for i in chosen}
    if missing:
        raise JuryError(
            f"{len(missing)} instance(s) of run {run['run_id']} are not in the dataset given "
            f"(e.g. {sorted(missing)[:3]}); pass the dataset file the run was made on"
        )
    if (
        verify_hash
        and run.get("dataset_hash")
        and sha256_of([i.model_dump(mode="json") for i in chosen]) != run["dataset_hash"]
    ):
        raise JuryError(
            f"the dataset given differs from the one run {run['run_id']} was made on "
            "(its instances' content hash does not match)"
        )
    return chosen


async def run_jury_async(
    con: duckdb.DuckDBPyConnection | ComponentStores,
    run_id: str,
    instances: Sequence[Instance],
    config: JuryConfig,
    *,
    options: RunOptions | None = None,
    on_progress: Progress | None = None,
    cancel: Any = None,
    attestation: DeidentificationAttestation | None = None,
    not_judged: Mapping[str, str] | None = None,
    stored_cases: bool = False,
) -> JurySummary:
    """Judge every answered instance of ``run_id`` with each judge of ``config``; see the module docstring.

    ``con`` is the component stores (the dossier ``Store`` is one) or, inside the evaluator and its
    tests, a raw DuckDB connection. The judges read the cases and the candidate's outputs, so both
    pass the PHI gate (``evaluator.runs.phi_gate``) for every judge before the jury is created;
    ``attestation`` (default: the one recorded for the run's dataset) lets de-identified cases through.
    ``not_judged`` (instance id -> reason; ``evaluator.jury.cases``) keeps cases from the judges: they
    are recorded unscored with that reason (a local scenario's multiple-choice cases); ``stored_cases``
    says the instances are the run's stored scenario version (``check_dataset`` without the hash).

    Raises:
        JuryError: unknown run, instances that do not match the run, or a budget with an unpriced judge.
        PhiBlocked: likely identifiers in the cases or outputs, a judge not approved for PHI, and no
            attestation; nothing is sent and no jury is recorded.
    """
    options = options or RunOptions()
    unpriced = [j.model for j in config.judges if j.price() is None]
    if options.max_cost_usd is not None and unpriced:
        raise JuryError(f"no price known for judge(s) {unpriced}; a budget needs every judge's price")
    if is_raw_connection(con):
        runs, juries = RunStore(con), JuryStore(con)
    else:
        runs, juries = con.journaled_runs, con.juries
    run = runs.get_run(run_id)
    if run is None:
        raise JuryError(f"no run {run_id!r} in this database")
    results = runs.results(run_id)
    chosen = check_dataset(run, {r["instance_id"] for r in results}, instances, verify_hash=not stored_cases)
    by_id = {r["instance_id"]: r for r in results}
    rubric = get_rubric(config.rubric_id)
    skipped = skipped_reasons(chosen, by_id, not_judged)
    judged = [i for i in chosen if i.id not in skipped]
    candidates = {i.id: by_id[i.id]["response_text"] for i in judged}
    stores = as_stores(con)
    check = require_phi_clearance(judged, config.judges, outputs=candidates,
                                  attestation=attestation or (lambda: run_attestation(stores, run_id)),
                                  generated=_generated(run["benchmark_id"]))
    options = replace(options, phi_check=check)
    jury_id = juries.create(
        run_id=run_id,
        benchmark_id=run["benchmark_id"],
        candidate_model=run["model"],
        rubric_id=rubric.id,
        rubric_hash=rubric.content_hash(),
        criteria=list(rubric.criterion_names),
        judges=[j.model for j in config.judges],
        method=config.method,
    )
    juries.add_instances(
        jury_id,
        [
            {
                "instance_id": i.id,
                "reference": i.reference,
                "response": by_id[i.id]["response_text"],
                "skipped_reason": skipped.get(i.id),
            }
            for i in chosen
        ],
    )
    spec = JudgeSpec(
        id=f"jury:{run['benchmark_id']}",
        rubric_id=rubric.id,
        rubric_hash=rubric.content_hash(),
        stage="judge",
        max_tokens=config.max_tokens,
    )
    tally = JudgeTally(len(judged) * len(config.judges), on_progress)
    status = "completed"
    try:
        for endpoint in config.judges:
            if not judged or (cancel is not None and cancel.is_set()):
                break
            rows, run_ids = await judge_one(
                runs, spec, endpoint, rubric, judged, candidates, options, tally, cancel
            )
            juries.add_judgements(jury_id, endpoint.model, run_ids, rows)
            if tally.statuses and tally.statuses[-1] != "completed":
                break
        status = next((s for s in tally.statuses if s != "completed"), "completed")
        if cancel is not None and cancel.is_set():
            status = "cancelled"
    except (asyncio.CancelledError, KeyboardInterrupt):
        status = "cancelled"
        raise
    finally:
        summary = load_jury_summary(
            juries,
            jury_id,
            status=status,
            cost_usd=tally.cost,
            new_requests=tally.new_requests,
            cache_hits=tally.cache_hits,
        )
        juries.finish(jury_id, status, summary.model_dump(mode="json", exclude={"instances"}))
    return summary


def skipped_reasons(chosen: Sequence[Instance], by_id: Mapping[str, Mapping[str, Any]],
                    not_judged: Mapping[str, str] | None = None) -> dict[str, str]:
    """Why each answered instance that is not sent to the judges is not (id -> reason).

    Example:
        >>> ok = {"response_text": "x", "error": None}
        >>> skipped_reasons([Instance(id="a"), Instance(id="b")], {"a": ok, "b": {**ok, "response_text": ""}})
        {'b': 'empty candidate response'}
    """
    out = {}
    for i in chosen:
        row = by_id[i.id]
        if not_judged and i.id in not_judged:
            out[i.id] = not_judged[i.id]
        elif row["error"] is not None:
            out[i.id] = "candidate call failed, no response"
        elif not (row["response_text"] or "").strip():
            out[i.id] = "empty candidate response"
    return out


def _generated(benchmark_id: str) -> bool:
    """True when the run's cases were generated by MedAssure (a built-in benchmark), not supplied."""
    from evaluator.benchmarks.specs import BenchmarkError, get_benchmark

    try:
        return get_benchmark(benchmark_id).access == "builtin"
    except BenchmarkError:
        return False


def run_jury(
    con: duckdb.DuckDBPyConnection | ComponentStores,
    run_id: str,
    instances: Sequence[Instance],
    config: JuryConfig,
    **kwargs: Any,
) -> JurySummary:
    """Synchronous entry point (CLI, Streamlit thread).

    Example:
        >>> from evaluator.benchmarks.specs import get_benchmark
        >>> config = jury_config_for(get_benchmark("aci_bench"))
        >>> s = run_jury(con, "run-…", instances, config)  # doctest: +SKIP
        >>> s.mean, s.n_scored, s.n_unscored, s.by_judge                                    # doctest: +SKIP
    """
    return asyncio.run(run_jury_async(con, run_id, instances, config, **kwargs))


def load_jury_summary(
    con: duckdb.DuckDBPyConnection | JuryStore, jury_id: str, *, status: str | None = None, **counts: Any
) -> JurySummary:
    """Recompute a jury's summary from its stored judgements (counts from the stored summary if not given).

    Raises:
        JuryError: no jury with this id.
    """
    juries = JuryStore(con) if is_raw_connection(con) else con
    jury = juries.get(jury_id)
    if jury is None:
        raise JuryError(f"no jury {jury_id!r} in this database")
    stored = jury.get("summary") or {}
    judgements = juries.judgements(jury_id)
    judged = {j["instance_id"] for j in judgements}
    skipped = {
        r.instance_id: r.skipped_reason
        if isinstance(r.skipped_reason, str) and r.skipped_reason
        else NOT_JUDGED
        for r in juries.instances(jury_id).itertuples()
        if r.instance_id not in judged
    }
    rubric = get_rubric(jury["rubric_id"])
    kwargs = {k: counts.get(k, stored.get(k, 0)) for k in ("cost_usd", "new_requests", "cache_hits")}
    return summarize_jury(
        jury,
        judgements,
        skipped,
        scale=(rubric.scale_min, rubric.scale_max),
        status=status or jury["status"],
        **kwargs,
    )
