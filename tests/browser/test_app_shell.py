"""The app shell in a real browser: no developer toolbar, and every URL goes through the router."""

from __future__ import annotations

import pytest

from tests.browser.conftest import wait_idle

pytestmark = pytest.mark.browser


def test_no_deploy_button_for_committee_members(app_factory, page):
    app = app_factory()
    page.goto(app.url)
    page.get_by_role("heading", name="Dossiers").first.wait_for()
    wait_idle(page)
    assert page.get_by_role("button", name="Deploy").count() == 0


def test_a_deep_link_opened_first_runs_through_the_router(app_factory, page):
    app = app_factory()  # freshly started server; /decision is the first URL it serves
    page.goto(app.url + "/decision")
    page.get_by_role("heading", name="Decision").first.wait_for()
    wait_idle(page)
    nav = page.locator('[data-testid="stSidebarNav"]')
    assert nav.count() == 1, "the sidebar navigation is missing: the page ran without app.py"
    assert nav.locator("a", has_text="Rules & verdicts").count() == 1
    # The router's sidebar shows the current dossier (the demo is the only one): its version and tier.
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "Risk tier: moderate" in sidebar and "Version " in sidebar


def test_the_sidebar_lists_the_path_in_the_order_it_is_walked(app_factory, page):
    app = app_factory()
    page.goto(app.url)
    page.get_by_role("heading", name="Dossiers").first.wait_for()
    wait_idle(page)
    titles = page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()
    order = ["Intended use", "Task mapping", "Evidence", "Rules & verdicts", "Run evidence",
             "Local scenarios", "Decision"]
    positions = [titles.index(t) for t in order]
    assert positions == sorted(positions), titles
