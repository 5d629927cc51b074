"""End to end in a real Chromium: the Report page's zip bundle downloads and verifies."""

from pathlib import Path

import pytest

from reports.zip_bundle import verify_bundle
from tests.browser.conftest import wait_idle

pytestmark = pytest.mark.browser


def test_report_page_downloads_a_bundle_that_verifies(page, app_factory):
    app = app_factory(seed_demo=True)
    page.goto(app.url + "/report")
    page.get_by_role("heading", name="Report").first.wait_for()
    wait_idle(page)
    button = page.locator('[data-testid="stDownloadButton"] button', has_text="verifiable zip")
    button.wait_for()
    with page.expect_download(timeout=180_000) as info:
        button.click()
    data = Path(info.value.path()).read_bytes()
    assert info.value.suggested_filename.startswith("D-demo-portal-v")
    assert info.value.suggested_filename.endswith("-bundle.zip")
    verified = verify_bundle(data)
    assert verified.dossier.id == "D-demo-portal" and len(verified.documents) == 6
