"""Issue 27 item 10 on the Intended use page: no risky defaults, serious harm means tier high unless a reason
is recorded, and the page says which inputs drive the tier."""

from governance.dossier.store import Store
from tests.pages.conftest import latest, open_page

P = "iu_new_"
CHOICES = {"role": "informs", "severity": "serious", "oversight": "every_output", "phi": "deidentified"}


def new_form(home):
    at = open_page(dossier_id=None)
    at.button(key="new_dossier_button").click().run()
    at.switch_page("pages/intended_use.py").run()
    assert not at.exception
    return at


def fill_text(at):
    at.text_input(key=P + "title").input("Paediatric dosing assistant").run()
    at.text_input(key=P + "owner").input("Pharmacy and therapeutics committee").run()
    at.text_area(key=P + "purpose").input("Propose weight-based paediatric doses and renal dose adjustments; "
                                          "a pharmacist verifies every dose.").run()
    at.text_area(key=P + "users").input("clinical pharmacists").run()
    at.text_input(key=P + "setting").input("Children's hospital wards").run()
    at.text_input(key=P + "population").input("Children 0-17").run()


def test_a_blank_form_preselects_no_risky_choice_and_shows_no_tier(home):
    at = new_form(home)
    for key in CHOICES:
        assert at.selectbox(key=P + key).value is None  # not "negligible", not "no patient data"
    assert at.subheader[0].value == "Risk tier: not set yet"
    drive = next(c.value for c in at.caption if c.value.startswith("What drives the tier"))
    assert "Severity of an uncaught wrong output" in drive and "Decision role" in drive
    assert "Human oversight" in drive and "Patient data exposure" in drive  # named as not driving it


def test_saving_without_the_four_choices_is_refused_naming_them_and_stores_nothing(home):
    at = new_form(home)
    fill_text(at)
    at.selectbox(key=P + "role").select("informs").run()
    at.button(key="save_intended_use").click().run()
    (warning,) = [w.value for w in at.warning]
    assert warning.startswith("Not saved")
    for label in ("**Severity of an uncaught wrong output**: choose one", "**Human oversight**: choose one",
                  "**Patient data exposure**: choose one"):
        assert label in warning
    assert "**Decision role**" not in warning  # chosen
    assert "Input should be" not in warning and "every_output" not in warning
    assert Store.open(home / "medassure.duckdb").list_dossiers() == []


def test_serious_harm_shows_tier_high_then_a_recorded_reason_is_saved_with_the_dossier(home):
    at = new_form(home)
    fill_text(at)
    for key, value in CHOICES.items():
        at.selectbox(key=P + key).select(value).run()
    assert "high" in at.subheader[0].value  # 3 + 0 - 1 = 2 points, lifted by the serious-harm floor
    assert any("Raised to high" in m.value for m in at.markdown)
    reason = at.text_area(key=P + "lower_tier_reason")
    reason.input("A second pharmacist double-checks every dose before it reaches the ward.").run()
    assert "moderate" in at.subheader[0].value
    at.button(key="save_intended_use").click().run()
    assert not at.exception
    store = Store.open(home / "medassure.duckdb")
    try:
        saved = store.load(at.session_state["dossier_id"]).dossier
    finally:
        store.close()
    assert saved.risk.tier == "moderate"
    assert saved.intended_use.lower_tier_reason.startswith("A second pharmacist")


def test_the_demo_form_keeps_its_choices_and_an_unchanged_save_makes_no_version(demo_home):
    before = latest(demo_home)
    at = open_page("pages/intended_use.py")
    prefix = f"iu_{before.dossier.id}_{before.version}_"
    assert at.selectbox(key=prefix + "severity").value == before.dossier.intended_use.error_severity
    assert not [t for t in at.text_area if t.key == prefix + "lower_tier_reason"]  # moderate: no floor
    at.button(key="save_intended_use").click().run()
    assert not at.exception and not at.warning
    after = latest(demo_home)
    assert (after.version, after.hash) == (before.version, before.hash)
