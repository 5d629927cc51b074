"""What a dossier still lacks before the committee may approve: one checklist for page, CLI and report.

Why a checklist in the domain: an approval recorded while cost, human review and monitoring all read
"Not recorded yet" is an approval without a plan. The Decision page shows this list, ``decide``
refuses an approval with gaps unless the committee records an override (who, why, which items were
missing), and the report's "Read first" flags repeat that override. One function serves all three,
so they never disagree about what is missing.

Rejecting needs no override: turning a use down with parts of the plan missing puts no patient at
risk. Sign-offs come after the decision (they bind to it), so the required sign-offs are listed as a
step that follows, never as a gap that blocks the decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from governance.decision.signoff import signoff_status

if TYPE_CHECKING:
    from governance.dossier.record import Dossier

NEEDS_COMPLETE_PLAN = ("approve", "approve_with_conditions")
"""Decisions that put the model to use, and so need the plan complete or an override."""


class ChecklistItem(BaseModel):
    """One thing the committee should have in hand, and whether the dossier records it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    """Stable name, e.g. ``cost``."""
    label: str
    """What it is, in the committee's words."""
    done: bool
    """The dossier records it."""
    detail: str
    """What is recorded, or where to record it."""
    before_decision: bool = True
    """Needed before deciding (False: a step that follows the decision, such as the sign-offs)."""


def decision_checklist(dossier: Dossier) -> list[ChecklistItem]:
    """Every checklist item for one dossier, in the order the path walks them.

    Example:
        >>> from governance.dossier.record import Dossier
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="Portal replies", owner="me", intended_use=example_intended_use())
        >>> [i.key for i in decision_checklist(d) if not i.done]
        ['rules_locked', 'evidence', 'cost', 'human_review', 'monitoring', 'signoffs']
    """
    policy = dossier.policy
    locked = policy is not None and policy.lock is not None
    if locked:
        rules = f"locked by {policy.lock.locked_by} on {policy.lock.locked_at:%Y-%m-%d}"
    elif policy is not None and policy.rules:
        rules = "the rules are drafted but not locked: lock them on Rules & verdicts"
    else:
        rules = "no acceptance rules yet: start them on Rules & verdicts"
    n_evidence = len(dossier.evidence)
    costed = dossier.cost is not None and bool(dossier.cost.profiles)
    plan = dossier.oversight
    review = "no review requirements: derive them on Review & monitoring"
    watch = "no monitoring plan: derive it on Review & monitoring"
    if plan is not None:
        r, m = plan.review, plan.monitoring
        review = f"outputs reviewed by {r.reviewer}; {r.qa_sample_rate:.0%} audited afterwards"
        watch = f"owned by {m.owner}; re-evaluated every {m.schedule_months} months"
    items = [
        ChecklistItem(key="rules_locked", label="Acceptance rules locked", done=locked, detail=rules),
        ChecklistItem(key="evidence", label="Evidence attached", done=n_evidence > 0,
                      detail=f"{n_evidence} piece(s) of evidence attached" if n_evidence else
                      "no evidence attached: attach published results or run evidence"),
        ChecklistItem(key="cost", label="Cost analysis", done=costed,
                      detail=f"token profiles for {len(dossier.cost.profiles)} candidate(s)" if costed else
                      "no cost inputs: record token profiles on Cost"),
        ChecklistItem(key="human_review", label="Human-review plan", done=plan is not None,
                      detail=review),
        ChecklistItem(key="monitoring", label="Monitoring plan", done=plan is not None,
                      detail=watch),
    ]
    items.append(_signoff_item(dossier))
    return items


def _signoff_item(dossier: Dossier) -> ChecklistItem:
    if dossier.decision is None:
        return ChecklistItem(key="signoffs", label="Sign-offs from the required roles", done=False,
                             before_decision=False,
                             detail="after the decision: each required role signs the decided content")
    required = [r for r in signoff_status(dossier).roles if r.required]
    valid = sum(r.valid for r in required)
    return ChecklistItem(key="signoffs", label="Sign-offs from the required roles",
                         done=valid == len(required), before_decision=False,
                         detail=f"{valid} of {len(required)} required roles have signed this content")


def decision_gaps(dossier: Dossier) -> list[ChecklistItem]:
    """The items missing before a decision (what an approval would need an override for).

    Example:
        >>> [i.label for i in decision_gaps(dossier)]  # doctest: +SKIP
        ['Cost analysis', 'Human-review plan', 'Monitoring plan']
    """
    return [i for i in decision_checklist(dossier) if i.before_decision and not i.done]


def needs_override(outcome: str) -> bool:
    """Whether this outcome needs the plan complete (or an override): approvals do, a rejection does not."""
    return outcome in NEEDS_COMPLETE_PLAN
