"""Monthly rates against the plan's bars, whether human review works, and the audit sample a bar needs.

Why Wilson and lower bounds: a month's share is an estimate, so a rate is *above its bar* only when its
95% Wilson interval's lower bound is (``at_most`` bars; for ``at_least`` bars, such as the sentinel catch
rate, when its upper bound is below), as verdicts do before go-live. Cost per 1,000 requests and p95
latency are totals and quantiles without an interval: their value is compared. Review effectiveness
flags rubber-stamping two ways: the edit rate falling toward zero while audits still find material
errors, and a median review time below the plan's floor.
"""

from __future__ import annotations

from evaluator.statistics.cusum import audit_sample_size
from evaluator.statistics.estimates import wilson_interval
from governance.monitoring.feed_records import MonthCounts
from governance.monitoring.models import AuditSampleSize, MonthMetric

EDIT_RATE_FLOOR = 0.02
"""An edit rate below this (2%) while audits find material errors looks like rubber-stamping."""
MIN_REVIEW_TIMES = 10
"""Review times needed in a month before its median is compared with the floor."""


def _share(month: str, events: int, n: int, bar: float | None, direction: str) -> MonthMetric:
    if n == 0:
        return MonthMetric(month=month, n=0, rate=None, interval=None, bar=bar, direction=direction)
    lo, hi = wilson_interval(events, n)
    past = bar is not None and (lo > bar if direction == "at_most" else hi < bar)
    return MonthMetric(
        month=month, n=n, rate=events / n, interval=(lo, hi), bar=bar, direction=direction, above_bar=past
    )


def _value(month: str, value: float | None, n: int, bar: float | None, direction: str) -> MonthMetric:
    past = value is not None and bar is not None and (value > bar if direction == "at_most" else value < bar)
    return MonthMetric(
        month=month, n=n, rate=value, interval=None, bar=bar, direction=direction, above_bar=past
    )


def month_metrics(
    months: list[MonthCounts], bars: dict[str, tuple[float, str]], correction_source: str = "audit"
) -> dict[str, list[MonthMetric]]:
    """Feed metric → one ``MonthMetric`` per month that measures it, oldest first.

    ``correction_source="outcome"`` (a feed without audits) counts the reviewers' material corrections
    among reviewed outputs instead of the audits' findings.

    Example:
        >>> m = [MonthCounts(month="2026-01", n=400, audited=200, audit_material=30)]
        >>> bar = {"material_correction_share": (0.05, "at_most")}
        >>> r = month_metrics(m, bar)["material_correction_share"][0]
        >>> r.rate, r.above_bar, [round(x, 3) for x in r.interval]
        (0.15, True, [0.107, 0.206])
    """

    def bar(kind: str) -> tuple[float | None, str]:
        b = bars.get(kind)
        return (b[0], b[1]) if b else (None, "at_most")

    out: dict[str, list[MonthMetric]] = {}
    for m in months:
        b, d = bar("material_correction_share")
        if correction_source == "audit":
            out.setdefault("material_correction_share", []).append(
                _share(m.month, m.audit_material, m.audited, b, d)
            )
        else:
            out.setdefault("material_correction_share", []).append(
                _share(m.month, m.material_outcome, m.reviewed, b, d)
            )
        if m.reviewed:
            b, d = bar("discarded_share")
            out.setdefault("discarded_share", []).append(_share(m.month, m.discarded, m.reviewed, b, d))
        if m.error_known:
            b, d = bar("error_rate")
            out.setdefault("error_rate", []).append(_share(m.month, m.errors, m.error_known, b, d))
        if m.cost_rows and m.cost_usd is not None:
            b, d = bar("cost_per_1k")
            out.setdefault("cost_per_1k", []).append(
                _value(m.month, 1000 * m.cost_usd / m.cost_rows, m.cost_rows, b, d)
            )
        if m.latency_rows and m.latency_p95_ms is not None:
            b, d = bar("latency_p95_ms")
            out.setdefault("latency_p95_ms", []).append(
                _value(m.month, m.latency_p95_ms, m.latency_rows, b, d)
            )
        if m.sentinels:
            b, d = bar("sentinel_catch_rate")
            out.setdefault("sentinel_catch_rate", []).append(
                _share(m.month, m.sentinels_caught, m.sentinels, b, d if b is not None else "at_least")
            )
    return out


def rubber_stamping(months: list[MonthCounts], floor: float) -> list[tuple[str, str, str]]:
    """(month, metric, what was seen) for each month whose review looks like rubber-stamping.

    Example:
        >>> m = [MonthCounts(month="2026-02", n=500, reviewed=500, edited=3, audited=50, audit_material=4)]
        >>> [x[1] for x in rubber_stamping(m, floor=10)]
        ['edit rate']
    """
    out = []
    for m in months:
        if m.reviewed >= 50 and m.audit_material > 0 and m.edited / m.reviewed < EDIT_RATE_FLOOR:
            out.append(
                (
                    m.month,
                    "edit rate",
                    f"reviewers edited {m.edited / m.reviewed:.1%} of {m.reviewed:,} outputs in {m.month} "
                    f"while audits found {m.audit_material} material errors in {m.audited:,}",
                )
            )
        if (
            m.review_seconds_rows >= MIN_REVIEW_TIMES
            and m.review_seconds_median is not None
            and m.review_seconds_median < floor
        ):
            out.append(
                (
                    m.month,
                    "review time",
                    f"median review time {m.review_seconds_median:.1f} s in {m.month} is below the floor of "
                    f"{floor:g} s ({m.review_seconds_rows:,} reviews)",
                )
            )
    return out


def audit_sample(bar: float, audit_share: float, latest_volume: int | None) -> AuditSampleSize:
    """Audits a month that detect a doubling of the bar within one month at 80% power, vs the plan's share.

    Example:
        >>> a = audit_sample(0.05, 0.05, 1000)
        >>> a.needed_per_month, a.planned_per_month
        (169, 50)
    """
    shifted = min(0.99, 2 * bar) if bar > 0 else None
    needed = None
    note = (
        "one-sided exact binomial test at 5%, 80% power, to tell a rate of twice the bar "
        f"({2 * bar:.1%}) from the bar ({bar:.1%}) within one month"
    )
    if shifted is not None and 0 < bar < shifted < 1:
        try:
            needed = audit_sample_size(bar, shifted)
        except ValueError as exc:
            note = str(exc)
    else:
        note = "the bar leaves no room for a doubling: no sample size computed"
    planned = round(audit_share * latest_volume) if latest_volume else None
    return AuditSampleSize(needed_per_month=needed, planned_per_month=planned, note=note)
