"""AppTest for Run evidence's jury section, and Judge validity picking the jury up, on the test server."""

import time

import pandas as pd
import pytest

from evaluator.runs.jobs import JOBS
from governance.demo.seed import DEMO_ID
from governance.dossier.store import Store
from tests.governance.jury_fixtures import JUDGES, answer, free_text_run
from tests.pages.conftest import confirm_voiding, open_page
from tests.pages.readable import as_shown

PAGE = "pages/run_evidence.py"


def wait_for_jobs(timeout=60.0):
    deadline = time.monotonic() + timeout
    while JOBS.live():
        assert time.monotonic() < deadline, "job did not finish"
        time.sleep(0.05)


@pytest.fixture
def free_text(demo_home, llm_server, tmp_path):
    """The demo database with a finished MedicationQA run whose dataset path was not stored."""
    llm_server.configure(answer=answer)
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        run_id, path = free_text_run(store, llm_server, tmp_path)
    finally:
        store.close()
    return run_id, path, llm_server


def fill_jury(at, run_id, path, server):
    at.multiselect(key=f"jury_judges_{run_id}").set_value([]).run()
    at.text_input(key=f"jury_more_{run_id}").input(", ".join(JUDGES))
    at.text_input(key=f"jury_api_base_{run_id}").input(server.url)
    at.text_input(key=f"jury_dataset_{run_id}").input(str(path)).run()
    assert not at.exception, [e.value for e in at.exception]


def test_estimate_judge_and_attach_the_jury(free_text, demo_home):
    run_id, path, server = free_text
    start = Store.open(demo_home / "medassure.duckdb")
    before = start.load(DEMO_ID)
    start.close()
    at = open_page(PAGE)
    assert at.subheader[-1].value == "5. Score with the LLM jury"
    judges = at.multiselect(key=f"jury_judges_{run_id}")
    assert judges.value == ["openai/gpt-4o-2024-05-13", "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
                            "anthropic/claude-3-7-sonnet-20250219"]  # MedicationQA's own jury, 3 vendors
    assert at.button(key="jury_estimate").disabled  # the dataset path is not known yet
    fill_jury(at, run_id, path, server)
    sent = server.hits
    at.button(key="jury_estimate").click().run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Judge requests to send"] == "9" and metrics["Jury cost, at most"] == "—"
    estimate = next(c.value for c in at.caption if "responses go to the judges" in c.value)
    assert estimate.startswith("3 of 4 responses go to the judges (1 empty candidate response: unscored)")
    assert "medhelm method (4,096 output tokens per reply)" in estimate  # MedicationQA is MedHELM's
    assert at.radio(key=f"jury_method_{run_id}").value == "medhelm"
    assert any("1 vendor(s)" in w.value for w in at.warning)
    assert server.hits == sent  # the estimate sent nothing

    at.button(key="jury_start").click().run()
    wait_for_jobs()
    at.run()
    # the PHI gate of run_jury: the answers look like they name someone and the judges are not approved
    assert any(e.value.startswith("The jury stopped: Blocked:") for e in at.error) and server.hits == sent
    at.checkbox(key=f"jury_phi_{run_id}").check().run()
    at.button(key="jury_estimate").click().run()
    at.button(key="jury_start").click().run()
    wait_for_jobs()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert server.hits - sent == 9 + 3  # 3 judges × 3 responses, and a repair request per empty judge-c reply
    result = next(m.value for m in at.markdown if m.value.startswith("**Jury "))
    # medhelm: (4 + 7/3 + 14/3 + 1.0) / 4 = 3.00, the empty answer at the lowest score; strict: 11/3
    assert "3 scored, **1 unscored** of 4" in result and "mean 3.00 on 1-5" in result
    assert "medhelm method" in result
    both = next(m.value for m in at.markdown if m.value.startswith("The two methods differ"))
    assert "**medhelm**: 3.00 over 4 instance(s); 1 without a valid judgement, counted at the lowest" in both
    assert "**strict**: 3.67 over 3 instance(s); 1 without a valid judgement, left out of the mean" in both
    reasons = next(m.value for m in at.markdown if m.value.startswith("Unscored judgements"))
    assert "- empty candidate response: 1" in reasons
    assert "- empty reply; after repair: empty reply: 3" in reasons  # judge-c, once per response
    jury_id = result.split()[1].rstrip("*")
    at.button(key=f"jury_attach_{jury_id}").click().run()
    confirm_voiding(at)  # the demo is decided and signed: attaching voids its sign-offs
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        v = store.load(DEMO_ID)
    finally:
        store.close()
    assert v.version == before.version + 1
    ev = v.dossier.evidence[-1]
    assert (ev.metric, ev.scale, ev.n, ev.n_unparsed, ev.source) == ("jury_score", "1-5", 4, 1, jury_id)
    assert "This jury's score is attached to the dossier as evidence." in [s.value for s in at.success]

    jv = open_page("pages/judge_validity.py")
    jv.radio(key="jv_source").set_value("A stored jury run").run()
    assert jv.selectbox(key="jv_jury_id").value == jury_id  # the attached jury comes first
    clinicians = pd.DataFrame([{"dataset": "medication_qa", "instance_id": f"medicationqa-{i}", "rater": r,
                                "accuracy": s, "completeness": s, "clarity": s}
                               for i, scores in ((2, (4, 4)), (4, (2, 3)), (5, (5, 4)))
                               for r, s in zip(("dr.a", "dr.b"), scores, strict=True)])
    jv.file_uploader(key="jv_clinicians").set_value(
        ("clinicians.csv", clinicians.to_csv(index=False).encode(), "text/csv"))
    jv.run()
    assert not jv.exception, [e.value for e in jv.exception]
    table = as_shown(jv.table[0].value).reset_index()
    ours = table[(table["dataset"] == "medication_qa") & (table["comparison"] == "jury vs clinicians")]
    assert len(ours) and set(ours["n"]) == {"3"}  # the three responses the jury scored
    assert "medication_qa" in jv.multiselect(key="jv_covers").value  # the attached jury evidence's benchmark


def test_no_jury_section_for_a_run_without_free_text(demo_home):
    at = open_page(PAGE)
    assert "5. Score with the LLM jury" not in [s.value for s in at.subheader]
