"""The dossier store hands out the concepts' components by name, registered from above."""

from __future__ import annotations

import duckdb
import pytest

from governance.dossier import extensions
from governance.dossier.store_components import DossierComponents
from governance.monitoring.store import MonitoringFeedStore
from governance.procurement.store import DocumentStore
from governance.review.store import ReviewStore


def test_each_registered_component_is_built_over_the_store_connection():
    stores = DossierComponents(duckdb.connect())
    assert isinstance(stores.monitoring, MonitoringFeedStore)
    assert isinstance(stores.reviews, ReviewStore) and isinstance(stores.documents, DocumentStore)
    assert stores.monitoring is not stores.monitoring  # a fresh component per access, as before


def test_an_unknown_component_names_the_known_ones():
    with pytest.raises(AttributeError, match="documents, monitoring, reviews"):
        DossierComponents(duckdb.connect()).billing  # noqa: B018


def test_two_concepts_cannot_claim_one_name(monkeypatch):
    monkeypatch.setattr(extensions, "_COMPONENTS", dict(extensions._COMPONENTS))
    extensions.register_component("monitoring", "governance.monitoring.store:MonitoringFeedStore")  # no-op
    with pytest.raises(ValueError, match="already registered"):
        extensions.register_component("monitoring", dict)
