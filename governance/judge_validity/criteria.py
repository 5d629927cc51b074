"""Judge validity of a rubric grading: per criterion, do the graders' verdicts agree with the clinicians'?

Why per criterion and shaped so: HealthBench's meta-evaluation sets the grader beside physicians criterion
by criterion, because a grader can be right on "states the follow-up" and wrong on "states the medication
change"; a pooled figure would hide the criterion the committee fears most. Criteria are grouped by their
text across cases (a scenario made from a template repeats the same criterion on every case), each case
giving one pair: the grading's verdict (the graders' majority, as stored) and the clinicians' verdict.

The clinicians' verdict on a case's criterion is the majority of those who rated it (one rater: theirs); a
tie between two raters gives none, and the pair is left out, as is a criterion with no readable grader
verdict. The figures are ``evaluator.agreement.criteria`` (Cohen's κ with the Fleiss–Cohen–Everitt
interval, the share agreeing with Wilson's). The bar is the judge-agreement rule's threshold, read against
κ as the rule reads an ICC: a criterion passes when κ's lower 95% bound reaches the bar, fails when its
upper bound is below it, and is otherwise inconclusive (so is a criterion with no κ: too few cases, or no
variation on one side). The grading as a whole passes only when every criterion passes; one criterion
below the bar fails it, and the reason names that criterion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel

from evaluator.agreement.criteria import CriterionAgreement, criterion_agreement
from evaluator.grading.records import GradingResult
from governance.evidence.records import CriterionFigure, GraderAgreementSetting
from governance.review.records import ReviewCitation

Status = Literal["pass", "fail", "inconclusive"]


class CriterionCheck(BaseModel):
    """One criterion's agreement and its verdict against the bar."""

    agreement: CriterionAgreement
    """κ and the share agreeing with their intervals."""
    status: Status
    """κ's interval against the bar."""
    reason: str
    """The verdict in one sentence, naming the criterion."""


class GraderValidity(BaseModel):
    """A grading's per-criterion agreement with the clinicians of one review queue, and the bar's verdict."""

    grading_id: str
    """The grading."""
    queue_id: str
    """The criteria queue whose clinicians rated its cases."""
    graders: list[str]
    """The grader models."""
    bar: float
    """Minimum κ (the judge-agreement rule's threshold)."""
    bar_source: str
    """Where the bar came from (the dossier's rule, or its tier's default)."""
    n_cases: int
    """Cases with at least one clinician verdict."""
    n_ties: int
    """Case criteria left out because the clinicians split evenly."""
    criteria: list[CriterionCheck]
    """Per criterion, in the order first met."""
    status: Status
    """``fail`` when any criterion fails, ``inconclusive`` when any is open, else ``pass``."""
    reason: str
    """The overall verdict, naming the criteria that decide it."""


def clinician_majority(votes: Sequence[bool]) -> bool | None:
    """The clinicians' verdict: the majority, None on a tie or no vote.

    Example:
        >>> clinician_majority([True]), clinician_majority([True, False]), clinician_majority([False] * 2)
        (True, None, False)
    """
    met = sum(bool(v) for v in votes)
    return None if 2 * met == len(votes) else 2 * met > len(votes)


def _check(a: CriterionAgreement, bar: float) -> CriterionCheck:
    k, s = a.kappa, a.share_agreeing
    share = (f"; share agreeing {s.value:.2f} [{s.ci_lower:.2f}, {s.ci_upper:.2f}]"
             if s.value is not None else "")
    name = f"criterion {a.criterion!r}"
    if k.value is None:
        return CriterionCheck(agreement=a, status="inconclusive",
                              reason=f"{name}: no κ ({k.missing_reason}){share}.")
    seen = f"{name}: κ {k.value:.2f} [{k.ci_lower:.2f}, {k.ci_upper:.2f}] on {a.n} cases{share}"
    if round(k.ci_lower, 9) >= round(bar, 9):
        return CriterionCheck(agreement=a, status="pass", reason=f"{seen}: lower bound reaches {bar:.2f}.")
    if round(k.ci_upper, 9) < round(bar, 9):
        return CriterionCheck(agreement=a, status="fail", reason=f"{seen}: upper bound below {bar:.2f}.")
    return CriterionCheck(agreement=a, status="inconclusive",
                          reason=f"{seen}: the interval contains {bar:.2f}; more rated cases needed.")


def overall(checks: Sequence[CriterionCheck]) -> tuple[Status, str]:
    """The grading's verdict from its criteria's (see the module docstring)."""
    if not checks:
        return "inconclusive", "no criterion was rated by both the graders and the clinicians."
    for status, words in (("fail", "below the bar"), ("inconclusive", "not shown to reach the bar")):
        hit = [c for c in checks if c.status == status]
        if hit:
            names = "; ".join(repr(c.agreement.criterion) for c in hit)
            return status, f"{len(hit)} of {len(checks)} criteria {words}: {names}."  # type: ignore[return-value]
    return "pass", f"all {len(checks)} criteria reach the bar."


def grader_validity(result: GradingResult, clinicians: Mapping[tuple[str, int], Sequence[bool]], *,
                    queue_id: str, bar: float, bar_source: str) -> GraderValidity:
    """Per-criterion agreement of a grading with clinicians' verdicts, and the bar's verdict.

    ``clinicians`` maps (case id, criterion index in the case's rubric) to the verdicts of the clinicians who
    rated it (skips and sentinels left out by the caller).

    Example:
        >>> # see tests/governance/judge_validity/test_grader_validity.py for a hand-computed κ
    """
    pairs: dict[str, list[tuple[bool | None, bool | None]]] = {}
    cases: set[str] = set()
    ties = 0
    for case in result.per_case:
        for k, c in enumerate(case.criteria):
            votes = clinicians.get((case.id, k))
            if not votes:
                continue
            cases.add(case.id)
            verdict = clinician_majority(votes)
            ties += verdict is None
            pairs.setdefault(c.criterion, []).append((c.met, verdict))
    checks = [_check(a, bar) for a in criterion_agreement(pairs)]
    status, reason = overall(checks)
    return GraderValidity(grading_id=result.grading_id, queue_id=queue_id, graders=list(result.graders),
                          bar=bar, bar_source=bar_source, n_cases=len(cases), n_ties=ties, criteria=checks,
                          status=status, reason=reason)


def grader_setting(view: GraderValidity, *, benchmark: str, by: str, at,
                   review_queue: ReviewCitation | None = None) -> GraderAgreementSetting:
    """The dossier record of a grading's per-criterion agreement (what the judge-agreement rule reads)."""
    figures = tuple(
        CriterionFigure(
            criterion=c.agreement.criterion, n=c.agreement.n, kappa=c.agreement.kappa.value,
            kappa_lower=c.agreement.kappa.ci_lower, kappa_upper=c.agreement.kappa.ci_upper,
            share=c.agreement.share_agreeing.value, share_lower=c.agreement.share_agreeing.ci_lower,
            share_upper=c.agreement.share_agreeing.ci_upper,
            missing_reason=c.agreement.kappa.missing_reason or "")
        for c in view.criteria)
    return GraderAgreementSetting(
        grading_id=view.grading_id, benchmark=benchmark, graders=tuple(view.graders), criteria=figures,
        source=f"review queue {view.queue_id}", measured_at=at, entered_by=by, review_queue=review_queue)


def record_grader_agreement(dossier, setting: GraderAgreementSetting):
    """The dossier with ``setting`` as its grading's per-criterion agreement (replacing an earlier one of the
    same grading); the dossier itself when the figures and the queue are those already recorded."""
    old = next((s for s in dossier.grader_agreements if s.grading_id == setting.grading_id), None)
    same = {"measured_at", "entered_by"}
    if old is not None and old.model_dump(exclude=same) == setting.model_dump(exclude=same):
        return dossier
    kept = [s for s in dossier.grader_agreements if s.grading_id != setting.grading_id]
    return dossier.model_copy(update={"grader_agreements": [*kept, setting]})
