"""End to end in a real Chromium: upload cases with a phone number, see the PHI block for an endpoint
that is not approved, redact, run against the local test server, read the subgroup table."""

from __future__ import annotations

import time

import pytest

from governance.dossier.store import Store
from tests.browser.conftest import goto_page, main_text, wait_idle
from tests.fakes import constant_answer

pytestmark = pytest.mark.browser


def write_cases(path):
    rows = ["id,context,question,choices,reference,tag_site"]
    rows += [f"n{i},Portal message {i},Same-day review?,yes|no,A,North" for i in range(15)]
    rows += [f"s{i},Portal message {i},Same-day review?,yes|no,{'AB'[i % 2 == 0]},South" for i in range(12)]
    rows += [f"e{i},Portal message {i},Same-day review?,yes|no,A,East" for i in range(3)]
    rows.append('p1,"Please call me back on 555-867-5309 today",Same-day review?,yes|no,A,North')
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path



def one(pg, locator, timeout_s: float = 120.0):
    """The locator once exactly one element matches (a rerun briefly shows stale copies of widgets)."""
    deadline = time.monotonic() + timeout_s
    while locator.count() != 1 and time.monotonic() < deadline:
        pg.wait_for_timeout(200)
    return locator


def fill(pg, label: str, text: str) -> None:
    wait_idle(pg)
    box = one(pg, pg.get_by_label(label, exact=True))
    box.fill(text)
    # Tab from the focused box: once a run exists the jury section draws a second "API base" box, so the
    # label would no longer name one element
    pg.keyboard.press("Tab")
    wait_idle(pg)


def click(pg, name: str) -> None:
    wait_idle(pg)
    one(pg, pg.get_by_role("button", name=name, exact=True)).click()


def test_phi_block_redaction_run_and_subgroup_table(page, app_factory, tmp_path, llm_server):
    llm_server.configure(answer=constant_answer("A"))
    app = app_factory(seed_demo=True)
    pg = page
    pg.goto(app.url)
    pg.get_by_role("heading", name="Dossiers").wait_for()
    wait_idle(pg)
    goto_page(pg, app, "Local scenarios")

    pg.locator("input[type='file']").first.set_input_files(str(write_cases(tmp_path / "ward_cases.csv")))
    pg.get_by_text("All 31 cases are valid.").wait_for()
    wait_idle(pg)
    assert "phone 1" in main_text(pg)
    click(pg, "Save scenario")
    pg.get_by_text("version 1.", exact=False).first.wait_for()
    wait_idle(pg)

    fill(pg, "litellm model string", "openai/fake")
    fill(pg, "API base (optional)", llm_server.url)
    pg.get_by_text("not approved for protected health information", exact=False).wait_for()
    assert one(pg, pg.get_by_role("button", name="Run", exact=True)).is_disabled()
    pg.screenshot(path=str(tmp_path / "blocked.png"), full_page=True)
    assert llm_server.hits == 0

    click(pg, "Redact identifiers (new version)")
    pg.get_by_text("Saved version 2", exact=False).wait_for()
    pg.get_by_text("redacted from version 1", exact=False).wait_for()  # the new version is selected
    wait_idle(pg)
    assert one(pg, pg.get_by_role("button", name="Run", exact=True)).is_enabled()
    click(pg, "Run")
    # The first run in a fresh app process imports litellm (10-30 s on a busy 2-core machine).
    pg.get_by_text("completed: 31 cases", exact=False).wait_for(timeout=300_000)
    wait_idle(pg)
    pg.locator("[data-testid='stTable']").last.wait_for()
    table = pg.locator("[data-testid='stTable']").last.inner_text()
    assert "North" in table and "reference" in table
    assert "South" in table and "outside 0.8–1.25" in table
    assert "East" in table and "suppressed (n < 10)" in table
    pg.screenshot(path=str(tmp_path / "results.png"), full_page=True)
    assert llm_server.hits == 31
    assert all("867" not in prompt for prompt in llm_server.hits_by_prompt)
    assert any("[PHONE]" in prompt for prompt in llm_server.hits_by_prompt)

    click(pg, "Attach to dossier (new version)")
    # the demo is decided and signed: attaching voids its sign-off, and the page asks first (issue 36 item 3)
    confirm = pg.locator(".st-key-voiding_save_confirm button")
    confirm.wait_for()
    assert "This change voids 1 sign-off(s): clinical lead" in main_text(pg)
    confirm.click()
    pg.get_by_text("Evidence attached", exact=False).wait_for()
    app.proc.terminate()
    app.proc.wait(20)
    store = Store.open(app.home / "medassure.duckdb")
    latest = store.load("D-demo-portal").dossier
    store.close()
    attached = latest.evidence[-1]
    assert attached.provenance == "local-run" and attached.model == "openai/fake"
    assert {(s.group, s.suppressed) for s in attached.subgroups} == {("North", False), ("South", False),
                                                                     ("East", True)}
