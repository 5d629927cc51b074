"""What a decision's standing needs from the store: which fields changed since it was decided.

Why in the operations: whether a decision is stale is a pure function of the dossier
(``governance.decision.standing``), but *what* changed needs the version the committee decided on,
which only the history holds. The same check guards every save (``save_as``, ``update_as``): a save
that adds a sign-off to a dossier whose decision is stale, or whose review plan contradicts its
intended use, is refused with the fields by their labels, whichever face sent it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from governance.decision.signoff import DecisionError
from governance.decision.standing import basis_changes, decision_stale, signing_refusal
from governance.dossier.content_hash import decision_basis_hash

if TYPE_CHECKING:
    from governance.dossier.record import Dossier
    from governance.dossier.storage import DossierStorage


def changes_since_decision(store: DossierStorage, dossier: Dossier) -> list[str]:
    """What changed since the decision was recorded or last confirmed, by label ([] when it stands).

    The decided basis is the newest stored version whose ``decision_basis_hash`` is the decision's.

    Example:
        >>> changes_since_decision(store, store.load("D-1").dossier)  # doctest: +SKIP
        ['Intended use › Human oversight', 'Human review and monitoring plan']
    """
    if not decision_stale(dossier):
        return []
    target = dossier.decision.content_hash
    for info in reversed(store.history(dossier.id)):
        old = store.load(dossier.id, info.version).dossier
        if decision_basis_hash(old) == target:
            return basis_changes(old, dossier)
    return []


def refuse_unsignable(store: DossierStorage, before: Dossier | None, after: Dossier) -> None:
    """Refuse a save that adds a sign-off while signing is refused (``signing_refusal``).

    Raises:
        DecisionError: the decision is stale or the review plan contradicts the intended use; nothing
            is written.
    """
    if before is None or len(after.signoffs) <= len(before.signoffs):
        return
    refused = signing_refusal(after, changes_since_decision(store, after) if decision_stale(after) else None)
    if refused:
        raise DecisionError(refused)
