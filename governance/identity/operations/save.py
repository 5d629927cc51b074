"""Saving a dossier as someone: the one door every edit goes through before it reaches the store.

Why here and not in ``identity``: checking what an identity may change is a pure function of two
dossiers (``governance.identity.access.authorize_save``); opening the store, reading the version
the change is judged against and writing the new version is an operation, so it sits at the front
desk with the other operations that take a store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from governance.identity.access import access_for, authorize_save
from governance.identity.config import IdentityConfig
from governance.identity.identity import Identity
from governance.identity.operations.guards import run_save_guards
from governance.identity.operations.receipts import report_written

if TYPE_CHECKING:
    from governance.dossier.record import Dossier


def save_as(store, identity: Identity | None, dossier: Dossier, note: str, *,
            expected_hash: str | None = None, config: IdentityConfig | None = None):
    """Save ``dossier`` as ``identity`` after checking it may make this change (``authorize_save``).

    ``expected_hash`` is the version the user was shown; a later save in between refuses this one
    (``SaveConflict``). The author is the identity's name and ``auth`` how it was established.

    Raises:
        PermissionDenied: the identity may not make this change (nothing written).
        SaveConflict: the dossier changed since ``expected_hash`` (nothing written).
        DecisionError: the save adds a sign-off while signing is refused: the decision is stale or the
            review plan contradicts the intended use (the decision's guard, ``guards``; nothing written).
    """
    access = access_for(identity, dossier.id, config)
    if identity is None:
        access.require("editor", "save")
    before = store.latest_or_none(dossier.id)
    authorize_save(access, before.dossier if before else None, dossier)
    run_save_guards(store, before.dossier if before else None, dossier)
    return report_written(store.save(dossier, author=identity.name, note=note, expected_hash=expected_hash,
                                     auth=identity.auth_label))
