"""The candidates chart: each candidate's normalized score and 95% interval, benchmark by benchmark.

Why in ``reports``: the Candidates page draws it natively and the PDF renders the same spec to
PNG, so there is one chart definition (as ``reports.cost_chart`` does for the Cost page).
A score without an interval is drawn as a hollow point with no bar, so a missing interval is
visible rather than looking like a very precise one.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from governance.decision.comparison import CandidateComparison
from reports.candidates_table import SCORE_COLUMNS, score_rows


def chart_frame(cmp: CandidateComparison) -> pd.DataFrame:
    """Rows that can be plotted: candidate × benchmark cells with a score.

    Example:
        >>> list(chart_frame(compare_candidates(dossier)).columns)[:3]  # doctest: +SKIP
        ['benchmark', 'kind', 'candidate']
    """
    rows = [
        r | {"interval": "95% interval" if r["lower"] is not None else "no interval"}
        for r in score_rows(cmp)
        if r["score"] is not None
    ]
    return pd.DataFrame(
        rows,
        columns=[*SCORE_COLUMNS, "interval"],
    )


def candidates_chart(cmp: CandidateComparison, width: int = 560) -> alt.LayerChart:
    """Points (normalized score) with interval bars, one band per benchmark, one colour per candidate."""
    df = chart_frame(cmp)
    order = [b.name for b in cmp.benchmarks]
    y = alt.Y("benchmark:N", sort=order, title=None, axis=alt.Axis(labelLimit=180))
    colour = alt.Color("candidate:N", title="Candidate", legend=alt.Legend(orient="top", columns=2))
    offset = alt.YOffset("candidate:N")
    base = alt.Chart(df).encode(y=y, yOffset=offset, color=colour)
    bars = (
        base.transform_filter("datum.lower != null")
        .mark_rule(strokeWidth=2)
        .encode(
            x=alt.X("lower:Q", title="Normalized score (0-1) with 95% interval", scale=alt.Scale(zero=False)),
            x2="upper:Q",
        )
    )
    points = base.mark_point(size=70).encode(
        x="score:Q",
        fill=alt.condition("datum.lower != null", alt.Fill("candidate:N", legend=None), alt.value("white")),
        tooltip=[
            "candidate",
            "benchmark",
            "metric",
            alt.Tooltip("score:Q", format=".3f"),
            alt.Tooltip("lower:Q", format=".3f"),
            alt.Tooltip("upper:Q", format=".3f"),
            "verdict",
            "tie_group",
            "provenance",
            "n",
            "interval",
        ],
    )
    # room for the axis and the legend, which a container-fitted chart (Streamlit) counts in its height
    height = 80 + 20 * len(order) * max(1, df["candidate"].nunique())
    return alt.layer(bars, points).properties(width=width, height=height)
