"""The checks a later concept adds to the one save door, run without the door importing that concept.

Why: ``save_as`` and ``update_as`` are the door every edit goes through, and identity sits low in
the house, below the decision it serves. The decision's rule that no sign-off is added while
signing is refused (``governance.decision.operations.standing.refuse_unsignable``) must still run on
every save, so it is registered as a save guard (``governance.dossier.extensions``, wired in
``governance/__init__.py``) and the door runs every registered guard. The door fails closed: with
no guard wired it refuses to save rather than skip the checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from governance.dossier.extensions import save_guards

if TYPE_CHECKING:
    from governance.dossier.record import Dossier


def run_save_guards(store: Any, before: Dossier | None, after: Dossier) -> None:
    """Run every registered guard on the change ``before`` -> ``after``.

    Raises:
        RuntimeError: no guard is wired (the package's wiring did not run): refuse rather than skip.
        Exception: whatever a guard raises to refuse the save (nothing is written).
    """
    guards = save_guards()
    if not guards:
        raise RuntimeError("the save door's guards are not wired (import governance first); nothing saved")
    for guard in guards:
        guard(store, before, after)
