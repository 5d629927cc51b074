"""AppTest: the Evidence page shows per-calculator accuracy of an attached built-in benchmark run (issue 27,
item 5). Known answers as in ``tests/governance/rules/test_builtin_subgroups.py``: six calculators right on
10 of 10 cases, six on 0 of 10."""

from evaluator.runs.jobs import RunJobs
from governance.dossier.record import Dossier
from governance.dossier.store import Store
from governance.identity import Actor
from governance.intended_use.records import example_intended_use
from governance.runs.operations.jobs import build_request, run_and_wait
from governance.runs.operations.view import attach_run
from tests.calc_answers import calculator_answers
from tests.pages.conftest import open_page


def test_per_calculator_accuracy_is_shown_lowest_first(home, llm_server):
    llm_server.configure(answer=calculator_answers(count=120))
    home.mkdir(parents=True, exist_ok=True)
    store = Store.open(home / "medassure.duckdb")
    try:
        done = run_and_wait(store, build_request("calc_builtin", "openai/fake-calc", api_base=llm_server.url,
                                                 concurrency=4), poll_s=0.01, jobs=RunJobs())
        dossier = Dossier(title="Paediatric doses", owner="a.analyst", intended_use=example_intended_use())
        dossier = dossier.model_copy(update={"mapping": dossier.mapping.decide(
            "supporting_diagnostic_decisions", "accepted", by="a.analyst")})
        store.save(dossier, author="a.analyst")
        attach_run(store, dossier.id, done.run_id, actor=Actor.named("a.analyst"))
    finally:
        store.close()
    at = open_page("pages/evidence.py", dossier_id=dossier.id)
    assert any(m.value.startswith("**Per-calculator accuracy**") for m in at.markdown), _debug(at)
    frame = next(d.value for d in at.dataframe if "share right" in d.value.columns and len(d.value) == 12)
    assert list(frame["share right"]) == ["0%"] * 6 + ["100%"] * 6
    assert "Creatinine Clearance (Cockcroft-Gault Equation)" in set(frame["group"])
    assert "creatinine_clearance" not in set(frame["group"])  # names, not keys
    assert set(frame["n"]) == {10}


def _debug(at):
    return [m.value[:80] for m in at.markdown], [h.value for h in at.subheader], [e.value for e in at.info]
