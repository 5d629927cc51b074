"""State bugs a reviewer hit in the browser (issue 16), each pinned by a real-Chromium test."""

from __future__ import annotations

import pytest

from governance.dossier.store import Store
from tests.browser.conftest import goto_page, wait_idle
from tests.browser.test_dossier_path import choose_required, fill
from tests.browser.test_local_scenarios import one

pytestmark = pytest.mark.browser

PORTAL = "Draft replies to patient portal messages asking about medication refills"


def test_a_saved_new_dossier_becomes_the_current_one_everywhere(page, app_factory):
    app = app_factory()  # the demo is there and is the current dossier
    pg = page
    pg.goto(app.url)
    pg.get_by_role("heading", name="Dossiers").wait_for()
    wait_idle(pg)
    pg.get_by_role("button", name="New dossier").click()
    pg.get_by_role("heading", name="Intended use").wait_for()
    wait_idle(pg)
    fill(pg, "Title", "Refill replies")
    fill(pg, "Owner (accountable person or committee)", "Pharmacy and nursing committee")
    fill(pg, "Purpose: what the model does, for whom and why",
         PORTAL + ", reviewed by a nurse before sending.")
    fill(pg, "Intended users (one per line)", "registered nurses")
    fill(pg, "Care setting", "Primary care clinics")
    fill(pg, "Patient population", "Adult primary care patients")
    choose_required(pg)
    pg.get_by_role("button", name="Save dossier").click()
    wait_idle(pg)
    pg.get_by_text("Saving creates version 2").wait_for()

    # The page edits the new dossier, not the demo, and the sidebar agrees.
    assert one(pg, pg.get_by_label("Title", exact=True)).input_value() == "Refill replies"
    sidebar = pg.locator('[data-testid="stSidebar"]').inner_text()
    assert "Version 1" in sidebar, sidebar
    fill(pg, "Title", "Refill replies (nurse-reviewed)")
    wait_idle(pg)  # the edit's own run first: a click during it was once lost (CI waited 90 s for version 3)
    pg.get_by_role("button", name="Save new version").click()
    wait_idle(pg)
    pg.get_by_text("Saving creates version 3").wait_for()

    goto_page(pg, app, "Task mapping")  # still the new dossier on another page
    assert "Version 2" in pg.locator('[data-testid="stSidebar"]').inner_text()

    app.proc.terminate()
    app.proc.wait(20)
    store = Store.open(app.home / "medassure.duckdb")
    try:
        demo = store.load("D-demo-portal")
        ids = [d["id"] if isinstance(d, dict) else d.id for d in store.list_dossiers()]
        (new_id,) = [i for i in ids if i != "D-demo-portal"]
        assert store.load(new_id).dossier.title == "Refill replies (nurse-reviewed)"
        assert store.load(new_id).version == 2
        assert demo.dossier.title.startswith("Drafting replies")  # the demo was never edited
    finally:
        store.close()
