"""The recommendation the verdicts support, per candidate and overall, with reasons and conditions.

The rule (DESIGN.md, "A recommendation never outruns its evidence"), kept simple enough to check
by hand. For one candidate, in this order:

1. any verdict *fails* (a score rule or a gate) → **reject**, listing the failures;
2. otherwise the candidate is *approvable* only when every accepted (mapped) subcategory has at
   least one *passing* score verdict from evidence that rule reads (with no mapped subcategory:
   at least one passing score verdict), no score verdict is inconclusive, every evidence record
   meets the minimum n (an unmet or unknown minimum n is a lack of evidence, never a condition),
   and the judges' agreement with clinicians is not estimated below its bar (if it is, no verdict
   that reads jury-scored evidence counts: its pass rests on scores the judges are not shown to
   give as clinicians would). If not → **insufficient evidence**, saying what would settle it: a
   verdict whose point estimate misses its bar is never approvable, and we say that no number of
   further cases is expected to reach a pass; another inconclusive score verdict names the cases
   at the policy's power; an uncovered subcategory asks for evidence on it;
3. otherwise → **approve with conditions** when something other than a score result is open:
   a gating rule (unscored share, subgroups, judge agreement) inconclusive, a subgroup suppressed
   as too small to report (named: its disparity is untested), a pass resting on a point estimate
   (no uncertainty available: no test, outside the family), passing score verdicts that are not
   pre-registered, rules never locked, a broken change log, rules taken for another risk tier;
   vendor items are added later (``governance.procurement.candidate_items``);
4. otherwise → **approve**.

Score passes with a test are those confirmed after the family correction
(``governance.rules.family``); passes on a point estimate are counted and worded apart, and gate
passes are counted apart (``gating_counts``) and never pad the score pass count.

The overall recommendation is the best candidate's; ties are all named. It is advice: the
committee records its own decision (approve, approve with conditions or reject) beside it, and
``disagreement`` words any difference with the committee's recorded reason.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from governance.decision.records import OUTCOME_LABELS, CommitteeDecision, Outcome
from governance.evidence.select import slug, subcategory_keys, subcategory_name
from governance.rules.preregistration import preregistration_summary
from governance.rules.rule_text import verdict_label
from governance.rules.verdict_math import compare, fmt
from governance.rules.verdicts import Assessment, Verdict

RANK = {"approve": 0, "approve_with_conditions": 1, "insufficient_evidence": 2, "reject": 3}
STATUSES = ("pass", "fail", "inconclusive", "not_applicable")


class CandidateRecommendation(BaseModel):
    """The recommendation for one candidate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    """The candidate."""
    outcome: Outcome
    """What the verdicts support."""
    reasons: list[str]
    """Why (failures for a reject, the blockers for insufficient evidence, a summary otherwise)."""
    conditions: list[str]
    """Conditions for an approval with conditions."""
    counts: dict[str, int]
    """Score verdicts per status (gates are in ``gating_counts``)."""
    gating_counts: dict[str, int] = {}
    """Gating verdicts per status (minimum n, unscored share, subgroups, judge agreement, cost, critical
    criteria)."""
    to_settle: list[str] = []
    """What would settle an insufficient-evidence recommendation."""
    uncovered: list[str] = []
    """Accepted subcategories without a passing score verdict."""


class Recommendation(BaseModel):
    """The recommendation for the dossier."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    outcome: Outcome
    """The best candidate's outcome (insufficient evidence when there is none)."""
    models: list[str]
    """Candidates with that outcome."""
    reasons: list[str]
    """Why, in sentences."""
    candidates: list[CandidateRecommendation]
    """Per candidate, best first."""
    error_control: str | None = None
    """The family of score verdicts and its correction, in words."""
    preregistration: list[str] = []
    """Which verdicts are pre-registered and which not: a headline, then one line per rule."""


class Disagreement(BaseModel):
    """The committee decided otherwise than the verdicts support."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None
    """The candidate decided on (None: the use as a whole)."""
    decided: Outcome
    """The committee's outcome."""
    recommended: Outcome
    """What the verdicts support now."""
    recommended_then: Outcome | None
    """What the tool recommended when the decision was recorded."""
    rationale: str
    """The committee's recorded reason."""
    text: str
    """The disagreement in one paragraph."""


def _count(verdicts: list[Verdict]) -> dict[str, int]:
    return {s: sum(v.status == s for v in verdicts) for s in STATUSES}


def _where(v: Verdict) -> str:
    return verdict_label(v)  # the rule in words, never its id (issue 27)


def _misses_bar(v: Verdict) -> bool:
    if v.estimate is None or v.threshold is None or v.direction not in ("at_least", "at_most"):
        return False
    return compare(v.estimate, v.estimate, v.threshold, v.direction) != "pass"


def _covers(v: Verdict, subcategory: str) -> bool:
    return bool(v.subcategory) and slug(v.subcategory) in subcategory_keys(subcategory)


def _settle(v: Verdict) -> str:
    method = v.further_cases_method or ""
    if v.further_cases is not None and not method[:1].isdigit():
        method = f"{v.further_cases:,} more cases ({method or 'estimated'})"
    return f"{_where(v)}: {method or v.reason}"


def _agreement_below_bar(gates: list[Verdict]) -> Verdict | None:
    """A judge-agreement verdict whose estimate is below its bar (its interval may still reach it)."""
    return next((v for v in gates if v.kind == "judge_agreement" and v.status != "not_applicable"
                 and _misses_bar(v)), None)


def _gate_blockers(gates: list[Verdict], low_agreement: Verdict | None) -> tuple[list[str], list[str]]:
    """(reasons, what would settle them) from gates that leave the evidence short."""
    reasons, settle = [], []
    for v in gates:
        if v.kind == "min_n" and v.status == "inconclusive":
            reasons.append(f"{_where(v)}: minimum n not met: {v.reason}")
            settle.append(_settle(v))
        if v.kind == "critical_criterion" and v.status == "inconclusive":
            # the committee barred this harm: until the evidence shows it rare, no approval carries it
            reasons.append(f"{_where(v)}: not shown to stay under its ceiling: {v.reason}")
            settle.append(_settle(v))
        if v.suppressed_blocks and v.suppressed_groups and v.status != "not_applicable":
            groups = ", ".join(v.suppressed_groups)
            reasons.append(f"{_where(v)}: subgroup(s) {groups} suppressed as too small to report, and the "
                           "rule requires every group to be tested.")
            settle.append(f"{_where(v)}: enough cases in {groups} to report the group(s).")
    if low_agreement is not None:
        v = low_agreement
        reasons.append(f"{_where(v)}: the judges' agreement with clinicians, {fmt(v.estimate)}, is below "
                       f"the bar {fmt(v.threshold)}, so no verdict on jury-scored evidence can carry an "
                       "approval; no number of further cases is expected to reach the bar.")
        settle.append(f"{_where(v)}: a jury whose measured agreement with clinicians reaches "
                      f"{fmt(v.threshold)}, or evidence that is not jury-scored.")
    return reasons, settle


def _blockers(score: list[Verdict], subcategories: list[str],
              low_agreement: Verdict | None = None) -> tuple[list[str], list[str], list[str]]:
    """(reasons, what would settle them, uncovered subcategories) that make a candidate not approvable."""
    reasons, settle = [], []
    for v in score:
        if v.status != "inconclusive":
            continue
        if _misses_bar(v):
            reasons.append(f"{_where(v)}: the estimate {fmt(v.estimate)} misses the bar {fmt(v.threshold)}, "
                           "so it is not approvable; no number of further cases is expected to reach a pass.")
        else:
            reasons.append(f"{_where(v)} is inconclusive: {v.reason}")
            settle.append(_settle(v))
    passes = [v for v in score if v.status == "pass"]
    if low_agreement is not None:
        jury = [v for v in passes if v.reads_jury]
        for v in jury:
            reasons.append(f"{_where(v)} passes on jury scores, which do not count while the judges' "
                           "agreement is below its bar.")
        passes = [v for v in passes if not v.reads_jury]
    uncovered = [s for s in subcategories if not any(_covers(v, s) for v in passes)]
    for s in uncovered:
        reasons.append(f"No passing score verdict for the accepted subcategory {subcategory_name(s)}.")
        settle.append(f"Evidence with an interval on {subcategory_name(s)} that clears its bar.")
    if not subcategories and not passes:
        reasons.append("No score verdict passes.")
    return reasons, settle, uncovered


def recommend_candidate(model: str, verdicts: list[Verdict], locked: bool, log_problem: str | None,
                        tier_note: str | None = None,
                        subcategories: list[str] = ()) -> CandidateRecommendation:
    """Recommendation for one candidate from its verdicts (see the module docstring).

    Example:
        >>> v = Verdict(rule_id="s", kind="score", model="m", status="inconclusive", reason="wide.")
        >>> recommend_candidate("m", [v], locked=True, log_problem=None).outcome
        'insufficient_evidence'
    """
    score = [v for v in verdicts if v.is_score]
    gates = [v for v in verdicts if not v.is_score]
    counts, gating = _count(score), _count(gates)
    common = dict(model=model, counts=counts, gating_counts=gating)
    fails = [v for v in verdicts if v.status == "fail"]
    if fails:
        return CandidateRecommendation(outcome="reject", conditions=[], **common,
                                       reasons=[f"{_where(v)}: {v.reason}" for v in fails])
    low_agreement = _agreement_below_bar(gates)
    blockers, settle, uncovered = _blockers(score, list(subcategories), low_agreement)
    gate_reasons, gate_settle = _gate_blockers(gates, low_agreement)
    blockers, settle = [*blockers, *gate_reasons], [*settle, *gate_settle]
    if blockers:
        return CandidateRecommendation(outcome="insufficient_evidence", conditions=[], to_settle=settle,
                                       uncovered=uncovered, reasons=blockers, **common)
    pointwise = [v for v in score if v.status == "pass" and v.point_estimate_only]
    tested = counts["pass"] - len(pointwise)
    point_text = (f"; {len(pointwise)} pass(es) on a point estimate only (no uncertainty available: no test, "
                  "not in the family)" if pointwise else "")
    reasons = [f"{tested} score verdict(s) pass after the family correction{point_text}; none fails or is "
               f"open; gating rules: {gating['pass']} pass, {gating['inconclusive']} inconclusive."]
    conditions = [f"Settle gating rule {_settle(v)}; until then the review plan covers it."
                  for v in gates if v.status == "inconclusive"]
    for v in pointwise:
        conditions.append(f"{_where(v)} passes on a point estimate alone (no uncertainty available): the "
                          "committee accepted it for this rule, but no error rate can be stated; confirm it "
                          "on evidence with an interval, or accept it knowingly.")
    for v in gates:
        if v.suppressed_groups and v.status != "not_applicable":
            conditions.append(f"{_where(v)}: subgroup(s) {', '.join(v.suppressed_groups)} suppressed as too "
                              "small to report, so their disparity is untested; collect enough cases in them "
                              "to report, or review their outputs by hand.")
    unregistered = [v for v in score if v.status == "pass" and not v.pre_registered]
    if locked and unregistered:
        names = ", ".join(_where(v) for v in unregistered)
        conditions.append(f"{len(unregistered)} of {counts['pass']} passing score verdict(s) are not "
                          f"pre-registered ({names}): their evidence was seen before the bar was set; "
                          "confirm them on evidence attached after the lock, or accept them knowingly.")
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
    return CandidateRecommendation(outcome=outcome, reasons=reasons, conditions=conditions, **common)


def _summary(c: CandidateRecommendation) -> str:
    g = c.gating_counts
    return (f"{c.model}: {OUTCOME_LABELS[c.outcome].lower()} (score verdicts: {c.counts['pass']} passed, "
            f"{c.counts['fail']} failed, {c.counts['inconclusive']} inconclusive; gating rules counted "
            f"apart: {g.get('pass', 0)} passed, {g.get('fail', 0)} failed, "
            f"{g.get('inconclusive', 0)} inconclusive).")


def overall(per: list[CandidateRecommendation]) -> tuple[Outcome, list[str], list[str]]:
    """(best outcome, candidates with it, reasons) from per-candidate recommendations sorted best first."""
    best = per[0].outcome
    models = [c.model for c in per if c.outcome == best]
    return best, models, [f"{OUTCOME_LABELS[best]}: {', '.join(models)}.", *(_summary(c) for c in per)]


def recommend(assessment: Assessment) -> Recommendation:
    """Recommendation for a dossier from its assessment.

    Example:
        >>> recommend(assess(dossier)).outcome  # doctest: +SKIP
        'insufficient_evidence'
    """
    a = assessment
    control = a.family.statement() if a.family else None
    head, lines = preregistration_summary(a.verdicts, a.rule_names)
    prereg = [head, *lines]
    per = [recommend_candidate(m, [v for v in a.verdicts if v.model == m], a.locked, a.change_log_problem,
                               a.tier_note, a.subcategories) for m in a.models]
    per.sort(key=lambda c: (RANK[c.outcome], -c.counts["pass"], c.counts["inconclusive"]))
    if not per:
        return Recommendation(outcome="insufficient_evidence", models=[], candidates=[],
                              error_control=control, preregistration=prereg,
                              reasons=["No evidence is attached, so nothing supports an approval."])
    best, models, reasons = overall(per)
    return Recommendation(outcome=best, models=models, reasons=reasons, candidates=per, error_control=control,
                          preregistration=prereg)


def disagreement(decision: CommitteeDecision | None, rec: Recommendation) -> Disagreement | None:
    """How the committee's decision differs from what the verdicts support (None when it does not).

    The comparison is with the recommendation for the candidate decided on (the overall one for a
    decision about the use as a whole).
    """
    if decision is None:
        return None
    cand = next((c for c in rec.candidates if c.model == decision.model), None)
    recommended = cand.outcome if cand else rec.outcome
    if recommended == decision.outcome:
        return None
    who = decision.model or "the use as a whole"
    then = decision.recommended
    note = (f" (when the decision was recorded the tool recommended {OUTCOME_LABELS[then].lower()})"
            if then and then != recommended else "")
    text = (f"The committee decided {OUTCOME_LABELS[decision.outcome].lower()} for {who}; the verdicts "
            f"support {OUTCOME_LABELS[recommended].lower()}{note}. The committee's recorded reason: "
            f"{decision.rationale}")
    return Disagreement(model=decision.model, decided=decision.outcome, recommended=recommended,
                        recommended_then=then, rationale=decision.rationale, text=text)
