"""Chart specs for the report: altair builds them, the report model carries them as Vega-Lite dicts.

Why specs and not images here: the report model stays plain data (the app draws the same spec
natively in the preview, the PDF renderer turns it into a PNG offline with vl-convert), and a
test can read the numbers straight out of the spec. Scores are drawn on MedHELM's normalized
0-1 scale so proportions and jury means share one axis; every caption says what the chart does
not show (no interval where there is none, published costs as the upper bounds they are).
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from evaluator.evidence import Evidence
from evaluator.medhelm_data import published_costs
from evaluator.stats import normalize_score
from governance.dossier.record import Dossier
from governance.evidence.coverage import coverage_map
from reports.model import Chart, Section

WIDTH = 420
PROVENANCE_ORDER = ["published", "helm-import", "local-run"]


def _norm(value: float | None, scale: str) -> float | None:
    return None if value is None else normalize_score(value, scale)


def scores_chart(evidence: list[Evidence]) -> Chart:
    """Each model's normalized score per benchmark, with its 95% interval where there is one.

    Example:
        >>> from evaluator.evidence import published_evidence
        >>> chart = scores_chart(published_evidence(["MedCalc-Bench"], ["DeepSeek R1"]))
        >>> chart.key, len(chart.spec["layer"])
        ('scores', 2)
    """
    df = pd.DataFrame([{"benchmark": e.benchmark, "model": e.model, "metric": e.metric,
                        "score": e.normalized_score, "lower": _norm(e.ci_lower, e.scale),
                        "upper": _norm(e.ci_upper, e.scale), "n": e.n} for e in evidence])
    benchmarks = sorted(df["benchmark"].unique())
    base = alt.Chart(df).encode(
        y=alt.Y("benchmark:N", sort=benchmarks, title=None),
        yOffset=alt.YOffset("model:N"),
        color=alt.Color("model:N", title="Model", legend=alt.Legend(orient="bottom", columns=2)),
    )
    dots = base.mark_point(filled=True, size=40).encode(
        x=alt.X("score:Q", scale=alt.Scale(domain=[0, 1]), title="Normalized score (0-1)"))
    bars = base.transform_filter("isValid(datum.lower)").mark_rule(strokeWidth=1.5).encode(
        x="lower:Q", x2="upper:Q")
    n_models = df["model"].nunique()
    chart = (bars + dots).properties(width=WIDTH, height=max(120, len(benchmarks) * max(n_models, 2) * 9))
    return Chart(key="scores", title="Scores with 95% intervals", spec=chart.to_dict(),
                 caption="Dots are scores on MedHELM's normalized scale (jury 1-5 mapped to (x-1)/4); lines "
                         "are 95% intervals. A dot without a line has no interval (see the evidence table's "
                         "notes).")


def model_means_chart(evidence: list[Evidence]) -> Chart:
    """Plain mean of normalized scores per model, with how many benchmarks the mean is over."""
    df = pd.DataFrame([{"model": e.model, "score": e.normalized_score} for e in evidence])
    means = df.groupby("model", as_index=False).agg(mean=("score", "mean"), benchmarks=("score", "size"))
    chart = alt.Chart(means).mark_bar().encode(
        y=alt.Y("model:N", sort="-x", title=None),
        x=alt.X("mean:Q", scale=alt.Scale(domain=[0, 1]), title="Mean normalized score (0-1)"),
        tooltip=["model", "mean", "benchmarks"],
    ).properties(width=WIDTH, height=max(60, 22 * len(means)))
    labels = chart.mark_text(align="left", dx=3).encode(text=alt.Text("mean:Q", format=".3f"))
    return Chart(key="model_means", title="Mean score per model", spec=(chart + labels).to_dict(),
                 caption="Plain mean over the benchmarks each model has evidence on, as MedHELM's category "
                         "view does. No interval: it mixes proportions and jury means.")


def coverage_chart(dossier: Dossier) -> Chart:
    """Attached evidence records per accepted subcategory, by provenance."""
    rows = []
    for c in coverage_map(dossier):
        counts = {"published": c.attached_published, "helm-import": c.attached_helm_import,
                  "local-run": c.attached_local_run}
        rows += [{"subcategory": c.subcategory, "provenance": p, "records": n} for p, n in counts.items()]
    df = pd.DataFrame(rows, columns=["subcategory", "provenance", "records"])
    chart = alt.Chart(df).mark_bar().encode(
        y=alt.Y("subcategory:N", title=None),
        x=alt.X("sum(records):Q", title="Attached evidence records"),
        color=alt.Color("provenance:N", scale=alt.Scale(domain=PROVENANCE_ORDER), title="Provenance",
                        legend=alt.Legend(orient="bottom")),
    ).properties(width=WIDTH, height=max(60, 28 * df["subcategory"].nunique()))
    return Chart(key="coverage", title="Evidence coverage by subcategory", spec=chart.to_dict(),
                 caption="Records attached per accepted subcategory. A subcategory with no bar has no "
                         "evidence.")


def published_cost_chart(evidence: list[Evidence]) -> Chart | None:
    """MedHELM's published total cost per model against its mean score here (None if no model matches)."""
    costs = published_costs()
    costs = costs[costs["item"] == "Total Cost (USD)"][["model", "value"]].rename(columns={"value": "usd"})
    df = pd.DataFrame([{"model": e.model, "score": e.normalized_score} for e in evidence])
    df = df.groupby("model", as_index=False)["score"].mean().merge(costs, on="model")
    if df.empty:
        return None
    chart = alt.Chart(df).mark_point(filled=True, size=70).encode(
        x=alt.X("usd:Q", title="MedHELM published total cost, all 37 benchmarks (USD, upper bound)"),
        y=alt.Y("score:Q", scale=alt.Scale(domain=[0, 1]), title="Mean normalized score here"),
        color=alt.Color("model:N", title="Model", legend=alt.Legend(orient="bottom", columns=2)),
        tooltip=["model", "usd", "score"],
    )
    return Chart(key="published_cost", title="Published cost against score",
                 spec=chart.properties(width=WIDTH, height=200).to_dict(),
        caption="Costs are MedHELM's published budget-based upper bounds at 2025 list prices for running "
                "all 37 benchmarks, not this hospital's cost and not an invoice; scores are this dossier's "
                "means.")


def subgroups_chart(evidence: list[Evidence]) -> Chart | None:
    """Subgroup scores per model and tag (None when no evidence reports subgroups)."""
    rows = [{"model": e.model, "benchmark": e.benchmark, "group": f"{s.tag}={s.group}",
             "score": _norm(s.score, e.scale)}
            for e in evidence for s in (e.subgroups or []) if not s.suppressed]
    if not rows:
        return None
    df = pd.DataFrame(rows)
    chart = alt.Chart(df).mark_point(filled=True).encode(
        y=alt.Y("group:N", title=None),
        x=alt.X("score:Q", scale=alt.Scale(domain=[0, 1]), title="Normalized score"),
        color=alt.Color("model:N", legend=alt.Legend(orient="bottom")),
        shape=alt.Shape("benchmark:N", legend=alt.Legend(orient="bottom", labelLimit=400)),
    ).properties(width=WIDTH, height=max(60, 18 * df["group"].nunique()))
    return Chart(key="subgroups", title="Subgroup scores", spec=chart.to_dict(),
                 caption="Scores of each subgroup; suppressed (too small) groups are left out.")


def charts_section(dossier: Dossier, published_cost: bool = True) -> Section:
    """The charts of the dossier's evidence.

    ``published_cost`` adds MedHELM's published cost against score; the report leaves it out when
    the cost section has the dossier's own cost chart.
    """
    evidence = dossier.evidence
    if not evidence:
        return Section(key="charts", title="Charts", recorded=False,
                       paragraphs=["Not recorded yet: there is no evidence to chart."])
    charts = [scores_chart(evidence), model_means_chart(evidence), coverage_chart(dossier),
              published_cost_chart(evidence) if published_cost else None, subgroups_chart(evidence)]
    return Section(key="charts", title="Charts", charts=[c for c in charts if c is not None])
