"""End to end in Chromium: re-evaluate a decided dossier with a worse model; read the addendum and history.

Set up with package functions before the app starts (the app is then the only process holding the
database): model A answers 20 calculator cases right on the local test server, the evidence is
attached, a rule is locked, the committee approves A and the plan is frozen. In the browser the
reviewer swaps in model B, which the server scripts to get three known cases wrong.
"""

from __future__ import annotations

import pytest

from governance.dossier.store import Store
from tests.browser.conftest import goto_page, main_text, wait_idle
from tests.fakes import FakeConfig, FakeLLMServer
from tests.governance.reevaluation_fixtures import MODEL_B, N, bad_ids, scripted_models, seed_decided_dossier

pytestmark = pytest.mark.browser


@pytest.fixture
def model_server():
    with FakeLLMServer(FakeConfig(answer=scripted_models())) as server:
        yield server


def fill(pg, label: str, text: str) -> None:
    box = pg.get_by_label(label)
    box.fill(text)
    box.press("Tab")



def test_reevaluation_with_a_worse_model_shows_the_addendum(page, app_factory, model_server, tmp_path):
    home = tmp_path / "home0"  # app_factory's first home
    home.mkdir(parents=True)
    store = Store.open(home / "medassure.duckdb")
    dossier_id = seed_decided_dossier(store, model_server.url)
    store.close()
    assert model_server.hits == N
    app = app_factory(seed_demo=False)
    pg = page
    pg.goto(app.url)
    pg.get_by_role("heading", name="Dossiers").wait_for()
    wait_idle(pg)

    goto_page(pg, app, "Re-evaluation")
    pg.get_by_text("Frozen evidence plan").wait_for()
    assert "Frozen with the decision" in main_text(pg)
    fill(pg, "New model (litellm model string)", MODEL_B)
    fill(pg, "New model's USD per 1M prompt tokens (optional)", "0.5")
    fill(pg, "New model's USD per 1M completion tokens (optional)", "1.5")
    pg.get_by_role("button", name="Run re-evaluation").click()
    pg.get_by_text("Would this change the decision? Yes.").wait_for(timeout=180_000)
    wait_idle(pg)
    text = main_text(pg)
    assert "Paired comparison" in text and "Instances that changed" in text
    assert ", ".join(bad_ids()) in text, "the flipped instances are listed by id"
    assert "pass" in text and "inconclusive" in text
    assert model_server.hits == 2 * N
    pg.screenshot(path=str(tmp_path / "reevaluation.png"), full_page=True)

    goto_page(pg, app, "History")
    pg.get_by_text("Sections changed").wait_for()
    assert "Re-evaluations" in main_text(pg)  # the diff names the section by its label
    expander = pg.locator("[data-testid='stExpander']", has_text="Re-evaluation R-").first
    expander.get_by_text("Paired comparison").first.wait_for()  # the body may draw after the header
    pg.screenshot(path=str(tmp_path / "history.png"), full_page=True)

    app.proc.terminate()
    app.proc.wait(20)
    store = Store.open(home / "medassure.duckdb")
    d = store.load(dossier_id)
    store.close()
    (addendum,) = d.dossier.reevaluations
    assert "re-evaluation" in d.note and addendum.comparisons[0].worse == bad_ids()
    assert addendum.impact.would_change and addendum.by == "browser-test"
