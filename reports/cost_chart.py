"""The cost-versus-score chart with its Pareto frontier, for the Cost page and the PDF alike.

Why in ``reports``: it is rendering, not arithmetic (the frontier is computed in
``governance.procurement.cost``), and both the page and the dossier PDF draw the same picture from the same
``CostReport``, so there is one chart definition.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from governance.procurement.cost import CostReport

AXIS_FORMAT = ",~r"
"""d3 number format of both axes: no padded decimals (issue 27 item 12: an axis read "0.188000")."""


def cost_frame(report: CostReport) -> pd.DataFrame:
    """Rows that can be plotted: candidates with both a cost and a score.

    Example:
        >>> cost_frame(CostReport(rows=[], monthly_volume=0, score_benchmark=None, evaluation_cost_measured=0,
        ...                       evaluation_cost_published=0, evaluation_items=[], published=[])).empty
        True
    """
    rows = [{"model": r.model, "cost_per_1k": r.cost_per_1k, "score": r.score,
             "frontier": "on the frontier" if r.on_frontier else "dominated",
             "monthly_cost": r.monthly_cost, "price": r.price_model}
            for r in report.rows if r.cost_per_1k is not None and r.score is not None]
    return pd.DataFrame(rows, columns=["model", "cost_per_1k", "score", "frontier", "monthly_cost", "price"])


def cost_score_chart(report: CostReport, width: int = 640, height: int = 360) -> alt.LayerChart:
    """Candidates as points (USD per 1,000 requests against normalized score), the frontier as a step."""
    df = cost_frame(report)
    title = f"Score on {report.score_benchmark} (normalized 0-1)" if report.score_benchmark else "Score"
    x_max = float(df["cost_per_1k"].max()) * 1.35 if len(df) else 1.0  # room for the labels
    base = alt.Chart(df).encode(
        # ",~r": significant digits with trailing zeros trimmed, so a tick reads 0.188, not 0.188000
        x=alt.X("cost_per_1k:Q", title="USD per 1,000 requests", scale=alt.Scale(domain=[0, x_max]),
                axis=alt.Axis(format=AXIS_FORMAT)),
        y=alt.Y("score:Q", title=title, scale=alt.Scale(zero=False, padding=12),
                axis=alt.Axis(format=AXIS_FORMAT)),
    )
    points = base.mark_point(size=110, filled=True).encode(
        color=alt.Color("frontier:N", title=None, legend=alt.Legend(orient="bottom"),
                        scale=alt.Scale(domain=["on the frontier", "dominated"],
                                        range=["#1b7837", "#999999"])),
        tooltip=["model", alt.Tooltip("cost_per_1k:Q", format=".2f"), alt.Tooltip("score:Q", format=".3f"),
                 alt.Tooltip("monthly_cost:Q", format=",.0f"), "price"],
    )
    labels = base.mark_text(align="left", dx=8, dy=-6, fontSize=11).encode(text="model")
    frontier = (alt.Chart(df[df["frontier"] == "on the frontier"].sort_values("cost_per_1k"))
                .mark_line(interpolate="step-after", color="#1b7837", strokeDash=[4, 3])
                .encode(x="cost_per_1k:Q", y="score:Q"))
    return alt.layer(frontier, points, labels).properties(width=width, height=height)
