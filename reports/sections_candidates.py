"""The "Candidates compared" report section (issue 10): vendor products side by side.

Why a section of its own, added through ``Report.extra_sections``: a dossier without candidates
has nothing to say here, so the section appears only when candidates are recorded and the
report's fixed sections stay as they are. Every number comes from
``governance.decision.comparison.compare_candidates`` through ``reports.candidates_table``, the rows the
Candidates page and the CSV export show, so the PDF cannot disagree with them.
"""

from __future__ import annotations

from governance.decision.comparison import compare_candidates
from governance.dossier.labels import benchmark_label
from governance.dossier.record import Dossier
from governance.rules.recommendation import Recommendation
from governance.rules.verdicts import Assessment
from reports.candidates_table import score_rows, summary_rows, tie_text
from reports.comparison_chart import candidates_chart
from reports.model import Chart, Fact, Section, Table

CHART_WIDTH = 420
YES_NO = {True: "yes", False: "no", None: "not known"}


def usd(value: float | None) -> str:
    """``USD 12.34`` or an em dash.

    Example:
        >>> usd(33.75), usd(None)
        ('USD 33.75', '—')
    """
    return "—" if value is None else f"USD {value:,.2f}"


def num(value: float | None) -> str:
    """Three decimals or an em dash."""
    return "—" if value is None else f"{value:.3f}"


def candidates_sections(dossier: Dossier, assessed: tuple[Assessment, Recommendation] | None = None
                        ) -> list[Section]:
    """The "Candidates compared" section, or nothing when the dossier records no candidates.

    Example:
        >>> [s.title for s in candidates_sections(dossier)]  # doctest: +SKIP
        ['Candidates compared']
    """
    if not dossier.candidates:
        return []
    cmp = compare_candidates(dossier, assessed=assessed)
    products = {c.id: c.label for c in cmp.candidates}  # ids are the CSV's; the PDF names products (issue 36)
    summary = Table(
        title="Candidates",
        widths=[90, 62, 48, 52, 58, 30, 40, 50, 34, 34, 62],
        columns=[
            "Candidate",
            "Model",
            "Pricing",
            "USD per 1,000 requests",
            "USD per 1,000 acceptable outputs",
            "On the frontier",
            "Cost ceiling",
            "Attestations (answered / satisfactory / questions)",
            "Open items",
            "Conditions",
            "Recommendation",
        ],
        rows=[
            [
                s["candidate"],
                s["model"],
                s["pricing"].replace("_", " "),
                usd(s["usd_per_1k"]),
                usd(s["usd_per_1k_acceptable"]),
                "yes" if s["on_frontier"] else "no",
                s["cost_ceiling"],
                f"{s['answered']} / {s['satisfactory']} / {s['questions']}",
                str(s["open_items"]),
                str(s["conditions"]),
                s["recommendation"].replace("_", " "),
            ]
            for s in summary_rows(cmp)
        ],
        note=f"At the intended use's {cmp.monthly_volume:,} requests a month. Acceptable outputs: cost ÷ "
        f"pass rate on {benchmark_label(cmp.score_benchmark) or '—'}. {cmp.methods['cost_rule']}",
    )
    scores = Table(
        title="Scores by benchmark",
        widths=[70, 70, 34, 62, 50, 30, 50],
        columns=["Benchmark", "Candidate", "Score", "95% interval", "Verdict", "Tie group", "Evidence"],
        rows=[
            [
                benchmark_label(r["benchmark"]) + ("" if r["kind"] == "mapped" else f" ({r['kind']})"),
                products.get(r["candidate"], r["candidate"]),
                num(r["score"]),
                "none" if r["lower"] is None else f"{num(r['lower'])}–{num(r['upper'])}",
                r["verdict"],
                "—" if r["tie_group"] is None else str(r["tie_group"]),
                f"{r['provenance'] or 'none'}, n={r['n'] if r['n'] is not None else '—'}",
            ]
            for r in score_rows(cmp)
        ],
        note=f"{cmp.methods['score']} {cmp.methods['verdict']}",
    )
    ties = Table(
        title="Tie groups",
        columns=["Benchmark", "Groups (best first)"],
        widths=[1.2, 4],
        rows=[[benchmark_label(b.name), tie_text([[products.get(i, i) for i in g] for g in b.groups]
                                                 if b.groups else b.groups, b.note)] for b in cmp.benchmarks],
        note=cmp.methods["ties"],
    )
    contract = Table(
        title="Contract facts",
        widths=[80, 70, 36, 36, 36, 60, 80],
        columns=[
            "Candidate",
            "Data residency",
            "PHI agreement",
            "Change notice (days)",
            "Version pinning",
            "Prompt / configuration",
            "Endpoint (key variable name only)",
        ],
        rows=[
            [
                c.label,
                c.contract.data_residency or "not known",
                YES_NO[c.contract.phi_agreement],
                "not known" if c.contract.change_notice_days is None else str(c.contract.change_notice_days),
                YES_NO[c.contract.version_pinning],
                c.prompt_version or "—",
                c.endpoint or "—",
            ]
            for c in cmp.candidates
        ],
    )
    items = [
        Section(
            key=f"candidate_{c.id}",
            title=f"{c.label}: open items and conditions",
            paragraphs=[f"Cost: {c.cost_basis}."],
            bullets=[f"Open item: {t}" for t in c.open_items] + [f"Condition: {t}" for t in c.conditions]
            or ["No open items or conditions from due diligence."],
        )
        for c in cmp.candidates
    ]
    facts = [
        Fact(label="Candidates", value=str(len(cmp.candidates))),
        Fact(label="Questionnaire", value=cmp.questionnaire),
        Fact(label="Mapped benchmarks without candidate evidence", value=", ".join(cmp.uncovered) or "none"),
    ]
    charts = []
    if any(c.score is not None for c in cmp.cells):
        charts.append(
            Chart(
                key="candidates",
                title="Scores with 95% intervals by candidate",
                spec=candidates_chart(cmp, width=CHART_WIDTH).to_dict(),
                caption="Hollow points have no interval (published jury means, mean F1).",
            )
        )
    return [
        Section(
            key="candidates",
            title="Candidates compared",
            facts=facts,
            charts=charts,
            paragraphs=[
                "Vendor products considered for this intended use, side by side on the dossier's "
                "evidence, the quoted price, and what each vendor attested. Attestations are "
                "the vendor's statements, not evidence of performance.",
                cmp.methods["attestations"],
            ],
            tables=[summary, scores, ties, contract],
            subsections=items,
        )
    ]
