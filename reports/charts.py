"""Chart specs for the report: altair builds them, the report model carries them as Vega-Lite dicts.

Why specs and not images here: the report model stays plain data (the app draws the same spec
natively in the preview, the PDF renderer turns it into a PNG offline with vl-convert), and a
test can read the numbers straight out of the spec. Only main-metric records are drawn (a run's
context metrics are shown in the evidence table, never charted or averaged). The scores chart
puts shares of correct answers and jury means (MedHELM's (x - 1)/4) on one 0-1 axis; similarity
scores (BERTScore, ROUGE, F1) are on scales of their own and are left out rather than drawn as if
they were 0-1 proportions. Means across benchmarks are taken over proportions only. Every caption
says what the chart does not show (no interval where there is none, what was left out, published
costs as the upper bounds they are).
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from evaluator.evidence.medhelm import published_costs
from evaluator.evidence.record import Evidence
from evaluator.statistics.estimates import normalize_score
from governance.dossier.record import Dossier
from governance.evidence.coverage import coverage_map
from governance.evidence.select import is_jury_scored, is_share
from reports.model import Chart, Section

WIDTH = 420
PROVENANCE_ORDER = ["published", "helm-import", "inspect-import", "local-run"]


def _norm(value: float | None, scale: str) -> float | None:
    return None if value is None else normalize_score(value, scale)


def _left_out(evidence: list[Evidence], drawn: list[Evidence]) -> str:
    main = [e for e in evidence if e.is_main and e not in drawn]
    context = sum(not e.is_main for e in evidence)
    parts = []
    if main:
        metrics = ", ".join(sorted({e.metric for e in main}))
        parts.append(f"{len(main)} main score(s) on a scale of their own ({metrics}) are not drawn")
    if context:
        parts.append(f"{context} context metric(s) of local runs are shown in the evidence table only")
    return (" " + "; ".join(parts) + ".") if parts else ""


def chartable(e: Evidence) -> bool:
    """Whether a record belongs on a 0-1 score axis: a main share of correct answers or a jury mean.

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> chartable(published_evidence(["MIMIC-IV Billing Code"], ["DeepSeek R1"])[0])
        False
    """
    return e.is_main and (is_share(e) or is_jury_scored(e))


def scores_chart(evidence: list[Evidence]) -> Chart | None:
    """Each model's score per benchmark on a 0-1 axis, with its 95% interval where there is one.

    Only main shares of correct answers and jury means (as (x − 1)/4) are drawn; None when there
    is nothing to draw.

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> chart = scores_chart(published_evidence(["MedCalc-Bench"], ["DeepSeek R1"]))
        >>> chart.key, len(chart.spec["layer"])
        ('scores', 2)
    """
    drawn = [e for e in evidence if chartable(e)]
    if not drawn:
        return None
    df = pd.DataFrame([{"benchmark": e.benchmark, "model": e.model, "metric": e.metric,
                        "score": e.normalized_score, "lower": _norm(e.ci_lower, e.scale),
                        "upper": _norm(e.ci_upper, e.scale), "n": e.n} for e in drawn])
    benchmarks = sorted(df["benchmark"].unique())
    base = alt.Chart(df).encode(
        y=alt.Y("benchmark:N", sort=benchmarks, title=None),
        yOffset=alt.YOffset("model:N"),
        color=alt.Color("model:N", title="Model", legend=alt.Legend(orient="bottom", columns=2)),
    )
    dots = base.mark_point(filled=True, size=40).encode(
        x=alt.X("score:Q", scale=alt.Scale(domain=[0, 1]), title="Share correct, or jury mean as (x-1)/4"))
    bars = base.transform_filter("isValid(datum.lower)").mark_rule(strokeWidth=1.5).encode(
        x="lower:Q", x2="upper:Q")
    n_models = df["model"].nunique()
    chart = (bars + dots).properties(width=WIDTH, height=max(120, len(benchmarks) * max(n_models, 2) * 9))
    return Chart(key="scores", title="Scores with 95% intervals", spec=chart.to_dict(),
                 caption="Dots are shares of correct answers, or LLM-jury means mapped from 1-5 to 0-1 as "
                         "(x-1)/4 as MedHELM does; lines are 95% intervals. A dot without a line has no "
                         "interval (see the evidence table's notes)." + _left_out(evidence, drawn))


def _share_means(evidence: list[Evidence]) -> pd.DataFrame:
    """Plain mean per model over its main share-of-correct records (no other scale mixed in)."""
    df = pd.DataFrame([{"model": e.model, "score": e.score} for e in evidence if is_share(e)],
                      columns=["model", "score"])
    return df.groupby("model", as_index=False).agg(mean=("score", "mean"), benchmarks=("score", "size"))


def model_means_chart(evidence: list[Evidence]) -> Chart | None:
    """Plain mean share correct per model over proportion benchmarks only; None when there are none.

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> model_means_chart(published_evidence(["MedicationQA"], ["DeepSeek R1"])) is None
        True
    """
    means = _share_means(evidence)
    if means.empty:
        return None
    chart = alt.Chart(means).mark_bar().encode(
        y=alt.Y("model:N", sort="-x", title=None),
        x=alt.X("mean:Q", scale=alt.Scale(domain=[0, 1]), title="Mean share correct (0-1)"),
        tooltip=["model", "mean", "benchmarks"],
    ).properties(width=WIDTH, height=max(60, 22 * len(means)))
    labels = chart.mark_text(align="left", dx=3).encode(text=alt.Text("mean:Q", format=".3f"))
    left = sum(e.is_main and not is_share(e) for e in evidence)
    return Chart(key="model_means", title="Mean share correct per model", spec=(chart + labels).to_dict(),
                 caption="Plain mean of the main-metric shares of correct answers over the benchmarks each "
                         "model has them on. Jury means, similarity scores (BERTScore, ROUGE, F1) and the "
                         f"context metrics of local runs are on other scales and are not averaged in ({left} "
                         "main score(s) left out). No interval; the verdicts use each score's own.")


def coverage_chart(dossier: Dossier) -> Chart:
    """Attached evidence records per accepted subcategory, by provenance."""
    rows = []
    for c in coverage_map(dossier):
        counts = {"published": c.attached_published, "helm-import": c.attached_helm_import,
                  "local-run": c.attached_local_run, "inspect-import": c.attached_inspect_import}
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
    df = _share_means(evidence).rename(columns={"mean": "score"}).merge(costs, on="model")
    if df.empty:
        return None
    chart = alt.Chart(df).mark_point(filled=True, size=70).encode(
        x=alt.X("usd:Q", title="MedHELM published total cost, all 37 benchmarks (USD, upper bound)"),
        y=alt.Y("score:Q", scale=alt.Scale(domain=[0, 1]), title="Mean share correct here"),
        color=alt.Color("model:N", title="Model", legend=alt.Legend(orient="bottom", columns=2)),
        tooltip=["model", "usd", "score"],
    )
    return Chart(key="published_cost", title="Published cost against score",
                 spec=chart.properties(width=WIDTH, height=200).to_dict(),
        caption="Costs are MedHELM's published budget-based upper bounds at 2025 list prices for running "
                "all 37 benchmarks, not this hospital's cost and not an invoice; scores are this dossier's "
                "mean shares correct over its proportion benchmarks.")


def subgroups_chart(evidence: list[Evidence]) -> Chart | None:
    """Subgroup scores per model and tag (None when no evidence reports subgroups)."""
    rows = [{"model": e.model, "benchmark": e.benchmark, "group": f"{s.tag}={s.group}",
             "score": _norm(s.score, e.scale)}
            for e in evidence if chartable(e) for s in (e.subgroups or []) if not s.suppressed]
    if not rows:
        return None
    df = pd.DataFrame(rows)
    chart = alt.Chart(df).mark_point(filled=True).encode(
        y=alt.Y("group:N", title=None),
        x=alt.X("score:Q", scale=alt.Scale(domain=[0, 1]), title="Share correct, or jury mean as (x-1)/4"),
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
