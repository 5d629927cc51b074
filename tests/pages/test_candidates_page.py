"""Candidates page (AppTest) on the demo, and the same numbers on the page, in the CLI and in the PDF."""

from __future__ import annotations

import io
import json
import re

from pypdf import PdfReader

from governance.decision.signoff import signoff_status
from governance.dossier.store import Store
from governance.procurement.store import sha256_hex
from tests.pages.conftest import DEMO, confirm_voiding, latest, open_page
from tests.pages.readable import assert_readable

PAGE = "pages/candidates.py"


def texts(at) -> str:
    """The page's Markdown as a reader sees it (user text is escaped: ``\\_`` shows as ``_``)."""
    return re.sub(r"\\(.)", r"\1", "\n".join(
        [m.value for m in at.markdown] + [c.value for c in at.caption] + [e.label for e in at.expander]
    ))


def test_demo_has_three_candidates_a_missing_attestation_and_a_valid_signoff(demo_copy):
    d = latest(demo_copy).dossier
    assert [c.model_id for c in d.candidates] == ["gpt-4o", "claude-3-7-sonnet", "llama-3.3-70b"]
    northwind = d.candidates[1]
    assert "subgroup_performance" not in {a.question_id for a in northwind.attestations}
    assert (
        signoff_status(d).roles[0].valid and d.decision.content_hash
    )  # the candidates came before the decision


def test_page_shows_table_chart_ties_and_the_open_item(demo_copy):
    at = open_page(PAGE)
    assert at.title[0].value == "Candidates"
    summary = at.dataframe[0].value
    assert list(summary["Id"]) == ["contoso-gpt-4o", "northwind-messageassist", "onprem-llama-3-3-70b"]
    assert summary["USD per 1,000 requests"].notna().all()
    assert set(summary["Pricing"]) == {"per token", "per seat"}
    spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
    assert "layer" in spec
    scores = at.dataframe[1].value
    assert len(scores) == 3 * len(set(scores["Benchmark"])) and "Tie group" in scores
    shown = texts(at)
    assert "Subgroup performance reported (subgroup_performance): not answered" in shown
    assert "Tie groups" in shown and "MedConfInfo: 1. " in shown and "{" not in shown
    assert at.get("download_button")


def test_tables_read_without_a_glossary_and_the_two_kinds_of_candidate_are_explained(demo_copy):
    at = open_page(PAGE)
    assert assert_readable(at) == 3  # side by side, scores, questionnaire
    questionnaire = at.dataframe[2].value
    assert "awaiting_review" not in set(questionnaire["Status"])
    models = latest(demo_copy).dossier.intended_use.candidate_models
    caption = next(c.value for c in at.caption if "Models under consideration" in c.value)
    assert all(m in caption for m in models) and "Intended use" in caption
    assert not any("No candidates yet" in i.value for i in at.info)


def test_page_cli_and_pdf_show_the_same_numbers(demo_copy, capsys):
    from cli import main
    from reports.bundle import report_bundle

    page = open_page(PAGE).dataframe[0].value.set_index("Id")
    assert main(["--home", str(demo_copy), "candidates", DEMO, "--format", "json"]) == 0
    cli = {c["id"]: c for c in json.loads(capsys.readouterr().out)["candidates"]}
    store = Store.open(demo_copy / "medassure.duckdb")
    try:
        pdf = report_bundle(store, DEMO).download("pdf").make()
    finally:
        store.close()
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "Candidates compared" in text
    assert set(page.index) == set(cli) and len(cli) == 3
    for cid, c in cli.items():
        for column, key in [
            ("USD per 1,000 requests", "cost_per_1k"),
            ("USD per 1,000 acceptable outputs", "cost_per_1k_acceptable"),
        ]:
            assert page.loc[cid, column] == round(c[key], 2), (cid, column)
            assert f"USD {round(c[key], 2):,.2f}" in text, (cid, column)
        assert page.loc[cid, "Open items"] == len(c["open_items"])
        assert f"{c['answered']} / {c['satisfactory']} / {c['questions']}" in text
        assert page.loc[cid, "On the cost frontier"] == ("yes" if c["on_frontier"] else "no")


def test_add_a_candidate_from_the_page(demo_copy):
    at = open_page(PAGE)
    k = "cand_D-demo-portal_(new candidate)_"
    at.text_input(key=k + "vendor").input("Fabrikam AI").run()
    at.text_input(key=k + "product").input("ReplyBot").run()
    at.text_input(key=k + "model").input("gpt-4o-mini").run()
    at.radio(key=k + "kind").set_value("per_seat").run()
    at.number_input(key=k + "seat").set_value(20.0).run()
    at.number_input(key=k + "seats").set_value(10).run()
    at.text_input(key=k + "ep_model").input("openai/gpt-4o-mini").run()
    at.text_input(key=k + "ep_key").input("FABRIKAM_KEY").run()
    at.button(key=k + "save").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception, [e.value for e in at.exception]
    d = latest(demo_copy).dossier
    new = d.candidates[-1]
    assert (new.id, new.pricing.seats, new.endpoint.api_key_env) == (
        "fabrikam-ai-replybot",
        10,
        "FABRIKAM_KEY",
    )
    assert new.added_by == "dr.page" and not signoff_status(d).roles[0].valid  # a change after sign-off
    assert "fabrikam-ai-replybot" in list(at.dataframe[0].value["Id"])


def test_answer_an_attestation_with_a_document(demo_copy):
    at = open_page(PAGE)
    at.selectbox(key="att_cand_D-demo-portal").select("northwind-messageassist").run()
    at.selectbox(key="att_q_northwind-messageassist").select("subgroup_performance").run()
    k = "att_northwind-messageassist_subgroup_performance_"
    at.radio(key=k + "value").set_value("relevant").run()
    at.text_input(key=k + "note").input("Vendor report, section 5").run()
    data = b"DEMO subgroup results by age band and language"
    at.file_uploader(key=k + "doc").set_value(("subgroups.txt", data, "text/plain")).run()
    at.button(key=k + "save").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception, [e.value for e in at.exception]
    d = latest(demo_copy).dossier
    answer = next(a for a in d.candidates[1].attestations if a.question_id == "subgroup_performance")
    assert (answer.value, answer.entered_by, answer.document.sha256) == (
        "relevant",
        "dr.page",
        sha256_hex(data),
    )
    store = Store.open(demo_copy / "medassure.duckdb")
    assert store.documents.get(answer.document.sha256) == data
    store.close()
    assert "Subgroup performance reported (subgroup_performance): not answered" not in texts(at)


def test_saving_an_unchanged_answer_creates_no_version_and_keeps_the_signoff(demo_copy):
    before = latest(demo_copy)
    assert signoff_status(before.dossier).roles[0].valid
    at = open_page(PAGE)
    cid = before.dossier.candidates[0].id
    answered = [a for a in before.dossier.candidates[0].attestations if a.judgement is not None][:1]
    answered += [a for a in before.dossier.candidates[0].attestations if a.judgement is None][:1]
    assert answered and answered[0].judgement == "satisfactory"  # a judged text answer is among them
    for stored in answered:
        at.selectbox(key=f"att_cand_{DEMO}").select(cid).run()
        at.selectbox(key=f"att_q_{cid}").select(stored.question_id).run()
        k = f"att_{cid}_{stored.question_id}_"
        if stored.judgement is not None:  # the form shows the stored judgement, not "not judged yet"
            assert at.radio(key=k + "judge").value == stored.judgement
        assert at.text_input(key=k + "note").value == stored.note
        at.button(key=k + "save").click().run()
        assert not at.exception, [e.value for e in at.exception]
    after = latest(demo_copy)
    assert after.version == before.version  # nothing changed, nothing saved
    assert signoff_status(after.dossier).roles[0].valid


def test_a_candidate_records_its_snapshot_and_retirement_date_and_an_unchanged_save_adds_nothing(demo_copy):
    """Issue 37 item 3 on the form: the snapshot apart from the deployment name, and the vendor's date.
    Saving a candidate unchanged made a new version before (its added_at was stamped anew)."""
    from datetime import date

    before = latest(demo_copy)
    at = open_page(PAGE)
    at.selectbox(key="cand_pick_D-demo-portal").select("northwind-messageassist").run()
    k = "cand_D-demo-portal_northwind-messageassist_"
    at.button(key=k + "save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert latest(demo_copy).version == before.version  # nothing changed, nothing saved
    at.text_input(key=k + "snapshot").input("claude-3-7-sonnet-20250219").run()
    at.date_input(key=k + "retires").set_value(date(2027, 2, 19)).run()
    at.button(key=k + "save").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception, [e.value for e in at.exception]
    after = latest(demo_copy)
    saved = next(c for c in after.dossier.candidates if c.id == "northwind-messageassist")
    old = next(c for c in before.dossier.candidates if c.id == "northwind-messageassist")
    assert after.version == before.version + 1
    assert (saved.snapshot, saved.retires_on) == ("claude-3-7-sonnet-20250219", date(2027, 2, 19))
    assert (saved.added_by, saved.added_at) == (old.added_by, old.added_at)
