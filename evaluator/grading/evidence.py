"""A grading as Evidence: the clipped mean case score with n and an interval for a mean.

Why a BCa interval of the case scores, clipped: the score is a mean of case scores that can be
negative (HealthBench clips only the mean), so it is a *mean*, not a proportion, and its interval is
the house's interval for means (``evaluator.statistics.estimates.interval_for``, kind ``mean``: seeded
BCa, t when BCa cannot be computed, none without spread). Clipping is monotone, so the interval of
the clipped mean is the interval of the mean with both bounds clipped to [0, 1]. The bootstrap
standard deviation HealthBench reports stays in the caveat.
"""

from __future__ import annotations

from datetime import UTC, datetime

from evaluator.evidence.record import Evidence, evidence_id
from evaluator.grading.records import GradingResult
from evaluator.statistics.estimates import interval_for

METRIC = "rubric_score"


def _clip(x: float) -> float:
    return min(max(x, 0.0), 1.0)


def grading_evidence(
    result: GradingResult, benchmark_id: str, date: datetime | None = None
) -> Evidence | None:
    """The grading's Evidence (scale 0-1, ``local-run``), or None when no case was scored."""
    scores = [c.score for c in result.per_case if c.score is not None]
    if not scores or result.score is None or not result.candidate_model:
        return None
    interval = interval_for(scores, kind="mean")
    bounds = (
        {
            "ci_lower": _clip(interval.lower),
            "ci_upper": _clip(interval.upper),
            "ci_method": f"{interval.method}; of the unclipped case scores, bounds clipped to [0, 1]",
        }
        if interval.lower is not None
        else {"ci_missing_reason": interval.missing_reason}
    )
    notes = [
        f"rubric grading {result.grading_id} by {', '.join(result.graders)} (HealthBench's rule: mean case "
        f"score clipped to [0, 1]; unclipped mean {result.mean_unclipped:.3f}"
        + (f", bootstrap SD {result.bootstrap_std:.3f}" if result.bootstrap_std is not None else "")
        + ")"
    ]
    if result.n_unscored:
        notes.append(
            f"{result.n_unscored} of {result.n_cases} case(s) unscored (no readable grader verdict, or "
            "the candidate call failed)"
        )
    if result.n_unparsed:
        notes.append(f"{result.n_unparsed} grader repl(ies) unreadable, never counted as met")
    return Evidence(
        id=evidence_id(
            "local-run", result.grading_id, result.candidate_model, benchmark_id, METRIC, result.run_id
        ),
        model=result.candidate_model,
        benchmark=benchmark_id,
        metric=METRIC,
        score=result.score,
        scale="0-1",
        provenance="local-run",
        source=result.grading_id,
        date=date or datetime.now(UTC),
        run_id=result.run_id,
        n=result.n,
        n_unscored=result.n_unscored,
        n_unparsed=result.n_unparsed,
        caveat="; ".join(notes),
        **bounds,
    )
