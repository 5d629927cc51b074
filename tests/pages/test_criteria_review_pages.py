"""AppTest for a criteria review queue (issue 34 item 4): Rate outputs asks met / not met per criterion,
blinded to the grader; Judge validity shows the per-criterion κ and records it once.

The grading, cases and verdicts are those of ``tests/cli/test_cli_review_grading.py`` (the fake grader on the
local server); three cases are rated here by one rater, as the grader said on the medication change and the
opposite on the follow-up.
"""

from __future__ import annotations

import json

import pytest

from governance.dossier.store import Store
from governance.identity import Actor
from tests.cli.test_cli_review_grading import FU, MED, answer, cases_file, run
from tests.pages.conftest import open_page

RATE = "pages/rate_outputs.py"
JV = "pages/judge_validity.py"


@pytest.fixture
def grading(home, capsys, tmp_path, llm_server) -> str:
    """A completed rubric grading of six cases on dossier D-dc (no queue yet); its id."""
    from governance.dossier.record import Dossier
    from governance.intended_use.records import example_intended_use

    with Store.open(home / "medassure.duckdb") as store:
        store.save(Dossier(id="D-dc", title="Discharge summaries", owner="AI committee",
                           intended_use=example_intended_use()), author="test")
    llm_server.configure(answer=answer)
    code, out, err = run(capsys, "scenario", "import", str(cases_file(tmp_path)), "--format", "json")
    assert code == 0, err
    code, out, err = run(capsys, "run", "--scenario", json.loads(out)["scenario"]["scenario_id"], "--model",
                         "openai/cand", "--api-base", llm_server.url)
    assert code == 0, err
    code, out, err = run(capsys, "grade", "--run", json.loads(out)["run_id"], "--grader", "openai/grader",
                         "--api-base", llm_server.url)
    assert code == 0, err
    return json.loads(out)["grading_id"]


@pytest.fixture
def criteria_queue(home, grading) -> str:
    from governance.review import create_queue_from_grading

    with Store.open(home / "medassure.duckdb") as store:
        return create_queue_from_grading(store, grading, 6, ["tester"], seed=1, dossier_id="D-dc",
                                         actor=Actor.named("editor")).queue_id


def as_rater(name: str):
    at = open_page(None, dossier_id="D-dc")
    at.session_state["reviewer"] = name
    at.switch_page(RATE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_case(at) -> int:
    question = next(m.value for m in at.markdown if "case " in m.value and "summarise" in m.value)
    return int(question.split("case ", 1)[1].split(":", 1)[0])


def test_rate_outputs_asks_met_or_not_per_criterion_blinded_and_saves_once(home, criteria_queue):
    at = as_rater("tester")
    text = " ".join(m.value for m in at.markdown)
    assert "Rubric criteria" in text and "scripted" not in text and "openai" not in text
    radios = [r for r in at.radio if r.key and r.key.startswith("ro_it-")]
    assert [r.label for r in radios] == [f"1. {MED}", f"2. {FU}"]
    assert all(list(r.options) == ["met", "not met"] for r in radios)

    radios[0].set_value("met")  # the second left open: refused, nothing stored
    at.get("form_submit_button")[0].click()
    at.run()
    assert any("Answer every question" in e.value for e in at.error)
    with Store.open(home / "medassure.duckdb") as store:
        assert store.reviews.ratings(criteria_queue) == []

    seen: list[int] = []
    for _ in range(6):
        case = shown_case(at)
        seen.append(case)
        radios = [r for r in at.radio if r.key and r.key.startswith("ro_it-")]
        radios[0].set_value("met" if case <= 6 else "not met")  # as the grader said
        radios[1].set_value("not met" if case <= 5 else "met")  # the opposite of the grader
        at.get("form_submit_button")[0].click()
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    assert any("rated all your items" in s.value for s in at.success)
    with Store.open(home / "medassure.duckdb") as store:
        stored = store.reviews.ratings(criteria_queue)
    assert len(stored) == 6 and all(set(r.scores) == {"1", "2"} for r in stored)

    jv = open_page(JV, dossier_id="D-dc")
    assert [s.value for s in jv.subheader].count("Rubric graders: agreement per criterion") == 1
    table = jv.table[-1].value
    assert list(table.index) == [MED, FU]
    assert "share agreeing (95% interval)" in table.columns
    # seed 1 samples cases 1-5 and 10. Follow-up: the grader says met on 1-5, the rater the opposite, so
    # observed 0, chance (5/6)(1/6) + (1/6)(5/6) = 10/36, κ = -(10/36) / (26/36) = -0.38; its upper bound
    # (0.38) is below every tier's bar. Medication change: rated as the grader said, κ = 1.
    assert sorted(seen) == [1, 2, 3, 4, 5, 10]
    assert table.loc[FU, "Cohen's κ (95% interval)"].startswith(f"{-10 / 26:.2f}")
    assert table.loc[MED, "Cohen's κ (95% interval)"].startswith("1.00")
    assert table.loc[FU, "share agreeing (95% interval)"].startswith("0.00")
    assert (table.loc[FU, "verdict"], table.loc[MED, "verdict"]) == ("fail", "pass")
    assert any("**fail**" in m.value and FU in m.value for m in jv.markdown)

    jv.button(key="jv_record_grading").click().run()
    assert not jv.exception, [e.value for e in jv.exception]
    with Store.open(home / "medassure.duckdb") as store:
        first = store.load("D-dc")
    (rec,) = first.dossier.grader_agreements
    assert [c.criterion for c in rec.criteria] == [MED, FU] and rec.review_queue.queue_id == criteria_queue
    jv.button(key="jv_record_grading").click().run()  # the same figures again: no new version
    with Store.open(home / "medassure.duckdb") as store:
        assert store.load("D-dc").version == first.version


def test_an_editor_makes_a_criteria_queue_from_a_grading_on_the_page_once(home, grading):
    at = as_rater("editor")
    at.toggle(key="rq_open").set_value(True).run()
    at.radio(key="rq_source").set_value("A rubric grading (met / not met per criterion)")
    at.text_input(key="rq_run").set_value(grading)
    at.number_input(key="rq_n").set_value(4)
    at.text_input(key="rq_raters").set_value("tester,dr.b")
    at.number_input(key="rq_double").set_value(0.5)  # the sentinels field keeps its 3: not asked of a grading
    at.get("form_submit_button")[0].click()
    at.run()
    assert any("created: 4 outputs (2 rated twice) and 0 sentinels" in m.value for m in at.success), [
        e.value for e in at.error]
    with Store.open(home / "medassure.duckdb") as store:
        (queue,) = store.reviews.list_queues()
        assert (queue.grading_id, queue.rubric.kind, queue.dossier_id) == (grading, "criteria", "D-dc")
    at.get("form_submit_button")[0].click()
    at.run()  # the same settings again: no second queue
    assert any("already created from these settings" in i.value for i in at.info)
    with Store.open(home / "medassure.duckdb") as store:
        assert len(store.reviews.list_queues()) == 1
