"""AppTest helpers: the app under test with an isolated home and a seeded demo dossier."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture
def demo_home(home):
    from governance.demo import seed_demo
    from governance.store import Store

    store = Store.open(home / "medassure.duckdb")
    seed_demo(store)
    store.close()
    return home


def open_page(page: str | None = None, dossier_id: str | None = "D-demo-portal") -> AppTest:
    """Run the app (first page), then switch to ``page`` (path relative to app.py)."""
    import streamlit as st

    st.cache_resource.clear()  # each test has its own MEDASSURE_HOME, hence its own store
    at = AppTest.from_file(APP, default_timeout=120)
    if dossier_id:
        at.session_state["dossier_id"] = dossier_id
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    if page:
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
    return at
