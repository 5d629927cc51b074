"""What a queue's ratings say: progress, each rater's catch rate, rubber-stamping flags, agreement inputs.

Why these rules: a sentinel is *caught* when the rater rated it ``material`` (audit verdict) or at most
2 on accuracy (jury rubric; the first criterion when a rubric has no ``accuracy``). A skipped sentinel
counts as missed: a planted error the reviewer let through is what the rate measures, and skipping is
not catching. The rate carries the Wilson interval (``evaluator.statistics.wilson_interval``) and meets
the bar only when its lower bound does, as every verdict here. Rubber-stamping is flagged, not judged:
a median time per item under ``FAST_SECONDS`` (with at least three timed ratings) or every rating the
same (with at least five). Agreement uses only real outputs (never sentinels) and only ratings, never
skips, in the format ``evaluator.agreement.ratings.read_ratings`` reads.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

import pandas as pd
from pydantic import BaseModel

from evaluator.statistics.estimates import wilson_interval
from governance.review.records import QueueItem, Rating, ReviewQueue, ReviewRubric

CATCH_ACCURACY = 2
"""An accuracy score at or below this catches a sentinel."""
FAST_SECONDS = 8.0
"""A median time per item below this is flagged (about the time to read a short answer once)."""
MIN_TIMED, MIN_SAME = 3, 5


class CatchRate(BaseModel):
    """Sentinels one rater caught, with the Wilson 95% interval, against the queue's bar."""

    estimate: float | None
    """Caught / seen; None before the rater has seen a sentinel."""
    lower: float | None
    """Wilson lower bound."""
    upper: float | None
    """Wilson upper bound."""
    n: int
    """Sentinels the rater rated or skipped."""
    caught: int
    """Of those, caught."""
    bar: float
    """The bar."""
    meets_bar: bool | None
    """Lower bound at or above the bar (None with no sentinel seen)."""


def caught(rating: Rating, rubric: ReviewRubric) -> bool:
    """Whether a rating of a sentinel catches it.

    Example:
        >>> from datetime import UTC, datetime
        >>> from governance.review.rubric import AUDIT
        >>> r = Rating(queue_id="q", item_id="i", rater="a", scores={"verdict": "material"}, recorded_by="a",
        ...            rated_at=datetime.now(UTC))
        >>> caught(r, AUDIT), caught(r.model_copy(update={"scores": {"verdict": "minor"}}), AUDIT)
        (True, False)
    """
    if rating.skipped:
        return False
    if rubric.kind == "audit":
        return rating.scores.get("verdict") == "material"
    if not rubric.criteria:  # a criteria queue has no sentinels
        return False
    key = "accuracy" if "accuracy" in rubric.criteria else rubric.criteria[0]
    value = rating.scores.get(key)
    return isinstance(value, int) and value <= CATCH_ACCURACY


def catch_rate(
    ratings: Sequence[Rating], sentinel_ids: set[str], rubric: ReviewRubric, bar: float
) -> CatchRate:
    """One rater's catch rate over the sentinels among ``ratings``.

    Example:
        >>> from governance.review.rubric import AUDIT
        >>> catch_rate([], {"s"}, AUDIT, 0.9).n
        0
    """
    seen = [r for r in ratings if r.item_id in sentinel_ids]
    n, hit = len(seen), sum(caught(r, rubric) for r in seen)
    if n == 0:
        return CatchRate(estimate=None, lower=None, upper=None, n=0, caught=0, bar=bar, meets_bar=None)
    lo, hi = wilson_interval(hit, n)
    return CatchRate(estimate=hit / n, lower=lo, upper=hi, n=n, caught=hit, bar=bar, meets_bar=lo >= bar)


def rubber_stamp_flags(ratings: Sequence[Rating], fast_seconds: float = FAST_SECONDS) -> list[str]:
    """Reasons to look at a rater's work: very fast, or every rating the same.

    Example:
        >>> from datetime import UTC, datetime
        >>> rs = [Rating(queue_id="q", item_id=str(i), rater="a", scores={"verdict": "correct"}, seconds=2.0,
        ...              recorded_by="a", rated_at=datetime.now(UTC)) for i in range(5)]
        >>> rubber_stamp_flags(rs)
        ['median 2.0 s per item (under 8 s)', 'all 5 ratings identical']
    """
    flags = []
    rated = [r for r in ratings if not r.skipped]
    timed = [r.seconds for r in rated if r.seconds is not None]
    if len(timed) >= MIN_TIMED and (median := statistics.median(timed)) < fast_seconds:
        flags.append(f"median {median:.1f} s per item (under {fast_seconds:g} s)")
    if len(rated) >= MIN_SAME and len({tuple(sorted(r.scores.items())) for r in rated}) == 1:
        flags.append(f"all {len(rated)} ratings identical")
    return flags


def clinician_frame(
    queue: ReviewQueue, items: dict[str, QueueItem], ratings: Sequence[Rating]
) -> pd.DataFrame:
    """Ratings of real outputs (no sentinels, no skips) as ``dataset, instance_id, rater, <criteria>``.

    The format ``medassure agreement`` and Judge validity read (``evaluator.agreement.ratings``); a queue
    on the audit verdict gives a column ``audit_verdict`` instead (not an agreement input).
    """
    rows = []
    for r in ratings:
        item = items.get(r.item_id)
        if item is None or item.sentinel is not None or r.skipped:
            continue
        row = {"dataset": queue.benchmark_id, "instance_id": item.instance_id, "rater": r.rater}
        if queue.rubric.kind == "audit":
            row["audit_verdict"] = r.scores.get("verdict")
        else:
            row |= {c: r.scores.get(c) for c in queue.rubric.criteria}
        rows.append(row)
    columns = [
        "dataset",
        "instance_id",
        "rater",
        *(["audit_verdict"] if queue.rubric.kind == "audit" else queue.rubric.criteria),
    ]
    return pd.DataFrame(rows, columns=columns).sort_values(["instance_id", "rater"]).reset_index(drop=True)
