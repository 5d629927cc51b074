"""The one authorization check every write passes in the operations, whatever face calls it.

Why here: a page hides a button a user may not press, but the CLI, a notebook and the demo call the
same operations, so the operation itself refuses (``PermissionDenied``) before anything is stored or
sent. Each write names the role it needs: *editor* for edits, attachments, imports, attestations and
for starting a paid run (model calls cost money and send cases out); *chair* for the decision; the
role itself for a sign-off (``governance.identity.access.authorize_save`` judges a dossier change by
what it changes). A refusal says who was refused, what, and which role it needs; nothing is written.

Who acts is one ``Actor`` (``governance.identity.actor``): the pages hand down the signed-in identity
(None when nobody is signed in: read-only); the CLI its command-line identity (the deployment's
service identity, else the OS login, which holds roles only in a local deployment). A notebook or test
that names only a person (``Actor.named("dr.lee")``) acts as that local person, which in a local
deployment without membership holds every role, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from governance.identity.access import Access, access_for, authorize_save
from governance.identity.actor import Actor
from governance.identity.identity import Identity
from governance.identity.operations.guards import run_save_guards
from governance.identity.operations.receipts import report_written

if TYPE_CHECKING:
    from governance.dossier.record import Dossier
    from governance.dossier.storage import DossierStorage, DossierVersion


def require(identity: Identity | None, role: str, action: str, dossier_id: str | None = None) -> Access:
    """The identity's access, after refusing an ``action`` that needs ``role`` it does not hold.

    Raises:
        PermissionDenied: the identity (or nobody) lacks ``role``; the message names it.

    Example:
        >>> require(Actor.named("me").identity, "editor", "attach evidence").can_edit
        True
    """
    access = access_for(identity, dossier_id)
    access.require(role, action)
    return access


def update_as(store: DossierStorage, actor: Actor, dossier_id: str, change: Callable[[Dossier], Dossier], *,
              note: str, action: str) -> DossierVersion:
    """``store.update`` after the check: an editor at least, and the change judged by what it changes.

    ``actor`` is who acts; its ``name`` is the version's author and its ``auth_label`` how that was
    established. The change is applied to the latest version inside the save's transaction and
    authorized there against that version (``authorize_save``), so a refused change writes nothing.

    Raises:
        PermissionDenied: the actor may not make this change.
    """
    access = require(actor.identity, "editor", action, dossier_id)

    def checked(current: Dossier) -> Dossier:
        changed = change(current)
        authorize_save(access, current, changed)
        run_save_guards(store, current, changed)
        return changed

    return report_written(store.update(dossier_id, checked, author=actor.name, note=note,
                                       auth=actor.auth_label))
