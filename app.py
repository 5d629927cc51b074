"""MedAssure: Streamlit entry point. A router only: config, shared state, navigation."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import streamlit as st  # noqa: E402

st.set_page_config(page_title="MedAssure", layout="wide")
st.session_state.setdefault("dossier_id", None)

PAGES = {
    "Dossier": [
        st.Page("pages/dossiers.py", title="Dossiers", default=True),
        st.Page("pages/intended_use.py", title="Intended use"),
        st.Page("pages/task_mapping.py", title="Task mapping"),
        st.Page("pages/evidence.py", title="Evidence"),
        # Rules are set and locked before new evidence is run (pre-registration), so they come first.
        st.Page("pages/rules_verdicts.py", title="Rules & verdicts"),
        st.Page("pages/run_evidence.py", title="Run evidence"),
        st.Page("pages/local_scenarios.py", title="Local scenarios"),
        st.Page("pages/rate_outputs.py", title="Rate outputs"),
        st.Page("pages/judge_validity.py", title="Judge validity"),
        st.Page("pages/cost.py", title="Cost"),
        st.Page("pages/candidates.py", title="Candidates"),
        st.Page("pages/review_monitoring.py", title="Review & monitoring"),
        st.Page("pages/monitoring.py", title="Monitoring"),
        st.Page("pages/decision.py", title="Decision"),
    ],
    "Record": [
        st.Page("pages/history.py", title="History"),
        st.Page("pages/reevaluation.py", title="Re-evaluation"),
        st.Page("pages/report.py", title="Report"),
    ],
}
# Navigation first, before any heavy import: until it reaches the browser, Streamlit lists every file
# in pages/ (helpers included) in the sidebar (issue 27: 23 internal modules for 1.6 s).
page = st.navigation(PAGES, expanded=True)  # every step of the path visible, no "View more"

from governance.mapping import warm_up_in_background  # noqa: E402
from pages import ui  # noqa: E402


@st.cache_resource(show_spinner=False)
def _warm_up() -> None:
    """Load the mapping's sentence model in the background once per app process (issue: 26–40 s wait)."""
    warm_up_in_background()


# A refused signing or record key, a stored row that no longer validates, a server gone away: one line
# on the page (every write is one transaction, so nothing was half-done), never a traceback.
ui.guarded(ui.sidebar)
try:
    ui.guarded(page.run)
finally:
    # After the page, so the first page is not held up by the warm-up's torch import (2-3 s, in this
    # thread; the model itself loads in a daemon thread). ``finally``: pages end with st.stop() too.
    # MEDASSURE_PRELOAD_MODEL=0 skips it (the browser tests start a server per test and most never map).
    if os.environ.get("MEDASSURE_PRELOAD_MODEL", "1") != "0":
        _warm_up()
