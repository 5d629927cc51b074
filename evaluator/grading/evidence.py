"""A grading as Evidence: the clipped mean case score with n and an interval for a mean.

Why a BCa interval of the case scores, clipped: the score is a mean of case scores that can be
negative (HealthBench clips only the mean), so it is a *mean*, not a proportion, and its interval is
the house's interval for means (``evaluator.statistics.estimates.interval_for``, kind ``mean``: seeded
BCa, t when BCa cannot be computed, none without spread). Clipping is monotone, so the interval of
the clipped mean is the interval of the mean with both bounds clipped to [0, 1]. The bootstrap
standard deviation HealthBench reports stays in the caveat.

The record also carries, per criterion tag, how many cases missed it (``criterion_misses``), counted
once here when the grading is attached, so a critical-criterion rule ("at most 5% of cases miss
``medication_change``") is judged from the dossier alone, as every verdict is.
"""

from __future__ import annotations

from datetime import UTC, datetime

from evaluator.evidence.record import CriterionMisses, Evidence, evidence_id
from evaluator.grading.records import CaseResult, GradingResult
from evaluator.grading.rule import tag_misses
from evaluator.statistics.estimates import interval_for

METRIC = "rubric_score"


def _clip(x: float) -> float:
    return min(max(x, 0.0), 1.0)


def criterion_misses(cases: list[CaseResult]) -> dict[str, CriterionMisses]:
    """Per criterion tag: cases carrying it, how many missed it, how many are undetermined (``tag_misses``).

    A case whose candidate call failed has no response to judge: its tags are undetermined.

    Example:
        >>> from evaluator.grading.records import CriterionResult
        >>> c = lambda p, met: CriterionResult(criterion="x", points=p, tags=["med"], met=met)
        >>> cases = [CaseResult(id="a", score=1.0, criteria=[c(5, True)]),
        ...          CaseResult(id="b", score=0.0, criteria=[c(5, False)]),
        ...          CaseResult(id="c", score=None, criteria=[c(5, None)], unscored_reason="no verdict")]
        >>> criterion_misses(cases)["med"]
        CriterionMisses(n=2, missed=1, undetermined=1)
    """
    counts: dict[str, list[int]] = {}
    for case in cases:
        failed = (case.unscored_reason or "").startswith("candidate call failed")
        crit = case.criteria
        per_tag = tag_misses([c.points for c in crit], [c.tags for c in crit], [c.met for c in crit])
        for tag, miss in per_tag.items():
            n, missed, undetermined = counts.setdefault(tag, [0, 0, 0])
            if failed or miss is None:
                counts[tag][2] = undetermined + 1
            else:
                counts[tag][:2] = [n + 1, missed + int(miss)]
    return {t: CriterionMisses(n=n, missed=m, undetermined=u) for t, (n, m, u) in sorted(counts.items())}


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
        criterion_misses=criterion_misses(result.per_case) or None,
        **bounds,
    )
