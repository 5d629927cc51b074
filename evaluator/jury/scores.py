"""From judgements to scores: instance means, breakdowns, disagreement flags, Evidence.

Why pure functions over stored judgements: the jury's numbers must be recomputable from what is
in DuckDB, and every aggregate must say how much it rests on. The rule is MedHELM's (the instance
score is the plain mean of every valid judge × criterion score, normalized as (x − 1)/4) with one
difference that matters to a committee: an instance with no valid judgement is *unscored* and
counted, never given 0 or 1. Judges "disagree" on an instance when, for some criterion, their
scores differ by 2 points or more; such instances are flagged for a clinician to look at.
The interval of the mean is a seeded BCa bootstrap (a t interval when BCa cannot be computed),
fitted to a bounded, skewed 1-5 mean; with no spread there is no interval, and the reason says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from evaluator.evidence.record import Evidence, evidence_id
from evaluator.statistics.estimates import interval_for

SPREAD_FLAG = 2
N_RESAMPLES, SEED = 2000, 0


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

    def to_evidence(self, date: datetime | None = None) -> list[Any]:
        """One ``Evidence`` (scale 1-5, provenance ``local-run``, ``n_unscored`` set); none if nothing scored.

        Example:
            >>> summary.to_evidence()[0].scale   # doctest: +SKIP
            '1-5'
        """
        if self.mean is None:
            return []
        interval: dict[str, Any] = (
            {
                "ci_lower": self.ci_lower,
                "ci_upper": self.ci_upper,
                "ci_method": self.ci_method
                or f"percentile bootstrap over instances, {N_RESAMPLES} resamples, seed {SEED}",
            }
            if self.ci_lower is not None
            else {"ci_missing_reason": self.ci_missing_reason or f"only {self.n_scored} scored instance(s)"}
        )
        notes = [f"LLM jury ({', '.join(self.judges)}), rubric {self.rubric_id} {self.rubric_hash[:12]}"]
        if self.n_unscored:
            notes.append(f"{self.n_unscored} of {self.n} instance(s) unscored ({self.unscored_reasons})")
        if self.n_flagged:
            notes.append(f"judges disagree by ≥{SPREAD_FLAG} points on {self.n_flagged} instance(s)")
        if self.status != "completed":
            notes.append(f"jury {self.status}")
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
                score=self.mean,
                scale=f"{self.scale_min}-{self.scale_max}",
                n=self.n_scored,
                provenance="local-run",
                source=self.jury_id,
                date=date or datetime.now(UTC),
                run_id=self.run_id,
                n_unscored=self.n_unscored,
                caveat="; ".join(notes),
                **interval,
            )
        ]


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
) -> JurySummary:
    """Aggregate a jury's stored judgements; ``skipped`` maps instances not sent to the reason.

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
    mean = lower = upper = method = missing = None
    if scored:
        r = interval_for(scored, "mean", seed=SEED, n_resamples=N_RESAMPLES)
        mean, lower, upper, method, missing = r.estimate, r.lower, r.upper, r.method, r.missing_reason
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
    lo, hi = scale
    return JurySummary(
        jury_id=jury["jury_id"],
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
        n_scored=len(scored),
        n_unscored=len(rows) - len(scored),
        n_judgements=len(judgements),
        n_judgements_unscored=len(judgements) - len(valid),
        n_repaired=sum(1 for j in valid if j.get("repaired")),
        mean=mean,
        ci_lower=lower,
        ci_upper=upper,
        ci_method=method,
        ci_missing_reason=missing,
        normalized_mean=(mean - lo) / (hi - lo) if mean is not None else None,
        by_judge=by_judge,
        by_criterion={c: v for c in criteria if (v := _mean([j["scores"][c] for j in valid])) is not None},
        n_flagged=len(flagged),
        flagged_ids=flagged,
        unscored_reasons=dict(reasons.most_common()),
        cost_usd=cost_usd,
        new_requests=new_requests,
        cache_hits=cache_hits,
        instances=rows,
    )
