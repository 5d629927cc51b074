"""AppTest for the shared job panel: progress while alive, Cancel asks the manager once, then a caption."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import pages.job_panel


@pytest.fixture(autouse=True)
def asked(monkeypatch):
    """Run keys the panel asked to cancel, instead of stopping a real job (restored after each test)."""
    keys: list[str] = []
    monkeypatch.setattr(pages.job_panel, "cancel_run", keys.append)
    return keys


def panel_script():
    """Runs inside AppTest: draws the panel for a status kept in session state."""
    from types import SimpleNamespace

    import streamlit as st

    import pages.job_panel as panel

    s = st.session_state.get("status", {})
    status = SimpleNamespace(**s) if s else None
    alive = panel.live_job_panel(status, text="3/12 cases · running", stopping="Stopping…",
                                 cancel_label="Cancel run", key="cancel")
    st.write(f"alive={alive}")


def run(status):
    at = AppTest.from_function(panel_script, default_timeout=30)
    at.session_state["status"] = status
    return at.run()


def test_alive_job_shows_progress_and_cancels_its_own_run_key(asked):
    at = run({"alive": True, "done": 3, "total": 12, "cancel_requested": False, "run_key": "rk-1"})
    bar = at.get("progress")[0].proto
    assert bar.value == 25 and bar.text == "3/12 cases · running"
    assert "alive=True" in at.markdown[0].value
    at.button(key="cancel").click().run()
    assert asked == ["rk-1"]


def test_stop_requested_shows_the_caption_and_no_second_cancel(asked):
    at = run({"alive": True, "done": 0, "total": 0, "cancel_requested": True, "run_key": "rk-2"})
    assert at.get("progress")[0].proto.value == 0
    assert [c.value for c in at.caption] == ["Stopping…"] and not at.button and asked == []


def test_ended_or_unknown_job_draws_nothing():
    for status in ({"alive": False, "done": 12, "total": 12, "cancel_requested": False, "run_key": "rk"}, {}):
        at = run(status)
        assert not at.get("progress") and not at.button and "alive=False" in at.markdown[0].value


def test_a_job_of_another_app_process_shows_its_progress_and_where_it_runs(asked):
    at = run({"alive": False, "elsewhere": "app-2 pid 4242", "done": 6, "total": 12,
              "cancel_requested": False, "run_key": "rk-3"})
    assert at.get("progress")[0].proto.value == 50 and "alive=True" in at.markdown[0].value
    assert "another app process" in at.caption[0].value and "app-2 pid 4242" in at.caption[0].value
    assert at.button(key="cancel")  # a stop can be asked for through the database
    stopped = run({"alive": False, "elsewhere": "app-2 pid 4242", "done": 6, "total": 12,
                   "cancel_requested": True, "run_key": "rk-3"})
    assert "Stopping…" in [c.value for c in stopped.caption] and not stopped.button and asked == []
