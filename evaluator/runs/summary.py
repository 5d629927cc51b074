"""The outcome of a run, computed from the stored results, and its conversion to Evidence.

Why from the store and not from the runner's counters: a resumed run's results come from
several processes; the DuckDB rows are the one complete record. Errored instances (no answer
after all retries, or a fatal error) are excluded from the scores and counted in ``n_errors``;
unparsed answers are scored wrong by the scorer and counted in ``n_unparsed``. Intervals fit
the kind of score (``evaluator.statistics.estimates.interval_for``: Wilson for 0/1 scores, a seeded BCa
bootstrap for other means, none with the reason when there is no spread). A run becomes one
main Evidence record (the benchmark's main metric, which rules judge) plus context records for
its other metrics, which are shown but never judged.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from evaluator.benchmarks.instance import Instance
from evaluator.evidence.record import Evidence, SubgroupScore, evidence_id
from evaluator.runs.records import NOTE_KEY, SUBGROUPS_KEY
from evaluator.runs.store import RunStore
from evaluator.statistics.subgroups import subgroup_table

N_RESAMPLES = 2000
SEED = 0


class MetricSummary(BaseModel):
    """Mean of one metric over the scored instances, with the 95% interval fitting its kind."""

    name: str
    """Metric name (the benchmark's main metric first)."""
    mean: float
    """Mean over scored instances."""
    lower: float | None
    """Lower bound of the 95% interval (None when none can be estimated)."""
    upper: float | None
    """Upper bound of the 95% interval (None when none can be estimated)."""
    n: int
    """Instances the mean is over."""
    method: str | None = None
    """How the interval was computed (Wilson, BCa bootstrap or t), with a small-n note."""
    missing_reason: str | None = None
    """Why there is no interval (a single value, or no spread)."""


class RunSummary(BaseModel):
    """What a run produced: counts, scores with intervals, tokens, cost, and what was sent."""

    run_id: str
    """Run identifier (stable across resumes)."""
    benchmark_id: str
    """Benchmark id."""
    model: str
    """litellm model string of the endpoint."""
    endpoint_name: str
    """Endpoint label."""
    status: str
    """``completed``, ``cancelled``, ``budget_exceeded`` or ``failed``."""
    n_planned: int
    """Instances in the run."""
    n: int
    """Instances with a stored result (answered or errored)."""
    n_scored: int
    """Instances with a score."""
    n_unparsed: int
    """Answers that could not be parsed (scored wrong, counted here)."""
    n_errors: int
    """Instances with no answer (fatal error or retries exhausted), excluded from scores."""
    errors: dict[str, int]
    """Error kinds and how many instances each."""
    score: MetricSummary | None
    """The main metric."""
    metrics: list[MetricSummary]
    """Every metric (main first)."""
    prompt_tokens: int
    """Prompt tokens over all results (cached ones included)."""
    completion_tokens: int
    """Completion tokens over all results (cached ones included)."""
    cost_usd: float
    """USD actually spent on this run's requests (cache hits cost nothing)."""
    cost_known: bool
    """False when some answered instance had no known price."""
    cache_hits: int
    """Instances answered from the response cache in this invocation."""
    new_requests: int
    """HTTP requests sent in this invocation, retries included."""
    resumed: bool
    """Whether this invocation continued an earlier unfinished run."""
    elapsed_s: float
    """Wall time of this invocation."""
    notes: list[str] = []
    """How some instances were scored, when that needs saying, with how many (e.g. "40 of 40 instances:
    limits derived ..."): every record of the run carries it in its caveat."""
    served: list[dict[str, Any]] = []
    """Who answered: each served model and system fingerprint the stored answers named (the reply's
    ``model`` and ``system_fingerprint``), with how many (``RunStore.served_identities``)."""
    subgroups: list[SubgroupScore] = []
    """Main-metric scores per subgroup tag of the cases (e.g. ``calculator``, ``sex``, ``age_band``), from
    the tags each stored result carries; empty when the cases have none."""

    def to_evidence(self, date: datetime | None = None) -> list[Any]:
        """The main metric's ``Evidence`` (provenance ``local-run``), then a context record per other metric.

        Only the first is judged by score rules; the context records (``role="context"``) are shown
        beside it and never compared with a bar or averaged.
        """
        out = []
        main = self.score.name if self.score else None
        caveat = ""
        if self.n_errors:
            caveat = f"{self.n_errors} instance(s) without an answer excluded ({self.errors})"
        if self.status != "completed":
            caveat = f"run {self.status}: {self.n} of {self.n_planned} instances. " + caveat
        if self.notes:
            caveat = (caveat + ". " if caveat else "") + "; ".join(self.notes)
        for m in self.metrics:
            interval: dict[str, Any] = (
                {"ci_lower": m.lower, "ci_upper": m.upper, "ci_method": m.method or _legacy_method()}
                if m.lower is not None
                else {"ci_missing_reason": m.missing_reason or f"only {m.n} scored instance(s)"}
            )
            role = "main" if m.name == main else "context"
            note = caveat if role == "main" else (
                f"context: secondary metric of this run, shown beside the main metric {main}; not judged "
                f"against a score bar. {caveat}")
            out.append(
                Evidence(
                    id=evidence_id(
                        "local-run", self.run_id, self.model, self.benchmark_id, m.name, self.run_id
                    ),
                    model=self.model,
                    benchmark=self.benchmark_id,
                    metric=m.name,
                    score=m.mean,
                    n=m.n,
                    provenance="local-run",
                    source=self.run_id,
                    date=date or datetime.now(UTC),
                    run_id=self.run_id,
                    n_unparsed=self.n_unparsed,
                    n_unscored=self.n - self.n_scored,
                    caveat=note.strip(),
                    role=role,
                    subgroups=(self.subgroups or None) if role == "main" else None,
                    **interval,
                )
            )
        return out


def _legacy_method() -> str:
    return f"percentile bootstrap over instances, {N_RESAMPLES} resamples, seed {SEED}"


def summarize_metric(name: str, values: list[float]) -> MetricSummary | None:
    """Mean and interval of ``values`` (None when empty): Wilson for 0/1 values, else BCa bootstrap.

    Example:
        >>> m = summarize_metric("acc", [1, 0, 1, 1])
        >>> m.mean, round(m.lower, 3), m.method.split(",")[0]
        (0.75, 0.301, 'Wilson score interval')
    """
    if not values:
        return None
    from evaluator.statistics.estimates import interval_for

    r = interval_for(values, "auto", seed=SEED, n_resamples=N_RESAMPLES)
    return MetricSummary(name=name, mean=r.estimate, lower=r.lower, upper=r.upper, n=len(values),
                         method=r.method, missing_reason=r.missing_reason)


def summarize_run(
    store: RunStore,
    run_id: str,
    main_metric: str,
    *,
    cache_hits: int,
    new_requests: int,
    resumed: bool,
    elapsed_s: float,
    status: str | None = None,
) -> RunSummary:
    """Build the summary of ``run_id`` from its stored results."""
    run = store.get_run(run_id) or {}
    rows = store.results(run_id)
    answered = [r for r in rows if r["error"] is None]
    scored = [r for r in answered if r["score"] is not None]
    errors: dict[str, int] = {}
    for r in rows:
        if r["error"] is not None:
            kind = str(r["error"]).split(":", 1)[0].split(" ", 1)[0]
            errors[kind] = errors.get(kind, 0) + 1
    main = summarize_metric(main_metric, [float(r["score"]) for r in scored])
    metric_names = sorted(
        {
            k
            for r in scored
            for k, v in r["metrics"].items()
            if isinstance(v, int | float) and not isinstance(v, bool)
        }
        - {main_metric}
    )
    metrics = [main] if main else []
    for name in metric_names:
        values = [
            float(r["metrics"][name]) for r in scored if isinstance(r["metrics"].get(name), int | float)
        ]
        summary = summarize_metric(name, values)
        if summary:
            metrics.append(summary)
    tagged = [Instance(id=r["instance_id"], subgroups=r["metrics"][SUBGROUPS_KEY]) for r in scored
              if isinstance(r["metrics"].get(SUBGROUPS_KEY), dict)]
    scores = {r["instance_id"]: float(r["score"]) for r in scored}
    subgroups = subgroup_table(tagged, scores).to_subgroup_scores()
    return RunSummary(
        run_id=run_id,
        benchmark_id=str(run.get("benchmark_id", "")),
        model=str(run.get("model", "")),
        endpoint_name=str(run.get("endpoint_name") or ""),
        status=status or str(run.get("status", "")),
        n_planned=int(run.get("n_planned") or 0),
        n=len(rows),
        n_scored=len(scored),
        n_unparsed=sum(1 for r in answered if r["unparsed"]),
        n_errors=len(rows) - len(answered),
        errors=errors,
        score=main,
        metrics=metrics,
        prompt_tokens=sum(int(r["prompt_tokens"] or 0) for r in rows),
        completion_tokens=sum(int(r["completion_tokens"] or 0) for r in rows),
        cost_usd=sum(float(r["cost_usd"] or 0.0) for r in rows if not r["cached"]),
        cost_known=all(r["cost_usd"] is not None for r in answered if not r["cached"]),
        cache_hits=cache_hits,
        new_requests=new_requests,
        resumed=resumed,
        elapsed_s=elapsed_s,
        served=store.served_identities(run_id),
        subgroups=subgroups,
        notes=[f"{k} of {len(rows)} instances: {note}" for note, k in sorted(Counter(
            r["metrics"][NOTE_KEY] for r in rows if isinstance(r["metrics"].get(NOTE_KEY), str)).items())],
    )
