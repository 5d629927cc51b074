"""One AppTest per foundation page: it renders from the store and its main action works."""

import re

from governance.demo.seed import DEMO_ID
from governance.dossier.store import Store
from tests.pages.conftest import confirm_voiding, open_page
from tests.pages.readable import assert_readable


def demo_version(home) -> int:
    """The seeded demo's latest version (the demo grows a step with each issue)."""
    store = Store.open(home / "medassure.duckdb")
    try:
        return store.load(DEMO_ID).version
    finally:
        store.close()


def test_dossiers_page_lists_demo(demo_home):
    at = open_page()
    assert at.title[0].value == "Dossiers"
    frame = at.dataframe[0].value
    assert list(frame["Id"]) == ["D-demo-portal"]
    assert list(frame.columns) == ["Id", "Title", "Owner", "Status", "Monitoring", "Risk tier", "Version",
                                   "Last saved"]
    assert frame["Monitoring"][0] in ("in control", "review", "pause", "suspend")  # issue 36 item 6
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", frame["Last saved"][0])
    assert assert_readable(at) == 1
    assert "Risk tier" in at.sidebar.markdown[0].value
    assert f"monitoring **{frame['Monitoring'][0]}**" in at.sidebar.markdown[0].value


def test_dossiers_page_seeds_demo_on_click(home):
    at = open_page(dossier_id=None)
    assert not at.dataframe
    at.button(key="seed_demo_button").click().run()
    assert not at.exception
    assert at.session_state["dossier_id"] == "D-demo-portal"
    assert list(at.dataframe[0].value["Id"]) == ["D-demo-portal"]


def test_intended_use_live_risk_and_save(demo_home):
    seeded = demo_version(demo_home)
    at = open_page("pages/intended_use.py")
    assert at.title[0].value == "Intended use"
    assert "moderate" in at.subheader[0].value
    prefix = f"iu_D-demo-portal_{seeded}_"
    at.selectbox(key=prefix + "severity").select("critical").run()
    assert "high" in at.subheader[0].value  # live, before saving
    at.button(key="save_intended_use").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception
    store = Store.open(demo_home / "medassure.duckdb")
    latest = store.load("D-demo-portal")
    store.close()
    assert latest.version == seeded + 1 and latest.dossier.intended_use.error_severity == "critical"


def test_intended_use_validation_on_save_names_fields_by_label(demo_home):
    seeded = demo_version(demo_home)
    at = open_page("pages/intended_use.py")
    at.text_area(key=f"iu_D-demo-portal_{seeded}_purpose").input("short").run()
    assert not at.warning  # nothing shouted while the reviewer is still typing
    at.button(key="save_intended_use").click().run()
    (warning,) = [w.value for w in at.warning]
    assert "**Purpose**" in warning and "at least 10 characters" in warning
    assert "purpose**" not in warning.lower().replace("**purpose**", "")  # no raw field key
    store = Store.open(demo_home / "medassure.duckdb")
    assert store.load("D-demo-portal").version == seeded  # nothing saved
    store.close()


def test_a_new_empty_intended_use_form_shows_no_errors_before_save(home):
    at = open_page(dossier_id=None)
    at.button(key="new_dossier_button").click().run()
    at.switch_page("pages/intended_use.py").run()
    assert not at.warning and not at.exception
    at.button(key="save_intended_use").click().run()
    (warning,) = [w.value for w in at.warning]
    for label in ("**Title**", "**Owner**", "**Purpose**", "**Intended users**"):
        assert label in warning
    assert "intended_users" not in warning and "String should" not in warning


def test_new_dossier_from_intended_use_page(home):
    at = open_page(dossier_id=None)
    at.button(key="new_dossier_button").click().run()
    at.switch_page("pages/intended_use.py").run()
    p = "iu_new_"
    at.text_input(key=p + "title").input("Nurse dosing questions").run()
    at.text_input(key=p + "owner").input("Pharmacy committee").run()
    at.text_area(key=p + "purpose").input("Answer nurses' questions about drug dosing on the wards.").run()
    at.text_area(key=p + "users").input("registered nurses").run()
    at.text_input(key=p + "setting").input("Inpatient wards").run()
    at.text_input(key=p + "population").input("Adult inpatients").run()
    for key, value in (("role", "informs"), ("severity", "moderate"), ("oversight", "every_output"),
                       ("phi", "none")):
        at.selectbox(key=p + key).select(value).run()  # required: nothing is preselected
    at.button(key="save_intended_use").click().run()
    assert not at.exception
    assert at.session_state["dossier_id"].startswith("D-")
    titles = [r.title for r in Store.open(home / "medassure.duckdb").list_dossiers()]
    assert "Nurse dosing questions" in titles


def test_task_mapping_suggests_and_accepts(demo_home):
    at = open_page("pages/task_mapping.py")
    assert at.title[0].value == "Task mapping"
    first = at.markdown[0].value
    assert "Patient-Provider Messaging" in first
    at.button(key="accept_documenting_patient_visits").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception
    store = Store.open(demo_home / "medassure.duckdb")
    accepted = store.load("D-demo-portal").dossier.mapping.accepted
    store.close()
    assert "documenting_patient_visits" in accepted


def test_task_mapping_tables_read_without_a_glossary(demo_home):
    at = open_page("pages/task_mapping.py")
    assert assert_readable(at) >= 2  # the current mapping and the taxonomy's benchmark tables
    mapping = at.dataframe[0].value
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", a) for a in mapping["at"])


def test_intended_use_names_the_models_under_consideration(demo_home):
    at = open_page("pages/intended_use.py")
    area = next(a for a in at.text_area if a.label.startswith("Models under consideration"))
    assert "Candidates page" in area.help and area.value
