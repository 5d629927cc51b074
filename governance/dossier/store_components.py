"""The component stores the dossier store hands out, so no caller ever holds the connection.

Why by name: the evaluator's ``ComponentStores`` (``evaluator/storage/components.py``) already
hands out runs, local scenarios, juries, de-identification attestations and ``read_job``, plus
``for_thread()``, ``close()`` and the ``with`` block, each accessor a fresh component object over
the same connection. The components that belong to governance concepts (procurement's uploaded
documents, the review queues, the production monitoring feed) live with their concept
(``governance/<concept>/store.py``) and are registered by name (``governance.dossier.extensions``,
wired in ``governance/__init__.py``), so the floor never imports a concept above it and ``Store``
stays a ``ComponentStores`` that evaluator code takes as it is.
"""

from __future__ import annotations

from typing import Any

from evaluator.storage.components import ComponentStores
from governance.dossier.extensions import component_factory, component_names


class DossierComponents(ComponentStores):
    """The evaluator's component stores plus the concepts' components, over the store's connection."""

    def __getattr__(self, name: str) -> Any:
        # Called only when normal lookup fails, so the store's own attributes are never shadowed.
        factory = None if name.startswith("_") else component_factory(name)
        if factory is None:
            raise AttributeError(f"{type(self).__name__!r} has no attribute or store component {name!r}"
                                 f" (components: {', '.join(component_names()) or 'none wired'})")
        return factory(self._con)
