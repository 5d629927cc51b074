"""The dossier store hands out the concepts' components by name, registered from above."""

from __future__ import annotations

import duckdb
import pytest

from governance.dossier import store_components
from governance.dossier.store_components import DossierComponents, register_component
from governance.monitoring.store import MonitoringFeedStore


def test_a_registered_component_is_built_over_the_store_connection():
    stores = DossierComponents(duckdb.connect())
    assert isinstance(stores.monitoring, MonitoringFeedStore)
    assert stores.monitoring is not stores.monitoring  # a fresh component per access, as before


def test_an_unknown_component_names_the_known_ones():
    with pytest.raises(AttributeError, match="documents, monitoring, reviews"):
        DossierComponents(duckdb.connect()).billing  # noqa: B018


def test_two_concepts_cannot_claim_one_name(monkeypatch):
    monkeypatch.setattr(store_components, "_COMPONENTS", dict(store_components._COMPONENTS))
    register_component("monitoring", MonitoringFeedStore)  # the same factory again: no-op
    with pytest.raises(ValueError, match="already registered"):
        register_component("monitoring", dict)
