"""Whether a decision still stands on what it was decided on, and whether its review plan fits the use.

Why signing checks this: a sign-off says "I agree with this decision on this dossier". When the
intended use, the rules, the evidence or the review plan changed after the decision, the decision
may no longer follow from them, and a signature beside a warning is a signature on something the
committee never decided. So signing is refused until the chair records the decision again or
confirms it still stands (``governance.decision.committee.confirm_decision``, recorded with a
reason). Re-evaluation addenda and de-identification attestations are reports on a decision, not
part of its basis (``governance.dossier.content_hash.APPENDED``), so they never make it stale.

The review plan is checked against the intended use: a plan that has every output reviewed before
release for a use whose workflow sends outputs on without review (or the other way round) states
something false about the deployment, and signing waits until one of them is corrected. A workflow
whose text says outputs are sent automatically is flagged the same way; as free text can be read
wrongly, the chair may confirm, with a reason, that the plan is right (``acknowledged``).

Every message names fields by their labels ("Intended use › Human oversight"), never by keys.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from governance.dossier.change_text import field_label
from governance.dossier.content_hash import APPENDED, changed_fields, decision_basis_hash

if TYPE_CHECKING:
    from governance.dossier.record import Dossier

NOT_BASIS = frozenset({"signoffs", "decision", *APPENDED})
"""Top-level fields a decision does not rest on: itself, its sign-offs, and the records appended after it."""

AUTOMATIC = re.compile(
    r"\b(?:(?:sen[dt]s?|sending|released?|releases|posted?|posts|filed?|files|goes|go|forwarded|pushed)"
    r"\s+(?:out\s+|on\s+)?automatically|automatically\s+(?:sen[dt]|released?|posted?|filed?|forwarded|"
    r"pushed|applied)|auto-?(?:send|sent|release|post)|without\s+(?:any\s+)?(?:human\s+)?review)\b",
    re.IGNORECASE)
"""Workflow phrases that say an output takes effect without a person reviewing it first."""


class OversightConflict(BaseModel):
    """A contradiction between the review plan and the intended use, in words."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str
    """Which check found it (stable, for the record of an acknowledgement; never shown)."""
    text: str
    """What contradicts what, and how to resolve it."""
    acknowledgeable: bool = False
    """Read from free text: the chair may confirm the plan is right instead of changing it."""


def basis_changes(decided: Dossier, now: Dossier) -> list[str]:
    """What changed between the dossier the committee decided on and ``now``, by label.

    The intended use is named down to its fields, since that is where a use quietly changes.

    Example:
        >>> basis_changes(decided, decided.model_copy(update={"owner": "pharmacy"}))  # doctest: +SKIP
        ['Owner']
    """
    labels = []
    for name in changed_fields(decided, now):
        if name in NOT_BASIS:
            continue
        if name == "intended_use":
            old, new = decided.intended_use.model_dump(mode="json"), now.intended_use.model_dump(mode="json")
            inner = [f"intended_use.{k}" for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
            labels += [field_label(path) for path in inner] or [field_label(name)]
        else:
            labels.append(field_label(name))
    return labels


def decision_stale(dossier: Dossier) -> bool:
    """Whether what the decision rests on changed since it was recorded or last confirmed."""
    decision = dossier.decision
    return decision is not None and decision.content_hash != decision_basis_hash(dossier)


def oversight_conflicts(dossier: Dossier) -> list[OversightConflict]:
    """Contradictions between the review plan and the intended use (none without a plan).

    Example:
        >>> [c.code for c in oversight_conflicts(dossier)]  # doctest: +SKIP
        ['plan_reviews_but_use_does_not']
    """
    plan, use = dossier.oversight, dossier.intended_use
    if plan is None:
        return []
    reviews = plan.review.review_before_release
    out = []
    if reviews and use.human_oversight == "none":
        out.append(OversightConflict(code="plan_reviews_but_use_does_not", text=(
            "The review plan says every output is reviewed before release, but the intended use says no "
            "human reviews an output before it takes effect (Intended use › Human oversight). Correct the "
            "intended use, or derive or edit the review plan on Review & monitoring.")))
    elif reviews and use.decision_role == "replaces":
        out.append(OversightConflict(code="plan_reviews_but_output_takes_effect", text=(
            "The review plan says every output is reviewed before release, but the intended use says the "
            "output takes effect without a human decision (Intended use › Decision role). Correct one of "
            "them.")))
    if not reviews and use.human_oversight == "every_output":
        out.append(OversightConflict(code="use_reviews_but_plan_does_not", text=(
            "The intended use says every output is reviewed by a qualified person before it takes effect "
            "(Intended use › Human oversight), and its risk tier counts on that, but the review plan does "
            "not require review before release. Put the review in the plan, or correct the intended use.")))
    found = AUTOMATIC.search(use.workflow or "")
    if reviews and found and not out:
        out.append(OversightConflict(code="workflow_text_automatic", acknowledgeable=True, text=(
            f"The workflow says the output is “{found.group(0)}” (Intended use › Workflow), but the review "
            "plan says every output is reviewed before release. Correct the workflow or the plan, or the "
            "chair confirms the decision with the reason the plan is right.")))
    return out


def blocking_conflicts(dossier: Dossier) -> list[OversightConflict]:
    """The conflicts that still block signing: all but those the chair acknowledged for this basis."""
    acknowledged: set[str] = set()
    decision = dossier.decision
    if decision is not None and decision.confirmations:
        last = decision.confirmations[-1]
        if decision.content_hash == decision_basis_hash(dossier):
            acknowledged = set(last.acknowledged)
    return [c for c in oversight_conflicts(dossier) if not (c.acknowledgeable and c.code in acknowledged)]


def signing_refusal(dossier: Dossier, changed: list[str] | None = None) -> str | None:
    """Why nobody may sign this dossier now (None: signing may go ahead).

    ``changed`` names what changed since the decision (``basis_changes``, found by the operations in
    the store); without it the message says so in general.

    Example:
        >>> signing_refusal(dossier, ["Intended use › Human oversight"])  # doctest: +SKIP
        'Signing refused: Intended use › Human oversight changed after the decision was recorded ...'
    """
    if dossier.decision is None:
        return None
    parts = []
    if decision_stale(dossier):
        what = ", ".join(changed) if changed else "what the decision rests on"
        parts.append(f"{what} changed after the decision was recorded. The chair records the decision again "
                     "or confirms it still stands (Decision page, or `medassure confirm-decision`) before "
                     "anyone signs.")
    parts += [c.text for c in blocking_conflicts(dossier)]
    if not parts:
        return None
    return "Signing refused: " + " ".join(parts) + " Nothing was signed."
