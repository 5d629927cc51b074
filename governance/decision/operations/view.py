"""What the Decision page shows, in one value: recommendation, decision, sign-offs and what broke them.

When the committee decided otherwise than the verdicts support, ``disagreement`` says so with the
committee's recorded reason, so the page and the report show the difference rather than hide it.

Why a view model: an invalidated sign-off is only useful to a committee if it says *what* changed
since it was signed, which needs the version the signer saw from the store. Gathering that here
keeps the page to widgets and rendering, and gives the report the same facts.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from governance.decision.operations.standing import changes_since_decision
from governance.decision.readiness import ChecklistItem, decision_checklist
from governance.decision.records import CommitteeDecision, SignOff
from governance.decision.signoff import SignOffStatus, signoff_status
from governance.decision.standing import (
    OversightConflict,
    blocking_conflicts,
    decision_stale,
    oversight_conflicts,
    signing_refusal,
)
from governance.dossier.change_text import field_label
from governance.dossier.content_hash import APPENDED, changed_fields
from governance.dossier.storage import DossierStorage
from governance.rules.assessment import assessment_and_recommendation
from governance.rules.recommendation import Disagreement, Recommendation, disagreement
from governance.rules.verdicts import Assessment


class InvalidatedSignOff(BaseModel):
    """A sign-off that no longer holds, and what changed since."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    signoff: SignOff
    """The sign-off."""
    signed_version: int | None
    """Store version the signer saw, when it can be found."""
    changed: list[str]
    """What differs between that version and now, by label ("Acceptance rules"; records appended after a
    decision, which never break a sign-off, left out)."""


class DecisionView(BaseModel):
    """Everything the Decision page renders for one dossier version."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int
    """Current version number."""
    version_hash: str
    """Current store version hash."""
    assessment: Assessment
    """Verdicts."""
    recommendation: Recommendation
    """What the verdicts support."""
    decision: CommitteeDecision | None
    """The committee's decision, if recorded."""
    disagreement: Disagreement | None = None
    """How the decision differs from the recommendation, with the recorded reason (None: it does not)."""
    status: SignOffStatus
    """Sign-offs checked against the current content."""
    invalidated: list[InvalidatedSignOff]
    """Sign-offs broken by later changes, with what changed."""
    checklist: list[ChecklistItem] = []
    """What the dossier records before and after a decision (``governance.decision.readiness``)."""
    stale: bool = False
    """What the decision rests on changed since it was recorded or last confirmed."""
    changed_since_decision: list[str] = []
    """What changed since then, by label."""
    conflicts: list[OversightConflict] = []
    """Contradictions between the review plan and the intended use (``governance.decision.standing``)."""
    blocking: list[OversightConflict] = []
    """The conflicts that still block signing (not acknowledged by the chair)."""
    signing_refused: str | None = None
    """Why nobody may sign now (None: signing may go ahead)."""

    @property
    def gaps(self) -> list[ChecklistItem]:
        """Checklist items missing before a decision: an approval needs them or a recorded override."""
        return [i for i in self.checklist if i.before_decision and not i.done]


def decision_view(store: DossierStorage, dossier_id: str) -> DecisionView:
    """The Decision page's content for the latest version of a dossier.

    Example:
        >>> view = decision_view(store, "D-demo-portal")  # doctest: +SKIP
        >>> view.recommendation.outcome  # doctest: +SKIP
        'insufficient_evidence'
    """
    current = store.load(dossier_id)
    dossier = current.dossier
    assessment, recommendation = assessment_and_recommendation(dossier)
    status = signoff_status(dossier)
    numbers = {h.hash: h.version for h in store.history(dossier_id)}
    seen: dict[int, object] = {}
    broken = []
    for s in status.invalidated:
        number = numbers.get(s.version_hash or "")
        changed: list[str] = []
        if number is not None:
            if number not in seen:
                seen[number] = store.load(dossier_id, number).dossier
            changed = [field_label(f) for f in changed_fields(seen[number], dossier) if f not in APPENDED]
        broken.append(InvalidatedSignOff(signoff=s, signed_version=number, changed=changed))
    changed_since = changes_since_decision(store, dossier)
    return DecisionView(version=current.version, version_hash=current.hash, assessment=assessment,
                        recommendation=recommendation, decision=dossier.decision, status=status,
                        invalidated=broken, disagreement=disagreement(dossier.decision, recommendation),
                        checklist=decision_checklist(dossier), stale=decision_stale(dossier),
                        changed_since_decision=changed_since, conflicts=oversight_conflicts(dossier),
                        blocking=blocking_conflicts(dossier),
                        signing_refused=signing_refusal(dossier, changed_since))
