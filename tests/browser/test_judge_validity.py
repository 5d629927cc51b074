"""End to end in a real Chromium: upload clinician and jury ratings, see the agreement table, record it."""

import pytest

from governance.demo.judge_validity import demo_ratings
from governance.dossier.store import Store
from tests.browser.conftest import confirm_voiding, goto_page, wait_idle

pytestmark = pytest.mark.browser


def test_upload_ratings_and_see_the_agreement_table(page, app_factory, tmp_path):
    clinicians, jury = demo_ratings(seed=4)
    clinicians.to_csv(tmp_path / "clinicians.csv", index=False)
    jury.to_csv(tmp_path / "jury.csv", index=False)
    app = app_factory(seed_demo=True)
    pg = page
    pg.goto(app.url)
    pg.get_by_role("heading", name="Dossiers").wait_for()
    wait_idle(pg)
    goto_page(pg, app, "Judge validity")
    pg.get_by_text("Upload clinician ratings and give the jury's ratings").wait_for()

    pg.locator(".st-key-jv_clinicians input[type=file]").set_input_files(str(tmp_path / "clinicians.csv"))
    wait_idle(pg)
    pg.locator(".st-key-jv_jury input[type=file]").set_input_files(str(tmp_path / "jury.csv"))
    wait_idle(pg)
    table = pg.locator('[data-testid="stTable"]').first
    table.wait_for()
    pg.get_by_text("Figure to record").wait_for()
    grid = table.inner_text()
    assert "jury vs clinicians" in grid and "clinician vs clinician" in grid, grid[:1000]
    # MedHELM's published 0.47 / 0.43 stand only beside the aci_bench + medi_qa pooled row (issue 38, tested
    # in tests/evaluator/agreement); the demo's datasets are other ones, so the column is there, empty
    assert "MedHELM (publ" in grid
    pg.screenshot(path=str(tmp_path / "judge_validity.png"), full_page=True)

    pg.get_by_role("button", name="Record this agreement on the dossier").click()
    confirm_voiding(pg, "clinical lead (Dr. M. Chen)")  # the demo is decided and signed
    pg.get_by_text("Source: local judge-validity study (upload; 80 cases").first.wait_for()
    wait_idle(pg)
    app.proc.terminate()
    app.proc.wait(20)
    store = Store.open(app.home / "medassure.duckdb")
    recorded = store.load("D-demo-portal").dossier.judge_agreement
    store.close()
    assert recorded.n_instances == 80 and recorded.entered_by == "browser-test"
