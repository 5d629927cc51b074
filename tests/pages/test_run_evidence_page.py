"""AppTest for the Run evidence page: choices for the demo, estimate, run, cancel/resume, attach."""

import time

import pytest

from evaluator.runs.jobs import JOBS
from governance.demo.seed import DEMO_ID
from governance.dossier.store import Store
from tests.calc_answers import calculator_answers
from tests.pages.conftest import confirm_voiding, open_page

PAGE = "pages/run_evidence.py"
OTHER = "another model"


def latest(home):
    store = Store.open(home / "medassure.duckdb")
    try:
        return store.load(DEMO_ID)
    finally:
        store.close()


def wait_for_runs(timeout=60.0):
    deadline = time.monotonic() + timeout
    while JOBS.live():
        assert time.monotonic() < deadline, "run did not finish"
        time.sleep(0.05)


def fill_calc_request(at, server, limit, concurrency=8):
    at.selectbox(key="run_benchmark").select("calc_builtin").run()
    at.selectbox(key="run_candidate").select(OTHER).run()
    at.text_input(key="run_model_other").input("openai/fake-calc")
    at.text_input(key="run_api_base").input(server.url)
    at.number_input(key="run_concurrency").set_value(concurrency)
    at.number_input(key="run_limit").set_value(limit).run()
    assert not at.exception, [e.value for e in at.exception]


@pytest.fixture
def calc_server(llm_server):
    return llm_server.configure(answer=calculator_answers(count=20))


def test_offers_mapped_benchmarks_first_and_asks_for_a_dataset(demo_home):
    at = open_page(PAGE)
    assert at.title[0].value == "Run evidence"
    bench = at.selectbox(key="run_benchmark")
    assert bench.options == ["MedicationQA · mapped",
                             "Built-in clinical calculators (synthetic, offline) · not mapped"]
    assert any("accepted subcategory: Providing Patient Education Resources" in c.value for c in at.caption)
    assert at.radio(key="run_dataset_how").value == "Path on this machine"
    candidates = at.selectbox(key="run_candidate").options
    assert candidates == ["gpt-4o", "claude-3-7-sonnet", "llama-3.3-70b", OTHER]
    assert "No run of these benchmarks yet." in [i.value for i in at.info]
    at.text_input(key="run_path_medication_qa").input("/no/such/file.xlsx").run()
    at.button(key="run_estimate_button").click().run()
    assert any("file not found" in e.value for e in at.error)


def test_estimate_run_watch_and_attach(demo_home, calc_server):
    start = latest(demo_home)
    at = open_page(PAGE)
    fill_calc_request(at, calc_server, limit=10)
    assert any("not evidence for this job" in i.value for i in at.info)
    at.button(key="run_estimate_button").click().run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Requests to send"] == "10" and metrics["Cost, at most"] == "—"
    estimate = next(c.value for c in at.caption if "**Upper bound**" in c.value)
    assert "10 request(s) to send, at most 640 completion tokens" in estimate
    assert calc_server.hits == 0
    at.button(key="run_start").click().run()
    wait_for_runs()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert calc_server.hits == 10
    table = at.dataframe[0].value
    assert len(table) == 10 and table["unparsed"].sum() == 2 and table["score"].sum() == 5
    summary = next(m.value for m in at.markdown  # the metric in words, not its key (numeric_in_range)
                   if m.value.startswith("**answer within the accepted range: 0.500**"))
    # 5 of 10 correct: Wilson 0.237–0.763 (statsmodels proportion_confint, method="wilson")
    assert "95% CI 0.237–0.763" in summary and "n=10" in summary and "2 unparsed" in summary
    assert "Wilson score interval" in summary and "coverage is approximate" in summary
    run_id = next(s for s in at.selectbox if s.label == "Run").value
    at.button(key=f"run_attach_{run_id}").click().run()
    assert latest(demo_home).version == start.version  # asked first: the demo's sign-offs would be voided
    at.button(key="voiding_save_cancel").click().run()
    assert latest(demo_home).version == start.version
    assert not any("sign-off(s):" in w.value for w in at.warning)
    at.button(key=f"run_attach_{run_id}").click().run()
    confirm_voiding(at)
    v = latest(demo_home)
    assert v.version == start.version + 1 and v.author == "dr.page"
    ev = v.dossier.evidence[-1]
    assert ev.provenance == "local-run" and ev.run_id == run_id and ev.n == 10 and ev.ci_lower is not None
    assert any(s.value.startswith("Attached: saved version") for s in at.success)
    assert "This run's evidence is attached to the dossier." in [s.value for s in at.success]


def test_cancel_then_resume_from_the_page(demo_home, calc_server):
    calc_server.configure(latency_s=0.1)
    at = open_page(PAGE)
    fill_calc_request(at, calc_server, limit=20, concurrency=1)
    at.button(key="run_estimate_button").click().run()
    at.button(key="run_start").click().run()
    deadline = time.monotonic() + 30
    while not any(b.key and b.key.startswith("run_cancel_") for b in at.button):
        assert time.monotonic() < deadline
        time.sleep(0.2)
        at.run()
    cancel = next(b for b in at.button if b.key and b.key.startswith("run_cancel_"))
    cancel.click().run()
    wait_for_runs()
    at.run()
    assert "cancelled" in at.get("progress")[0].proto.text
    run_id = cancel.key.removeprefix("run_cancel_")
    sent = calc_server.hits
    assert 0 < sent < 20
    assert not any(b.key == f"run_attach_{run_id}" for b in at.button)
    at.button(key=f"run_resume_{run_id}").click().run()
    wait_for_runs()
    at.run()
    assert "20 of 20 instances · completed" in at.get("progress")[0].proto.text
    assert calc_server.hits == 20 and set(calc_server.hits_by_prompt.values()) == {1}
    assert any(b.key == f"run_attach_{run_id}" for b in at.button)


def test_warns_when_the_rules_are_not_locked_yet(home):
    from governance.dossier.record import Dossier
    from governance.intended_use.records import example_intended_use

    store = Store.open(home / "medassure.duckdb")
    new = Dossier(id="D-unlocked", title="No rules yet", owner="c", intended_use=example_intended_use())
    store.save(new, "a")
    store.close()
    at = open_page(PAGE, dossier_id="D-unlocked")
    assert not at.exception
    assert any("rules are not locked yet" in w.value for w in at.warning)


def test_no_lock_warning_on_the_demo_whose_rules_are_locked(demo_home):
    at = open_page(PAGE)
    assert not any("rules are not locked yet" in w.value for w in at.warning)


def test_phi_gate_blocks_then_an_attestation_lets_the_file_through(demo_home, llm_server, tmp_path):
    cases = tmp_path / "notes.csv"
    cases.write_text('id,context,question,reference\nn1,"Patient John Smith, MRN 4471223, called.",K?,4\n'
                     'n2,"Mrs. Garcia (DOB 3/4/52) is dizzy.",Na?,131\n')
    llm_server.configure(answer=lambda r: "4")
    at = open_page(PAGE)
    at.checkbox(key="run_show_all").check().run()
    at.selectbox(key="run_benchmark").select("generic").run()
    at.text_input(key="run_path_generic").input(str(cases))
    at.selectbox(key="run_candidate").select(OTHER).run()
    at.text_input(key="run_model_other").input("openai/vendor")
    at.text_input(key="run_api_base").input(llm_server.url).run()
    at.button(key="run_estimate_button").click().run()
    assert any("not approved for protected health information" in e.value for e in at.error)
    assert at.button(key="run_start").disabled and llm_server.hits == 0
    at.text_input(key="run_attest_by").input("Dr. Privacy, privacy officer")
    at.radio(key="run_attest_method").set_value("safe_harbor")
    next(b for b in at.button if b.label == "Record attestation").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Attestation recorded" in s.value for s in at.success)
    assert any("attested by Dr. Privacy, privacy officer" in t.value for t in at.text)  # Data handling
    shown = latest(demo_home).dossier.deidentification
    assert [(a.attested_by, a.method, a.subject) for a in shown] == [
        ("Dr. Privacy, privacy officer", "safe_harbor", "notes.csv")]
    at.button(key="run_estimate_button").click().run()
    assert any("attested de-identified" in i.value for i in at.info)
    at.button(key="run_start").click().run()
    wait_for_runs()
    assert llm_server.hits == 2


def test_a_run_whose_every_request_failed_says_why_on_the_page(demo_home, calc_server):
    """The browser walk: a wrong endpoint gave "Errors 120" with no reason in the page's text."""
    calc_server.configure(fault_for=lambda request: "401")  # every request refused, not retried
    at = open_page(PAGE)
    fill_calc_request(at, calc_server, limit=4)
    at.button(key="run_estimate_button").click().run()
    at.button(key="run_start").click().run()
    wait_for_runs()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    said = [e.value for e in at.error if "got no answer from the endpoint" in e.value]
    assert len(said) == 1 and said[0].startswith("4 of 4 instances got no answer"), at.error
    assert "Check the model string, the API base and the key variable" in said[0]
