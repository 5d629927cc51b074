"""Two browser sessions on one dossier: no lost update, no sign-off bound to a version never seen."""

from streamlit.testing.v1 import AppTest

from governance.decision.signoff import signoff_status
from tests.pages.conftest import APP, DEMO, latest, open_page


def _second_session() -> AppTest:
    """Another session of the same app process (same cached store), on the Decision page."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["dossier_id"] = DEMO
    at.session_state["reviewer"] = "second reviewer"
    at.run()
    at.switch_page("pages/decision.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _name_input(at):
    """The signer's name field (its key carries the sign-off count, so each signer starts empty)."""
    (field,) = [t for t in at.text_input if t.key and t.key.startswith("signoff_name_")]
    return field


def test_a_signoff_after_another_sessions_save_is_refused_until_reviewed(demo_copy):
    one = open_page("pages/decision.py")
    two = _second_session()
    shown = latest(demo_copy)

    two.selectbox(key="signoff_role").select("CMIO / clinical informatics").run()
    _name_input(two).input("Dr. K. Osei").run()
    two.button(key="signoff_button").click().run()
    assert not two.exception and latest(demo_copy).version == shown.version + 1

    # Session one still shows the older version when its user clicks Sign off.
    one.selectbox(key="signoff_role").select("privacy / compliance").run()
    _name_input(one).input("J. Okafor").run()
    (warning,) = [w.value for w in one.warning if "Someone else saved" in w.value]
    assert f"version {shown.version + 1} by second reviewer" in warning
    assert any("Sign-offs" in t.value for t in one.text)  # what changed, in words
    one.button(key="signoff_button").click().run()
    assert any("changed since the version you were shown" in e.value for e in one.error)
    after = latest(demo_copy)
    assert after.version == shown.version + 1
    assert "privacy / compliance" not in {s.role for s in after.dossier.signoffs}

    # Having reviewed the change, the user signs the version they now see.
    one.button(key="seen_continue").click().run()
    assert not [w for w in one.warning if "Someone else saved" in w.value]
    one.button(key="signoff_button").click().run()
    final = latest(demo_copy)
    assert final.version == shown.version + 2
    (okafor,) = [s for s in final.dossier.signoffs if s.role == "privacy / compliance"]
    assert okafor.version_hash == after.hash  # bound to the version shown, not an unseen one
    assert sum(r.valid for r in signoff_status(final.dossier).roles) == 3


def test_a_decision_saved_over_another_sessions_save_is_refused(demo_copy):
    one = open_page("pages/decision.py")
    two = _second_session()
    two.selectbox(key="signoff_role").select("CMIO / clinical informatics").run()
    _name_input(two).input("Dr. K. Osei").run()
    two.button(key="signoff_button").click().run()
    before = latest(demo_copy)

    one.radio(key="decision_outcome").set_value("reject").run()
    one.text_area(key="decision_rationale").input("The vendor withdrew the product from the market.").run()
    one.button(key="decision_record").click().run()
    assert any("changed while you worked" in e.value and "Nothing was saved" in e.value for e in one.error)
    assert latest(demo_copy).version == before.version
    assert latest(demo_copy).dossier.decision.outcome == "approve_with_conditions"
