"""Sections on what surrounds the model in use: human review, monitoring, and what it will cost.

Why these show the agreed plan and not a fresh derivation: the dossier stores the review and
monitoring plan the committee agreed (derived from tier and verdicts, then possibly edited, with
who edited it), so the report prints that record. Cost figures are recomputed from the dossier's
cost inputs by ``governance.procurement.cost``; MedHELM's published dollar figures appear beside ours,
labelled as the budget-based upper bounds they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from governance.dossier.labels import source_words
from governance.dossier.record import Dossier
from governance.procurement.cost import MEDHELM_BASIS, cost_report
from reports.cost_chart import cost_frame, cost_score_chart
from reports.model import Chart, Fact, Section, Table
from reports.sections_core import fmt_date

if TYPE_CHECKING:
    from governance.procurement.measured_cost import MeasuredCost

CHART_WIDTH = 420


def _usd(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"USD {value:,.{digits}f}"


def _not_recorded(key: str, title: str, what: str) -> Section:
    return Section(key=key, title=title, recorded=False, paragraphs=[f"Not recorded yet: {what}"])


def human_review_section(dossier: Dossier) -> Section:
    """The review requirements the committee agreed, and how they were derived."""
    plan = dossier.oversight
    if plan is None:
        return _not_recorded("human_review", "Human review", "no human review requirements are recorded.")
    r = plan.review
    facts = [
        Fact(label="Review before release",
             value="yes: every output is reviewed before it reaches a chart or a patient"
             if r.review_before_release else "no"),
        Fact(label="Reviewer", value=r.reviewer), Fact(label="Qualification", value=r.qualification),
        Fact(label="Audit sample", value=f"{r.qa_sample_rate:.0%} of released outputs, by {r.qa_reviewer}"),
        Fact(label="Audit stratified by subgroup", value="yes" if r.stratify_audit_by_subgroup else "no"),
        Fact(label="Audit ratings by clinicians",
             value="yes" if r.clinician_rated_audit else "no (LLM jury)"),
        Fact(label="Derived from", value=source_words(plan.derived_from) or "—"),
        Fact(label="Edited", value=f"by {plan.edited_by} on {fmt_date(plan.edited_at)}" if plan.edited_by
             else "no: as derived"),
    ]
    how = Section(key="review_reasons", title="How the plan was derived", bullets=plan.reasons)
    return Section(key="human_review", title="Human review", facts=facts, subsections=[how])


def monitoring_section(dossier: Dossier) -> Section:
    """When the model is re-evaluated, what is watched, and who owns it."""
    plan = dossier.oversight
    if plan is None:
        return _not_recorded("monitoring", "Monitoring plan", "no monitoring plan is recorded.")
    m = plan.monitoring
    facts = [Fact(label="Owner", value=m.owner),
             Fact(label="Scheduled re-evaluation", value=f"every {m.schedule_months} months")]
    tables = [Table(title="Re-evaluation triggers", columns=["Trigger", "Event"],
                    rows=[[t.kind.replace("_", " "), t.description] for t in m.triggers], widths=[1.6, 6])]
    if m.metrics:
        tables.append(Table(title="Metrics watched after go-live", columns=["Metric", "Alarm", "From"],
                            rows=[[x.name, f"{'at least' if x.direction == 'at_least' else 'at most'} "
                                   f"{x.threshold:g}", x.source or "—"] for x in m.metrics],
                            widths=[4, 1.6, 2]))
    return Section(key="monitoring", title="Monitoring plan", facts=facts, tables=tables)


def cost_section(dossier: Dossier, measured: Mapping[str, MeasuredCost] | None = None) -> Section:
    """Cost per 1,000 requests, monthly cost and cost per acceptable output, with the frontier chart.

    ``measured`` (what the dossier's own runs were charged, read from the run store by the caller)
    fills the measured column; without it the column reads "—".
    """
    if dossier.cost is None or not dossier.cost.profiles:
        return _not_recorded("cost", "Cost-performance", "no cost inputs (token profiles per candidate) are "
                                                         "recorded.")
    report = cost_report(dossier, measured=measured)
    sources: dict[str, str] = {}

    def ref(text: str) -> str:
        return sources.setdefault(text, f"P{len(sources) + 1}")

    rows = [[r.model, f"{r.price_model} [{ref(r.price_source or 'no price known')}]",
             f"{r.mean_prompt_tokens:,.0f} / {r.mean_completion_tokens:,.0f} [{ref(r.token_source)}]",
             _usd(r.cost_per_1k),
             f"{_usd(r.measured_per_1k)} [{ref(r.measured_source)}]" if r.measured_source else "—",
             _usd(r.monthly_cost, 0), "—" if r.score is None else f"{r.score:.3f}",
             _usd(r.cost_per_1k_acceptable), "yes" if r.on_frontier else "no", r.note or "—"]
            for r in report.rows]
    tables = [Table(title="Per candidate", rows=rows, widths=[66, 64, 56, 46, 52, 48, 32, 54, 40, 58],
                    columns=["Model", "Priced as", "Tokens in / out per request", "USD per 1,000 requests",
                             "USD per 1,000 measured in our runs", "USD per month", "Score",
                             "USD per 1,000 acceptable outputs", "On the frontier", "Note"],
                    note=f"Per month: at the intended use's {report.monthly_volume:,} requests. Score: "
                         f"normalized 0-1 on {report.score_benchmark or '—'}. Acceptable outputs: cost "
                         "divided by the pass rate, where the score is a share of correct outputs."),
              Table(title="Price and token sources", columns=["Ref", "Source"], widths=[0.6, 9],
                    rows=[[r, t] for t, r in sources.items()])]
    if report.published:
        tables.append(Table(
            title="MedHELM's published cost estimates (not this hospital's cost)",
            columns=["Model", "All 37 benchmarks", f"On {report.score_benchmark or '—'}", "Per instance"],
            rows=[[p["model"], _usd(p["total_usd_37_benchmarks"]), _usd(p["benchmark_usd"]),
                   _usd(p["usd_per_instance"], 4)] for p in report.published],
            widths=[2, 1.5, 1.5, 1.5], note=MEDHELM_BASIS))
    facts = [Fact(label="Evaluation cost, measured (our runs, jury)",
                  value=_usd(report.evaluation_cost_measured)),
             Fact(label="Evaluation cost, published (MedHELM upper bound)",
                  value=_usd(report.evaluation_cost_published))]
    charts = []
    if not cost_frame(report).empty:
        charts.append(Chart(key="cost_score", title="Cost against score",
                            spec=cost_score_chart(report, width=CHART_WIDTH, height=240).to_dict(),
                            caption="Green points are on the Pareto frontier (no other candidate is both "
                                    "cheaper and at least as good); the dashed step is the frontier."))
    return Section(key="cost", title="Cost-performance", facts=facts, tables=tables, charts=charts)
