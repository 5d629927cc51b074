"""Intended use after someone else saved (issue 27, item 2): nothing typed is lost, and the edit is applied
onto the latest version by a three-way merge of the form."""

from streamlit.testing.v1 import AppTest

from tests.pages.conftest import APP, DEMO, confirm_voiding, latest, open_page

PAGE = "pages/intended_use.py"


def _session(reviewer: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["dossier_id"] = DEMO
    at.session_state["reviewer"] = reviewer
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _field(at, version: int, name: str):
    return at.text_input(key=f"iu_{DEMO}_{version}_{name}")


def test_the_typed_title_survives_and_is_applied_onto_the_other_save(demo_home):
    start = latest(demo_home)
    one = open_page(PAGE)
    two = _session("second reviewer")

    _field(two, start.version, "owner").input("Pharmacy AI committee").run()
    two.button(key="save_intended_use").click().run()
    confirm_voiding(two)  # the demo is signed: this change voids its sign-off
    theirs = latest(demo_home)
    assert theirs.version == start.version + 1 and theirs.dossier.owner == "Pharmacy AI committee"

    # One types a new title on the version it was shown; its next run learns of two's save.
    _field(one, start.version, "title").input("Portal replies (pilot clinic)").run()
    assert not one.exception, [e.value for e in one.exception]
    (warning,) = [w.value for w in one.warning if "Someone else saved" in w.value]
    assert f"version {theirs.version} by second reviewer" in warning
    assert f"you started from version {start.version}" in warning
    texts = [t.value for t in one.text]
    assert f"Owner: {start.dossier.owner} → Pharmacy AI committee" in texts  # what they changed, by label
    assert f"Title: {start.dossier.title} → Portal replies (pilot clinic)" in texts  # what I changed
    assert _field(one, start.version, "title").value == "Portal replies (pilot clinic)"  # kept as typed
    assert not [b for b in one.button if b.key == "save_intended_use"]  # no save that can only be refused
    assert latest(demo_home).version == theirs.version

    one.button(key="iu_merge_apply").click().run()
    assert not one.exception, [e.value for e in one.exception]
    merged = latest(demo_home)
    assert merged.version == theirs.version + 1 and merged.parent_hash == theirs.hash
    assert merged.dossier.title == "Portal replies (pilot clinic)"  # mine
    assert merged.dossier.owner == "Pharmacy AI committee"  # theirs, kept
    assert merged.dossier.intended_use == theirs.dossier.intended_use
    assert not [w for w in one.warning if "Someone else saved" in w.value]

    # The form now shows the merged version, and saving it unchanged makes no version.
    assert _field(one, merged.version, "title").value == "Portal replies (pilot clinic)"
    one.button(key="save_intended_use").click().run()
    assert latest(demo_home).version == merged.version


def test_a_field_both_changed_is_the_users_choice(demo_home):
    start = latest(demo_home)
    one = open_page(PAGE)
    two = _session("second reviewer")
    _field(two, start.version, "title").input("Portal replies: theirs").run()
    two.button(key="save_intended_use").click().run()
    confirm_voiding(two)  # the demo is signed: this change voids its sign-off
    theirs = latest(demo_home)

    _field(one, start.version, "title").input("Portal replies: mine").run()
    pick = one.radio(key=f"iu_merge_pick_title_{theirs.version}")
    assert pick.value is None
    theirs_option = f"Theirs (version {theirs.version}): Portal replies: theirs"
    assert pick.options == ["Mine: Portal replies: mine", theirs_option]
    assert one.button(key="iu_merge_apply").disabled  # nothing is decided for the user
    pick.set_value("theirs").run()
    one.button(key="iu_merge_apply").click().run()
    # picking theirs for the only field I changed leaves nothing of mine: no new version
    assert latest(demo_home).version == theirs.version

    two.switch_page(PAGE).run()
    _field(two, theirs.version, "title").input("Portal replies: theirs again").run()
    two.button(key="save_intended_use").click().run()
    again = latest(demo_home)
    _field(one, theirs.version, "title").input("Portal replies: mine").run()
    one.radio(key=f"iu_merge_pick_title_{again.version}").set_value("mine").run()
    one.button(key="iu_merge_apply").click().run()
    assert latest(demo_home).dossier.title == "Portal replies: mine"


def test_nothing_typed_then_continue_shows_the_latest(demo_home):
    start = latest(demo_home)
    one = open_page(PAGE)
    two = _session("second reviewer")
    _field(two, start.version, "setting").input("Two clinics").run()
    two.button(key="save_intended_use").click().run()
    confirm_voiding(two)  # the demo is signed: this change voids its sign-off
    one.run()
    assert any("Someone else saved" in w.value for w in one.warning)
    one.button(key="iu_merge_continue").click().run()
    assert not [w for w in one.warning if "Someone else saved" in w.value]
    assert _field(one, start.version + 1, "setting").value == "Two clinics"


def test_discard_is_an_explicit_choice(demo_home):
    start = latest(demo_home)
    one = open_page(PAGE)
    two = _session("second reviewer")
    _field(two, start.version, "owner").input("Another committee").run()
    two.button(key="save_intended_use").click().run()
    confirm_voiding(two)  # the demo is signed: this change voids its sign-off
    _field(one, start.version, "title").input("Typed and then discarded").run()
    one.button(key="iu_merge_discard").click().run()
    assert _field(one, start.version + 1, "title").value == start.dossier.title
    assert latest(demo_home).version == start.version + 1
