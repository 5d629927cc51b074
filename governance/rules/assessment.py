"""The dossier's assessment and the recommendation it supports, vendor due diligence included.

Why one function: the verdicts (``governance.rules.verdicts``), the recommendation they support
(``governance.rules.recommendation``) and the open items and conditions from vendor due diligence
(``governance.procurement.candidate_items``) are read together everywhere a committee sees an outcome
(Decision page, comparison, PDF, ``medassure assess``). Computing them in one place keeps those
readers from disagreeing. Vendor items reach the recommendation per evidence model: an approve with
any such item becomes an approve with conditions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from governance.procurement.candidate_items import VendorItem, vendor_items
from governance.procurement.candidates import candidate_models
from governance.procurement.records import Candidate
from governance.rules.recommendation import RANK, Recommendation, overall, recommend
from governance.rules.verdicts import Assessment, assess

if TYPE_CHECKING:
    from governance.dossier.record import Dossier


def _item_line(candidate: Candidate, item: VendorItem) -> str:
    prefix = "Open item" if item.kind == "open_item" else "Vendor condition"
    return f"{prefix} for {candidate.label}: {item.text}"


def with_vendor_items(dossier: Dossier, rec: Recommendation) -> Recommendation:
    """The recommendation with each candidate's vendor items added (see the module docstring).

    A dossier without candidates gets its recommendation back unchanged.

    Example:
        >>> with_vendor_items(dossier, recommend(assess(dossier))).outcome  # doctest: +SKIP
        'approve_with_conditions'
    """
    if not dossier.candidates or not rec.candidates:
        return rec
    lines: dict[str, list[str]] = {}
    for cand in dossier.candidates:
        items = vendor_items(dossier, cand)
        for model in candidate_models(dossier, cand):
            lines.setdefault(model, []).extend(_item_line(cand, i) for i in items)
    if not any(lines.get(c.model) for c in rec.candidates):
        return rec
    per = []
    for c in rec.candidates:
        extra = lines.get(c.model, [])
        if not extra:
            per.append(c)
            continue
        outcome = "approve_with_conditions" if c.outcome == "approve" else c.outcome
        n_open = sum(line.startswith("Open item") for line in extra)
        reason = (f"Vendor due diligence: {n_open} open item(s) and {len(extra) - n_open} vendor "
                  "condition(s) from the attestations and contract facts.")
        conditions = c.conditions if outcome == "reject" else [*c.conditions, *extra]
        per.append(c.model_copy(update={"outcome": outcome, "conditions": conditions,
                                        "reasons": [*c.reasons, reason]}))
    per.sort(key=lambda c: (RANK[c.outcome], -c.counts["pass"], c.counts["inconclusive"]))
    best, models, reasons = overall(per)  # worded as governance.rules.recommendation words it
    reasons.append("Vendor due diligence adds open items or conditions: see the Candidates page.")
    return rec.model_copy(update={"outcome": best, "models": models, "candidates": per, "reasons": reasons})


def assessment_and_recommendation(dossier: Dossier) -> tuple[Assessment, Recommendation]:
    """Verdicts and the recommendation they support (never stored; recomputed per version).

    Example:
        >>> assessment, rec = assessment_and_recommendation(dossier)  # doctest: +SKIP
        >>> assessment.counts()["pass"], rec.outcome                   # doctest: +SKIP
        (20, 'approve_with_conditions')
    """
    assessment = assess(dossier)
    return assessment, with_vendor_items(dossier, recommend(assessment))
