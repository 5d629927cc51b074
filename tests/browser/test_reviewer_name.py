"""The Reviewer name survives a reload and a new tab for the browser session (issue 36 item 1).

Seen in the walk: after a reload on Local scenarios, and on /monitoring opened directly, the sidebar said
"reviewer" again and later sign-offs were credited to it. A reload or a new tab is a new Streamlit
session, so only the browser can carry the name: a session cookie (tests/pages/test_reviewer_name.py
covers the rest in AppTest).
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import wait_idle

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api", reason="playwright package not installed").expect
NAME = "Dr. Ada Lovelace"


def _reviewer(pg):
    return pg.locator(".st-key-reviewer_input input")


def test_the_name_is_kept_over_a_reload_and_a_new_tab_but_not_by_another_browser(app_factory, browser, page):
    app = app_factory(extra_env={"MEDASSURE_USER": ""})
    page.goto(app.url + "/local_scenarios")
    page.get_by_role("heading", name="Local scenarios").first.wait_for()
    wait_idle(page)
    assert _reviewer(page).input_value() == ""
    assert "Type your name under Reviewer" in page.locator('[data-testid="stSidebar"]').inner_text()

    _reviewer(page).fill(NAME)
    _reviewer(page).press("Enter")
    wait_idle(page)
    page.wait_for_function("document.cookie.includes('medassure_reviewer=')", timeout=10_000)

    page.reload()
    page.get_by_role("heading", name="Local scenarios").first.wait_for()
    wait_idle(page)
    expect(_reviewer(page)).to_have_value(NAME, timeout=20_000)  # one read failed once under load

    tab = page.context.new_page()  # a new tab of the same browser, on a deep link
    tab.goto(app.url + "/monitoring")
    tab.get_by_role("heading", name="Monitoring").first.wait_for()
    wait_idle(tab)
    expect(_reviewer(tab)).to_have_value(NAME, timeout=20_000)
    assert "Type your name under Reviewer" not in tab.locator('[data-testid="stSidebar"]').inner_text()

    other = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()  # someone else
    other.goto(app.url + "/monitoring")
    other.get_by_role("heading", name="Monitoring").first.wait_for()
    wait_idle(other)
    assert _reviewer(other).input_value() == ""
    other.context.close()
