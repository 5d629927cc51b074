"""Recording the committee's decision: the evidence plan frozen from the store, then the decision.

Why in the operations: the decision itself is a pure function of the dossier
(``governance.decision.committee.decide``), but freezing the evidence plan reads the runs and
scenarios the dossier's evidence came from, so the operation that does both takes the store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from governance.decision import committee
from governance.evidence.operations.plan import freeze_plan
from governance.identity.access import access_for
from governance.identity.identity import Identity, local_identity

if TYPE_CHECKING:
    from governance.dossier.record import Dossier
    from governance.dossier.storage import DossierStorage


def decide(dossier: Dossier, outcome: str, rationale: str, conditions: list[str], by: str,
           model: str | None = None, required_roles: list[str] | None = None,
           store: DossierStorage | None = None, override_gaps: str | None = None, *,
           identity: Identity | None = None) -> Dossier:
    """``committee.decide`` with, given ``store``, the evidence plan frozen first (the chair checked before).

    Raises:
        DecisionError, PermissionDenied: as ``governance.decision.committee.decide``.
    """
    plan = None
    if store is not None:
        who = identity or local_identity(by)
        access_for(who, dossier.id).require("chair", "record the committee's decision")
        plan = freeze_plan(store, dossier, by=who.name)
    return committee.decide(dossier, outcome, rationale, conditions, by, model=model,
                            required_roles=required_roles, override_gaps=override_gaps, identity=identity,
                            evidence_plan=plan)
