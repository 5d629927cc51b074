"""The floor's two extension points, which the concepts above plug into without the floor importing them.

* **Store components**: ``store.<name>`` (``store.monitoring``, ``store.reviews``,
  ``store.documents``) is built by the factory a concept registered for ``name``
  (``governance.dossier.store_components``).
* **Record checks**: ``verify_chain`` runs each registered ``check(store, dossier_id, content)`` (the
  head version's content as a dict) and adds the ``ChainBreak``s it returns, with notes of what predates
  sealing: the seals over the feed, the audit verdicts and the review queues.
* **Save guards**: every save through the one door (``governance.identity.operations``) runs each
  registered guard ``guard(store, before, after)``, which raises to refuse (the decision's "no
  sign-off while signing is refused").

Registrations are made once, by the package's wiring in ``governance/__init__.py``, as
``"module:name"`` strings resolved on first use: so ``import governance`` loads this module and
nothing else of the house, and no floor module imports a concept. A callable is accepted too
(tests).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

Target = str | Callable[..., Any]
"""``"package.module:name"``, resolved on first use, or the callable itself."""

_COMPONENTS: dict[str, Target] = {}
_SAVE_GUARDS: list[Target] = []
_RECORD_CHECKS: list[Target] = []


def resolve(target: Target) -> Callable[..., Any]:
    """The callable a target names (``"a.b:c"`` -> ``a.b.c``)."""
    if callable(target):
        return target
    module, _, name = target.partition(":")
    return getattr(import_module(module), name)


def register_component(name: str, target: Target) -> None:
    """Offer ``store.<name>`` as ``target(connection)``; the same target again is a no-op.

    Raises:
        ValueError: another target already holds ``name`` (two concepts claiming one accessor).
    """
    held = _COMPONENTS.get(name)
    if held is not None and held != target:
        raise ValueError(f"store component {name!r} is already registered ({held!r})")
    _COMPONENTS[name] = target


def component_factory(name: str) -> Callable[[Any], Any] | None:
    """The factory registered for ``store.<name>``, or None."""
    target = _COMPONENTS.get(name)
    return None if target is None else resolve(target)


def component_names() -> tuple[str, ...]:
    """The registered component names, sorted (for error messages and tests)."""
    return tuple(sorted(_COMPONENTS))


def register_save_guard(target: Target) -> None:
    """Run ``target`` on every save through the door; registering it twice adds it once."""
    if target not in _SAVE_GUARDS:
        _SAVE_GUARDS.append(target)


def save_guards() -> tuple[Callable[..., Any], ...]:
    """The registered guards, resolved, in registration order."""
    return tuple(resolve(t) for t in _SAVE_GUARDS)


def register_record_check(target: Target) -> None:
    """Run ``target(store, dossier_id, content) -> (breaks, notes)`` in every ``verify_chain``; once."""
    if target not in _RECORD_CHECKS:
        _RECORD_CHECKS.append(target)


def record_checks() -> tuple[Callable[..., Any], ...]:
    """The registered record checks, resolved, in registration order."""
    return tuple(resolve(t) for t in _RECORD_CHECKS)
