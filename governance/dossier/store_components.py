"""The component stores the dossier store hands out, so no caller ever holds the connection.

Why a registry: the evaluator's ``ComponentStores`` (``evaluator/storage/components.py``) already
hands out runs, local scenarios, juries, de-identification attestations and ``read_job``, plus
``for_thread()``, ``close()`` and the ``with`` block, each accessor a fresh component object over
the same connection. The components that belong to governance concepts (the uploaded documents of
procurement, the review queues, the production monitoring feed) live with their concept
(``governance/<concept>/store.py``) and are plugged in here by name (``register_component``, called
once by the package's wiring in ``governance/__init__.py``), so the dossier floor never imports a
concept above it and ``Store`` stays a ``ComponentStores`` that evaluator code takes as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.storage.components import ComponentStores

_COMPONENTS: dict[str, Callable[[Any], Any]] = {}
"""Component name (``store.<name>``) -> the factory that builds it over the store's connection."""


def register_component(name: str, factory: Callable[[Any], Any]) -> None:
    """Offer ``store.<name>`` as ``factory(connection)``; registering the same factory again is a no-op.

    Raises:
        ValueError: another factory already holds ``name`` (two concepts claiming one accessor).
    """
    held = _COMPONENTS.get(name)
    if held is not None and held is not factory:
        raise ValueError(f"store component {name!r} is already registered by {held!r}")
    _COMPONENTS[name] = factory


def registered_components() -> tuple[str, ...]:
    """The names of the plugged-in components, sorted (for tests and error messages)."""
    return tuple(sorted(_COMPONENTS))


class DossierComponents(ComponentStores):
    """The evaluator's component stores plus the concepts' components, over the store's connection."""

    def __getattr__(self, name: str) -> Any:
        # Called only when normal lookup fails, so the store's own attributes are never shadowed.
        factory = _COMPONENTS.get(name)
        if factory is None or name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} has no attribute or store component {name!r}"
                                 f" (components: {', '.join(registered_components()) or 'none wired'})")
        return factory(self._con)
