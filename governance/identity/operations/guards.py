"""Checks a later concept adds to the one save door, without the door importing that concept.

Why: ``save_as`` and ``update_as`` (``governance.identity.operations``) are the door every edit goes
through, and identity sits low in the house, below the decision it serves. The decision's rule that
no sign-off is added while signing is refused (``governance.decision.operations.standing``) must
still run on every save, so the decision registers it here (the package's wiring in
``governance/__init__.py``) and the door runs every registered guard. The door fails closed: with no
guard wired it refuses to save rather than skip the checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from governance.dossier.record import Dossier

SaveGuard = Callable[[Any, "Dossier | None", "Dossier"], None]
"""``guard(store, before, after)`` raises to refuse the save (nothing written)."""

_GUARDS: list[SaveGuard] = []


def register_save_guard(guard: SaveGuard) -> None:
    """Run ``guard`` on every save through the door; registering it twice adds it once."""
    if guard not in _GUARDS:
        _GUARDS.append(guard)


def save_guards() -> tuple[SaveGuard, ...]:
    """The registered guards, in registration order."""
    return tuple(_GUARDS)


def run_save_guards(store: Any, before: Dossier | None, after: Dossier) -> None:
    """Run every registered guard on the change ``before`` -> ``after``.

    Raises:
        RuntimeError: no guard is wired (the package's wiring did not run): refuse rather than skip.
        Exception: whatever a guard raises to refuse the save.
    """
    if not _GUARDS:
        raise RuntimeError("the save door's guards are not wired (import governance first); nothing saved")
    for guard in _GUARDS:
        guard(store, before, after)
