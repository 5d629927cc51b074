"""Drift before the bar is crossed: a Bernoulli CUSUM on material corrections, a standardized one on scores.

Why a CUSUM beside the monthly rate: a creeping rate crosses a monthly bar late, because a month's
interval is wide; the CUSUM accumulates evidence output by output and signals a doubling of the
baseline rate within its detection delay. The baseline, in order: the rate the committee set in the
plan; the rate inside the baseline window the committee marked at go-live; else the first 1,000 outputs
of the series after the decision (benchmark accuracy is never a correction-rate baseline). Each chart
says which. The decision limit comes from the plan's target in-control run length (default 500 outputs
per false alarm); the statistics are ``evaluator.statistics.cusum``.

The standardized charts (judge score, daily mean latency) are self-starting
(``evaluator.statistics.self_starting``): each value is standardised by the mean and sd of every earlier
in-control value, baseline included, not by the baseline's alone used as if known. With a 14-day
baseline the plug-in chart signalled within a year on 78% of in-control streams (median run length
78 days) against 50% (median 356) designed for ARL0 500; the self-starting chart keeps the design
(``bench/monitoring_cusum.py --estimation``).
"""

from __future__ import annotations

import statistics
from datetime import UTC, datetime
from functools import lru_cache

from evaluator.statistics.cusum import (
    bernoulli_cusum_arl,
    bernoulli_cusum_limit,
    bernoulli_cusum_path,
    detection_delay,
    standardized_cusum_limit,
)
from evaluator.statistics.self_starting import self_starting_cusum_path
from governance.decision.records import MonitoringPlan
from governance.monitoring.models import CusumSummary

DEFAULT_BASELINE_N = 1_000
"""Outputs of the series that set the baseline when neither a rate nor a window was agreed."""
MIN_BASELINE_N = 30
"""Fewest outputs a baseline window must hold."""
SHIFT = 2.0
"""The chart is tuned to a doubling of the baseline rate."""


def _not_charted(metric: str, kind: str, plan: MonitoringPlan, note: str) -> CusumSummary:
    """A chart that cannot be drawn yet (no baseline, no spread), with the reason in ``note``."""
    return CusumSummary(metric=metric, kind=kind, baseline=0.0, baseline_source="",
                        target_arl0=plan.target_arl0, limit=None, note=note)


@lru_cache(maxsize=64)
def bernoulli_design(p0: float, target_arl0: int) -> tuple[float, float, float]:
    """(limit, achieved in-control ARL, detection delay for a doubling): the chart's design, computed once.

    The limit takes a Markov-chain search (seconds for small rates), and a status is computed several
    times per import, so the design is cached per (baseline, target).
    """
    p1 = SHIFT * p0
    h = bernoulli_cusum_limit(p0, p1, target_arl0)
    return h, bernoulli_cusum_arl(p0, p0, p1, h), bernoulli_cusum_arl(p1, p0, p1, h)


@lru_cache(maxsize=16)
def standardized_limit(target_arl0: int) -> float:
    """The two-sided standardized CUSUM's limit for k = 0.5 (cached)."""
    return standardized_cusum_limit(0.5, target_arl0)


def _split(
    values: list,
    times: list[datetime],
    plan: MonitoringPlan,
    decided_at: datetime | None,
    what: str,
    default_n: int = DEFAULT_BASELINE_N,
    min_n: int = MIN_BASELINE_N,
) -> tuple[list, list, list, list, str] | str:
    """(baseline values, baseline times, watched values, watched times, source) or why there is none."""
    if plan.baseline_start is not None and plan.baseline_end is not None:
        lo, hi = plan.baseline_start, plan.baseline_end
        idx = [i for i, t in enumerate(times) if lo <= t <= hi]
        if len(idx) < min_n:
            return (
                f"the baseline window {lo:%Y-%m-%d} to {hi:%Y-%m-%d} holds {len(idx)} {what} "
                f"(at least {min_n} needed)"
            )
        after = [i for i, t in enumerate(times) if t > hi]
        return (
            [values[i] for i in idx],
            [times[i] for i in idx],
            [values[i] for i in after],
            [times[i] for i in after],
            f"the baseline window the committee marked ({lo:%Y-%m-%d} to {hi:%Y-%m-%d}, {len(idx):,} {what})",
        )
    start = 0
    if decided_at is not None:
        start = next((i for i, t in enumerate(times) if t >= decided_at), len(times))
    if len(times) - start < default_n:
        held = len(times) - start
        earlier = f"; {start:,} earlier ones, before the decision, do not count" if start else ""
        return (
            f"not charted yet: its baseline is the first {default_n:,} {what} after the decision, and "
            f"{held:,} {'is' if held == 1 else 'are'} stored so far{earlier}"
        )
    cut = start + default_n
    return (
        values[start:cut],
        times[start:cut],
        values[cut:],
        times[cut:],
        f"the first {default_n:,} {what} after the decision (no baseline agreed)",
    )


def correction_cusum(
    series: list[int],
    times: list[datetime],
    plan: MonitoringPlan,
    decided_at: datetime | None,
    source: str = "audit",
    evidence_rate: tuple[float, str] | None = None,
) -> CusumSummary:
    """The Bernoulli CUSUM of material corrections (audited outputs, else reviewed outputs' corrections).

    ``evidence_rate`` is (rate, where from) of pre-deployment local evidence that measured the same thing
    (``correction_evidence``); it comes after a rate the committee set and before a baseline window.

    Example:
        >>> from datetime import UTC, datetime, timedelta
        >>> from governance.decision.records import MonitoringPlan, Trigger
        >>> plan = MonitoringPlan(triggers=[Trigger(kind="schedule", description="6 months")],
        ...                       schedule_months=6,
        ...                       owner="qa", baseline_rate=0.02)
        >>> t0 = datetime(2026, 1, 1, tzinfo=UTC)
        >>> c = correction_cusum([0] * 50 + [1] * 5, [t0 + timedelta(hours=i) for i in range(55)], plan, None)
        >>> c.limit, c.signal_index, c.baseline_source
        (1.523, 52, 'the rate the committee set (plan or go-live settings)')
    """
    what = "audited outputs" if source == "audit" else "reviewed outputs"
    metric = "material corrections (" + ("audits" if source == "audit" else "reviewers' corrections") + ")"
    if plan.baseline_rate is not None:
        p0, base_src, watched, wtimes = (
            plan.baseline_rate,
            "the rate the committee set (plan or go-live settings)",
            series,
            times,
        )
    elif evidence_rate is not None and 0 < evidence_rate[0] < 0.5:
        p0, base_src, watched, wtimes = evidence_rate[0], evidence_rate[1], series, times
    else:
        split = _split(series, times, plan, decided_at, what)
        if isinstance(split, str):
            return _not_charted(metric, "bernoulli", plan, split)
        base, _, watched, wtimes, base_src = split
        p0 = sum(base) / len(base)
        if p0 == 0:
            p0 = 0.5 / len(base)
            base_src += f"; no material error in it, so the rate is taken as 0.5/{len(base):,}"
    if not 0 < 2 * p0 < 1:
        return CusumSummary(
            metric=metric,
            kind="bernoulli",
            baseline=p0,
            baseline_source=base_src,
            target_arl0=plan.target_arl0,
            limit=None,
            note=f"a baseline of {p0:.1%} leaves no room for a doubling: no CUSUM",
        )
    h, arl0, delay = bernoulli_design(p0, plan.target_arl0)
    path = bernoulli_cusum_path([bool(x) for x in watched], p0, SHIFT * p0, h)
    idx = path.signal_index
    return CusumSummary(
        metric=metric,
        kind="bernoulli",
        baseline=p0,
        baseline_source=base_src,
        target_arl0=plan.target_arl0,
        limit=h,
        values=path.values,
        signal_index=idx,
        first_seen=wtimes[idx] if idx is not None else None,
        detection_delay=delay,
        note=f"in control at {p0:.2%}, tuned to a doubling ({SHIFT * p0:.2%}); achieved ARL0 "
        f"{arl0:,.0f} outputs",
    )


CORRECTION_METRICS = ("material_correction_rate", "material_correction_share")
"""Metric names of local evidence that measure the share of outputs needing a material correction."""


def correction_evidence(evidence: list, candidate: str) -> tuple[float, str] | None:
    """(rate, where from) of the candidate's pre-deployment evidence that measured material corrections.

    Only evidence whose metric *is* the correction rate counts: a benchmark's accuracy is never a
    correction-rate baseline. The record with the most cases wins.

    Example:
        >>> correction_evidence([], "M1") is None
        True
    """
    found = [e for e in evidence if e.metric in CORRECTION_METRICS and e.model == candidate and e.n]
    if not found:
        return None
    best = max(found, key=lambda e: e.n)
    return best.score, f"the pre-deployment local evidence {best.benchmark} ({best.n:,} cases)"


DEFAULT_BASELINE_DAYS = 14
"""Days of daily mean latency that set its baseline when no window was agreed."""
MIN_BASELINE_DAYS = 7
"""Fewest days a baseline window of daily latency must hold."""


def latency_cusum(
    means: list[float], days: list[datetime], plan: MonitoringPlan, decided_at: datetime | None
) -> CusumSummary | None:
    """The two-sided standardized CUSUM of the daily mean latency (None: the feed has no latency).

    Daily means, not outputs: latency varies with load within a day, and a million outputs would make
    a million-step chart; a day's mean is close to normal and a shift in it is what a committee acts on.
    """
    if not means:
        return None
    if decided_at is not None:  # days are stamped at midnight: the decision's own day is after it
        day = decided_at.astimezone(UTC)
        decided_at = datetime(day.year, day.month, day.day, tzinfo=UTC)
    return score_cusum(
        means,
        days,
        plan,
        decided_at,
        metric="daily mean latency (ms)",
        unit="days",
        default_n=DEFAULT_BASELINE_DAYS,
        min_n=MIN_BASELINE_DAYS,
    )


def score_cusum(
    scores: list[float],
    times: list[datetime],
    plan: MonitoringPlan,
    decided_at: datetime | None,
    metric: str = "judge score",
    unit: str | None = None,
    default_n: int = DEFAULT_BASELINE_N,
    min_n: int = MIN_BASELINE_N,
) -> CusumSummary | None:
    """The two-sided self-starting standardized CUSUM (k = 0.5) of a continuous metric (None: none fed).

    The baseline's mean is the chart's printed baseline; each watched value is standardised by the mean
    and sample sd of all earlier in-control values and mapped from its t distribution to N(0, 1), so the
    plan's in-control run length holds whatever the baseline's size (for independent, normal values).
    """
    if not scores:
        return None
    split = _split(scores, times, plan, decided_at, unit or f"{metric}s", default_n, min_n)
    if isinstance(split, str):
        return _not_charted(metric, "standardized", plan, split)
    base, _, watched, wtimes, base_src = split
    mean, sd = statistics.fmean(base), statistics.stdev(base)
    if sd <= 0:
        return CusumSummary(
            metric=metric,
            kind="standardized",
            baseline=mean,
            baseline_source=base_src,
            target_arl0=plan.target_arl0,
            limit=None,
            note="the baseline does not vary (standard deviation 0): no CUSUM",
        )
    h = standardized_limit(plan.target_arl0)
    path = self_starting_cusum_path(base, watched, k=0.5, h=h)
    idx = path.signal_index
    return CusumSummary(
        metric=metric,
        kind="standardized",
        baseline=mean,
        baseline_source=base_src,
        target_arl0=plan.target_arl0,
        limit=h,
        values=path.values,
        signal_index=idx,
        first_seen=wtimes[idx] if idx is not None else None,
        detection_delay=detection_delay("standardized", h),
        note=f"in control at mean {mean:.3g}, sd {sd:.3g} over the baseline; two-sided, k = 0.5, "
        "self-starting: each value is standardised by the mean and sd of all earlier in-control values "
        "(baseline included), so the target run length holds for independent, normally distributed "
        "values; the delay is for a shift of one sd once the estimates have settled (a shift soon "
        "after the baseline is partly absorbed into them and seen later)",
    )
