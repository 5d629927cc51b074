"""The safety-event register, as a committee reads it and as it leaves the hospital (blinded).

Why a blinded form: an event register is shared with a vendor or a regulator, who need what happened and
how severe it was, not who reported it or the patient's name in the description. Blinded, the reporter
and how they signed in are left out, and the description is masked by the PHI detector.
"""

from __future__ import annotations

from evaluator.phi.detect import redact_text
from governance.dossier.record import Dossier
from governance.monitoring.records import SafetyEvent


def safety_register(dossier: Dossier, candidate: str | None = None, *, blinded: bool = False) -> list[dict]:
    """The recorded safety events, oldest first (of ``candidate`` only, when given).

    Example:
        >>> from datetime import UTC, datetime
        >>> from governance.intended_use.records import example_intended_use
        >>> e = SafetyEvent(id="E-0123456789", at=datetime(2026, 3, 1, tzinfo=UTC), by="rn.ada",
        ...                 severity="minor", candidate="M1",
        ...                 description="Reply to Mr. Robert Chen-Morales named the wrong clinic")
        >>> d = Dossier(title="x y z", owner="me", intended_use=example_intended_use(), monitoring=[e])
        >>> row = safety_register(d, blinded=True)[0]
        >>> row["description"], "reported_by" in row
        ('Reply to [NAME] named the wrong clinic', False)
    """
    rows = []
    for e in dossier.monitoring:
        if not isinstance(e, SafetyEvent) or (candidate is not None and e.candidate != candidate):
            continue
        row = {
            "id": e.id,
            "reported_at": e.at.isoformat(),
            "severity": e.severity,
            "candidate": e.candidate,
            "occurred_at": e.occurred_at.isoformat() if e.occurred_at else None,
            "output_ids": list(e.output_ids),
            "description": e.description,
        }
        if blinded:
            row["description"] = redact_text(e.description)[0]
        else:
            row |= {"reported_by": e.by, "auth": e.auth}
        rows.append(row)
    return rows
