"""Your own action is never reported as someone else's save (issue 27, item 1).

Every page path that writes a dossier version — through ``ui.save`` or a front-desk operation inside
``ui.permitted`` (whose receipt records the versions written), or a background job whose brief names its
version — must leave the session on the version it wrote: no "Someone else saved" warning, and the next
save on Intended use is accepted. The AST check at the end keeps every front-desk write on a page inside
``ui.permitted``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from governance.dossier.store import Store
from tests.governance.reevaluation_fixtures import DOSSIER_ID, MODEL_B, scripted_models, seed_decided_dossier
from tests.pages.conftest import DEMO, confirm_voiding, open_page
from tests.pages.test_reevaluation_page import wait_for_jobs
from tests.pages.test_run_evidence_jury import fill_jury, free_text  # noqa: F401  (a fixture)
from tests.pages.test_run_evidence_page import calc_server, fill_calc_request, wait_for_runs  # noqa: F401

PAGES = Path(__file__).resolve().parents[2] / "pages"


def _latest(home: Path, dossier_id: str = DEMO):
    store = Store.open(home / "medassure.duckdb")
    try:
        return store.load(dossier_id)
    finally:
        store.close()


def no_conflict_and_intended_use_saves(at, home: Path, dossier_id: str = DEMO) -> None:
    """The page shows no "Someone else saved"; then a title edit on Intended use makes the next version."""
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [w.value for w in at.warning if "Someone else saved" in w.value]
    before = _latest(home, dossier_id)
    at.switch_page("pages/intended_use.py").run()
    assert not [w.value for w in at.warning if "Someone else saved" in w.value]
    at.text_input(key=f"iu_{dossier_id}_{before.version}_title").input(before.dossier.title + " (v2)").run()
    at.button(key="save_intended_use").click().run()
    if [b for b in at.button if b.key == "voiding_save_confirm"]:  # the demo may still be signed
        confirm_voiding(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    after = _latest(home, dossier_id)
    assert after.version == before.version + 1 and after.dossier.title == before.dossier.title + " (v2)"


def test_attaching_your_own_run_is_not_someone_elses_save(demo_home, calc_server):  # noqa: F811
    at = open_page("pages/run_evidence.py")
    start = _latest(demo_home)
    fill_calc_request(at, calc_server, limit=4)
    at.button(key="run_estimate_button").click().run()
    at.button(key="run_start").click().run()
    wait_for_runs()
    at.run()
    run_id = next(s for s in at.selectbox if s.label == "Run").value
    at.button(key=f"run_attach_{run_id}").click().run()
    confirm_voiding(at)  # the demo is decided and signed: attaching voids its sign-offs
    assert _latest(demo_home).version == start.version + 1  # attached (update_as, not a form save)
    no_conflict_and_intended_use_saves(at, demo_home)


def test_attaching_your_own_jury_is_not_someone_elses_save(free_text, demo_home):  # noqa: F811
    run_id, path, server = free_text
    at = open_page("pages/run_evidence.py")
    fill_jury(at, run_id, path, server)
    at.checkbox(key=f"jury_phi_{run_id}").check().run()
    at.button(key="jury_estimate").click().run()
    at.button(key="jury_start").click().run()
    wait_for_jobs()
    at.run()
    jury_id = next(m.value for m in at.markdown if m.value.startswith("**Jury ")).split()[1].rstrip("*")
    start = _latest(demo_home)
    at.button(key=f"jury_attach_{jury_id}").click().run()
    confirm_voiding(at)  # the demo is decided and signed: attaching voids its sign-offs
    assert _latest(demo_home).version == start.version + 1
    no_conflict_and_intended_use_saves(at, demo_home)


def test_your_own_reevaluation_is_not_someone_elses_save(home, store, llm_server):
    llm_server.configure(answer=scripted_models())
    seed_decided_dossier(store, llm_server.url)
    store.close()
    at = open_page("pages/reevaluation.py", dossier_id=DOSSIER_ID)
    start = _latest(home, DOSSIER_ID)
    at.text_input(key="reeval_model").input(MODEL_B)
    at.number_input(key="reeval_in_price").set_value(0.5)
    at.number_input(key="reeval_out_price").set_value(1.5)
    next(b for b in at.button if b.label == "Run re-evaluation").click().run()
    wait_for_jobs()
    at.run()  # the poll finds the job done: its brief names the version it saved
    assert _latest(home, DOSSIER_ID).version == start.version + 1
    no_conflict_and_intended_use_saves(at, home, DOSSIER_ID)


@pytest.mark.parametrize("walk", ["signoff", "plan"])
def test_form_saves_on_decision_and_review_pages_are_your_own(demo_home, walk):
    if walk == "signoff":
        at = open_page("pages/decision.py")
        at.selectbox(key="signoff_role").select("CMIO / clinical informatics").run()
        (name,) = [t for t in at.text_input if t.key and t.key.startswith("signoff_name_")]
        name.input("Dr. K. Osei").run()
        start = _latest(demo_home)
        at.button(key="signoff_button").click().run()
    else:
        at = open_page("pages/review_monitoring.py")
        start = _latest(demo_home)
        at.number_input(key=f"plan_{start.version}_months").set_value(3).run()
        at.button(key="plan_save").click().run()
        confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert _latest(demo_home).version == start.version + 1
    no_conflict_and_intended_use_saves(at, demo_home)


def test_another_sessions_save_is_still_reported_when_both_are_named_reviewer(demo_home):
    """The receipt, not the author's name, says whose a version is: two people typing "reviewer" still
    hear of each other's saves."""
    one = open_page("pages/decision.py")
    two = open_page("pages/decision.py")
    assert one.session_state["reviewer"] == two.session_state["reviewer"]
    two.selectbox(key="signoff_role").select("CMIO / clinical informatics").run()
    (name,) = [t for t in two.text_input if t.key and t.key.startswith("signoff_name_")]
    name.input("Dr. K. Osei").run()
    two.button(key="signoff_button").click().run()
    one.run()
    assert [w.value for w in one.warning if "Someone else saved" in w.value]
    assert not [w.value for w in two.warning if "Someone else saved" in w.value]


WRITERS = {"attach_run", "attach_jury", "attest_file", "attest_scenario", "attach_inspect_logs",
           "start_reevaluation", "record_attestation_for_dossier", "save_addendum", "save_as", "update_as"}
"""Front-desk operations that write a dossier version (``record_attestation`` of procurement is pure)."""


def _inside_permitted(node: ast.AST, parents: dict) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.With) and any(
                isinstance(i.context_expr, ast.Call) and ast.unparse(i.context_expr.func) == "ui.permitted"
                for i in node.items):
            return True
    return False


def test_every_front_desk_write_on_a_page_goes_through_ui_permitted():
    stray = []
    for path in sorted(PAGES.glob("*.py")):
        if path.name == "ui.py":
            continue  # ui.save itself records what save_as wrote
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            name = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else ""
            if name in WRITERS and not _inside_permitted(node, parents):
                stray.append(f"{path.name}:{node.lineno} {node.func.id}")
    assert stray == [], "front-desk writes outside ui.permitted: their version would look like someone else's"
