"""The one-page decision memo: the question, the answer, three reasons with numbers, conditions, who
signed and when, and what is missing.

Why a memo apart from the report: a committee chair, a CMIO or a board reads one page. It is built from
the same verdicts and the same sentences as the Decision page and the PDF (``governance.rules.
outcome_text``), so the page, page 1 of the PDF and the signed dossier cannot disagree. The memo is
about one candidate: the one the committee decided on, else the recommendation's best; every other
candidate's outcome follows in one line each.

The three reasons are the decided candidate's verdicts that weigh most, each in a sentence with its
numbers: failures first, then estimates below their bar, then open verdicts (fewest further cases
first), then the narrowest passes. Nothing here is stored; it is recomputed per version.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from governance.decision.readiness import decision_checklist
from governance.decision.records import OUTCOME_LABELS
from governance.decision.signoff import signoff_status
from governance.procurement.candidates import candidate_names
from governance.procurement.retirement import DEFAULT_NOTICE_DAYS, candidate_named, retirement_warning
from governance.rules.outcome_text import OutcomeLine, headline, misses_bar, outcome_lines, verdict_sentence
from governance.rules.recommendation import Recommendation
from governance.rules.verdicts import Assessment, Verdict

if TYPE_CHECKING:
    from governance.dossier.record import Dossier


class DecisionMemo(BaseModel):
    """What page 1 of the PDF and the top of the Decision page say."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str
    """What the committee is asked."""
    answer: str
    """The committee's decision if recorded (with what the tool recommends for that candidate), else the
    recommendation."""
    candidate: str | None
    """The candidate the memo is about (None: no candidate has evidence)."""
    reasons: list[str]
    """Up to three reasons with their numbers."""
    conditions: list[str]
    """The decision's conditions, else those the verdicts call for."""
    signed: list[str]
    """Who signed and when, one line per required role."""
    missing: list[str]
    """What is missing: checklist gaps, unsigned roles, a decision not recorded."""
    outcomes: list[OutcomeLine]
    """Every candidate's outcome, best first."""
    retirement: list[str] = []
    """A warning per recorded candidate whose vendor retirement date is past, or inside the notice window, at
    decision time (the decision's date, else now): the memo's candidate first."""


def _weight(v: Verdict) -> tuple:
    """Sort key: failures, then estimates below the bar, open verdicts (fewest further cases), passes."""
    below = misses_bar(v)
    order = {"fail": 0, "inconclusive": 2 - below, "pass": 3}.get(v.status, 4)
    return (order, not v.is_score, v.further_cases if v.further_cases is not None else 10**9)


def _reasons(assessment: Assessment, model: str) -> list[str]:
    mine = sorted((v for v in assessment.verdicts if v.model == model and v.status != "not_applicable"
                   and (v.estimate is not None or v.status == "fail")), key=_weight)
    out: list[str] = []
    for v in mine:
        line = verdict_sentence(v, model)
        if line not in out:
            out.append(line)
        if len(out) == 3:
            break
    return out


def _signed(dossier: Dossier) -> list[str]:
    status = signoff_status(dossier)
    lines = []
    for r in status.roles:
        if r.signoff is None:
            lines.append(f"{r.role}: not signed yet")
            continue
        state = "valid" if r.valid else "no longer valid: the dossier changed after it"
        lines.append(f"{r.role}: {r.signoff.name}, {r.signoff.signed_at:%Y-%m-%d %H:%M} UTC ({state})")
    return lines or ["Nobody has signed yet."]


def decision_memo(dossier: Dossier, assessment: Assessment, rec: Recommendation) -> DecisionMemo:
    """The memo of one dossier version from its verdicts and recommendation.

    Example:
        >>> memo = decision_memo(dossier, *assessment_and_recommendation(dossier))  # doctest: +SKIP
        >>> memo.answer  # doctest: +SKIP
        'The committee decided: approve with conditions for GPT-4o (2024-05-13) ...'
    """
    use = dossier.intended_use
    names = candidate_names(dossier)  # products, never model slugs (issue 36 item 5)
    who = (", ".join(c.label for c in dossier.candidates) or ", ".join(use.candidate_models)
           or ", ".join(assessment.models) or "a language model")
    question = f"May {who} be used for this job: {use.purpose.rstrip('.')}?"
    lines = outcome_lines(assessment, rec)
    by_model = {line.model: line for line in lines}
    d = dossier.decision
    candidate = d.model if d is not None and d.model else (rec.models[0] if rec.models else None)
    tool = by_model.get(candidate) if candidate else None
    if d is not None:
        target = f" for {names.get(d.model, d.model)}" if d.model else " for the use as a whole"
        said = OUTCOME_LABELS[d.outcome].lower()
        answer = (f"The committee decided on {d.decided_at:%Y-%m-%d}: {said}{target}; recorded by "
                  f"{d.decided_by}.")
        if tool is not None:
            same = "agrees" if tool.outcome == d.outcome else "differs"
            said = OUTCOME_LABELS[tool.outcome].lower()
            answer += (f" The tool's recommendation for that candidate is {said} ({same}); the committee's "
                       "reason is on record.")
    else:
        named = rec.model_copy(update={"models": [names.get(m, m) for m in rec.models]})
        answer = f"Not decided yet. The verdicts support: {headline(named, len(dossier.candidates))}"
    none = ["No evidence is attached, so nothing supports an approval."]
    reasons = _reasons(assessment, candidate) if candidate else none
    if d is not None and d.conditions:
        conditions = list(d.conditions)
    else:
        cand = next((c for c in rec.candidates if c.model == candidate), None)
        conditions = list(cand.conditions) if cand is not None else []
    missing = [f"{i.label}: {i.detail}" for i in decision_checklist(dossier) if not i.done]
    if d is None:
        missing.insert(0, "The committee's decision is not recorded.")
    return DecisionMemo(question=question, answer=answer, candidate=candidate, reasons=reasons,
                        conditions=conditions, signed=_signed(dossier), missing=missing, outcomes=lines,
                        retirement=_retirement(dossier, candidate))


def _retirement(dossier: Dossier, candidate: str | None) -> list[str]:
    at = dossier.decision.decided_at if dossier.decision else datetime.now(UTC)
    days = dossier.oversight.monitoring.retirement_notice_days if dossier.oversight else DEFAULT_NOTICE_DAYS
    first = candidate_named(dossier, candidate) if candidate else None
    ordered = sorted(dossier.candidates, key=lambda c: first is None or c.id != first.id)
    found = [retirement_warning(dossier, c.id, at, days) for c in ordered]
    return [f"{c.label}: {w}" for c, w in zip(ordered, found, strict=True) if w]
