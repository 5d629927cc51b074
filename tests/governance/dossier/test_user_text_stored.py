"""Caps and control-character checks apply to what is typed now, not to versions stored before them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from governance.dossier.record import Dossier
from governance.dossier.store import Store
from governance.dossier.user_text import LIST_CAP, STORED
from governance.intended_use.records import example_intended_use
from reports.exports import DossierImportError, export_json, import_json


def old_style_dossier() -> Dossier:
    """A dossier as an older release could have saved it: a list over today's cap, a BEL in a title."""
    use = example_intended_use().model_dump(mode="json")
    use["out_of_scope_uses"] = [f"Use number {i}" for i in range(LIST_CAP + 50)]
    raw = Dossier(title="Portal replies", owner="committee", intended_use=example_intended_use()).model_dump(
        mode="json")
    raw.update(intended_use=use, title="Portal\x07 replies")
    with pytest.raises(ValidationError, match="Out-of-scope uses lists 250 items"):
        Dossier.model_validate(raw)
    return Dossier.model_validate(raw, context=STORED)


def test_a_stored_version_over_the_caps_still_opens(tmp_path):
    store = Store.open(tmp_path / "medassure.duckdb")
    try:
        saved = store.save(old_style_dossier(), author="older release")
        loaded = store.load(saved.dossier.id)
        assert loaded.hash == saved.hash
        assert len(loaded.dossier.intended_use.out_of_scope_uses) == LIST_CAP + 50
        assert [s.id for s in store.list_dossiers()] == [saved.dossier.id]
    finally:
        store.close()


def test_the_same_content_imported_from_a_file_is_refused(tmp_path):
    store = Store.open(tmp_path / "medassure.duckdb")
    try:
        text = export_json(store.save(old_style_dossier(), author="older release"))
    finally:
        store.close()
    other = Store.open(tmp_path / "other" / "medassure.duckdb")
    try:
        with pytest.raises((DossierImportError, ValidationError)):
            import_json(other, text.encode("utf-8"), author="auditor")
    finally:
        other.close()
