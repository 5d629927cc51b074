"""From judgements to scores: instance means, breakdowns, disagreement flags, Evidence; two methods.

Why pure functions over stored judgements: the jury's numbers must be recomputable from what is
in DuckDB, and every aggregate must say how much it rests on. Two methods read the same replies:

* ``strict`` (ours): the instance score is the plain mean of every valid judge × criterion
  score, normalized as (x − 1)/4, and an instance with no valid judgement is *unscored*: counted,
  and left out of the mean, never given 0 or 1.
* ``medhelm`` and ``helm-0.5``: MedHELM's arithmetic (``evaluator.jury.medhelm``) as the ``medhelm``
  package 0.8.0 and crfm-helm 0.5.16 compute it: HELM's reading of the first reply, and an instance
  with no valid judgement (an empty candidate answer included) counts at the lowest score, so the
  mean is over every instance. A local score compared with a published MedHELM one uses one of
  them; ``method_version`` names the package version reproduced.

The summary's headline (``mean``, ``n_scored``, ``n_unscored``…) is its ``method``'s; ``by_method``
holds both, so a reader sees when they differ. Breakdowns, spread and flags come from the strict
reading. Judges "disagree" on an instance when, for some criterion, their scores differ by 2 points
or more; such instances are flagged for a clinician to look at. The interval of the mean is a
seeded BCa bootstrap (a t interval when BCa cannot be computed), fitted to a bounded, skewed 1-5
mean; with no spread there is no interval, and the reason says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from evaluator.evidence.record import Evidence, evidence_id
from evaluator.jury.medhelm import (
    HELM_METHODS,
    METHOD_VERSIONS,
    default_jury_method,
    medhelm_instance_score,
    stored_jury_method,
    stored_readings,
)
from evaluator.statistics.estimates import interval_for

SPREAD_FLAG = 2
N_RESAMPLES, SEED = 2000, 0
NOT_JUDGED = "not judged: the jury stopped before it"


class MethodFigures(BaseModel):
    """A jury's score under one method, with the counts behind it."""

    method: str
    """``medhelm``, ``helm-0.5`` or ``strict``."""
    version: str | None = None
    """The package version whose arithmetic this is (``medhelm 0.8.0``, ``crfm-helm 0.5.16``; None: ours)."""
    mean: float | None
    """Mean instance score on the rubric's scale (None when no instance enters the mean)."""
    ci_lower: float | None = None
    """Lower bound of the 95% interval."""
    ci_upper: float | None = None
    """Upper bound of the 95% interval."""
    ci_method: str | None = None
    """How the interval was computed."""
    ci_missing_reason: str | None = None
    """Why there is no interval."""
    normalized_mean: float | None = None
    """``mean`` on 0-1, (x − scale_min)/(scale_max − scale_min)."""
    n_in_mean: int
    """Instances the mean is over (``strict``: the scored ones; MedHELM methods: every judged or skipped
    one)."""
    n_scored: int
    """Instances with at least one valid judgement under this method's reading."""
    n_unscored: int
    """Instances without one: left out of the mean (``strict``), or at the lowest score (MedHELM methods)."""
    n_helm_errors: int = 0
    """Judgements on which HELM's own metric would raise and stop its run (MedHELM methods only)."""
    treatment: str
    """What happens to an instance without a valid judgement, in words."""


def method_figures(method: str, values: Sequence[float], n_scored: int, n_unscored: int,
                   scale: tuple[int, int], n_helm_errors: int = 0) -> MethodFigures:
    """The mean, interval and counts of one method's instance values.

    Example:
        >>> f = method_figures("medhelm", [5.0] * 9 + [1.0], 9, 1, (1, 5))
        >>> round(f.mean, 2), f.n_in_mean, f.n_unscored
        (4.6, 10, 1)
    """
    lo, hi = scale
    mean = lower = upper = how = missing = None
    if values:
        r = interval_for(list(values), "mean", seed=SEED, n_resamples=N_RESAMPLES)
        mean, lower, upper, how, missing = r.estimate, r.lower, r.upper, r.method, r.missing_reason
    treatment = (f"counted at the lowest score {float(lo)} (MedHELM's default_score)"
                 if method in HELM_METHODS else "left out of the mean (unscored)")
    return MethodFigures(method=method, version=METHOD_VERSIONS.get(method), mean=mean, ci_lower=lower,
                         ci_upper=upper, ci_method=how,
                         ci_missing_reason=missing,
                         normalized_mean=(mean - lo) / (hi - lo) if mean is not None else None,
                         n_in_mean=len(values), n_scored=n_scored, n_unscored=n_unscored,
                         n_helm_errors=n_helm_errors, treatment=treatment)


class InstanceJury(BaseModel):
    """The jury's verdict on one candidate response."""

    instance_id: str
    """Instance id."""
    score: float | None
    """Mean of the valid judge × criterion scores; None when no judge gave a valid reply."""
    normalized: float | None
    """``(score − scale_min) / (scale_max − scale_min)``: (x − 1)/4 on the 1-5 scale."""
    n_judges_scored: int
    """Judges whose reply was usable."""
    n_judges_unscored: int
    """Judges whose reply was unusable (after the repair attempt) or whose call failed."""
    by_judge: dict[str, float] = Field(default_factory=dict)
    """Each scoring judge's mean over criteria."""
    by_criterion: dict[str, float] = Field(default_factory=dict)
    """Each criterion's mean over scoring judges."""
    spread: int | None = None
    """Largest difference between two judges on one criterion; None with fewer than two judges."""
    flagged: bool = False
    """True when ``spread`` is 2 or more."""
    reasons: dict[str, str] = Field(default_factory=dict)
    """Why each unscored judge gave no score (or why the instance was not sent at all)."""
    medhelm_score: float | None = None
    """The instance's value under the ``medhelm`` method, medhelm 0.8.0 (None when not recorded or not
    judged yet)."""
    medhelm_default: bool = False
    """True when that value is the default lowest score (no valid judgement under 0.8.0's reading)."""
    helm05_score: float | None = None
    """The instance's value under the ``helm-0.5`` method, crfm-helm 0.5.16 (None when not recorded)."""
    helm05_default: bool = False
    """True when that value is the default lowest score (no valid judgement under 0.5.16's reading)."""


class JudgeBreakdown(BaseModel):
    """One judge over the whole jury."""

    mean: float | None
    """Mean of the judge's per-instance means."""
    n_scored: int
    """Instances the judge scored."""
    n_unscored: int
    """Instances where the judge's reply was unusable or the call failed."""
    n_repaired: int
    """Instances scored only after the repair request."""


class JurySummary(BaseModel):
    """A jury's result: the score with its interval, breakdowns and every count behind them."""

    jury_id: str
    """Jury id."""
    method: str = "strict"
    """Which method the headline figures (``mean``, ``n_scored``, ``n_unscored``, interval) follow."""
    method_version: str | None = None
    """The package version that method reproduces (``medhelm 0.8.0``, ``crfm-helm 0.5.16``; None for
    ``strict``, which is ours)."""
    run_id: str
    """The candidate run that was judged."""
    benchmark_id: str
    """Benchmark of the candidate run."""
    candidate_model: str
    """Model whose responses were judged."""
    rubric_id: str
    """Rubric applied."""
    rubric_hash: str
    """SHA-256 of the rubric as applied."""
    judges: list[str]
    """Judge models."""
    criteria: list[str]
    """Criteria scored."""
    scale_min: int
    """Lowest score on the scale."""
    scale_max: int
    """Highest score on the scale."""
    status: str
    """``completed``, or how the jury stopped."""
    n: int
    """Candidate instances considered."""
    n_scored: int
    """Instances with at least one valid judgement."""
    n_unscored: int
    """Instances without any valid judgement (unusable replies, failed calls, no candidate response)."""
    n_judgements: int
    """Judge × instance pairs sent."""
    n_judgements_unscored: int
    """Of those, unusable after the repair attempt or failed."""
    n_repaired: int
    """Judgements usable only after the repair request."""
    mean: float | None
    """Mean instance score on the rubric's scale."""
    ci_lower: float | None
    """Lower bound of the 95% interval (None when none can be estimated)."""
    ci_upper: float | None
    """Upper bound of the 95% interval."""
    ci_method: str | None = None
    """How the interval was computed (BCa bootstrap or t, with a small-n note)."""
    ci_missing_reason: str | None = None
    """Why there is no interval (one scored instance, or every instance scored the same)."""
    normalized_mean: float | None
    """``mean`` on 0-1 as MedHELM normalizes it."""
    by_judge: dict[str, JudgeBreakdown]
    """Per-judge breakdown."""
    by_criterion: dict[str, float]
    """Mean per criterion over instances × judges."""
    n_flagged: int
    """Instances where judges disagree by 2 points or more on a criterion."""
    flagged_ids: list[str]
    """Those instances' ids."""
    unscored_reasons: dict[str, int]
    """Reasons for unscored judgements and instances, with counts."""
    cost_usd: float
    """USD spent on judge calls (cache hits cost nothing)."""
    new_requests: int
    """Judge requests sent in this invocation, retries and repairs included."""
    cache_hits: int
    """Judge requests answered from the response cache."""
    instances: list[InstanceJury]
    """Per-instance detail."""
    by_method: dict[str, MethodFigures] = Field(default_factory=dict)
    """The score under each method whose reading is recorded (``helm-0.5`` needs juries from 2026-12 on,
    ``medhelm`` (0.8.0) juries made since it was added; earlier ones hold only 0.5.16's reading)."""
    methods_differ: bool = False
    """True when a MedHELM method gives a different mean or a different unscored count from ``strict``."""

    def evidence_method(self) -> str:
        """The method the jury's Evidence uses: on a MedHELM benchmark (its score stands beside a
        published one) the jury's own MedHELM method, else ``medhelm``, else ``helm-0.5``, whichever
        is recorded; elsewhere the jury's own."""
        if default_jury_method(self.benchmark_id) == "medhelm":
            for m in (self.method, *HELM_METHODS):
                if m in HELM_METHODS and m in self.by_method:
                    return m
        return self.method if self.method in self.by_method else "strict"

    def to_evidence(self, date: datetime | None = None) -> list[Any]:
        """One ``Evidence`` (scale 1-5, ``local-run``) under ``evidence_method()``; none without a mean.

        Under ``strict``, ``n`` is the scored instances and ``n_unscored`` the others; under
        a MedHELM method every instance is in ``n`` and those at the default lowest score are its
        ``n_unparsed`` (counted at the worst value, as an unparsed answer is counted wrong). The
        caveat names the method and, when the two differ, the other one's figure and unscored count.

        Example:
            >>> summary.to_evidence()[0].scale   # doctest: +SKIP
            '1-5'
        """
        method = self.evidence_method()
        figures = self.by_method.get(method) or self._strict_figures()
        if figures.mean is None:
            return []
        interval: dict[str, Any] = (
            {
                "ci_lower": figures.ci_lower,
                "ci_upper": figures.ci_upper,
                "ci_method": figures.ci_method
                or f"percentile bootstrap over instances, {N_RESAMPLES} resamples, seed {SEED}",
            }
            if figures.ci_lower is not None
            else {"ci_missing_reason": figures.ci_missing_reason
                  or f"only {figures.n_in_mean} instance(s) in the mean"}
        )
        version = f" ({figures.version})" if figures.version else ""
        notes = [f"LLM jury ({', '.join(self.judges)}), rubric {self.rubric_id} {self.rubric_hash[:12]}, "
                 f"method {method}{version}"]
        if figures.n_unscored:
            notes.append(f"{figures.n_unscored} of {self.n} instance(s) without a valid judgement, "
                         f"{figures.treatment} ({self.unscored_reasons})")
        if figures.n_helm_errors:
            notes.append(f"{figures.n_helm_errors} judgement(s) on which HELM's own metric would stop its "
                         "run, counted as no judgement")
        other = next((self.by_method[m] for m in (("strict",) if method in HELM_METHODS else HELM_METHODS)
                      if m in self.by_method), None)
        if self.methods_differ and other is not None:
            shown = "n/a" if other.mean is None else f"{other.mean:.2f}"
            notes.append(f"the {other.method} method gives {shown} with {other.n_unscored} unscored")
        if self.n_flagged:
            notes.append(f"judges disagree by ≥{SPREAD_FLAG} points on {self.n_flagged} instance(s)")
        if self.status != "completed":
            notes.append(f"jury {self.status}")
        counts = ({"n": figures.n_in_mean, "n_unscored": 0, "n_unparsed": figures.n_unscored}
                  if method in HELM_METHODS else {"n": figures.n_in_mean, "n_unscored": figures.n_unscored})
        return [
            Evidence(
                id=evidence_id(
                    "local-run",
                    self.jury_id,
                    self.candidate_model,
                    self.benchmark_id,
                    "jury_score",
                    self.run_id,
                ),
                model=self.candidate_model,
                benchmark=self.benchmark_id,
                metric="jury_score",
                score=figures.mean,
                scale=f"{self.scale_min}-{self.scale_max}",
                provenance="local-run",
                source=self.jury_id,
                date=date or datetime.now(UTC),
                run_id=self.run_id,
                caveat="; ".join(notes),
                **counts,
                **interval,
            )
        ]

    def _strict_figures(self) -> MethodFigures:
        return MethodFigures(method="strict", mean=self.mean, ci_lower=self.ci_lower, ci_upper=self.ci_upper,
                             ci_method=self.ci_method, ci_missing_reason=self.ci_missing_reason,
                             normalized_mean=self.normalized_mean, n_in_mean=self.n_scored,
                             n_scored=self.n_scored, n_unscored=self.n_unscored,
                             treatment="left out of the mean (unscored)")


def instance_jury(
    instance_id: str,
    judgements: Sequence[dict[str, Any]],
    criteria: Sequence[str],
    scale: tuple[int, int] = (1, 5),
) -> InstanceJury:
    """Combine one instance's judgements (``judge``, ``scores`` or None, ``reason``).

    Example:
        >>> j = instance_jury("1", [{"judge": "a", "scores": {"x": 4, "y": 2}},
        ...                         {"judge": "b", "scores": {"x": 2, "y": 2}},
        ...                         {"judge": "c", "scores": None, "reason": "empty reply"}], ["x", "y"])
        >>> j.score, j.normalized, j.n_judges_unscored, j.flagged
        (2.5, 0.375, 1, True)
    """
    valid = [j for j in judgements if j.get("scores")]
    values = [float(j["scores"][c]) for j in valid for c in criteria]
    score = sum(values) / len(values) if values else None
    spread = (
        max(max(j["scores"][c] for j in valid) - min(j["scores"][c] for j in valid) for c in criteria)
        if len(valid) >= 2
        else None
    )
    lo, hi = scale
    return InstanceJury(
        instance_id=instance_id,
        score=score,
        normalized=(score - lo) / (hi - lo) if score is not None else None,
        n_judges_scored=len(valid),
        n_judges_unscored=len(judgements) - len(valid),
        by_judge={j["judge"]: sum(j["scores"][c] for c in criteria) / len(criteria) for j in valid},
        by_criterion={c: sum(j["scores"][c] for j in valid) / len(valid) for c in criteria} if valid else {},
        spread=spread,
        flagged=spread is not None and spread >= SPREAD_FLAG,
        reasons={
            j["judge"]: str(j.get("reason") or "no reason recorded")
            for j in judgements
            if not j.get("scores")
        },
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


_ROW_FIELDS = {"medhelm": ("medhelm_score", "medhelm_default"),
               "helm-0.5": ("helm05_score", "helm05_default")}


def _medhelm_rows(rows: list[InstanceJury], by_instance: dict[str, list[dict[str, Any]]],
                  skipped: dict[str, str], lowest: float, method: str) -> list[InstanceJury]:
    """``rows`` with each instance's value under a MedHELM ``method``: skipped instances (an empty or
    failed candidate answer) at the lowest score, instances the jury has not reached yet left out."""
    score_field, default_field = _ROW_FIELDS[method]
    out = []
    for row in rows:
        if row.instance_id in by_instance:
            value, default = medhelm_instance_score(
                [stored_readings(j.get("medhelm")).get(method) for j in by_instance[row.instance_id]], lowest)
        elif skipped.get(row.instance_id, NOT_JUDGED) != NOT_JUDGED:
            value, default = float(lowest), True
        else:
            out.append(row)
            continue
        out.append(row.model_copy(update={score_field: value, default_field: default}))
    return out


def summarize_jury(
    jury: dict[str, Any],
    judgements: Sequence[dict[str, Any]],
    skipped: dict[str, str],
    *,
    scale: tuple[int, int],
    status: str,
    cost_usd: float = 0.0,
    new_requests: int = 0,
    cache_hits: int = 0,
    method: str | None = None,
) -> JurySummary:
    """Aggregate a jury's stored judgements; ``skipped`` maps instances not sent to the reason.

    ``method`` (default: the jury's recorded one, read as ``stored_jury_method`` reads it, else
    ``strict``) picks the headline figures; a MedHELM headline needs every judgement's reading under
    that version (juries made before it fall back to ``strict``).

    Example:
        >>> judgements = store.judgements(jury_id)  # doctest: +SKIP
        >>> s = summarize_jury(jury, judgements, {}, scale=(1, 5), status="completed")  # doctest: +SKIP
    """
    criteria = list(jury["criteria"])
    by_instance: dict[str, list[dict[str, Any]]] = {}
    for j in judgements:
        by_instance.setdefault(j["instance_id"], []).append(j)
    rows = [instance_jury(iid, js, criteria, scale) for iid, js in sorted(by_instance.items())]
    rows += [
        InstanceJury(
            instance_id=iid,
            score=None,
            normalized=None,
            n_judges_scored=0,
            n_judges_unscored=0,
            reasons={"(not sent)": why},
        )
        for iid, why in sorted(skipped.items())
    ]
    scored = [r.score for r in rows if r.score is not None]
    lo, hi = scale
    strict = method_figures("strict", scored, len(scored), len(rows) - len(scored), scale)
    by_method = {"strict": strict}
    readings = [stored_readings(j.get("medhelm")) for j in judgements]
    for helm in HELM_METHODS:
        if all(helm in r for r in readings):
            rows = _medhelm_rows(rows, by_instance, skipped, float(lo), helm)
            score_field, default_field = _ROW_FIELDS[helm]
            values = [v for r in rows if (v := getattr(r, score_field)) is not None]
            defaulted = sum(1 for r in rows if getattr(r, default_field))
            errors = sum(1 for r in readings if r[helm].get("helm_error"))
            by_method[helm] = method_figures(helm, values, len(values) - defaulted, defaulted, scale, errors)
    chosen = method or stored_jury_method(jury.get("method"), judgements)
    head = by_method.get(chosen, strict)
    reasons = Counter(r.get("reason") or "no reason recorded" for r in judgements if not r.get("scores"))
    reasons.update(skipped.values())
    by_judge = {}
    for judge in jury["judges"]:
        mine = [j for j in judgements if j["judge"] == judge]
        means = [sum(j["scores"][c] for c in criteria) / len(criteria) for j in mine if j.get("scores")]
        by_judge[judge] = JudgeBreakdown(
            mean=_mean(means),
            n_scored=len(means),
            n_unscored=len(mine) - len(means),
            n_repaired=sum(1 for j in mine if j.get("scores") and j.get("repaired")),
        )
    valid = [j for j in judgements if j.get("scores")]
    flagged = [r.instance_id for r in rows if r.flagged]
    differ = any(f.n_unscored != strict.n_unscored or f.mean != strict.mean
                 for m, f in by_method.items() if m in HELM_METHODS)
    return JurySummary(
        jury_id=jury["jury_id"],
        method=head.method,
        method_version=head.version,
        run_id=jury["run_id"],
        benchmark_id=jury.get("benchmark_id") or "",
        candidate_model=jury.get("candidate_model") or "",
        rubric_id=jury["rubric_id"],
        rubric_hash=jury["rubric_hash"],
        judges=list(jury["judges"]),
        criteria=criteria,
        scale_min=lo,
        scale_max=hi,
        status=status,
        n=len(rows),
        n_scored=head.n_scored,
        n_unscored=head.n_unscored,
        n_judgements=len(judgements),
        n_judgements_unscored=len(judgements) - len(valid),
        n_repaired=sum(1 for j in valid if j.get("repaired")),
        mean=head.mean,
        ci_lower=head.ci_lower,
        ci_upper=head.ci_upper,
        ci_method=head.ci_method,
        ci_missing_reason=head.ci_missing_reason,
        normalized_mean=head.normalized_mean,
        by_judge=by_judge,
        by_criterion={c: v for c in criteria if (v := _mean([j["scores"][c] for j in valid])) is not None},
        n_flagged=len(flagged),
        flagged_ids=flagged,
        unscored_reasons=dict(reasons.most_common()),
        cost_usd=cost_usd,
        new_requests=new_requests,
        cache_hits=cache_hits,
        instances=rows,
        by_method=by_method,
        methods_differ=differ,
    )
