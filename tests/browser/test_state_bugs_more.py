"""State bugs 2, 3, 4 and 6 of issue 16, each walked in a real Chromium as the reviewer met them.

2. a no-op save on the Candidates questionnaire creates no version and keeps the sign-off valid;
3. the second signer's note starts empty (it once carried the first signer's note);
4. the Re-evaluation page names which candidates were re-run, and its selector moves to a new addendum;
6. an approval with checklist items missing needs a recorded override; a rejection does not.

The app holds its DuckDB file while it runs, so the stored result is read after the server stops.
"""

from __future__ import annotations

import re

import pytest

from governance.dossier.store import Store
from tests.browser.conftest import goto_page, main_text, wait_idle
from tests.browser.test_local_scenarios import one
from tests.fakes import FakeConfig, FakeLLMServer
from tests.governance.reevaluation_fixtures import MODEL_A, MODEL_B, scripted_models, seed_decided_dossier

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright package not installed")
expect = sync_api.expect

DEMO = "D-demo-portal"



def sidebar_version(pg) -> int:
    text = pg.locator("[data-testid='stSidebar']").inner_text()
    return int(re.search(r"Version (\d+)", text).group(1))


def choose(pg, key: str, option: str) -> None:
    """Pick ``option`` in the selectbox with widget key ``key``, by keyboard.

    Clicking an option in the open list fails when the list would need scrolling: the list closes
    on scroll. Typing filters the list to the option, and Enter picks it.
    """
    wait_idle(pg)
    box = one(pg, pg.locator(f".st-key-{key}").get_by_role("combobox"))
    for _ in range(5):
        box.scroll_into_view_if_needed()
        box.click()
        box.fill(option)
        box.press("ArrowDown")
        box.press("Enter")
        wait_idle(pg)
        if shown(pg, key) == option:
            return
    raise AssertionError(f"could not choose {option!r} in {key}: shows {shown(pg, key)!r}")


def shown(pg, key: str) -> str:
    """What the selectbox with widget key ``key`` shows ("" while it is not on the page)."""
    box = pg.locator(f".st-key-{key}").get_by_role("combobox")
    return box.first.evaluate("e => e.value ?? e.innerText") if box.count() else ""


def type_into(pg, selector: str, text: str) -> None:
    box = one(pg, pg.locator(selector))
    box.fill(text)
    box.press("Tab")
    wait_idle(pg)


def open_app(pg, app) -> None:
    pg.goto(app.url)
    pg.get_by_role("heading", name="Dossiers").wait_for()
    wait_idle(pg)


def stopped_store(app) -> Store:
    app.proc.terminate()
    app.proc.wait(20)
    return Store.open(app.home / "medassure.duckdb")


def test_bug2_unchanged_questionnaire_save_keeps_the_signoff(page, app_factory):
    app = app_factory()
    pg = page
    open_app(pg, app)
    goto_page(pg, app, "Candidates")
    pg.get_by_role("heading", name="Vendor attestations").wait_for()
    before = sidebar_version(pg)
    choose(pg, "att_q_contoso-gpt-4o", "Training data provenance: satisfactory")
    judge = pg.locator(".st-key-att_contoso-gpt-4o_training_data_judge")
    # the form shows the stored judgement (it once showed "not judged yet" and saved that)
    # waited for, not read at once: the rerun that follows the choice may still be filling the form
    expect(judge.get_by_role("radio", name="satisfactory", exact=True)).to_be_checked()
    note = pg.locator(".st-key-att_contoso-gpt-4o_training_data_note input")
    expect(note).to_have_value(re.compile(r"^DEMO DATA"))
    one(pg, pg.get_by_role("button", name="Save answer", exact=True)).click()
    pg.get_by_text("Nothing changed; no new version.").wait_for()
    wait_idle(pg)
    assert sidebar_version(pg) == before

    store = stopped_store(app)
    try:
        from governance.decision.signoff import signoff_status

        latest = store.load(DEMO)
        assert latest.version == before
        (answer,) = [a for a in latest.dossier.candidates[0].attestations if a.question_id == "training_data"]
        assert answer.judgement == "satisfactory"
        assert signoff_status(latest.dossier).roles[0].valid  # the clinical lead's sign-off holds
    finally:
        store.close()


def test_bug3_the_second_signer_starts_with_an_empty_note(page, app_factory):
    app = app_factory()
    pg = page
    open_app(pg, app)
    goto_page(pg, app, "Decision")
    pg.get_by_role("heading", name="Sign-offs").wait_for()
    start = sidebar_version(pg)
    choose(pg, "signoff_role", "CMIO / clinical informatics")
    type_into(pg, "[class*='st-key-signoff_name'] input", "Dr. K. Osei")
    type_into(pg, "[class*='st-key-signoff_note'] input", "Agreed on the condition of a 90-day review.")
    one(pg, pg.get_by_role("button", name="Sign off", exact=True)).click()
    pg.locator("[data-testid='stSidebar']").get_by_text(f"Version {start + 1}").wait_for()
    wait_idle(pg)
    assert one(pg, pg.locator("[class*='st-key-signoff_note'] input")).input_value() == ""
    assert one(pg, pg.locator("[class*='st-key-signoff_name'] input")).input_value() == "browser-test"
    choose(pg, "signoff_role", "privacy / compliance")
    type_into(pg, "[class*='st-key-signoff_name'] input", "J. Okafor")
    one(pg, pg.get_by_role("button", name="Sign off", exact=True)).click()
    pg.locator("[data-testid='stSidebar']").get_by_text(f"Version {start + 2}").wait_for()

    store = stopped_store(app)
    try:
        signoffs = {s.role: s for s in store.load(DEMO).dossier.signoffs}
    finally:
        store.close()
    assert signoffs["CMIO / clinical informatics"].note == "Agreed on the condition of a 90-day review."
    assert (signoffs["privacy / compliance"].name, signoffs["privacy / compliance"].note) == ("J. Okafor", "")


@pytest.fixture
def model_server():
    with FakeLLMServer(FakeConfig(answer=scripted_models())) as server:
        yield server


def _run_reevaluation(pg) -> str:
    """Start a re-evaluation, wait for its addendum, and return the selector's shown text."""
    old = shown(pg, "reeval_pick")
    one(pg, pg.get_by_role("button", name="Run re-evaluation", exact=True)).click()
    for _ in range(360):  # the run works in the background; the page polls it
        if shown(pg, "reeval_pick") not in ("", old):
            break
        pg.wait_for_timeout(500)
    wait_idle(pg)
    return shown(pg, "reeval_pick")


def test_bug4_reevaluation_names_the_rerun_candidates_and_shows_the_new_addendum(page, app_factory,
                                                                                  model_server, tmp_path):
    home = tmp_path / "home0"  # app_factory's first home
    home.mkdir(parents=True)
    store = Store.open(home / "medassure.duckdb")
    dossier_id = seed_decided_dossier(store, model_server.url)
    store.close()
    app = app_factory(seed_demo=False)
    pg = page
    open_app(pg, app)
    goto_page(pg, app, "Re-evaluation")
    pg.get_by_text("Frozen evidence plan").wait_for()
    type_into(pg, ".st-key-reeval_model input", MODEL_B)
    first = _run_reevaluation(pg)
    assert first.startswith("R-"), first
    assert f"Re-run: {MODEL_A} (" in main_text(pg)  # exactly the candidates whose runs were repeated
    assert "Would this change the decision? Yes." in main_text(pg)
    second = _run_reevaluation(pg)
    assert second.startswith("R-") and second != first  # the selector moved to the new addendum

    store = stopped_store(app)
    try:
        addenda = store.load(dossier_id).dossier.reevaluations
    finally:
        store.close()
    assert len(addenda) == 2
    assert first.startswith(addenda[0].id) and second.startswith(addenda[1].id)


def _seed_gapped(home) -> str:
    from evaluator.evidence.record import published_evidence
    from governance.dossier.record import Dossier
    from governance.intended_use.records import example_intended_use

    home.mkdir(parents=True, exist_ok=True)
    d = Dossier(id="D-gaps", title="Portal replies without a plan", owner="Primary care AI committee",
                intended_use=example_intended_use(),
                evidence=published_evidence(["MedConfInfo"], ["GPT-4o (2024-05-13)"]))
    store = Store.open(home / "medassure.duckdb")
    store.save(d, author="seed", note="evidence only: no rules, cost or plan")
    store.close()
    return d.id


def test_bug6_an_approval_with_gaps_needs_the_recorded_override(page, app_factory, tmp_path):
    dossier_id = _seed_gapped(tmp_path / "home0")
    app = app_factory(seed_demo=False)
    pg = page
    open_app(pg, app)
    goto_page(pg, app, "Decision")
    pg.get_by_text("A rejection needs none").wait_for()  # the checklist's last line has drawn
    text = main_text(pg)
    assert "✗ Cost analysis" in text and "✗ Monitoring plan" in text and "✓ Evidence attached" in text
    assert "A rejection needs none" in text
    pg.locator(".st-key-decision_outcome").get_by_text("Approve", exact=True).click()
    wait_idle(pg)
    assert ("Missing before an approval: Acceptance rules locked, Cost analysis, Human-review plan, "
            "Monitoring plan") in main_text(pg)
    type_into(pg, ".st-key-decision_rationale textarea", "Pilot on one ward under full review only.")
    record = pg.get_by_role("button", name="Record decision", exact=True)
    expect(record).to_be_disabled()  # no override reason yet
    reason = "Four-week pilot on one ward; cost and monitoring are agreed before any wider use."
    type_into(pg, ".st-key-decision_override textarea", reason)
    expect(record).to_be_enabled()
    record.click()
    pg.get_by_text("Approved with items missing").wait_for()

    store = stopped_store(app)
    try:
        decision = store.load(dossier_id).dossier.decision
    finally:
        store.close()
    assert decision.outcome == "approve"
    assert (decision.gaps_override.by, decision.gaps_override.reason) == ("browser-test", reason)
    assert decision.gaps_override.missing == ["Acceptance rules locked", "Cost analysis", "Human-review plan",
                                              "Monitoring plan"]


def test_narrow_window_drawer_sidebar_fitting_table_and_stacked_decision_columns(browser, app_factory):
    app = app_factory()
    context = browser.new_context(viewport={"width": 800, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(90_000)
    try:
        pg.goto(app.url + "/evidence")
        pg.get_by_role("heading", name="Coverage of the mapped subcategories").wait_for()
        wait_idle(pg)
        sidebar = pg.locator("[data-testid='stSidebar']").bounding_box()
        assert sidebar["x"] + sidebar["width"] <= 20, sidebar  # a strip at the edge, not 300 px of page
        main = pg.locator("[data-testid='stMainBlockContainer']").bounding_box()
        assert main["width"] >= 700, main
        table = pg.locator("[data-testid='stTable']").first
        widths = table.evaluate("t => [t.querySelector('table').scrollWidth, t.clientWidth]")
        assert widths[0] <= widths[1], widths  # the coverage table wraps instead of scrolling sideways

        pg.goto(app.url + "/decision")
        pg.get_by_text("Checklist before a decision").wait_for()
        wait_idle(pg)
        left = pg.get_by_role("heading", name="Recommendation (computed)").bounding_box()
        right = pg.get_by_role("heading", name="Committee decision").bounding_box()
        assert abs(left["x"] - right["x"]) < 2 and right["y"] > left["y"], (left, right)  # stacked
    finally:
        context.close()
