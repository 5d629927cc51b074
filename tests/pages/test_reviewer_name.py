"""Who acts is never the placeholder (issue 36 item 1).

Locally the sidebar's typed Reviewer name is all the app knows of a person. It is kept for the browser
session in a cookie (a reload or a new tab starts a new Streamlit session, which used to reset it to
"reviewer"), and with no name, or the old placeholder "reviewer", nothing is recorded: the page is
read-only and asks for a name. The cookie's round trip through a real browser is in
tests/browser/test_reviewer_name.py.
"""

from __future__ import annotations

import streamlit as st
from streamlit.testing.v1 import AppTest

from pages import ui
from tests.pages.conftest import APP, DEMO, open_page


def _first_run(name: str, page: str | None = None):
    """A session whose sidebar holds ``name`` on its first run (AppTest runs the sidebar on that run only)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["dossier_id"] = DEMO
    at.session_state["reviewer"] = name
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    if page:
        at.switch_page(page).run()
    return at


def _html(at) -> list[str]:
    return [e.proto.body for e in at.get("html")]


def test_without_a_name_the_app_asks_for_one_and_nothing_is_signed(demo_home, monkeypatch):
    st.cache_resource.clear()
    monkeypatch.delenv("MEDASSURE_USER")
    at = open_page()  # AppTest runs the sidebar on the first page only
    assert at.sidebar.text_input(key="reviewer_input").value == ""
    assert any("Type your name under **Reviewer**" in w.value for w in at.sidebar.warning)
    at.switch_page("pages/decision.py").run()
    assert at.button(key="decision_record").disabled
    assert any("Sign in to sign off" in i.value for i in at.info)  # no sign-off form for nobody


def test_the_placeholder_name_is_refused(demo_home):
    at = _first_run("reviewer")
    assert any("Type your name under **Reviewer**" in w.value for w in at.sidebar.warning)
    at.switch_page("pages/decision.py").run()
    assert any("Sign in to sign off" in i.value for i in at.info)

    named = open_page("pages/decision.py")
    named.selectbox(key="signoff_role").select("CMIO / clinical informatics").run()
    named.text_input(key="signoff_name_1").input("Reviewer").run()  # typed as the signer's name
    assert named.button(key="signoff_button").disabled
    named.text_input(key="signoff_name_1").input("Dr. K. Osei").run()
    assert not named.button(key="signoff_button").disabled


def test_a_typed_name_is_remembered_and_a_new_session_starts_with_it(demo_home, monkeypatch):
    monkeypatch.delenv("MEDASSURE_USER")
    at = _first_run("Dr. Ada Lovelace")
    (script,) = [h for h in _html(at) if ui.REVIEWER_COOKIE in h]
    assert '"Dr. Ada Lovelace"' in script and "expires" not in script  # a browser-session cookie

    # A reload or a new tab: a new session whose browser sends the cookie back.
    sent = {ui.REVIEWER_COOKIE: "Dr.%20Ada%20Lovelace"}
    monkeypatch.setattr(type(st.context), "cookies", property(lambda self: sent))
    again = open_page()
    assert again.text_input(key="reviewer_input").value == "Dr. Ada Lovelace"
    assert not [h for h in _html(again) if ui.REVIEWER_COOKIE in h]  # already remembered: no script
    assert not any("Type your name" in w.value for w in again.sidebar.warning)


def test_a_remembered_placeholder_is_not_taken_as_a_name(monkeypatch):
    monkeypatch.setattr(type(st.context), "cookies", property(lambda self: {ui.REVIEWER_COOKIE: "reviewer"}))
    assert ui._remembered_reviewer() == ""
    assert ui.is_named("Dr. Lee") and not ui.is_named(" Reviewer ") and not ui.is_named("")
