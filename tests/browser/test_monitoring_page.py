"""End to end in Chromium: the demo's Monitoring page shows the pause and the review; acknowledge the pause.

Screenshots of the page go to ``$MEDASSURE_SHOTS`` when that is set (they were looked at for issue 28).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser.conftest import main_text, wait_idle

pytestmark = pytest.mark.browser



def shot(pg, name: str) -> None:
    folder = os.environ.get("MEDASSURE_SHOTS")
    if folder:
        pg.set_viewport_size({"width": 1400, "height": 5200})  # the main pane scrolls inside the window
        wait_idle(pg)
        pg.screenshot(path=str(Path(folder) / name), full_page=True)


def test_demo_monitoring_shows_pause_and_review_and_acknowledges_the_pause(page, app_factory):
    app = app_factory(seed_demo=True)
    pg = page
    pg.goto(app.url)
    pg.get_by_role("heading", name="Dossiers").wait_for()
    wait_idle(pg)
    pg.locator('[data-testid="stSidebarNav"] a').get_by_text("Monitoring", exact=True).click()
    pg.get_by_role("heading", name="Monitoring").first.wait_for()
    wait_idle(pg)
    pg.locator("[data-testid='stVegaLiteChart']").first.wait_for()
    pg.get_by_text("Unapproved model identity").first.wait_for()  # the signals table is drawn last
    text = main_text(pg, "Paused.", "Unapproved model identity", "Drift before the bar (CUSUM)", "resolved")
    assert "Paused." in text and "DEMO DATA" in text
    assert "Unapproved model identity" in text and "Drift before the bar (CUSUM)" in text
    assert "resolved" in text and "open" in text
    shot(pg, "monitoring-page-demo.png")

    box = pg.get_by_label("Note or reason (a resolution needs one, or the re-evaluation that answers it)")
    box.fill("IT is pinning the approved snapshot again.")
    pg.get_by_role("button", name="Acknowledge").click()
    wait_idle(pg)
    pg.locator("[data-testid='stTable']").get_by_text("acknowledged", exact=True).first.wait_for()
    assert "acknowledged" in main_text(pg, "acknowledged")
    shot(pg, "monitoring-page-after-acknowledge.png")
