"""Monitoring page, the rehearsal: make a practice copy of a decided dossier, and feed a practice copy.

A part of ``pages/monitoring.py`` in a module of its own (the page is long). On a real dossier it offers
the button that makes a practice copy (``make_practice_copy``) and opens it; on a practice copy it says so
at the top and imports a generated feed (``write_practice_feed``, then the real ``import_feed``). App state
lives in ``mon_*`` keys, as on the page.
"""

import tempfile
from pathlib import Path

import streamlit as st

from governance.dossier import PRACTICE_MARK, practice_line
from governance.monitoring import (
    FeedError,
    MonitoringError,
    PracticeError,
    discard_practice_copy,
    import_feed,
    make_practice_copy,
    write_practice_feed,
)
from pages import ui


def panel(version) -> None:
    """The practice banner and feed button on a copy; the rehearse button (in an expander) on a real one."""
    dossier = version.dossier
    if dossier.practice is not None:
        st.warning(f"**{ui.plain(practice_line(dossier.practice))}.** Rehearse here: import a feed, "
                   "acknowledge and resolve signals, write the monthly report (marked on every page, never "
                   "signed). Its dossier PDF and exports are refused and nobody signs it; the original is "
                   "not changed.")
        if st.button("Import a generated feed into this copy", key="mon_practice_feed",
                     help="Outputs from the day after the copy's decision to yesterday, served by the "
                          "approved model, in control: change rows by hand and import them to rehearse a "
                          "signal."):
            try:
                with ui.permitted(), tempfile.TemporaryDirectory(prefix="medassure-practice-") as tmp:
                    path = Path(tmp) / f"{dossier.id}-generated-feed.csv"
                    write_practice_feed(ui.store(), dossier.id, path)
                    result = import_feed(ui.store(), dossier.id, path, actor=ui.actor())
            except (FeedError, MonitoringError, PracticeError) as exc:
                st.session_state["mon_error"] = f"Nothing imported: {exc}"
            else:
                st.session_state["mon_toast"] = (f"Imported {result.record.rows_added:,} generated rows; "
                                                 f"{len(result.new_signals)} new signal(s).")
            st.rerun()
        if st.button("Discard this practice copy", key="mon_practice_discard",
                     help="Lists leave it out from then on; its versions stay (the record is append-only)."):
            try:
                with ui.permitted():
                    discard_practice_copy(ui.store(), dossier.id, actor=ui.actor())
            except PracticeError as exc:
                st.session_state["mon_error"] = str(exc)
            else:
                st.session_state["dossier_id"] = dossier.practice.source_id
                st.session_state["mon_toast"] = f"Practice copy {dossier.id} discarded."
            st.rerun()
        return
    with st.expander("Rehearse go-live on a practice copy"):
        st.caption("A feed may not hold rows from before the decision or from the future, so go-live cannot "
                   "be tried on the day the committee decides. A practice copy dates its decision some days "
                   f"back and is marked **{PRACTICE_MARK}** everywhere; this dossier is not changed, and the "
                   "copy is never exported as the record.")
        days = st.number_input("Days since go-live in the copy", min_value=1, max_value=3650, value=180,
                               step=30, key="mon_practice_days")
        if st.button("Rehearse go-live on a practice copy", key="mon_practice_make", type="primary"):
            try:
                with ui.permitted():
                    made = make_practice_copy(ui.store(), dossier.id, days_back=int(days), actor=ui.actor())
            except PracticeError as exc:
                st.session_state["mon_error"] = str(exc)
            else:
                st.session_state["dossier_id"] = made.id
                st.session_state["mon_toast"] = f"Practice copy {made.id} made and opened."
            st.rerun()
