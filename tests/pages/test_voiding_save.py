"""An edit to a decided, signed dossier says which sign-offs it voids and waits for a yes (issue 36 item 3).

The demo dossier is decided and holds a valid clinical-lead sign-off. Before, changing the intended
use's oversight saved at once and the sign-off silently stopped counting.
"""

from __future__ import annotations

from governance.decision import signoff_status
from tests.pages.conftest import DEMO, latest, open_page


def _change_oversight(at, home) -> int:
    v = latest(home)
    at.selectbox(key=f"iu_{DEMO}_{v.version}_oversight").set_value("sampled").run()
    at.button(key="save_intended_use").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return v.version


def _valid_roles(home) -> list[str]:
    return [r.role for r in signoff_status(latest(home).dossier).roles if r.valid]


def test_the_save_names_the_signoffs_it_voids_and_waits(demo_home):
    assert _valid_roles(demo_home) == ["clinical lead"]
    at = open_page("pages/intended_use.py")
    version = _change_oversight(at, demo_home)
    (asked,) = [w.value for w in at.warning if "voids 1 sign-off" in w.value]
    assert "clinical lead (" in asked
    assert latest(demo_home).version == version  # nothing saved yet
    at.button(key="voiding_save_confirm").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert latest(demo_home).version == version + 1
    assert latest(demo_home).dossier.intended_use.human_oversight == "sampled"
    assert _valid_roles(demo_home) == []
    assert not [w for w in at.warning if "Someone else saved" in w.value]  # our own save


def test_cancel_keeps_the_signoffs(demo_home):
    at = open_page("pages/intended_use.py")
    version = _change_oversight(at, demo_home)
    at.button(key="voiding_save_cancel").click().run()
    assert latest(demo_home).version == version and _valid_roles(demo_home) == ["clinical lead"]


def test_saving_unchanged_content_asks_nothing_and_changes_nothing(demo_home):
    v = latest(demo_home)
    at = open_page("pages/intended_use.py")
    at.button(key="save_intended_use").click().run()
    assert not [w for w in at.warning if "voids" in w.value]
    assert latest(demo_home).version == v.version and _valid_roles(demo_home) == ["clinical lead"]


def test_a_new_dossier_made_while_the_signed_demo_is_chosen_asks_nothing(demo_home):
    """The question is about the dossier being saved: a new one (or an import) voids nothing of the demo."""
    at = open_page()  # the signed demo is the current dossier in the sidebar
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
        at.selectbox(key=p + key).select(value).run()
    at.button(key="save_intended_use").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [w for w in at.warning if "voids" in w.value]
    assert at.session_state["dossier_id"] not in (DEMO, None)
    assert _valid_roles(demo_home) == ["clinical lead"]


def _record_a_new_decision(at) -> None:
    at.radio(key="decision_outcome").set_value("reject").run()
    at.text_area(key="decision_rationale").input("The vendor changed the model; we withdraw the use.").run()
    at.button(key="decision_record").click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_recording_a_new_decision_names_the_signoffs_it_voids_and_waits(demo_home):
    # The Decision page saved a new decision at once and the valid sign-offs silently stopped counting.
    version = latest(demo_home).version
    at = open_page("pages/decision.py")
    _record_a_new_decision(at)
    (asked,) = [w.value for w in at.warning if "voids 1 sign-off" in w.value]
    assert "clinical lead (" in asked
    assert latest(demo_home).version == version and _valid_roles(demo_home) == ["clinical lead"]
    at.button(key="voiding_save_confirm").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert latest(demo_home).version == version + 1
    assert latest(demo_home).dossier.decision.outcome == "reject" and _valid_roles(demo_home) == []


def test_cancelling_the_new_decision_keeps_the_old_one_and_its_signoffs(demo_home):
    before = latest(demo_home)
    at = open_page("pages/decision.py")
    _record_a_new_decision(at)
    at.button(key="voiding_save_cancel").click().run()
    after = latest(demo_home)
    assert after.version == before.version and after.dossier.decision == before.dossier.decision
    assert _valid_roles(demo_home) == ["clinical lead"]
