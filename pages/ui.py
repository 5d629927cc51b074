"""Shared page plumbing: the store connection, the current dossier, the sidebar.

Only session plumbing lives here; no scoring, no SQL. App state uses its own keys
(``dossier_id``, ``reviewer``), never widget keys.
"""

from __future__ import annotations

import os

import streamlit as st

from governance.dossier.record import Dossier
from governance.dossier.store import DossierVersion, Store, StoreError, default_home

TIER_COLOURS = {"low": "green", "moderate": "orange", "high": "red", "critical": "violet"}


def _through_the_router() -> None:
    """Send a page that Streamlit started without ``app.py`` back through the router.

    Streamlit sees our ``pages/`` folder at start-up and, until some session has run ``app.py``'s
    ``st.navigation``, serves a deep link such as ``/decision`` by running the page file alone (its
    old multipage mode): no sidebar, no current dossier. Every page imports this module, so the
    first such run switches that mode off and reruns, and the rerun goes through ``app.py``, which
    resolves the same URL to the same page. ``PagesManager`` is Streamlit's internal switch (the
    one ``st.navigation`` itself clears); if it moves, this does nothing and the browser test
    ``tests/browser/test_app_shell.py`` says so.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a later Streamlit without the switch
        return
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


_through_the_router()


@st.cache_resource(show_spinner=False)
def _store(path: str) -> Store:
    return Store.open(__import__("pathlib").Path(path))


def store() -> Store:
    """The one store of this app process (one writer per DuckDB file)."""
    path = str(default_home() / "medassure.duckdb")
    try:
        return _store(path)
    except StoreError as exc:
        st.error(str(exc))
        st.stop()


def reviewer() -> str:
    """Who is using the app (recorded on every save and decision)."""
    return st.session_state.get("reviewer") or os.environ.get("MEDASSURE_USER") or "reviewer"


def current() -> DossierVersion | None:
    """The latest version of the dossier chosen in the sidebar, if any."""
    dossier_id = st.session_state.get("dossier_id")
    if not dossier_id:
        return None
    found = store().latest_or_none(dossier_id)
    if found is None:
        st.session_state["dossier_id"] = None
    return found


def require_dossier() -> DossierVersion:
    """The current dossier, or a hint and a stop when none is chosen."""
    v = current()
    if v is None:
        st.info("Choose or create a dossier on the **Dossiers** page first.")
        st.stop()
    return v


def save(dossier: Dossier, note: str) -> DossierVersion:
    """Save a new version as the current reviewer and tell the user what happened."""
    before = current()
    v = store().save(dossier, author=reviewer(), note=note)
    if before is not None and v.version == before.version:
        st.toast("Nothing changed; no new version.")
    else:
        st.toast(f"Saved version {v.version} ({v.hash[:12]}).")
    return v


def _choose_dossier() -> None:
    st.session_state["dossier_id"] = st.session_state["sidebar_dossier"]
    st.session_state["new_dossier"] = False


def _copy_reviewer() -> None:
    st.session_state["reviewer"] = st.session_state["reviewer_input"].strip()


NARROW_CSS = """<style>
@media (max-width: 900px) {
  /* Streamlit collapses its sidebar only below 768 px and would take 300 px of an 800 px window here.
     It becomes a drawer: a strip at the left edge that opens on hover or keyboard focus. */
  section[data-testid="stSidebar"][data-collapsed="false"] {
    position: fixed !important; top: 0; left: 0; height: 100vh !important; z-index: 999990;
    width: 260px !important; min-width: 260px !important; max-width: 260px !important;
    transform: translateX(calc(-100% + 1rem)) !important; transition: transform 0.15s ease-out;
    box-shadow: 2px 0 6px rgba(0, 0, 0, 0.15);
  }
  section[data-testid="stSidebar"][data-collapsed="false"]:hover,
  section[data-testid="stSidebar"][data-collapsed="false"]:focus-within { transform: none !important; }
  section[data-testid="stSidebar"][data-collapsed="false"]::after {
    content: "›"; position: absolute; right: 0.15rem; top: 50%; font-size: 1.2rem; color: #888;
  }
  [data-testid="stMainBlockContainer"] { padding: 3rem 1rem 4rem 2rem; }
  /* Columns stack, as Streamlit itself does on phones. */
  [data-testid="stHorizontalBlock"] { flex-direction: column; }
  [data-testid="stHorizontalBlock"] > [data-testid="stColumn"] {
    width: 100% !important; min-width: 100% !important; flex: 1 1 auto !important;
  }
  /* ... except a row of figures (st.metric), which wraps instead of one figure per line. */
  [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stMetric"]) {
    flex-direction: row; flex-wrap: wrap;
  }
  [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stMetric"])
    > [data-testid="stColumn"] {
    min-width: 8rem !important; width: auto !important; flex: 1 1 8rem !important;
  }
  /* Static tables wrap their cells instead of scrolling sideways. */
  [data-testid="stTable"] table { width: 100%; }
  [data-testid="stTable"] th, [data-testid="stTable"] td { padding: 0.25rem 0.4rem; white-space: normal; }
  [data-testid="stTable"] td * { font-size: 0.85rem !important; overflow-wrap: anywhere !important; }
  [data-testid="stTable"] th * { font-size: 0.8rem !important; }  /* headers break between words only */
  /* A chart of fixed width scrolls inside its own box rather than being cut at the window's edge. */
  [data-testid="stVegaLiteChart"] { overflow-x: auto; max-width: 100%; }
}
</style>"""
"""Layout for a narrow window (about 800 px); above 900 px nothing changes."""


def sidebar() -> None:
    """Current dossier, its version and risk tier; the reviewer's name; the database path."""
    st.session_state.setdefault("reviewer", os.environ.get("MEDASSURE_USER", "reviewer"))
    st.html(NARROW_CSS)  # style only: Streamlit adds no visible element for it
    with st.sidebar:
        dossiers = store().list_dossiers()
        if dossiers:
            ids = [d.id for d in dossiers]
            labels = {d.id: f"{d.title[:40]} ({d.id})" for d in dossiers}
            if st.session_state.get("dossier_id") not in ids:
                st.session_state["dossier_id"] = ids[0]
            # App state leads and the widget follows: a save on another page (a new dossier) changes
            # ``dossier_id``, and the selectbox's own remembered choice must not switch it back.
            st.session_state["sidebar_dossier"] = st.session_state["dossier_id"]
            st.selectbox("Dossier", ids, format_func=labels.get, key="sidebar_dossier",
                         on_change=_choose_dossier)
            v = current()
            if v is not None:
                tier = v.dossier.risk.tier
                st.markdown(f"**Version {v.version}** · `{v.hash[:12]}`  \n"
                            f"Risk tier: :{TIER_COLOURS[tier]}[**{tier}**] · status "
                            f"{v.dossier.status.replace('_', ' ')}")
        st.text_input("Reviewer", value=st.session_state["reviewer"], key="reviewer_input",
                      on_change=_copy_reviewer, help="Recorded on every save, decision and sign-off.")
        st.caption(f"Database: {default_home() / 'medassure.duckdb'}")
