"""Decision page: a stale decision cannot be signed until the chair confirms it (issue 27, item 4)."""

from __future__ import annotations

from tests.pages.conftest import DEMO, confirm_voiding, latest, open_page


def _set_oversight(at, home, value: str) -> None:
    v = latest(home)
    at.switch_page("pages/intended_use.py").run()
    at.selectbox(key=f"iu_{DEMO}_{v.version}_oversight").set_value(value).run()
    at.button(key="save_intended_use").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert latest(home).version == v.version + 1


def _sign(at, name: str = "Dr. K. Osei") -> None:
    at.selectbox(key="signoff_role").select("CMIO / clinical informatics").run()
    (field,) = [t for t in at.text_input if t.key and t.key.startswith("signoff_name_")]
    field.input(name).run()


def test_signing_waits_for_the_chairs_confirmation(demo_home):
    at = open_page("pages/intended_use.py")
    _set_oversight(at, demo_home, "sampled")
    at.switch_page("pages/decision.py").run()
    assert not at.exception, [e.value for e in at.exception]
    (stale,) = [w.value for w in at.warning if "no longer rests on this dossier" in w.value]
    assert "Intended use › Human oversight changed after it was recorded" in stale
    broken = next(e.value for e in at.error if "no longer valid" in e.value)
    assert "changed since: Intended use" in broken and "intended_use" not in broken  # labels, not keys
    assert any(i.value.startswith("Signing refused: Intended use › Human oversight") for i in at.info)
    _sign(at)
    assert at.button(key="signoff_button").disabled
    before = latest(demo_home)

    at.text_area(key="decision_confirm_reason").input("Sampled review is enough for drafts.").run()
    at.button(key="decision_confirm").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert all("no longer valid" in e.value for e in at.error)  # the old sign-off stays broken, visibly
    confirmed = latest(demo_home)
    assert confirmed.version == before.version + 1
    (c,) = confirmed.dossier.decision.confirmations
    assert c.changed == ["Intended use › Human oversight"] and c.by == "dr.page"
    assert not [w for w in at.warning if "no longer rests" in w.value]
    assert any(x.value.startswith("Confirmed as still standing by **dr.page**") and
               "after Intended use › Human oversight changed: Sampled review" in x.value for x in at.caption)
    _sign(at)
    assert not at.button(key="signoff_button").disabled
    at.button(key="signoff_button").click().run()
    assert latest(demo_home).version == confirmed.version + 1
    assert not [w for w in at.warning if "Someone else saved" in w.value]


def test_a_review_plan_contradicting_the_use_blocks_signing_after_confirmation(demo_home):
    at = open_page("pages/intended_use.py")
    _set_oversight(at, demo_home, "none")
    at.switch_page("pages/decision.py").run()
    (conflict,) = [e.value for e in at.error if "contradicts the intended use" in e.value]
    assert "every output is reviewed before release" in conflict
    assert "Intended use › Human oversight" in conflict
    at.text_area(key="decision_confirm_reason").input("The decision itself still stands.").run()
    at.button(key="decision_confirm").click().run()
    assert any("contradicts the intended use" in e.value for e in at.error)  # not cleared by a confirmation
    _sign(at)
    assert at.button(key="signoff_button").disabled
    assert any("Signing refused: The review plan says" in i.value for i in at.info)
