"""Score model replies against instances, and aggregate per-instance scores with intervals.

Two rules a committee relies on live here. First, failure is explicit: a reply whose answer
cannot be read is *wrong* (score 0) **and** counted as unparsed, so a model that ignores the
answer format is neither rewarded nor hidden; a free-text case with no reference text cannot be
scored by reference metrics and gets ``score=None`` (unscored, left to the jury), never a made-up
number. Second, every aggregate carries its n and its uncertainty: ``aggregate`` reports
``n_scored``/``n_unscored``/``n_unparsed`` and the 95% interval that fits the metric's kind from
``evaluator.statistics.estimates.interval_for`` (Wilson for 0/1 scores, seeded BCa bootstrap for other means),
or the reason there is none. The per-instance ``score`` is the spec's ``main_metric``. Third, how a
case was graded is never hidden: when the loader had to derive the grading (MedCalc-Bench limits
by the README rule), each score carries the note and the aggregate counts each note.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import BenchmarkSpec
from evaluator.scoring.answers import extract_answer
from evaluator.scoring.metrics import Sample, compute_metric, get_metric
from evaluator.statistics.estimates import ScoreKind, interval_for


class InstanceScore(BaseModel):
    """The scored outcome of one reply to one instance."""

    model_config = ConfigDict(frozen=True)

    instance_id: str = ""
    """Id of the instance that was answered."""
    score: float | None
    """Value of the benchmark's main metric; None when the case cannot be scored by reference."""
    parsed: str | None
    """The answer read from the reply (letter, number, text); None when unreadable."""
    unparsed: bool
    """True when no answer could be read; such a reply scores 0 on correctness metrics."""
    metrics: dict[str, float] = Field(default_factory=dict)
    """Every applicable metric of the benchmark for this reply (inapplicable ones are absent)."""
    note: str | None = None
    """How the case was graded when that was not read from the file (e.g. MedCalc-Bench limits
    derived by the README rule); None when the file said it all."""


class Aggregate(BaseModel):
    """A metric summarised over a run's instances, with its interval and counts."""

    model_config = ConfigDict(frozen=True)

    metric: str
    """Metric name (the main metric when aggregating ``score``)."""
    higher_is_better: bool
    """Direction of the metric."""
    mean: float | None
    """Mean over scored instances; None when none was scored."""
    ci_low: float | None
    """Lower end of the 95% interval; None when none can be estimated (see ``ci_missing_reason``)."""
    ci_high: float | None
    """Upper end of the interval; None when none can be estimated."""
    ci_method: str | None = None
    """How the interval was computed (Wilson, BCa bootstrap, t), with a small-n note below n = 30."""
    ci_missing_reason: str | None = None
    """Why there is no interval (nothing scored, a single value, or no spread)."""
    n: int
    """Instances aggregated (scored or not)."""
    n_scored: int
    """Instances with a value for this metric."""
    n_unscored: int
    """Instances without a value (e.g. free text with no reference)."""
    n_unparsed: int
    """Replies whose answer could not be read (counted as wrong, and counted here)."""
    notes: list[str] = Field(default_factory=list)
    """Each grading note of the instances ("150 of 150 instances: Lower/Upper Limit derived ...")."""


def score_responses(
    spec: BenchmarkSpec, instances: Sequence[Instance], texts: Sequence[str | None]
) -> list[InstanceScore]:
    """Score many replies at once (batch metrics such as BERTScore run in one pass).

    Example:
        >>> from evaluator.benchmarks.specs import get_benchmark
        >>> inst = Instance(id="1", choices=("yes", "no", "maybe"), reference="A", answer_type="choice")
        >>> [s.score for s in score_responses(get_benchmark("pubmedqa"), [inst], ["Answer: A"])]
        [1.0]
    """
    if len(instances) != len(texts):
        raise ValueError(f"{len(instances)} instances but {len(texts)} replies")
    samples = [
        Sample(inst, text or "", extract_answer(inst, text))
        for inst, text in zip(instances, texts, strict=True)
    ]
    columns = {name: compute_metric(name, samples) for name in spec.metrics}
    # a spec copied with new metrics (model_copy skips validation) falls back to its first metric
    main = spec.main_metric if spec.main_metric in spec.metrics else spec.metrics[0]
    out = []
    for i, sample in enumerate(samples):
        values = {name: float(col[i]) for name, col in columns.items() if col[i] is not None}
        out.append(
            InstanceScore(
                instance_id=sample.instance.id,
                score=values.get(main),
                parsed=sample.parsed,
                unparsed=sample.parsed is None,
                metrics=values,
                note=sample.instance.meta.get("limits_derived") or None,
            )
        )
    return out


def score_response(spec: BenchmarkSpec, instance: Instance, text: str | None) -> InstanceScore:
    """Score one reply.

    Args:
        spec: the benchmark (its metrics; ``main_metric`` is the score).
        instance: the case answered.
        text: the model's reply (None or empty counts as unparsed).

    Example:
        >>> from evaluator.benchmarks.specs import get_benchmark
        >>> inst = Instance(id="1", reference="4", answer_type="exact")
        >>> s = score_response(get_benchmark("calc_builtin"), inst, "I am not sure.")
        >>> s.score, s.unparsed
        (0.0, True)
    """
    return score_responses(spec, [instance], [text])[0]


def aggregate(
    scores: Sequence[InstanceScore],
    metric: str,
    *,
    kind: ScoreKind = "auto",
    level: float = 0.95,
    seed: int = 0,
    n_resamples: int = 2000,
) -> Aggregate:
    """Mean of one metric over instances, with the interval fitting its kind and the counts.

    Args:
        scores: per-instance scores of one run.
        metric: a metric name; its values are read from each ``InstanceScore.metrics``.
        kind: ``proportion`` (Wilson), ``mean`` (BCa bootstrap) or ``auto`` (proportion when
            every value is 0 or 1); see ``evaluator.statistics.estimates.interval_for``.
        level: interval level.
        seed: bootstrap seed (same inputs and seed give the same interval).
        n_resamples: bootstrap resamples.

    Example:
        >>> def one(v): return InstanceScore(score=v, parsed="x", unparsed=False, metrics={"accuracy": v})
        >>> s = [one(1.0), one(0.0), one(1.0)]
        >>> a = aggregate(s, "accuracy")
        >>> round(a.mean, 3), a.n_scored, a.ci_low <= a.mean <= a.ci_high
        (0.667, 3, True)
    """
    info = get_metric(metric)
    values = [s.metrics[metric] for s in scores if metric in s.metrics]
    mean = lo = hi = method = None
    missing: str | None = "no scored instance"
    if values:
        r = interval_for(values, kind, level=level, seed=seed, n_resamples=n_resamples)
        mean, lo, hi, method, missing = r.estimate, r.lower, r.upper, r.method, r.missing_reason
    return Aggregate(
        metric=metric,
        higher_is_better=info.higher_is_better,
        mean=mean,
        ci_low=lo,
        ci_high=hi,
        ci_method=method,
        ci_missing_reason=missing,
        n=len(scores),
        n_scored=len(values),
        n_unscored=len(scores) - len(values),
        n_unparsed=sum(s.unparsed for s in scores),
        notes=[f"{k} of {len(scores)} instances: {note}" for note, k in sorted(Counter(
            s.note for s in scores if s.note).items())],
    )
