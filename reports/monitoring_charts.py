"""Control charts of production monitoring: monthly rates against the plan's bar, and CUSUM paths.

Why plain data frames in and a ``Chart`` (Vega-Lite spec) out: the Monitoring page draws the spec
natively, the monthly report turns the same spec into a PNG offline (vl-convert, as the dossier PDF
does), and a test reads the numbers straight out of the spec. Nothing here computes a statistic: the
rates, their Wilson intervals and the CUSUM path come from the monitoring stage; this module only
draws them and says, in each caption, the method and what the chart assumes.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd

from reports.model import Chart

WIDTH = 460
TICKS = 5
"""Ticks asked of a rate chart's y axis (the format's decimals are chosen for this many)."""
RATE_COLUMNS = ["month", "n", "rate", "lower", "upper"]
"""A rate chart's frame: calendar month (``YYYY-MM``), outputs, rate, 95% interval."""
PATH_COLUMNS = ["step", "statistic"]
"""A CUSUM chart's frame: output number (1, 2, ...) and the CUSUM statistic after it."""


def _bar_words(direction: str) -> str:
    return "at most" if direction == "at_most" else "at least"


def axis_format(values: list[float], percent: bool) -> str:
    """A y-axis format with enough decimals that neighbouring ticks read differently.

    ``TICKS`` ticks span the drawn range (the rates, their intervals and the bar); a fixed ``.1%`` printed
    ticks 0.001, 0.0015, 0.002 as "0.1%, 0.2%, 0.2%". The decimals follow the tick step: a step of
    0.05 percentage points needs two.

    Example:
        >>> axis_format([0.001, 0.003], True), axis_format([0.01, 0.2], True), axis_format([800, 812], False)
        ('.2%', '.1%', ',.0f')
    """
    finite = [v for v in values if v is not None and math.isfinite(v)]
    scale = 100 if percent else 1
    span = (max(finite) - min(finite)) * scale if finite else 0.0
    if span <= 0:
        span = abs(finite[0]) * scale if finite and finite[0] else 1.0
    step = span / TICKS  # d3 picks a 1-2-5 step no finer than the power of ten below this
    decimals = max(1 if percent else 0, min(6, math.ceil(-math.log10(step)))) if step < 1 else (
        1 if percent else 0)
    return f".{decimals}%" if percent else f",.{decimals}f"


def rate_chart(key: str, label: str, months: pd.DataFrame, bar: float | None, direction: str = "at_most",
               signal_months: list[str] | None = None, percent: bool = True) -> Chart:
    """One metric's monthly rate with its 95% Wilson interval, the plan's bar, and months that signalled.

    Args:
        key: stable chart name (e.g. ``rate-material_correction``).
        label: the metric in words, e.g. "Audited material-correction share".
        months: ``RATE_COLUMNS``; ``lower``/``upper`` may be missing (no interval: drawn as a dot only).
        bar: the plan's threshold (None: no bar drawn, the caption says so).
        direction: ``at_most`` (the rate must stay at or below the bar) or ``at_least``.
        signal_months: months (``YYYY-MM``) in which this metric raised a signal; drawn in red.
        percent: format the axis as a percentage (False for a continuous metric such as latency).

    Example:
        >>> df = pd.DataFrame({"month": ["2026-01"], "n": [400], "rate": [0.02], "lower": [0.01],
        ...                    "upper": [0.04]})
        >>> rate_chart("rate-x", "Share", df, 0.05).spec["layer"][0]["mark"]["type"]
        'rule'
    """
    df = months[RATE_COLUMNS].copy()
    signalled = set(signal_months or [])
    df["state"] = ["signal" if m in signalled else "in control" for m in df["month"]]
    fmt = ".1%" if percent else ",.0f"  # words (tooltips, the bar's label) keep the page's one form
    axis_fmt = axis_format([*df["rate"], *df["lower"], *df["upper"], *([bar] if bar is not None else [])],
                           percent)
    x = alt.X("month:O", title="Calendar month", sort=list(df["month"]), axis=alt.Axis(labelAngle=0))
    y_title = "Share" if percent else label  # the chart's title names the metric; a long axis title is cut
    base = alt.Chart(df).encode(x=x)
    colour = alt.Color("state:N", title=None, legend=alt.Legend(orient="bottom"),
                       scale=alt.Scale(domain=["in control", "signal"], range=["#3e6fb0", "#c0392b"]))
    interval = base.transform_filter("isValid(datum.lower)").mark_rule(strokeWidth=2).encode(
        y=alt.Y("lower:Q", title=y_title, axis=alt.Axis(format=axis_fmt, tickCount=TICKS)), y2="upper:Q",
        color=colour)
    dots = base.mark_point(filled=True, size=60).encode(
        y=alt.Y("rate:Q", axis=alt.Axis(format=axis_fmt, tickCount=TICKS)), color=colour,
        tooltip=[alt.Tooltip("month:O", title="Month"), alt.Tooltip("n:Q", title="Outputs"),
                 alt.Tooltip("rate:Q", title="Rate", format=fmt),
                 alt.Tooltip("lower:Q", title="95% lower", format=fmt),
                 alt.Tooltip("upper:Q", title="95% upper", format=fmt)])
    layers = [interval, dots]
    if bar is not None:
        bar_df = pd.DataFrame({"bar": [bar], "what": [f"bar: {_bar_words(direction)} {bar:{fmt}}"]})
        rule = alt.Chart(bar_df).mark_rule(color="#8a4b08", strokeDash=[6, 4]).encode(y="bar:Q")
        text = alt.Chart(bar_df).mark_text(align="left", dx=4, dy=-6, color="#8a4b08").encode(
            y="bar:Q", text="what:N", x=alt.value(0))
        layers = [rule, text, *layers]
    chart = alt.layer(*layers).properties(width=WIDTH, height=200)
    interval_words = ("95% Wilson score intervals" if percent else "95% intervals")
    bar_words = (f"The dashed line is the plan's bar ({_bar_words(direction)} {bar:{fmt}}); a month signals "
                 f"when its whole interval is on the wrong side of it." if bar is not None
                 else "The plan sets no bar for this metric, so no month can signal on it.")
    return Chart(key=key, title=f"{label} per month", spec=chart.to_dict(),
                 caption=(f"Dots are each calendar month's rate over the outputs of that month; lines are "
                          f"{interval_words}. {bar_words} Assumes outputs within a month are independent "
                          "and the audited ones a random sample of them. Red: a month that signalled."))


def cusum_chart(key: str, label: str, path: pd.DataFrame, limit: float, baseline: str,
                signal_steps: list[int] | None = None, method: str = "Bernoulli CUSUM",
                month_starts: dict[str, int] | None = None, unit: str = "outputs") -> Chart:
    """A CUSUM path over outputs with its decision limit and the outputs at which it signalled.

    Args:
        key: stable chart name.
        label: what is accumulated, e.g. "material corrections".
        path: ``PATH_COLUMNS``, one row per output (or a thinned subset; the caption says the method).
        limit: the decision limit h.
        baseline: the in-control rate and where it comes from, in words.
        signal_steps: output numbers at which the statistic crossed the limit.
        method: the CUSUM's name as shown.
        month_starts: ``YYYY-MM`` → first output number of that month, drawn as faint vertical rules.

    Example:
        >>> df = pd.DataFrame({"step": [1, 2, 3], "statistic": [0.0, 0.4, 1.2]})
        >>> c = cusum_chart("cusum-x", "material corrections", df, 1.0, "2% (first 1,000 outputs)", [3])
        >>> c.spec["layer"][1]["mark"]["type"]
        'rule'
    """
    df = path[PATH_COLUMNS].copy()
    line = alt.Chart(df).mark_line(color="#3e6fb0", strokeWidth=1.5).encode(
        x=alt.X("step:Q", title=f"{unit.capitalize()} after the baseline, in time order"),
        y=alt.Y("statistic:Q", title=f"CUSUM of {label}"))
    limit_df = pd.DataFrame({"limit": [limit], "what": [f"decision limit h = {limit:.2f}"]})
    rule = alt.Chart(limit_df).mark_rule(color="#c0392b", strokeDash=[6, 4]).encode(y="limit:Q")
    text = alt.Chart(limit_df).mark_text(align="left", dx=4, dy=-6, color="#c0392b").encode(
        y="limit:Q", text="what:N", x=alt.value(0))
    layers = [line, rule, text]
    if month_starts:
        months = pd.DataFrame({"step": list(month_starts.values()), "month": list(month_starts)})
        layers.append(alt.Chart(months).mark_rule(color="#cbd2d9").encode(x="step:Q"))
        layers.append(alt.Chart(months).mark_text(align="left", dx=2, baseline="top", color="#616e7c",
                                                  fontSize=9).encode(x="step:Q", y=alt.value(0),
                                                                     text="month:N"))
    steps = sorted(set(signal_steps or []))
    if steps:
        marks = df[df["step"].isin(steps)]
        layers.append(alt.Chart(marks).mark_point(shape="triangle-up", size=120, filled=True,
                                                  color="#c0392b").encode(
            x="step:Q", y="statistic:Q",
            tooltip=[alt.Tooltip("step:Q", title="Signal at output"),
                     alt.Tooltip("statistic:Q", format=".2f")]))
    chart = alt.layer(*layers).properties(width=WIDTH, height=200)
    one = unit[:-1] if unit.endswith("s") else unit
    where = (f" It signalled at {one} {', '.join(f'{s:,}' for s in steps)} (red triangle)." if steps
             else " It has not crossed the limit.")
    two_sided = method.startswith("Two-sided")
    self_starting = "self-starting" in method
    standardised = ("; each value is standardised by the mean and standard deviation of all earlier "
                    "in-control values, baseline included (self-starting)" if self_starting else "")
    if two_sided:
        what = (f"the baseline mean of {baseline}{standardised}; the statistics (one for a rise, one for a "
                "fall) reset to zero and a signal is raised when either")
    else:
        what = (f"the baseline rate of {baseline}; the statistic resets to zero from below and a signal is "
                "raised when it")
    normal = " and normal" if self_starting else ""
    risen = "the mean has likely moved" if two_sided else "the rate has likely risen"
    return Chart(key=key, title=f"{method}: {label}", spec=chart.to_dict(),
                 caption=(f"{method} over {unit} in time order, in control at {what} crosses the "
                          f"decision limit (dashed), chosen from the plan's target in-control run length."
                          f"{where} Assumes the {unit} are independent{normal} and the baseline is the right "
                          f"in-control value; a signal says {risen}, not why."))


MAX_POINTS = 1_500
"""A CUSUM path longer than this is thinned for drawing (every k-th output, plus the signal); the
statistic itself is computed over every output."""


def _thinned(values: list[float], keep: set[int]) -> pd.DataFrame:
    step = max(1, len(values) // MAX_POINTS)
    idx = sorted({*range(0, len(values), step), len(values) - 1, *keep} - {-1})
    return pd.DataFrame({"step": [i + 1 for i in idx], "statistic": [values[i] for i in idx]})


def status_charts(status) -> list[Chart]:
    """Every control chart of a ``MonitoringStatus``: one rate chart per metric, then each CUSUM path.

    A rate chart marks the months of its ``rate_above_bar`` signals; a CUSUM chart its first crossing.
    """
    from reports.monitoring_text import SHARE_METRICS, metric_label

    charts = []
    for metric, months in status.metrics.items():
        if not months:
            continue
        df = pd.DataFrame([{"month": m.month, "n": m.n, "rate": m.rate,
                            "lower": m.interval[0] if m.interval else None,
                            "upper": m.interval[1] if m.interval else None} for m in months])
        signalled = [m.month for m in months if m.above_bar]
        first = months[-1]
        charts.append(rate_chart(f"rate-{metric}", metric_label(metric), df, first.bar, first.direction,
                                 signalled, percent=metric in SHARE_METRICS))
    for c in status.cusum:
        if c.limit is None or not c.values:
            continue
        keep = {c.signal_index} if c.signal_index is not None else set()
        bernoulli = c.kind == "bernoulli"
        kind = "Bernoulli CUSUM" if bernoulli else "Two-sided self-starting CUSUM"
        baseline = f"{c.baseline:.2%}" if bernoulli else f"{c.baseline:,.2f}"
        unit = "days" if "daily" in c.metric else "outputs"
        chart = cusum_chart(f"cusum-{c.metric}", metric_label(c.metric), _thinned(c.values, keep), c.limit,
                            f"{baseline} ({c.baseline_source})",
                            [c.signal_index + 1] if c.signal_index is not None else [], method=kind,
                            unit=unit)
        extra = f" Target in-control run length: {c.target_arl0:,} {unit} per false alarm."
        if c.detection_delay is not None:
            shift = "the rate doubles" if bernoulli else "the mean moves by one standard deviation"
            extra += f" Expected delay to signal if {shift}: about {c.detection_delay:,.0f} {unit}."
        if len(c.values) > MAX_POINTS:
            extra += " The line is drawn through every k-th output; the statistic uses them all."
        charts.append(chart.model_copy(update={"caption": chart.caption + extra}))
    return charts
