"""The recommendation the verdicts support, per candidate and overall, with reasons and conditions.

The rule, kept simple enough to check by hand:

* a candidate with any *failed* rule → **reject**, listing the failures;
* otherwise, with any *inconclusive* rule → **approve with conditions**: each open rule becomes a
  condition ("settle it", with the number of further cases where it can be estimated), to be met
  while the human review plan covers the gap;
* otherwise (every applicable rule passed) → **approve**;
* rules that were never locked, a broken change log, or rules taken for another risk tier than the
  dossier's current one turn an approve into an approve with conditions: a verdict against rules
  set after the fact, or for a different risk, is not the result the committee pre-registered.

The overall recommendation is the best candidate's; ties are all named. It is advice to the
committee, which records its own decision beside it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from governance.decision.signoff import OUTCOME_LABELS
from governance.dossier.decision_records import Outcome
from governance.rules.verdicts import Assessment, Verdict

RANK = {"approve": 0, "approve_with_conditions": 1, "reject": 2}


class CandidateRecommendation(BaseModel):
    """The recommendation for one candidate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    """The candidate."""
    outcome: Outcome
    """What the verdicts support."""
    reasons: list[str]
    """Why (failures for a reject, a summary otherwise)."""
    conditions: list[str]
    """Conditions for an approval with conditions."""
    counts: dict[str, int]
    """Verdicts per status."""


class Recommendation(BaseModel):
    """The recommendation for the dossier."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    outcome: Outcome
    """The best candidate's outcome (reject when there is none)."""
    models: list[str]
    """Candidates with that outcome."""
    reasons: list[str]
    """Why, in sentences."""
    candidates: list[CandidateRecommendation]
    """Per candidate, best first."""


def _where(v: Verdict) -> str:
    return f"{v.rule_id}" + (f" on {v.benchmark}" if v.benchmark else "")


def _conditions(open_: list[Verdict]) -> list[str]:
    by_rule: dict[str, list[Verdict]] = {}
    for v in open_:
        by_rule.setdefault(v.rule_id, []).append(v)
    out = []
    for rule_id, vs in by_rule.items():
        benches = sorted({v.benchmark for v in vs if v.benchmark})
        known = [v.further_cases for v in vs if v.further_cases is not None]
        what = f" ({', '.join(benches)})" if benches else ""
        more = f"; about {max(known):,} more cases would likely settle the largest gap" if known else ""
        out.append(f"Settle rule {rule_id}{what} with further evidence before relying on it{more}; "
                   "until then the review plan covers it.")
    return out


def recommend_candidate(model: str, verdicts: list[Verdict], locked: bool, log_problem: str | None,
                        tier_note: str | None = None) -> CandidateRecommendation:
    """Recommendation for one candidate from its verdicts (see the module docstring).

    Example:
        >>> v = Verdict(rule_id="r", kind="min_n", model="m", status="pass", reason="n=300 ≥ 100.")
        >>> recommend_candidate("m", [v], locked=True, log_problem=None).outcome
        'approve'
    """
    statuses = ("pass", "fail", "inconclusive", "not_applicable")
    counts = {s: sum(v.status == s for v in verdicts) for s in statuses}
    fails = [v for v in verdicts if v.status == "fail"]
    open_ = [v for v in verdicts if v.status == "inconclusive"]
    if fails:
        return CandidateRecommendation(model=model, outcome="reject", counts=counts, conditions=[],
                                       reasons=[f"{_where(v)}: {v.reason}" for v in fails])
    conditions = _conditions(open_)
    reasons = [f"{counts['pass']} rule verdict(s) pass, {counts['inconclusive']} inconclusive, none fail."]
    if not locked:
        conditions.append("Lock (pre-register) the acceptance rules and re-assess before relying on "
                          "the verdicts.")
        reasons.append("The rules were not locked, so no verdict is pre-registered.")
    if log_problem:
        conditions.append(f"Resolve the rule change log: {log_problem}.")
        reasons.append(f"The rule change log is broken: {log_problem}.")
    if tier_note:
        conditions.append(f"Review the rules: {tier_note}.")
        reasons.append(f"The risk tier changed: {tier_note}.")
    outcome: Outcome = "approve_with_conditions" if conditions else "approve"
    return CandidateRecommendation(model=model, outcome=outcome, reasons=reasons, conditions=conditions,
                                   counts=counts)


def recommend(assessment: Assessment) -> Recommendation:
    """Recommendation for a dossier from its assessment.

    Example:
        >>> recommend(assess(dossier)).outcome  # doctest: +SKIP
        'approve_with_conditions'
    """
    a = assessment
    per = [recommend_candidate(m, [v for v in a.verdicts if v.model == m], a.locked, a.change_log_problem,
                               a.tier_note) for m in a.models]
    per.sort(key=lambda c: (RANK[c.outcome], -c.counts["pass"], c.counts["inconclusive"]))
    if not per:
        return Recommendation(outcome="reject", models=[], candidates=[],
                              reasons=["No evidence is attached, so nothing supports an approval."])
    best = per[0].outcome
    models = [c.model for c in per if c.outcome == best]
    reasons = [f"{OUTCOME_LABELS[best]}: {', '.join(models)}."]
    reasons += [f"{c.model}: {OUTCOME_LABELS[c.outcome].lower()} ({c.counts['fail']} failed, "
                f"{c.counts['inconclusive']} inconclusive, {c.counts['pass']} passed)." for c in per]
    return Recommendation(outcome=best, models=models, reasons=reasons, candidates=per)
