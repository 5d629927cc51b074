"""AppTest helpers: the app under test with an isolated home and a seeded demo dossier."""

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
DEMO = "D-demo-portal"


PAGE_USER = "dr.page"
"""The Reviewer name page tests act under (no name, or the placeholder "reviewer", is read-only)."""


@pytest.fixture(autouse=True)
def named_reviewer(monkeypatch):
    """Page tests act as a named person, as a user who typed a name in the sidebar would."""
    monkeypatch.setenv("MEDASSURE_USER", PAGE_USER)


@pytest.fixture(scope="session")
def seeded(tmp_path_factory) -> Path:
    """A database with the demo dossier, seeded once per test session (seeding takes 10-40 s)."""
    from governance.demo.seed import seed_demo
    from governance.dossier.store import Store

    path = tmp_path_factory.mktemp("seeded") / "medassure.duckdb"
    store = Store.open(path)
    seed_demo(store)
    store.close()
    return path


@pytest.fixture
def demo_home(home, seeded) -> Path:
    """A fresh copy of the seeded demo database for each test."""
    home.mkdir(parents=True, exist_ok=True)
    shutil.copy(seeded, home / "medassure.duckdb")
    return home


demo_copy = demo_home  # the name some page tests use


def latest(home: Path):
    """The newest version of the demo dossier in ``home``."""
    from governance.dossier.store import Store

    store = Store.open(home / "medassure.duckdb")
    try:
        return store.load(DEMO)
    finally:
        store.close()


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


def confirm_voiding(at) -> None:
    """Say yes to "This change voids N sign-off(s)" (the demo is decided and signed; issue 36 item 3)."""
    assert [w for w in at.warning if "sign-off(s):" in w.value and "voids" in w.value], "no voiding prompt"
    at.button(key="voiding_save_confirm").click().run()
    assert not at.exception, [e.value for e in at.exception]

