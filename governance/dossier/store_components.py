"""The component stores the dossier store hands out, so no caller ever holds the connection.

Why so small: the evaluator's ``ComponentStores`` (``evaluator/storage/components.py``) already hands out
runs (``runs``, ``journaled_runs``, ``run_reads``), local ``scenarios``, ``juries``, de-identification
``attestations`` and ``read_job``, plus ``for_thread()``, ``close()`` and the ``with`` block, each
accessor a fresh component object over the same connection. The components that belong to
governance rather than to the evaluator are the uploaded documents (``documents.py``), the review
queues (``store_reviews.py``) and the production monitoring feed (``store_monitoring.py``), added here,
so ``Store`` is a ``ComponentStores`` and evaluator code that takes one takes a ``Store`` as it is.
"""

from __future__ import annotations

from evaluator.storage.components import ComponentStores
from governance.dossier.documents import DocumentStore
from governance.dossier.store_monitoring import MonitoringFeedStore
from governance.dossier.store_reviews import ReviewStore


class DossierComponents(ComponentStores):
    """The evaluator's component stores plus the dossier's documents, over the store's connection."""

    @property
    def documents(self) -> DocumentStore:
        """Uploaded documents (vendor attestations), stored once per SHA-256."""
        return DocumentStore(self._con)

    @property
    def reviews(self) -> ReviewStore:
        """Review queues, their items, ratings and events (``store_reviews``)."""
        return ReviewStore(self._con)

    @property
    def monitoring(self) -> MonitoringFeedStore:
        """The production monitoring feed (rows keyed by id or row hash; aggregates summed in SQL)."""
        return MonitoringFeedStore(self._con)
