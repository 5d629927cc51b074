"""A refused signing key is one line on the page that needs it, never a traceback (issue 25 leftover:
the Decision page raised SigningKeyError when signing.key was empty)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import goto_page, wait_idle

pytestmark = pytest.mark.browser


def test_an_empty_signing_key_file_is_one_line_on_the_decision_page(app_factory, page):
    app = app_factory(extra_env={"MEDASSURE_SIGNING_KEY": ""})  # empty: the key comes from the file
    (app.home / "signing.key").write_bytes(b"")  # cut to 0 bytes, as a full disk once left it
    page.goto(app.url)
    page.get_by_role("heading", name="Dossiers").first.wait_for()
    wait_idle(page)
    goto_page(page, app, "Decision")
    alert = page.get_by_text("the signing key is empty").first
    alert.wait_for()
    assert "Nothing was changed." in alert.inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0
    goto_page(page, app, "History")  # a page that needs no key still works
    assert page.locator('[data-testid="stException"]').count() == 0
