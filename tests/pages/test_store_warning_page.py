"""A damaged write-ahead log set aside when the app opened the database is said on every page."""

from __future__ import annotations

import os

import pytest

from governance.dossier.store import Store, StoreWarning
from tests.governance.dossier.test_store_integrity import _crash_after_write, _dossier
from tests.pages.conftest import open_page


def test_a_junk_wal_is_shown_in_the_sidebar(home):
    home.mkdir(parents=True, exist_ok=True)
    db = home / "medassure.duckdb"
    with Store.open(db) as store:
        store.save(_dossier(1), author="dr.lee")
    wal = _crash_after_write(db)
    wal.write_bytes(os.urandom(wal.stat().st_size))
    with pytest.warns(StoreWarning):
        at = open_page(dossier_id="D-1")
    notes = [w.value for w in at.sidebar.warning]
    assert len(notes) == 1 and str(wal) in notes[0] and "could not be read" in notes[0]
