"""AppTest for Local scenarios' "Grade with rubric": a HealthBench file imported and run on the page, graded
there by scripted graders, the score the one ``medassure grade`` gives, attached once; no rubric, said so.

The scripted verdicts and the score worked out by hand are tests/cli/test_cli_grade.py's: hb-1 0.125,
hb-2 4/6, hb-3 -0.5, hb-4 unscored (every grader's reply unreadable), so the score is
(0.125 + 4/6 - 0.5) / 3 = 0.0972 and ``axis:completeness`` 0.625.
"""

from __future__ import annotations

import json
import time

import pytest

from cli import main
from evaluator.runs.jobs import JOBS
from governance.demo.seed import DEMO_ID
from governance.dossier.store import Store
from tests.cli.test_cli_grade import GRADERS, grader_or_candidate, healthbench_file
from tests.pages.conftest import confirm_voiding, open_page

PAGE = "pages/local_scenarios.py"
BY_HAND = (0.125 + 4 / 6 - 0.5) / 3


def wait_for_jobs(timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while JOBS.live():
        assert time.monotonic() < deadline, "job did not finish"
        time.sleep(0.05)


def latest_dossier(home):
    store = Store.open(home / "medassure.duckdb")
    try:
        return store.load(DEMO_ID)
    finally:
        store.close()


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_grade_a_healthbench_run_on_the_page_as_the_cli_does_and_attach(demo_home, llm_server, tmp_path,
                                                                        capsys):
    llm_server.configure(answer=grader_or_candidate)
    at = open_page(PAGE)
    data = healthbench_file(tmp_path).read_bytes()
    at.file_uploader(key="ls_upload_0").set_value(("healthbench.jsonl", data, "application/jsonl")).run()
    assert any("All 4 cases are valid" in s.value for s in at.success), [e.value for e in at.error]
    at.button(key="ls_save").click().run()
    at.text_input(key="ls_model").input("openai/candidate").run()
    at.text_input(key="ls_api_base").input(llm_server.url).run()
    at.button(key="ls_run").click().run()
    wait_for_jobs()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert llm_server.hits == 4
    run_id = at.selectbox(key="ls_run_pick").value
    assert [s.value for s in at.subheader[-2:]] == ["5. Grade with rubric", "6. Score with the LLM jury"]
    assert any("4 of the run's 4 free-text case(s) carry 8 rubric criteria" in c.value for c in at.caption)

    at.text_input(key=f"grade_graders_{run_id}").input(GRADERS)
    at.text_input(key=f"grade_api_base_{run_id}").input(llm_server.url).run()
    at.button(key="grade_estimate").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert metrics(at)["Grader requests to send"] == "24"  # 8 criteria × 4 responses' rubrics × 3 graders
    assert any(c.value.startswith("8 criteria over 4 responses × 3 grader(s) = 24 calls") for c in at.caption)
    assert llm_server.hits == 4  # the estimate sent nothing
    at.button(key="grade_start").click().run()
    wait_for_jobs()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert llm_server.hits == 4 + 24

    shown = metrics(at)
    assert shown["Rubric score"] == f"{BY_HAND:.3f}" == "0.097"
    assert shown["Cases graded"] == "3 of 4" and shown["Unreadable grader replies"] == "3"
    head = next(m.value for m in at.markdown if m.value.startswith("**Grading "))
    assert "rubric score 0.097 (bootstrap SD" in head and "**1 unscored**" in head
    grading_id = head.split()[1].rstrip("*")
    unreadable = next(m.value for m in at.markdown if m.value.startswith("Unreadable grader replies"))
    assert unreadable.count("hb-4") == 3 and "Asks about red-flag symptoms" in unreadable
    tags = at.table[-1].value.to_string()
    assert "axis:completeness" in tags and "0.625" in tags and "axis:communication" not in tags
    criteria = at.dataframe[-1].value
    verdicts = dict(zip(criteria["criterion"], criteria["verdict"], strict=True))
    assert verdicts["Names the follow-up appointment with the cardiology clinic"] == "not met"
    assert verdicts["Invents a laboratory result not given in the conversation"] == "met"
    assert verdicts["Asks about red-flag symptoms"] == "no readable verdict"

    # the CLI on the same run: the same score, every reply from the cache
    code = main(["grade", "--run", run_id, "--grader", GRADERS, "--api-base", llm_server.url,
                 "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and llm_server.hits == 4 + 24
    assert doc["score"] == pytest.approx(BY_HAND) and f"{doc['score']:.3f}" == shown["Rubric score"]

    at.run()  # the CLI's grading is now the newest: attach the page's own by picking its button
    newest = next(m.value for m in at.markdown if m.value.startswith("**Grading ")).split()[1].rstrip("*")
    before = latest_dossier(demo_home).version
    at.button(key=f"grade_attach_{newest}").click().run()
    assert latest_dossier(demo_home).version == before  # the signed demo: asked first, nothing saved yet
    confirm_voiding(at)
    after = latest_dossier(demo_home)
    assert after.version == before + 1
    ev = after.dossier.evidence[-1]
    assert (ev.metric, ev.source, ev.run_id, ev.n) == ("rubric_score", newest, run_id, 3)
    assert ev.score == pytest.approx(BY_HAND)
    assert any(f"saved version {after.version}" in s.value for s in at.success)

    at.run()  # attaching is done once: the button gives way to a note and nothing new is saved
    assert not [b for b in at.button if b.key == f"grade_attach_{newest}"]
    assert "This grading's score is attached to the dossier as evidence." in [s.value for s in at.success]
    assert latest_dossier(demo_home).version == after.version
    assert newest != grading_id  # the CLI stored its own grading (from the cache); the newest is shown


def test_free_text_without_rubric_says_so_plainly(demo_home):
    from evaluator.scenarios import import_scenario, record_offline_run

    rows = ["id,context,question,reference,answer_type"]
    rows += [f'd{i},"Admission {i}",Write the discharge summary.,"GP in 2 weeks",free_text'
             for i in range(10)]
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        version = import_scenario(store.scenarios, "summaries.csv", ("\n".join(rows) + "\n").encode(),
                                  mapping=None, author="test", dossier_id=DEMO_ID)
        record_offline_run(store, version, "cand", {f"d{i}": "GP in 2 weeks." for i in range(10)},
                           endpoint_name="cand")
    finally:
        store.close()
    at = open_page(PAGE)
    at.selectbox(key="ls_version_pick").select(f"{version.scenario_id}@1").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "5. Grade with rubric" in [s.value for s in at.subheader]
    reason = next(i.value for i in at.info if i.value.startswith("No rubric to grade against"))
    assert "none of this run's 10 free-text case(s) carries rubric criteria" in reason
    assert "HealthBench JSONL" in reason
    note = next(i.value for i in at.info if "free-text case(s) have no automatic score" in i.value)
    assert "Grade with rubric on Local scenarios" in note  # the page's own way is named beside the CLI's
    assert not [b for b in at.button if b.key == "grade_estimate"]


def test_graders_pass_the_phi_gate_as_juries_do(demo_home, llm_server):
    """Identifiers in the cases: unapproved graders are stopped before any call; approved, they grade."""
    import csv
    import io

    from evaluator.scenarios import import_scenario, record_offline_run

    llm_server.configure(answer=grader_or_candidate)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", "context", "question", "rubric"])
    rubric = [{"criterion": "States that the metformin dose was halved", "points": 5},
              {"criterion": "Invents a laboratory result not given in the conversation", "points": -4}]
    for i in range(2):
        writer.writerow([f"c{i}", f"Daughter's number 555-867-530{i}; metformin halved.",
                         "Write the discharge summary.", json.dumps(rubric)])
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        version = import_scenario(store.scenarios, "phi.csv", out.getvalue().encode(), mapping=None,
                                  author="test", dossier_id=DEMO_ID)
        run_id = record_offline_run(store, version, "cand", {"c0": "Metformin halved.", "c1": "Done."},
                                    endpoint_name="cand")
    finally:
        store.close()
    at = open_page(PAGE)
    at.selectbox(key="ls_version_pick").select(f"{version.scenario_id}@1").run()
    at.text_input(key=f"grade_graders_{run_id}").input("openai/grader-a")
    at.text_input(key=f"grade_api_base_{run_id}").input(llm_server.url).run()
    at.button(key="grade_estimate").click().run()
    assert metrics(at)["Grader requests to send"] == "4"
    at.button(key="grade_start").click().run()
    wait_for_jobs()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    stopped = next(e.value for e in at.error if e.value.startswith("The grading stopped:"))
    assert "Blocked: 2 likely identifier(s) in 2 of 2 cases" in stopped and llm_server.hits == 0
    assert not [m for m in at.markdown if m.value.startswith("**Grading ")]  # nothing recorded

    at.checkbox(key=f"grade_phi_{run_id}").check().run()
    at.button(key="grade_estimate").click().run()
    at.button(key="grade_start").click().run()
    wait_for_jobs()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert llm_server.hits == 4 and not [e for e in at.error if e.value.startswith("The grading stopped")]
    # both cases: dose met (+5), invented result met (-4): (5 - 4) / 5 = 0.2
    assert metrics(at)["Rubric score"] == "0.200"
    at.button(key="grade_estimate").click().run()  # graded again, everything would come from the cache
    assert metrics(at)["Grader requests to send"] == "0"


def test_a_grading_in_progress_shows_under_its_own_run_only(demo_home, llm_server, tmp_path):
    from evaluator.scenarios import import_scenario, record_offline_run

    llm_server.configure(answer=grader_or_candidate, latency_s=0.3)
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        version = import_scenario(store.scenarios, "hb.jsonl", healthbench_file(tmp_path).read_bytes(),
                                  author="test", dossier_id=DEMO_ID)
        answers = {f"hb-{i}": "Here is a short reply." for i in range(1, 5)}
        first = record_offline_run(store, version, "cand-a", answers, endpoint_name="cand-a")
        second = record_offline_run(store, version, "cand-b", answers, endpoint_name="cand-b")
    finally:
        store.close()
    at = open_page(PAGE)
    at.selectbox(key="ls_version_pick").select(f"{version.scenario_id}@1").run()
    at.selectbox(key="ls_run_pick").select(first).run()
    at.text_input(key=f"grade_graders_{first}").input("openai/grader-a")
    at.text_input(key=f"grade_api_base_{first}").input(llm_server.url).run()
    at.button(key="grade_estimate").click().run()
    at.button(key="grade_start").click().run()
    assert at.get("progress"), "the grading works in the background; its run shows the progress"
    at.selectbox(key="ls_run_pick").select(second).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.get("progress") and at.button(key="grade_estimate").disabled  # a fresh form, no bar
    wait_for_jobs()
    at.selectbox(key="ls_run_pick").select(first).run()
    at.run()  # the poll finds the grading done
    assert not at.exception, [e.value for e in at.exception]
    assert metrics(at)["Rubric score"] == "0.097" and llm_server.hits == 8
