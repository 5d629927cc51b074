"""End to end in a real Chromium: the dossier path a reviewer walks."""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from governance.dossier.store import Store
from tests.browser.conftest import goto_page, wait_idle

pytestmark = pytest.mark.browser


def fill(pg, label: str, text: str) -> None:
    box = pg.get_by_label(label, exact=True)
    box.fill(text)
    box.press("Tab")


REQUIRED = {"Decision role": "Informs:", "Severity of an uncaught wrong output": "Moderate:",
            "Human oversight before the output takes effect": "Every output is reviewed",
            "Patient data exposure": "De-identified"}


def choose_required(pg, choices: dict[str, str] = REQUIRED) -> None:
    """Pick the intended-use choices a blank form leaves unset (issue 27: no risky defaults)."""
    for label, option in choices.items():
        wait_idle(pg)
        choice = pg.get_by_role("option").filter(has_text=option).first
        for attempt in range(4):
            # A rerun still drawing after the previous field can swallow the click that opens the list
            # (seen on a loaded machine); open it again rather than wait out the whole timeout.
            pg.get_by_role("combobox", name=label).click()
            try:
                choice.wait_for(state="visible", timeout=15_000)
                break
            except PlaywrightTimeout:
                if attempt == 3:
                    raise
                pg.keyboard.press("Escape")
                wait_idle(pg)
        choice.click()
        wait_idle(pg)
    wait_idle(pg)


def test_create_dossier_accept_two_suggestions_and_reload(page, app_factory, tmp_path):
    app = app_factory(seed_demo=False)
    pg = page
    pg.goto(app.url)
    pg.get_by_role("heading", name="Dossiers").wait_for()
    wait_idle(pg)
    pg.get_by_role("button", name="New dossier").click()
    pg.get_by_role("heading", name="Intended use").wait_for()
    wait_idle(pg)

    fill(pg, "Title", "Discharge summaries")
    fill(pg, "Owner (accountable person or committee)", "Hospital medicine committee")
    fill(pg, "Purpose: what the model does, for whom and why",
         "Summarise discharge notes into a brief hospital course for residents to review and sign.")
    fill(pg, "Intended users (one per line)", "resident physicians")
    fill(pg, "Care setting", "Inpatient medicine wards")
    fill(pg, "Patient population", "Adult inpatients")
    choose_required(pg)
    pg.get_by_text("Risk tier:").first.wait_for()
    pg.get_by_role("button", name="Save dossier").click()
    wait_idle(pg)
    pg.get_by_text("Saving creates version 2").wait_for()

    goto_page(pg, app, "Task mapping")
    containers = pg.locator('[class*="st-key-accept_"]')
    containers.first.wait_for()
    keys = [c.get_attribute("class").split("st-key-")[1].split()[0] for c in containers.all()[:2]]
    for key in keys:
        pg.locator(f".st-key-{key} button").click()
        wait_idle(pg)
        pg.locator(f".st-key-{key} button[disabled]").wait_for()
    pg.screenshot(path=str(tmp_path / "mapping.png"), full_page=True)

    pg.reload()  # a new session: the mapping must come back from the store
    pg.get_by_role("heading", name="Task mapping").wait_for()
    wait_idle(pg)
    table = pg.locator('[data-testid="stDataFrame"]').first
    table.wait_for()
    main = pg.locator("section.main, [data-testid='stMain']").first
    for _ in range(30):  # the suggestions may still be drawing after the table (a loaded machine)
        text = main.inner_text()
        if text.count("accepted") >= 2:
            break
        pg.wait_for_timeout(1000)
    assert text.count("accepted") >= 2, text[:2000]
    assert "Documenting Patient Visits" in text
    app.proc.terminate()
    app.proc.wait(20)
    store = Store.open(app.home / "medassure.duckdb")
    (only,) = store.list_dossiers()
    mapping = store.load(only.id).dossier.mapping
    store.close()
    assert mapping.accepted == [k.removeprefix("accept_") for k in keys]
    assert all(d.by == "browser-test" for d in mapping.decisions)
