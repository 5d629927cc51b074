"""AppTest for the Local scenarios page: demo results, a rejected upload, and import → PHI block →
redaction → run → subgroup table → attach."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from evaluator.runs.jobs import JOBS
from governance.demo.scenario import attach_demo_scenario
from governance.demo.seed import DEMO_ID
from governance.dossier.store import Store
from tests.fakes import constant_answer
from tests.pages.conftest import confirm_voiding, open_page
from tests.pages.readable import as_shown

PAGE = "pages/local_scenarios.py"
BAD = Path(__file__).resolve().parents[1] / "data" / "bad_inputs"


def cases_csv() -> bytes:
    rows = ["id,context,question,choices,reference,tag_site"]
    rows += [f"n{i},Message {i},Same-day review?,yes|no,A,North" for i in range(15)]
    rows += [f"s{i},Message {i},Same-day review?,yes|no,{'A' if i % 2 else 'B'},South" for i in range(12)]
    rows += [f"e{i},Message {i},Same-day review?,yes|no,A,East" for i in range(3)]
    rows.append('p1,"Please call me back on 555-867-5309",Same-day review?,yes|no,A,North')
    return ("\n".join(rows) + "\n").encode()


def table_text(at) -> str:
    return "\n".join(df.value.to_string() for df in at.dataframe)


@pytest.fixture
def scenario_home(demo_home):
    """The demo dossier with the synthetic local scenario step applied (whether or not it is registered)."""
    store = Store.open(demo_home / "medassure.duckdb")
    if not store.scenarios.list_versions():
        dossier = store.load(DEMO_ID).dossier
        store.save(attach_demo_scenario(store, dossier), author="demo", note="demo: local scenario")
    store.close()
    return demo_home


def test_demo_scenario_results_show_a_flag_and_a_suppressed_group(scenario_home):
    at = open_page(PAGE)
    assert at.title[0].value == "Local scenarios"
    assert "Portal triage (demo)" in table_text(at)
    # the demo's re-evaluation added a newer run (the simulated vendor update, no flag); the flag is on
    # the run the committee decided on, the one the dossier's evidence cites
    store = Store.open(scenario_home / "medassure.duckdb")
    decided = next(e.run_id for e in store.load(DEMO_ID).dossier.evidence if e.subgroups)
    store.close()
    picker = at.selectbox(key="ls_run_pick")
    if picker.value != decided:
        picker.select(decided).run()
    language = as_shown(at.table[-1].value).loc["language"]
    assert language.loc["es", "flag"] == "outside 0.8–1.25"
    assert language.loc["en", "ratio to reference"] == "reference"
    hidden = language.loc["vi"].to_dict()
    assert hidden["score"] == hidden["n"] == "suppressed (n < 10)"
    assert not any(ch.isdigit() for v in hidden.values() for ch in v.replace("10", ""))  # not even its n


def scenario_counts(home):
    store = Store.open(home / "medassure.duckdb")
    try:
        return store.scenarios.table_counts()
    finally:
        store.close()


def test_bad_upload_shows_row_errors_and_stores_nothing(demo_home):
    before = scenario_counts(demo_home)
    at = open_page(PAGE)
    data = (BAD / "duplicate_ids.csv").read_bytes()
    at.file_uploader(key="ls_upload_0").set_value(("dups.csv", data, "text/csv")).run()
    assert not at.exception
    assert any("problem(s)" in e.value for e in at.error)
    assert "duplicate id 'q2'" in table_text(at)
    assert not [b for b in at.button if b.key == "ls_save"]  # no way to save an invalid file
    assert scenario_counts(demo_home) == before


def test_import_block_redact_run_and_attach(demo_home, llm_server):
    llm_server.configure(answer=constant_answer("A"))
    at = open_page(PAGE)
    at.file_uploader(key="ls_upload_0").set_value(("ward.csv", cases_csv(), "text/csv")).run()
    assert any("All 31 cases are valid" in s.value for s in at.success)
    assert any("phone 1" in w.value for w in at.warning) and "867-5309" not in table_text(at)
    at.button(key="ls_save").click().run()
    assert not at.exception and any("version 1" in s.value for s in at.success)
    assert not [b for b in at.button if b.key == "ls_save"]  # the uploader is emptied: no double save

    at.text_input(key="ls_model").input("openai/fake").run()
    at.text_input(key="ls_api_base").input(llm_server.url).run()
    assert any("not approved for protected health information" in e.value for e in at.error)
    assert at.button(key="ls_run").disabled and llm_server.hits == 0

    at.button(key="ls_redact").click().run()
    assert any("Saved version 2" in s.value for s in at.success)
    assert any("redacted from version 1" in c.value for c in at.caption)  # the new version is shown
    assert not at.error and not at.button(key="ls_run").disabled
    llm_server.configure(latency_s=0.5)  # 31 cases, 8 in flight: the run outlasts the script run
    at.button(key="ls_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.get("progress"), "the run works in the background; the page shows its progress"
    deadline = time.monotonic() + 120
    while JOBS.live():
        assert time.monotonic() < deadline, "run did not finish"
        time.sleep(0.05)
    at.run()  # the poll finds the run done and redraws the page with its results
    assert not at.exception and llm_server.hits == 31
    assert any("completed: 31 cases" in s.value for s in at.success)
    subgroups = as_shown(at.table[-1].value).loc["site"]
    assert subgroups.loc["South", "flag"] and subgroups.loc["East", "score"] == "suppressed (n < 10)"

    store = Store.open(demo_home / "medassure.duckdb")
    before = store.load(DEMO_ID).version
    store.close()
    at.button(key="ls_attach").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception
    assert any("Evidence attached" in s.value for s in at.success)  # the page's word survives the question
    store = Store.open(demo_home / "medassure.duckdb")
    latest = store.load(DEMO_ID)
    store.close()
    assert latest.version == before + 1
    attached = latest.dossier.evidence[-1]
    assert attached.provenance == "local-run"
    assert {s.group for s in attached.subgroups} == {"North", "South", "East"}


def test_editing_a_scenario_saves_a_new_version_of_it(demo_home):
    at = open_page(PAGE)
    at.file_uploader(key="ls_upload_0").set_value(("ward.csv", cases_csv(), "text/csv")).run()
    at.button(key="ls_save").click().run()
    store = Store.open(demo_home / "medassure.duckdb")
    (first,) = [v for v in store.scenarios.list_versions() if v.source_name == "ward.csv"]
    store.close()
    edited = cases_csv() + b"x1,One more message,Same-day review?,yes|no,B,South\n"
    at.file_uploader(key="ls_upload_1").set_value(("ward_v2.csv", edited, "text/csv")).run()
    target = next(s for s in at.selectbox if s.key and s.key.startswith("ls_target_"))
    target.set_value(first.scenario_id).run()
    at.button(key="ls_save").click().run()
    assert not at.exception
    store = Store.open(demo_home / "medassure.duckdb")
    versions = store.scenarios.list_versions(first.scenario_id)
    store.close()
    assert [(v.version, v.n_instances) for v in versions] == [(2, 32), (1, 31)]
    assert versions[0].parent_hash == first.hash and versions[0].source_name == "ward_v2.csv"


def test_a_corrected_file_keeps_the_column_mapping_and_the_format_is_on_the_page(demo_home):
    import hashlib

    at = open_page("pages/local_scenarios.py")
    assert any(e.label == "File format and templates" for e in at.expander)
    bad = b"case,prompt,gold\nc1,Which team?,pharmacy\nc1,Which team?,scheduling\n"  # duplicate id
    at.file_uploader(key="ls_upload_0").set_value(("cases.csv", bad, "text/csv")).run()
    tag = hashlib.sha256("\x1f".join(["case", "prompt", "gold"]).encode()).hexdigest()[:8]
    at.selectbox(key=f"ls_map_id_{tag}").select("case").run()
    at.selectbox(key=f"ls_map_question_{tag}").select("prompt").run()
    at.selectbox(key=f"ls_map_reference_{tag}").select("gold").run()
    assert at.error  # the duplicate id
    fixed = b"case,prompt,gold\nc1,Which team?,pharmacy\nc2,Which team?,scheduling\n"
    at.file_uploader(key="ls_upload_0").set_value(("cases_fixed.csv", fixed, "text/csv")).run()
    assert not at.exception
    assert at.selectbox(key=f"ls_map_reference_{tag}").value == "gold"  # the reviewer's choice survives
    assert any("All 2 cases are valid" in s.value for s in at.success)


def test_free_text_results_say_what_scores_them_and_offer_the_jury(demo_home, llm_server):
    """Ten free-text discharge summaries: not a silent "0 of 10 scored", and the jury scores them here."""
    import json as _json

    from evaluator.scenarios import import_scenario, record_offline_run

    grade = _json.dumps({"accuracy": {"score": 4}, "completeness": {"score": 3}, "clarity": {"score": 5}})
    llm_server.configure(answer=lambda r: grade)
    rows = ["id,context,question,reference,answer_type"]
    rows += [f'd{i},"Admission {i}: warfarin changed to apixaban",Write the discharge summary.,'
             f'"Apixaban started, warfarin stopped; GP in 2 weeks",free_text' for i in range(10)]
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        version = import_scenario(store.scenarios, "summaries.csv", ("\n".join(rows) + "\n").encode(),
                                  mapping=None, author="test", dossier_id=DEMO_ID,
                                  subcategory_ids=["documenting_patient_visits"])
        assert {i.answer_type for i in store.scenarios.instances(version.scenario_id, 1)} == {"free_text"}
        run_id = record_offline_run(store, version, "cand", {f"d{i}": "Apixaban started." for i in range(10)},
                                    endpoint_name="cand")
        before = store.load(DEMO_ID).version
    finally:
        store.close()
    at = open_page(PAGE)
    at.selectbox(key="ls_version_pick").select(f"{version.scenario_id}@1").run()
    assert not at.exception, [e.value for e in at.exception]
    assert {m.label: m.value for m in at.metric}["Cases scored"] == "0 of 10"
    note = next(i.value for i in at.info if "free-text case(s) have no automatic score" in i.value)
    assert note.startswith("10 free-text") and "LLM jury" in note and "rubric grading" in note
    assert "clinician ratings" in note and at.button(key="ls_attach").disabled
    assert any("no case has an automatic score" in c.value for c in at.caption)
    assert at.subheader[-1].value == "6. Score with the LLM jury"
    assert not [t for t in at.text_input if t.key == f"jury_dataset_{run_id}"]  # the cases are stored
    at.multiselect(key=f"jury_judges_{run_id}").set_value([]).run()
    at.text_input(key=f"jury_more_{run_id}").input("openai/judge-a, openai/judge-b, openai/judge-c")
    at.text_input(key=f"jury_api_base_{run_id}").input(llm_server.url)
    at.checkbox(key=f"jury_phi_{run_id}").check().run()
    at.button(key="jury_estimate").click().run()
    assert {m.label: m.value for m in at.metric}["Judge requests to send"] == "30"
    at.button(key="jury_start").click().run()
    deadline = time.monotonic() + 60
    while JOBS.live():
        assert time.monotonic() < deadline, "jury did not finish"
        time.sleep(0.05)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    result = next(m.value for m in at.markdown if m.value.startswith("**Jury "))
    assert "10 scored, **0 unscored** of 10" in result and "mean 4.00 on 1-5" in result
    jury_id = result.split()[1].rstrip("*")
    at.button(key=f"jury_attach_{jury_id}").click().run()
    confirm_voiding(at)  # the demo is decided and signed: attaching voids its sign-offs
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        latest = store.load(DEMO_ID)
    finally:
        store.close()
    assert latest.version == before + 1
    ev = latest.dossier.evidence[-1]
    assert (ev.metric, ev.n, ev.source, ev.run_id) == ("jury_score", 10, jury_id, run_id)
    # The jury of a scenario run counts for the scenario's subcategory, as the scenario's own evidence does.
    from governance.mapping.taxonomy import load_taxonomy

    assert version.subcategory_ids
    assert ev.subcategory == load_taxonomy().subcategory(version.subcategory_ids[0]).name


def test_tagged_free_text_cases_name_their_tags_instead_of_saying_there_are_none(demo_home):
    """Issue 36 item 9: a tag chosen at upload ("service") was on the version, yet the results said
    "This scenario has no subgroup tags" (no group had a scored case: free text waits for a jury)."""
    from evaluator.scenarios import import_scenario, record_offline_run

    rows = ["id,context,question,reference,answer_type,tag_service"]
    rows += [f'd{i},"Admission {i}",Write the discharge summary.,"GP in 2 weeks",free_text,'
             f'{"cardiology" if i % 2 else "surgery"}' for i in range(6)]
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        version = import_scenario(store.scenarios, "tagged.csv", ("\n".join(rows) + "\n").encode(),
                                  mapping=None, author="test", dossier_id=DEMO_ID)
        assert version.tag_names == ["service"]
        record_offline_run(store, version, "cand", {f"d{i}": "GP in 2 weeks." for i in range(6)},
                           endpoint_name="cand")
    finally:
        store.close()
    at = open_page(PAGE)
    at.selectbox(key="ls_version_pick").select(f"{version.scenario_id}@1").run()
    assert not at.exception, [e.value for e in at.exception]
    captions = [c.value for c in at.caption]
    assert not any("has no subgroup tags" in c for c in captions)
    assert any("Subgroup tags of this scenario: service" in c for c in captions)
