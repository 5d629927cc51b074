"""AppTest: a run started on Run evidence for candidate gpt-4o with the model string openai/gpt-4o-bad
counts for gpt-4o, and Rules & verdicts shows no phantom candidate named after the model string
(issue 27, item 3)."""

from governance.dossier.store import Store
from governance.mapping.decisions import record_mapping
from tests.pages.conftest import DEMO, confirm_voiding, open_page
from tests.pages.test_run_evidence_page import latest, wait_for_runs

BAD = "openai/gpt-4o-bad"


def test_the_run_counts_for_the_candidate_picked(demo_home, llm_server):
    llm_server.configure(answer=lambda _request: "Answer: 0")
    at = open_page("pages/run_evidence.py")
    at.selectbox(key="run_benchmark").select("calc_builtin").run()
    at.selectbox(key="run_candidate").select("gpt-4o").run()
    at.text_input(key="run_model_gpt-4o").set_value(BAD)
    at.text_input(key="run_api_base").input(llm_server.url)
    at.number_input(key="run_limit").set_value(6).run()
    assert any("counts for candidate **gpt-4o**" in c.value for c in at.caption)
    at.button(key="run_estimate_button").click().run()
    at.button(key="run_start").click().run()
    wait_for_runs()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    run_id = next(s for s in at.selectbox if s.label == "Run").value
    at.button(key=f"run_attach_{run_id}").click().run()
    confirm_voiding(at)  # the demo is decided and signed: attaching voids its sign-offs
    ev = latest(demo_home).dossier.evidence[-1]
    assert (ev.run_id, ev.model, ev.endpoint_model) == (run_id, "gpt-4o", BAD)
    # The calculator's subcategory is mapped, so the run is evidence for the job, not a try-out (issue 36).
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        d = store.load(DEMO).dossier
        mapped = record_mapping(d, "supporting_diagnostic_decisions", "accepted", by="chair")
        store.save(mapped, author="chair", note="test: the calculator's subcategory mapped")
    finally:
        store.close()

    at.switch_page("pages/rules_verdicts.py").run()
    assert not at.exception, [e.value for e in at.exception]
    frames = [d.value for d in at.dataframe if "candidate" in d.value.columns]
    assert frames, "no verdicts table"
    named = {str(c) for f in frames for c in f["candidate"]}
    assert BAD not in named and "gpt-4o" in named
