"""AppTest: a recorded candidate pre-fills the run form; its measured run cost reaches Cost and Candidates."""

import time

import pytest

from evaluator.runs.jobs import JOBS
from governance.demo.seed import DEMO_ID
from governance.dossier.store import Store
from tests.calc_answers import calculator_answers
from tests.pages.conftest import confirm_voiding, open_page

ONPREM = "onprem-llama-3-3-70b"
MODEL = "openai/llama-3.3-70b"


def wait_for_runs(timeout=60.0):
    deadline = time.monotonic() + timeout
    while JOBS.live():
        assert time.monotonic() < deadline, "run did not finish"
        time.sleep(0.05)


def stored_results(home, run_id):
    store = Store.open(home / "medassure.duckdb")
    try:
        return store.runs.results(run_id), store.load(DEMO_ID).dossier
    finally:
        store.close()


def test_candidate_prefills_the_run_and_its_measured_cost_is_shown(demo_home, llm_server):
    llm_server.configure(answer=calculator_answers(count=20), completion_tokens=10)
    at = open_page("pages/run_evidence.py")
    at.selectbox(key="run_benchmark").select("calc_builtin").run()
    at.selectbox(key="run_preset").select(ONPREM).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="run_candidate").value == "another model"
    assert at.text_input(key="run_model_other").value == MODEL
    assert at.text_input(key="run_api_base").value == "http://vllm.hospital.internal:8000/v1"
    assert at.text_input(key="run_key_env").value == "VLLM_API_KEY"
    prices = at.number_input(key="run_in_price").value, at.number_input(key="run_out_price").value
    assert prices == (0.4, 0.4)  # the quote's per-token prices
    assert any(c.value.startswith("Model and server from the recorded endpoint; prices from the quote")
               for c in at.caption)
    # the test server stands in for the hospital's vLLM; prices raised so the cents are readable
    at.text_input(key="run_api_base").input(llm_server.url)
    at.number_input(key="run_in_price").set_value(100.0)
    at.number_input(key="run_out_price").set_value(200.0)
    at.number_input(key="run_limit").set_value(3).run()
    at.button(key="run_estimate_button").click().run()
    assert {m.label: m.value for m in at.metric}["Cost, at most"].startswith("$")
    at.button(key="run_start").click().run()
    wait_for_runs()
    at.run()
    run_id = next(s for s in at.selectbox if s.label == "Run").value
    at.button(key=f"run_attach_{run_id}").click().run()
    confirm_voiding(at)  # the demo is decided and signed: attaching voids its sign-offs
    assert not at.exception, [e.value for e in at.exception]
    assert llm_server.hits == 3

    rows, dossier = stored_results(demo_home, run_id)
    label = next(c.label for c in dossier.candidates if c.id == ONPREM)
    # the run counts for the candidate picked (issue 27 item 3): named after it, the model string beside it
    assert {(e.model, e.endpoint_model, e.candidate_id) for e in dossier.evidence if e.run_id == run_id} == {
        (label, MODEL, ONPREM)}
    prompt = sum(r["prompt_tokens"] for r in rows) / 3
    per_1k = (prompt * 100.0 + 10 * 200.0) / 1e6 * 1000  # tokens × the prices the run was made at
    assert sum(r["cost_usd"] for r in rows) / 3 * 1000 == pytest.approx(per_1k, rel=1e-9)
    source = f"measured on 3 instances of run {run_id}"

    cost = open_page("pages/cost.py")
    assert not cost.exception, [e.value for e in cost.exception]
    table = cost.dataframe[0].value
    mine = table[table["candidate"] == label].iloc[0]
    assert mine["USD / 1,000 measured"] == f"USD {per_1k:,.2f}" and mine["measured on"] == source
    assert table[table["candidate"] != label]["measured on"].eq("not measured").all()  # demo: offline

    cands = open_page("pages/candidates.py")
    assert not cands.exception, [e.value for e in cands.exception]
    summary = cands.dataframe[0].value
    onprem = summary[summary["Id"] == ONPREM].iloc[0]
    assert onprem["USD per 1,000 measured"] == f"USD {per_1k:,.2f}" and onprem["Measured on"] == source
    assert onprem["USD per 1,000 requests"] != onprem["USD per 1,000 measured"]  # the quote is 0.40 per 1M
    other = summary[summary["Id"] != ONPREM]
    assert other["Measured on"].eq("—").all()
