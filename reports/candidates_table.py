"""The candidate comparison as rows: one definition of columns and rounding for page, PDF and CSV.

Why here: the Candidates page, the "Candidates compared" PDF section and the CSV export must
show the same numbers, so they all read these rows, built once from
``governance.decision.comparison.CandidateComparison``. Money is rounded to cents, scores and intervals to
three decimals; the page keeps them as numbers (so its table sorts), the PDF prints them with the
same rounding, and the CSV neutralises text cells that a spreadsheet would run as formulas
(``reports.exports.csv_text``).
"""

from __future__ import annotations

from typing import Any

from governance.decision.comparison import CandidateComparison
from reports.exports import csv_text

SUMMARY_COLUMNS = [
    "candidate",
    "id",
    "model",
    "pricing",
    "usd_per_1k",
    "usd_per_month",
    "usd_per_1k_acceptable",
    "usd_per_1k_list",
    "usd_per_1k_measured",
    "measured_on",
    "pass_rate",
    "on_frontier",
    "cost_ceiling",
    "answered",
    "satisfactory",
    "questions",
    "open_items",
    "conditions",
    "recommendation",
]
SCORE_COLUMNS = [
    "benchmark",
    "kind",
    "candidate",
    "score",
    "lower",
    "upper",
    "verdict",
    "tie_group",
    "metric",
    "provenance",
    "n",
    "rules",
]


def money(value: float | None) -> float | None:
    """USD rounded to cents (None stays None)."""
    return None if value is None else round(value, 2)


def three(value: float | None) -> float | None:
    """A score or share rounded to three decimals (None stays None)."""
    return None if value is None else round(value, 3)


def summary_rows(cmp: CandidateComparison) -> list[dict[str, Any]]:
    """One row per candidate: cost, due diligence and recommendation.

    Example:
        >>> summary_rows(compare_candidates(dossier))[0]["usd_per_1k"]  # doctest: +SKIP
        24.77
    """
    return [
        {
            "candidate": c.label,
            "id": c.id,
            "model": c.model,
            "pricing": c.pricing,
            "usd_per_1k": money(c.cost_per_1k),
            "usd_per_month": money(c.monthly_cost),
            "usd_per_1k_acceptable": money(c.cost_per_1k_acceptable),
            "usd_per_1k_list": money(c.list_cost_per_1k),
            "usd_per_1k_measured": money(c.measured_cost_per_1k),
            "measured_on": c.measured_basis or "—",
            "pass_rate": three(c.pass_rate),
            "on_frontier": c.on_frontier,
            "cost_ceiling": c.cost_rule,
            "answered": c.answered,
            "satisfactory": c.satisfactory,
            "questions": c.questions,
            "open_items": len(c.open_items),
            "conditions": len(c.conditions),
            "recommendation": c.recommendation or "no evidence",
        }
        for c in cmp.candidates
    ]


def score_rows(cmp: CandidateComparison) -> list[dict[str, Any]]:
    """One row per candidate and benchmark: normalized score, interval, verdict, tie group."""
    kinds = {b.name: b.kind for b in cmp.benchmarks}
    return [
        {
            "benchmark": c.benchmark,
            "kind": kinds[c.benchmark],
            "candidate": c.candidate_id,
            "score": three(c.score),
            "lower": three(c.ci_lower),
            "upper": three(c.ci_upper),
            "verdict": c.verdict,
            "tie_group": c.tie_group,
            "metric": c.metric,
            "provenance": c.provenance,
            "n": c.n,
            "rules": ", ".join(c.rules),
        }
        for c in cmp.cells
    ]


def tie_text(groups: list[list[str]] | None, note: str) -> str:
    """``{a, b} > {c}``, or why there are no groups.

    Example:
        >>> tie_text([["a", "b"], ["c"]], ""), tie_text(None, "no interval")
        ('{a, b} > {c}', 'not grouped: no interval')
    """
    if groups is None:
        return f"not grouped: {note}"
    return " > ".join("{" + ", ".join(g) + "}" for g in groups)


def comparison_csv(cmp: CandidateComparison) -> str:
    """The comparison as one long CSV: a row per candidate and benchmark, candidate columns repeated.

    Candidates without any evidence get one row with empty benchmark columns.

    Example:
        >>> comparison_csv(cmp).splitlines()[0].startswith("candidate,id,model")  # doctest: +SKIP
        True
    """
    scores = score_rows(cmp)
    header = [*SUMMARY_COLUMNS, *[c for c in SCORE_COLUMNS if c != "candidate"]]
    rows = []
    for s in summary_rows(cmp):
        mine = [r for r in scores if r["candidate"] == s["id"]] or [{}]
        rows += [
            [s[k] for k in SUMMARY_COLUMNS] + [r.get(k) for k in SCORE_COLUMNS if k != "candidate"]
            for r in mine
        ]
    return csv_text(header, rows)
