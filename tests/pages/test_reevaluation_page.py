"""Re-evaluation page (AppTest): frozen plan, a re-run with a worse model, the addendum; the History diff."""

from __future__ import annotations

import time

import pytest

from evaluator.runs.jobs import JOBS
from governance.identity import Actor
from tests.governance.reevaluation_fixtures import (
    DOSSIER_ID,
    MODEL_A,
    MODEL_B,
    N,
    scripted_models,
    seed_decided_dossier,
)
from tests.pages.conftest import open_page


def wait_for_jobs(timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while JOBS.live():
        assert time.monotonic() < deadline, "re-evaluation did not finish"
        time.sleep(0.05)


@pytest.fixture
def decided(store, llm_server):
    llm_server.configure(answer=scripted_models())
    seed_decided_dossier(store, llm_server.url)
    return store, llm_server


def test_page_runs_a_reevaluation_and_shows_the_addendum(decided):
    store, server = decided
    at = open_page("pages/reevaluation.py", dossier_id=DOSSIER_ID)
    assert at.title[0].value == "Re-evaluation"
    plan = at.dataframe[0].value
    assert list(plan["model"]) == [MODEL_A] and list(plan["re-runnable"]) == ["yes"]
    assert any("No re-evaluation recorded yet" in i.value for i in at.info)
    at.text_input(key="reeval_model").input(MODEL_B)
    at.number_input(key="reeval_in_price").set_value(0.5)
    at.number_input(key="reeval_out_price").set_value(1.5)
    server.configure(latency_s=0.5)  # 20 cases, 8 in flight: the re-run outlasts the script run
    next(b for b in at.button if b.label == "Run re-evaluation").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.get("progress"), "the re-evaluation works in the background; the page shows its progress"
    wait_for_jobs()
    at.run()  # the poll finds the job done and redraws the page with the addendum
    assert not at.exception, [e.value for e in at.exception]
    assert server.hits == 2 * N
    assert any("Would this change the decision? Yes." in e.value for e in at.error)
    text = " ".join(m.value for m in at.markdown)
    assert "Paired comparison" in text and "Instances that changed" in text and "score.calc" in text
    assert at.selectbox(key="reeval_pick").value.startswith("R-")
    assert f"**Re-run:** {MODEL_A} (" in text  # exactly which candidates were re-run

    # A second re-evaluation: the selector moves to the new addendum instead of staying on the first.
    first = at.selectbox(key="reeval_pick").value
    next(b for b in at.button if b.label == "Run re-evaluation").click().run()
    wait_for_jobs()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="reeval_pick").value != first
    assert at.selectbox(key="reeval_pick").value == store.load(DOSSIER_ID).dossier.reevaluations[-1].id

    history = open_page("pages/history.py", dossier_id=DOSSIER_ID)
    timeline = history.dataframe[0].value
    assert timeline["Kind"].iloc[0] == "re-evaluation"
    assert any(e.label.startswith("Re-evaluation R-") for e in history.expander)


def test_undecided_dossier_gets_a_hint(store):
    from governance.dossier.record import Dossier
    from governance.intended_use.records import example_intended_use

    store.save(Dossier(id="D-open", title="Not decided", owner="c", intended_use=example_intended_use()), "a")
    at = open_page("pages/reevaluation.py", dossier_id="D-open")
    assert not at.exception
    assert "Record the committee's decision first" in at.info[0].value and not at.dataframe


def test_demo_shows_its_offline_addendum(demo_home):
    at = open_page("pages/reevaluation.py", dossier_id="D-demo-portal")
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="reeval_pick").value.startswith("R-")
    assert any("Would this change the decision? Yes." in e.value for e in at.error)
    text = " ".join(m.value for m in at.markdown)
    assert "GPT-4o (2024-08-06)" in text and "DEMO DATA" in text
    assert "en-03" in text and "es-02" in text  # the flipped cases, by id


def test_page_flags_another_served_model_behind_the_same_name(decided):
    from governance.reevaluation.operations.addendum import reevaluate

    store, server = decided
    server.configure(served_model="model-a-2026-01", system_fingerprint="fp_b7")
    reevaluate(store, DOSSIER_ID, actor=Actor.named("qa"))
    at = open_page("pages/reevaluation.py", dossier_id=DOSSIER_ID)
    assert not at.exception, [e.value for e in at.exception]
    (warning,) = [w.value for w in at.warning if "Another served model answered" in w.value]
    assert r"model-a-2026-01 (fp\_b7) × 20" in warning and "model-a (no fingerprint) × 20" in warning
    text = " ".join(m.value for m in at.markdown)
    assert "Who answered" in text and "CHANGED" in text
