"""Two app processes on one PostgreSQL database, one reviewer in each, walked in a real Chromium (issue 17).

Reviewer B (app 2) signs off while reviewer A (app 1) still shows the older version. A's sign-off is
refused, naming B's version, and nothing is saved; once A has said the changes were reviewed, A's
sign-off is saved and bound to the version A now shows. The result is read from the shared database
while both apps still run (PostgreSQL admits several processes; DuckDB would not).
"""

from __future__ import annotations

import pytest

from governance.decision.signoff import signoff_status
from governance.dossier.store import Store
from tests.browser.conftest import goto_page, wait_idle
from tests.browser.test_local_scenarios import one
from tests.browser.test_state_bugs_more import choose, main_text, open_app, sidebar_version, type_into

pytestmark = pytest.mark.browser

DEMO = "D-demo-portal"
KEY = "browser-test-shared-signing-key"  # one deployment, one key: each app's own key file would differ
NAME_FIELD = "[class*='st-key-signoff_name'] input"


def _latest(url: str):
    store = Store.open_url(url)
    try:
        return store.load(DEMO)
    finally:
        store.close()


def _reviewer_page(browser, app, reviewer: str):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(90_000)
    open_app(pg, app)
    # the sidebar's Reviewer comes from the app's MEDASSURE_USER
    assert one(pg, pg.locator(".st-key-reviewer_input input")).input_value() == reviewer
    goto_page(pg, app, "Decision")
    pg.get_by_role("heading", name="Sign-offs").wait_for()
    wait_idle(pg)
    return context, pg


def test_two_app_processes_on_postgres_refuse_a_signoff_on_an_unseen_version(browser, app_factory, pg_url,
                                                                             monkeypatch):
    monkeypatch.setenv("MEDASSURE_SIGNING_KEY", KEY)  # so this process checks the apps' signatures
    shared = {"MEDASSURE_DATABASE_URL": pg_url, "MEDASSURE_SIGNING_KEY": KEY}
    app1 = app_factory(extra_env={**shared, "MEDASSURE_USER": "A. Rivera"})  # seeds the demo into PostgreSQL
    app2 = app_factory(seed_demo=False, extra_env={**shared, "MEDASSURE_USER": "B. Chen"})
    assert not any((app.home / "medassure.duckdb").exists() for app in (app1, app2))  # all in PostgreSQL
    shown = _latest(pg_url)
    assert shown.version >= 1

    ctx_a, a = _reviewer_page(browser, app1, "A. Rivera")
    ctx_b, b = _reviewer_page(browser, app2, "B. Chen")
    try:
        assert sidebar_version(a) == sidebar_version(b) == shown.version
        assert "Shared database:" in b.locator("[data-testid='stSidebar']").inner_text()

        # B signs off in app 2.
        choose(b, "signoff_role", "CMIO / clinical informatics")
        type_into(b, NAME_FIELD, "Dr. K. Osei")
        one(b, b.get_by_role("button", name="Sign off", exact=True)).click()
        b.locator("[data-testid='stSidebar']").get_by_text(f"Version {shown.version + 1}").wait_for()
        wait_idle(b)
        after_b = _latest(pg_url)
        assert after_b.version == shown.version + 1
        assert after_b.author == "B. Chen"
        assert "CMIO / clinical informatics" in {s.role for s in after_b.dossier.signoffs}

        # A, in app 1, still shows the older version; its next run learns of B's save from the database.
        assert sidebar_version(a) == shown.version
        choose(a, "signoff_role", "privacy / compliance")
        warning = a.get_by_text("Someone else saved this dossier while you worked")
        warning.wait_for()
        text = main_text(a)
        assert f"version {after_b.version} by B. Chen (you were shown version {shown.version})" in text
        changes = a.locator("[data-testid='stText']").all_inner_texts()
        assert any("Sign-offs" in line for line in changes), changes  # what changed, in words
        type_into(a, NAME_FIELD, "J. Okafor")
        one(a, a.get_by_role("button", name="Sign off", exact=True)).click()
        refusal = a.get_by_text("changed since the version you were shown")
        refusal.wait_for()
        wait_idle(a)
        a.set_viewport_size({"width": 1400, "height": 2600})  # the warning and the refusal in one picture
        wait_idle(a)
        a.screenshot(path="/tmp/pg_conflict.png")
        a.set_viewport_size({"width": 1400, "height": 1000})
        unchanged = _latest(pg_url)
        assert unchanged.version == after_b.version and unchanged.hash == after_b.hash  # nothing saved
        assert "privacy / compliance" not in {s.role for s in unchanged.dossier.signoffs}

        # Having reviewed B's change, A signs the version A now sees.
        one(a, a.get_by_role("button", name=f"I have reviewed the changes: continue with version "
                                            f"{after_b.version}", exact=True)).click()
        wait_idle(a)
        # waited for: the rerun after the button clears the warning and the refusal
        from playwright.sync_api import expect

        expect(warning).to_have_count(0, timeout=15000)
        expect(refusal).to_have_count(0, timeout=15000)
        if one(a, a.locator(NAME_FIELD)).input_value() != "J. Okafor":
            type_into(a, NAME_FIELD, "J. Okafor")
        assert a.locator(".st-key-signoff_role").get_by_role("combobox").first.evaluate(
            "e => e.value ?? e.innerText") == "privacy / compliance"
        one(a, a.get_by_role("button", name="Sign off", exact=True)).click()
        a.locator("[data-testid='stSidebar']").get_by_text(f"Version {after_b.version + 1}").wait_for()
        wait_idle(a)
        assert "changed since the version you were shown" not in main_text(a)

        # B's page, on its next run, names A's save.
        type_into(b, "[class*='st-key-signoff_note'] input", "Seen in app 2.")
        b.get_by_text(f"version {after_b.version + 1} by A. Rivera").wait_for()
    finally:
        ctx_a.close()
        ctx_b.close()

    store = Store.open_url(pg_url)
    try:
        final = store.load(DEMO)
        history = store.history(DEMO)
        chain = store.verify_chain(DEMO)
    finally:
        store.close()
    assert final.version == shown.version + 2
    assert [h.version for h in history] == list(range(1, final.version + 1))
    assert [h.author for h in history[-2:]] == ["B. Chen", "A. Rivera"]
    assert history[-1].parent_hash == after_b.hash
    signoffs = {s.role: s for s in final.dossier.signoffs}
    assert set(signoffs) - {s.role for s in shown.dossier.signoffs} == {"CMIO / clinical informatics",
                                                                          "privacy / compliance"}
    osei, okafor = signoffs["CMIO / clinical informatics"], signoffs["privacy / compliance"]
    assert (osei.name, okafor.name) == ("Dr. K. Osei", "J. Okafor")
    assert osei.version_hash == shown.hash
    assert okafor.version_hash == after_b.hash  # bound to the version A was shown after reviewing
    valid = {r.role for r in signoff_status(final.dossier).roles if r.valid}
    assert {"CMIO / clinical informatics", "privacy / compliance"} <= valid
    assert chain.ok, chain
    assert chain.versions == final.version

    for app in (app1, app2):
        log = app.log.read_text()
        assert "Traceback" not in log, log[-3000:]
