"""Issue 27, items 1, 2 and 4 in a real Chromium at 1400 px.

1. Attaching your own run is not "someone else's save": the next Intended-use save is accepted.
2. Two browser contexts edit Intended use: the second save keeps what its user typed, names the other's
   change and applies the edit onto the latest version.
4. After the human-oversight choice changes, the decision cannot be signed until the chair confirms it.

Screenshots go to ``/work/wt/walka-shots/`` when that folder exists (else the test's tmp folder).
The app holds its DuckDB file while it runs, so stored results are read after the server stops.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.conftest import goto_page, saved, wait_idle
from tests.browser.test_local_scenarios import one
from tests.browser.test_run_evidence import calc_model, choose, fill, hits  # noqa: F401  (a fixture)
from tests.browser.test_state_bugs_more import main_text, open_app, sidebar_version, stopped_store

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright package not installed")
expect = sync_api.expect

DEMO = "D-demo-portal"
SHOTS = Path("/work/wt/walka-shots")
OVERSIGHT = "Human oversight before the output takes effect"


def shot(pg, tmp_path: Path, name: str, height: int = 1000) -> None:
    """A screenshot (Streamlit scrolls inside its main block, so a taller window shows more of it)."""
    folder = SHOTS if SHOTS.is_dir() else tmp_path
    if height != 1000:
        pg.set_viewport_size({"width": 1400, "height": height})
        wait_idle(pg)
    pg.screenshot(path=str(folder / name), full_page=True)
    if height != 1000:
        pg.set_viewport_size({"width": 1400, "height": 1000})
        wait_idle(pg)


def _context(browser, app):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(90_000)
    open_app(pg, app)
    return context, pg


def _save_voiding_signoffs(pg) -> None:
    """Press "Save new version" on the signed demo and say yes to voiding its sign-offs (issue 36 item 3)."""
    pg.get_by_role("button", name="Save new version").click()
    confirm = pg.locator(".st-key-voiding_save_confirm button")
    confirm.wait_for()
    assert "This change voids" in main_text(pg) and "Nothing is saved until you confirm" in main_text(pg)
    confirm.click()


def _wait_version(pg, number: int) -> None:
    pg.locator("[data-testid='stSidebar']").get_by_text(f"Version {number}", exact=True).wait_for()
    wait_idle(pg)


def test_your_own_attached_run_then_an_intended_use_save(page, app_factory, calc_model, tmp_path):  # noqa: F811
    app = app_factory()
    pg = page
    open_app(pg, app)
    start = sidebar_version(pg)
    goto_page(pg, app, "Run evidence")
    choose(pg, "Benchmark", "Built-in clinical calculators")
    choose(pg, "Candidate", "another model")
    fill(pg, pg.locator(".st-key-run_model_other input"), "openai/calc-scripted")
    fill(pg, pg.get_by_label("API base (optional)"), calc_model + "/v1")
    fill(pg, pg.locator(".st-key-run_concurrency input"), "4")
    fill(pg, pg.locator(".st-key-run_limit input"), "4")
    pg.get_by_role("button", name="Estimate").click()
    pg.get_by_text("request(s) to send").wait_for()
    wait_idle(pg)
    pg.get_by_role("button", name="Run", exact=True).click()
    pg.get_by_text("4 of 4 instances · completed").wait_for(timeout=60_000)
    wait_idle(pg)
    pg.get_by_role("button", name="Attach as evidence").click()
    saved(pg, pg.get_by_text("This run's evidence is attached to the dossier."))  # yes to voiding the demo's
    _wait_version(pg, start + 1)
    assert "Someone else saved" not in main_text(pg)
    shot(pg, tmp_path, "item1_run_attached.png")

    goto_page(pg, app, "Intended use")
    assert "Someone else saved" not in main_text(pg)
    title = one(pg, pg.get_by_label("Title", exact=True))
    fill(pg, title, title.input_value() + " (checked)")
    pg.get_by_role("button", name="Save new version").click()
    _wait_version(pg, start + 2)
    text = main_text(pg)
    assert "changed while you worked" not in text and "Someone else saved" not in text
    shot(pg, tmp_path, "item1_intended_use_saved.png")
    assert hits(calc_model) == 4

    store = stopped_store(app)
    try:
        history = store.history(DEMO)
    finally:
        store.close()
    assert [h.note.split(":")[0] for h in history[-2:]] == ["evidence", "intended use edited"]


def test_two_contexts_edit_intended_use_and_the_edit_lands_on_the_latest(browser, app_factory, tmp_path):
    app = app_factory()
    ctx_a, a = _context(browser, app)
    ctx_b, b = _context(browser, app)
    try:
        start = sidebar_version(a)
        goto_page(a, app, "Intended use")
        goto_page(b, app, "Intended use")

        owner_b = one(b, b.get_by_label("Owner (accountable person or committee)", exact=True))
        fill(b, owner_b, "Pharmacy AI committee")
        _save_voiding_signoffs(b)
        _wait_version(b, start + 1)

        # A types a title on the version A was shown; the rerun learns of B's save and keeps A's text.
        title_a = one(a, a.get_by_label("Title", exact=True))
        fill(a, title_a, "Portal replies (pilot clinic)")
        a.get_by_text("Someone else saved this dossier while you edited it").wait_for()
        wait_idle(a)
        text = main_text(a)
        assert f"you started from version {start}" in text
        assert re.search(r"Owner: .+ → Pharmacy AI committee", text), text  # their change, by label
        assert re.search(r"Title: .+ → Portal replies \(pilot clinic\)", text), text  # mine
        assert one(a, a.get_by_label("Title", exact=True)).input_value() == "Portal replies (pilot clinic)"
        assert a.get_by_role("button", name="Save new version").count() == 0
        shot(a, tmp_path, "item2_conflict_kept_and_named.png", height=2200)

        one(a, a.get_by_role("button", name="Apply my edit onto the latest version")).click()
        _wait_version(a, start + 2)
        expect(a.get_by_text("Someone else saved this dossier")).to_have_count(0, timeout=15_000)
        assert one(a, a.get_by_label("Title", exact=True)).input_value() == "Portal replies (pilot clinic)"
        owner_a = one(a, a.get_by_label("Owner (accountable person or committee)", exact=True))
        assert owner_a.input_value() == "Pharmacy AI committee"
        shot(a, tmp_path, "item2_merged.png")
    finally:
        ctx_a.close()
        ctx_b.close()

    store = stopped_store(app)
    try:
        final, history = store.load(DEMO), store.history(DEMO)
    finally:
        store.close()
    assert final.version == start + 2 and history[-1].parent_hash == history[-2].hash
    assert final.dossier.title == "Portal replies (pilot clinic)"
    assert final.dossier.owner == "Pharmacy AI committee"


def test_a_stale_decision_is_signed_only_after_the_chair_confirms_it(page, app_factory, tmp_path):
    app = app_factory()
    pg = page
    open_app(pg, app)
    start = sidebar_version(pg)
    goto_page(pg, app, "Intended use")
    choose(pg, OVERSIGHT, "A sample of outputs is reviewed (quality assurance)")
    _save_voiding_signoffs(pg)
    _wait_version(pg, start + 1)

    goto_page(pg, app, "Decision")
    pg.get_by_text("The decision no longer rests on this dossier").wait_for()
    wait_idle(pg)
    text = main_text(pg)
    assert "Intended use › Human oversight changed after it was recorded" in text
    assert "changed since: Intended use" in text and "intended_use" not in text  # labels, never keys
    sign = pg.get_by_role("button", name="Sign off", exact=True)
    expect(sign).to_be_disabled()
    shot(pg, tmp_path, "item4_stale_refused.png", height=3600)

    reason = one(pg, pg.get_by_label("Why the decision still stands (required)"))
    fill(pg, reason, "Sampled review is enough for drafts a clinician sends.")
    one(pg, pg.get_by_role("button", name="Confirm the decision")).click()
    _wait_version(pg, start + 2)
    expect(pg.get_by_text("The decision no longer rests on this dossier")).to_have_count(0, timeout=15_000)
    name = one(pg, pg.locator("[class*='st-key-signoff_name'] input"))
    fill(pg, name, "Dr. K. Osei")
    expect(sign).to_be_enabled()
    sign.click()
    _wait_version(pg, start + 3)
    shot(pg, tmp_path, "item4_confirmed_and_signed.png", height=3600)

    store = stopped_store(app)
    try:
        d = store.load(DEMO).dossier
    finally:
        store.close()
    (c,) = d.decision.confirmations
    assert c.changed == ["Intended use › Human oversight"] and c.reason.startswith("Sampled review")
    assert d.signoffs[-1].name == "Dr. K. Osei"
    assert "Traceback" not in app.log.read_text()
