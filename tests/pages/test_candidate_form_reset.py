"""After a new candidate is saved, the page shows it and the "(new candidate)" form is empty again
(issue 36 item 14: the form kept the saved candidate's values)."""

from __future__ import annotations

from tests.pages.conftest import confirm_voiding, latest, open_page

PAGE = "pages/candidates.py"
NEW = "cand_D-demo-portal_(new candidate)_"


def test_the_new_candidate_form_starts_empty_after_a_save(demo_copy):
    at = open_page(PAGE)
    at.text_input(key=NEW + "vendor").input("Fabrikam AI").run()
    at.text_input(key=NEW + "product").input("ReplyBot").run()
    at.text_input(key=NEW + "model").input("gpt-4o-mini").run()
    at.button(key=NEW + "save").click().run()
    confirm_voiding(at)  # the demo is signed
    assert "fabrikam-ai-replybot" in [c.id for c in latest(demo_copy).dossier.candidates]
    at.run()
    assert at.selectbox(key="cand_pick_D-demo-portal").value == "fabrikam-ai-replybot"
    # the picker names products, not slugs (issue 36 item 5)
    shown = at.selectbox(key="cand_pick_D-demo-portal").options
    assert "Fabrikam AI · ReplyBot" in shown and not any("-" in o and " " not in o for o in shown), shown
    at.selectbox(key="cand_pick_D-demo-portal").select("(new candidate)").run()
    assert not at.exception, [e.value for e in at.exception]
    assert (at.text_input(key=NEW + "vendor").value, at.text_input(key=NEW + "product").value) == ("", "")
