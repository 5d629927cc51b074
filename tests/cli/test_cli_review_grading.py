"""A rubric grading's judge validity end to end: fake grader → criteria review queue → clinicians' ratings →
per-criterion κ → the judge-agreement rule's verdict in ``medassure assess``.

The cases, the grader's verdicts and the clinicians' are those of
``tests/governance/judge_validity/test_grader_validity.py`` (κ 0.5 on the medication change over nine
cases, one tie left out; κ −1 on the follow-up over ten), here produced by the product: the fake grader
answers from the case number in the conversation, the raters answer from the case number in what the
rating view shows them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from cli import main
from tests.fakes import prompt_text

MED, FU = "States the medication change", "States the follow-up appointment"


def answer(request: dict) -> str:
    text = prompt_text(request)
    case = int(text.split("case ", 1)[1].split(":", 1)[0])
    if "You grade one response" not in text:
        return f"Discharge summary of case {case}."
    criterion = text.split("# Rubric criterion", 1)[1]
    met = case <= 6 if MED in criterion else case <= 5
    return json.dumps({"explanation": "scripted", "criteria_met": met})


def rater_says(rater: str, case: int, criterion: str) -> str:
    if criterion == FU:
        return "met" if case > 5 else "not met"
    met = (rater == "dr.a") if case == 10 else case in (1, 2, 3, 4, 5, 7)  # case 10: the raters split
    return "met" if met else "not met"


def cases_file(tmp_path: Path) -> Path:
    rubric = [{"criterion": MED, "points": 5, "tags": ["medication_change"]},
              {"criterion": FU, "points": 3, "tags": ["follow_up"]}]
    lines = [json.dumps({"prompt": [{"role": "user", "content": f"case {k}: summarise this admission."}],
                         "rubrics": rubric, "example_tags": [], "prompt_id": f"ds-{k}"})
             for k in range(1, 11)]
    path = tmp_path / "discharge.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def graded(home, capsys, tmp_path, llm_server) -> tuple[str, str]:
    from governance.dossier.record import Dossier
    from governance.dossier.store import Store
    from governance.intended_use.records import example_intended_use

    with Store.open(home / "medassure.duckdb") as store:
        store.save(Dossier(id="D-dc", title="Discharge summaries", owner="AI committee",
                           intended_use=example_intended_use()), author="test")
    llm_server.configure(answer=answer)
    code, out, err = run(capsys, "scenario", "import", str(cases_file(tmp_path)), "--format", "json")
    assert code == 0, err
    scenario_id = json.loads(out)["scenario"]["scenario_id"]
    code, out, err = run(capsys, "run", "--scenario", scenario_id, "--model", "openai/cand",
                         "--api-base", llm_server.url)
    assert code == 0, err
    code, out, err = run(capsys, "grade", "--run", json.loads(out)["run_id"], "--grader", "openai/grader",
                         "--api-base", llm_server.url, "--format", "json")
    assert code == 0, err
    grading_id = json.loads(out)["grading_id"]
    code, out, err = run(capsys, "attach", "--grading", grading_id, "--dossier", "D-dc")
    assert code == 0, err
    from governance.judge_validity import set_minimum

    with Store.open(home / "medassure.duckdb") as store:  # the judge-agreement rule, bar 0.5
        store.update("D-dc", lambda d: set_minimum(d, 0.5, by="test"), author="test", note="bar")
    return grading_id, "D-dc"


def agreement_verdicts(capsys, dossier: str) -> tuple[list[dict], dict]:
    code, out, err = run(capsys, "assess", dossier, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    return [v for v in doc["verdicts"] if v["kind"] == "judge_agreement"], doc


def test_grading_queue_ratings_kappa_per_criterion_and_the_rule(home, capsys, graded, monkeypatch):
    from governance.dossier.store import Store
    from governance.identity import Actor
    from governance.review import ReviewError, rater_view, record_rating

    grading_id, dossier = graded
    before, _ = agreement_verdicts(capsys, dossier)
    (v,) = [v for v in before if v["model"] == "openai/cand"]
    assert v["verdict"] == "inconclusive" and "no recorded per-criterion agreement" in v["reason"]

    code, out, err = run(capsys, "review", "create", "--grading", grading_id, "--n", "10", "--double", "1",
                         "--raters", "dr.a,dr.b", "--dossier", dossier, "--seed", "3", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    qid = doc["queue_id"]
    assert doc["rubric"] == "criteria" and doc["grading_id"] == grading_id
    assert (doc["n_items"], doc["n_double"], doc["n_sentinels"]) == (10, 10, 0)

    with Store.open(home / "medassure.duckdb") as store:
        first = rater_view(store, qid, actor=Actor.named("dr.a")).items[0].item_id
        with pytest.raises(ReviewError, match="missing: 2"):
            record_rating(store, qid, first, {"1": "met"}, actor=Actor.named("dr.a"))
        with pytest.raises(ReviewError, match="not one of met, not met"):
            record_rating(store, qid, first, {"1": "yes", "2": "met"}, actor=Actor.named("dr.a"))
        for rater in ("dr.a", "dr.b"):
            view = rater_view(store, qid, actor=Actor.named(rater))
            assert view.rubric_kind == "criteria" and view.total == 10
            for item in view.items:
                shown = item.model_dump_json()
                assert item.criteria == (MED, FU)
                assert "scripted" not in shown and "openai" not in shown and "met" not in shown  # blinded
                case = int(item.question.split("case ", 1)[1].split(":", 1)[0])
                scores = {str(k): rater_says(rater, case, c) for k, c in enumerate(item.criteria, 1)}
                assert record_rating(store, qid, item.item_id, scores, seconds=30.0,
                                     actor=Actor.named(rater))

    code, out, err = run(capsys, "review", "status", qid, "--format", "json")
    assert code == 0, err
    status = json.loads(out)
    assert status["closed"] is True and status["rubric"] == f"criteria:{grading_id}"
    gc = status["grader_clinician"]
    med, fu = gc["criteria"]
    assert med["agreement"]["criterion"] == MED and med["agreement"]["n"] == 9 and gc["n_ties"] == 1
    assert med["agreement"]["kappa"]["value"] == pytest.approx(0.5)
    ref = cohens_kappa(np.array([[5, 1], [1, 2]]))
    assert med["agreement"]["kappa"]["ci_lower"] == pytest.approx(ref.kappa_low)
    assert med["agreement"]["share_agreeing"]["value"] == pytest.approx(7 / 9)
    assert fu["agreement"]["kappa"]["value"] == pytest.approx(-1.0) and fu["status"] == "fail"
    assert gc["status"] == "fail" and FU in gc["reason"]
    assert gc["bar"] == 0.5 and gc["bar_source"].startswith("the judge-agreement rule")

    import governance.review.operations.criteria as criteria
    from governance.judge_validity import set_minimum
    from governance.review import grading_agreement

    computed, real = [], criteria.grader_validity

    def counting(*args, **kwargs):
        computed.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(criteria, "grader_validity", counting)
    code, out, err = run(capsys, "review", "status", qid, "--format", "json")
    # `review status` opens the file read-only: the same figures, computed again and not stored
    assert code == 0 and json.loads(out)["grader_clinician"] == gc and computed == [1]
    with Store.open(home / "medassure.duckdb") as store:  # a writer (the app's page) keeps them
        assert grading_agreement(store, qid).model_dump(mode="json") == gc and computed == [1, 1]
    code, out, err = run(capsys, "review", "status", qid, "--format", "json")
    assert code == 0 and json.loads(out)["grader_clinician"] == gc and computed == [1, 1]  # kept: not again
    with Store.open(home / "medassure.duckdb") as store:  # a new bar asks for a fresh verdict
        store.update(dossier, lambda d: set_minimum(d, 0.6, by="test"), author="test", note="bar")
    code, out, err = run(capsys, "review", "status", qid, "--format", "json")
    assert code == 0 and json.loads(out)["grader_clinician"]["bar"] == 0.6 and computed == [1, 1, 1]

    code, out, err = run(capsys, "review", "record-agreement", qid, "--format", "json")
    assert code == 0, err
    recorded = json.loads(out)
    code, out, err = run(capsys, "review", "record-agreement", qid, "--format", "json")
    assert code == 0 and json.loads(out)["version"] == recorded["version"]  # the same figures: no new version

    after, doc = agreement_verdicts(capsys, dossier)
    (v,) = [v for v in after if v["model"] == "openai/cand"]
    assert v["verdict"] == "fail" and FU in v["reason"] and v["estimate"] == pytest.approx(-1.0)
    rec = next(c for c in doc["recommendation"]["candidates"] if c["model"] == "openai/cand")
    assert rec["outcome"] == "reject"


def test_grading_queue_refusals(home, capsys, graded):
    grading_id, dossier = graded
    code, _, err = run(capsys, "review", "create", "--grading", "grading-nope", "--n", "2",
                       "--raters", "dr.a")
    assert code == 2 and "no grading 'grading-nope'" in err
    code, _, err = run(capsys, "review", "create", "--grading", grading_id, "--n", "2", "--raters", "dr.a",
                       "--sentinels", "1")
    assert code == 2 and "--sentinels" in err
    code, _, err = run(capsys, "review", "create", "--grading", grading_id, "--n", "11", "--raters", "dr.a")
    assert code == 2 and "10 graded cases" in err
    code, out, err = run(capsys, "review", "create", "--grading", grading_id, "--n", "2", "--raters", "dr.a",
                         "--format", "json")
    assert code == 0, err
    qid = json.loads(out)["queue_id"]
    code, _, err = run(capsys, "review", "sheet", qid, "--rater", "dr.a", "--out", str(home / "s.csv"))
    assert code == 2 and "rated in the app" in err
    code, _, err = run(capsys, "review", "record-agreement", qid)
    assert code == 2 and "serves no dossier" in err
    code, _, err = run(capsys, "review", "close", qid)
    assert code == 0, err
    code, _, err = run(capsys, "review", "export", qid, "--out", str(home / "r.csv"))
    assert code == 2 and "grader_clinician" in err
