"""The progress bar and Cancel button of one background job, and its end, shared by the pages that start jobs.

Local-scenario runs and re-evaluations both run in the one job manager and are polled from the
store; their pages show the same panel while the job lives, so cancelling looks and behaves the
same everywhere (the button disappears once a stop was asked for, and the caption says what
happens to the requests already sent).
"""

from __future__ import annotations

import streamlit as st

from governance.runs import cancel_run
from reports import md


def live_job_panel(status, *, text: str, stopping: str, cancel_label: str, key: str) -> bool:
    """Draw the panel for a job that is still alive; say whether it was.

    Args:
        status: the job's status from ``job_status`` (``None`` when unknown).
        text: the line under the progress bar.
        stopping: the caption shown once a stop was asked for.
        cancel_label: the Cancel button's label.
        key: the button's widget key.

    Returns:
        True while the job runs (the caller draws nothing more for it); False once it ended.
    """
    elsewhere = getattr(status, "elsewhere", None)  # another app process sharing the database runs it
    if status is None or not (status.alive or elsewhere):
        return False
    st.progress(min(status.done / status.total, 1.0) if status.total else 0.0, text=text)
    if elsewhere:
        st.caption(f"Running in another app process sharing this database ({md(str(elsewhere))}); "
                   "its progress is read from the database.")
    if status.cancel_requested:
        st.caption(stopping)
    elif st.button(cancel_label, key=key):
        if elsewhere:  # asked through the database; that process stops it within a second
            from pages.ui import store  # noqa: PLC0415 - the app's store, only for this rare case

            cancel_run(status.run_key, store=store())
        else:
            cancel_run(status.run_key)
    return True


def job_ended(status, *, job_key: str, error_key: str, what: str, strip: tuple[str, ...] = ()) -> None:
    """Once a section's job ended: forget it, keep why it failed (shown until the next start), redraw.

    Args:
        status: the job's last status (``None`` when unknown).
        job_key: the session key holding the job.
        error_key: the session key for the failure's message.
        what: what stopped, in words ("jury", "grading").
        strip: exception-name prefixes left off the reason (``"PhiBlocked: "``).
    """
    st.session_state.pop(job_key, None)
    if status is not None and status.state == "error":
        reason = str(status.error)
        for prefix in strip:
            reason = reason.removeprefix(prefix)
        st.session_state[error_key] = f"The {what} stopped: {reason}"
    st.rerun()
