"""End to end in a real Chromium: the Report page of the demo dossier and its PDF download."""

from pathlib import Path

import pytest

from governance.dossier.store import Store
from tests.browser.conftest import wait_idle

pytestmark = pytest.mark.browser


def test_report_page_downloads_the_demo_pdf(page, app_factory, tmp_path):
    app = app_factory(seed_demo=True)
    pg = page
    pg.goto(app.url)
    pg.get_by_role("heading", name="Dossiers").wait_for()
    wait_idle(pg)
    # by URL: with a dozen pages the sidebar folds the later ones behind "View more"
    pg.goto(app.url + "/report")
    pg.get_by_role("heading", name="Report").first.wait_for()
    wait_idle(pg)
    button = pg.locator('[data-testid="stDownloadButton"] button', has_text="Dossier PDF")
    button.wait_for()
    assert pg.locator('[data-testid="stDownloadButton"]').count() == 7  # six files (with the label), the zip
    pg.get_by_text("1. Executive summary").first.wait_for()
    pg.screenshot(path=str(tmp_path / "report.png"), full_page=True)

    with pg.expect_download(timeout=120_000) as info:
        button.click()
    path = Path(info.value.path())
    data = path.read_bytes()
    assert data.startswith(b"%PDF-")
    name = info.value.suggested_filename
    assert name.startswith("D-demo-portal-v") and name.endswith(".pdf")

    app.proc.terminate()
    app.proc.wait(20)
    store = Store.open(app.home / "medassure.duckdb")
    latest = store.load("D-demo-portal")
    store.close()
    assert latest.hash[:8] in name
