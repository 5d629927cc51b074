"""Altair charts and display tables for the Evidence page (rendering only, no statistics).

Kept apart from ``pages/evidence.py`` so the page reads top to bottom as what it shows. Every
function takes rows of the view model and returns a chart or a DataFrame; none computes a score.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from governance.evidence import (
    BenchmarkTies,
    CoverageRow,
    GroupMeanRow,
    InstanceRow,
    RunPreview,
    ScoreRow,
    WinRateRow,
)
from pages.tables import tie_groups


def score_frame(rows: list[ScoreRow]) -> pd.DataFrame:
    """One line per score: the number, its n, its interval and the interval's basis."""
    return pd.DataFrame([{
        "model": r.evidence.model, "endpoint": r.evidence.endpoint_model or "",
        "benchmark": r.evidence.benchmark, "access": r.access or "",
        "metric": r.evidence.metric, "score": r.evidence.score, "scale": r.evidence.scale,
        "normalized": r.evidence.normalized_score, "n": r.evidence.n, "95% interval": r.interval,
        "interval method / why none": r.interval_basis, "provenance": r.evidence.provenance,
        "attached": r.attached, "source": r.evidence.source, "caveat": r.evidence.caveat,
        "judged": "main metric: judged by the rules" if r.evidence.is_main
        else "context: shown, not judged",
    } for r in rows])


def coverage_frame(rows: list[CoverageRow]) -> pd.DataFrame:
    """The coverage map as a table."""
    return pd.DataFrame([{
        "subcategory": r.subcategory, "category": r.category, "evidence kinds": r.summary,
        "public benchmarks": ", ".join(r.public), "gated": ", ".join(r.gated),
        "private": ", ".join(r.private), "attached published": r.attached_published,
        "attached HELM runs": r.attached_helm_import, "attached local runs": r.attached_local_run,
        "local tasks (no evidence yet)": "; ".join(r.local_tasks),
    } for r in rows])


def heatmap(rows: list[ScoreRow], benchmarks: list[str], models: list[str]) -> alt.LayerChart:
    """Model × benchmark (in the given orders), coloured by normalized score, labelled with the score."""
    df = score_frame(rows)
    df["label"] = [f"{s:.3g}" for s in df["score"]]
    tooltip = ["model", "benchmark", "metric", alt.Tooltip("score:Q", format=".3f"), "scale",
               alt.Tooltip("normalized:Q", format=".3f"), "n", "95% interval", "interval method / why none"]
    base = alt.Chart(df).encode(
        x=alt.X("benchmark:N", title=None, sort=benchmarks, axis=alt.Axis(
            # angled past three columns and never dropped: a narrow window once lost two of five names
            orient="top", labelAngle=0 if len(benchmarks) <= 3 else -30, labelOverlap=False, labelLimit=160,
            labelFontSize=12)),
        y=alt.Y("model:N", title=None, sort=models, axis=alt.Axis(labelLimit=260, labelFontSize=12)),
    )
    cells = base.mark_rect(stroke="white", strokeWidth=2).encode(
        color=alt.Color("normalized:Q", title="normalized", scale=alt.Scale(scheme="blues", domain=[0, 1]),
                        legend=alt.Legend(gradientLength=max(40, 44 * len(models) - 30))),
        tooltip=tooltip,
    )
    text = base.mark_text(fontSize=13).encode(
        text="label:N",
        color=alt.condition(alt.datum.normalized > 0.6, alt.value("white"), alt.value("black")),
        tooltip=tooltip,
    )
    # Streamlit fits the whole chart (axes included) into the height, so leave room for the labels.
    return (cells + text).properties(height=44 * len(models) + 60)


def group_means_chart(rows: list[GroupMeanRow], level: str, models: list[str]) -> alt.FacetChart:
    """Horizontal bars, one per model within each group, labelled with the mean share correct and its n."""
    df = pd.DataFrame([r.model_dump() for r in rows if r.level == level])
    df["label"] = [f"{m:.3f} · n={n} benchmark{'s' if n != 1 else ''}"
                   for m, n in zip(df["mean_normalized"], df["n_benchmarks"], strict=True)]
    base = alt.Chart(df).encode(
        y=alt.Y("model:N", title=None, sort=models, axis=alt.Axis(labelLimit=260, labelFontSize=12)),
        x=alt.X("mean_normalized:Q", title="mean share correct (proportion benchmarks only)",
                scale=alt.Scale(domain=[0, 1])),
    )
    bars = base.mark_bar(color="#4c78a8").encode(
        tooltip=["group", "model", alt.Tooltip("mean_normalized:Q", format=".3f"), "n_benchmarks"],
    )
    text = base.mark_text(align="right", dx=-6, color="white", fontSize=12).encode(text="label:N")
    return (bars + text).properties(width=640, height=34 * len(models)).facet(
        row=alt.Row("group:N", title=None, header=alt.Header(
            labelAngle=0, labelAlign="left", labelFontSize=13, labelFontWeight="bold", labelOrient="top")),
    )


def run_frame(runs: list[RunPreview]) -> pd.DataFrame:
    """The runs of a HELM folder as they would be attached."""
    return pd.DataFrame([{
        "run": r.run_name, "model": r.model, "benchmark": r.benchmark, "metric": r.metric or "",
        "mean": None if r.mean is None else round(r.mean, 3), "scale": r.scale or "", "n": r.n,
        "unscored": r.n_unscored, "95% interval": r.interval,
        "interval method / why none": r.interval_basis,
        "attachable": "yes" if r.evidence else f"no: {r.not_attachable}",
    } for r in runs])


def instance_frame(rows: list[InstanceRow]) -> pd.DataFrame:
    """Per-instance drill-down rows."""
    return pd.DataFrame([{
        "instance": r.instance_id, "trial": r.trial, "score": r.score, "completion": r.completion,
        "reference": r.references, "input": r.input_text, "note": r.note,
    } for r in rows])


def win_rate_frame(rows: list[WinRateRow]) -> pd.DataFrame:
    """Win rates with their n; the interval column says there is none (the reason is the caption)."""
    return pd.DataFrame([{
        "model": w.model, "candidate": w.candidate or "", "mean win rate": f"{w.mean_win_rate:.3f}",
        "benchmarks (n)": w.n_benchmarks, "compared against (models)": w.n_models, "95% interval": "none",
    } for w in rows])


def ties_frame(rows: list[BenchmarkTies]) -> pd.DataFrame:
    """Tie groups per benchmark ("1. A, B · 2. C"), or why a benchmark is not grouped."""
    return pd.DataFrame([{"benchmark": t.benchmark, "metric": t.metric,
                          "tie groups, best first": tie_groups(t.groups, t.reason)} for t in rows])
