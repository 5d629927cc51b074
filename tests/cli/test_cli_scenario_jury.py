"""``medassure jury --run RUN`` on a local-scenario run: the stored version's cases, no dataset file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli import main
from tests.fakes import prompt_text

JUDGES = "openai/judge-a,openai/judge-b,openai/judge-c"
GOOD = json.dumps({"accuracy": {"score": 4}, "completeness": {"score": 3}, "clarity": {"score": 5}})


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def answer(request: dict) -> str:
    return GOOD if "CANDIDATE" in prompt_text(request) else "Discharged on apixaban; follow up in 2 weeks."


@pytest.fixture
def summaries(tmp_path) -> Path:
    """Ten free-text cases with reference summaries and one multiple-choice case."""
    rows = [json.dumps({"id": f"d{i}", "context": f"Admission {i}: pneumonia, warfarin changed to apixaban.",
                        "question": "Write the discharge summary.", "answer_type": "free_text",
                        "reference": "Pneumonia treated; warfarin stopped, apixaban started; GP in 2 weeks."})
            for i in range(10)]
    rows.append(json.dumps({"id": "mc1", "context": "Urgent?", "question": "Pick one",
                            "choices": ["yes", "no"], "reference": "A", "answer_type": "choice"}))
    path = tmp_path / "summaries.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def scenario_run(home, capsys, llm_server, summaries) -> dict:
    llm_server.configure(answer=answer)
    code, out, err = run(capsys, "scenario", "import", str(summaries), "--name", "Discharge summaries",
                         "--format", "json")
    assert code == 0, err
    scenario_id = json.loads(out)["scenario"]["scenario_id"]
    code, out, err = run(capsys, "run", "--scenario", scenario_id, "--model", "openai/cand",
                         "--api-base", llm_server.url)
    assert code == 0, err
    return json.loads(out)


def test_scenario_results_say_what_scores_free_text(scenario_run):
    assert scenario_run["n_scored"] == 1  # only the multiple-choice case has an automatic metric
    assert "10 free-text case(s)" in scenario_run["unscored_note"]
    for way in ("medassure jury", "medassure grade", "review queue"):
        assert way in scenario_run["unscored_note"]


def test_jury_on_a_scenario_run_needs_no_dataset_file(scenario_run, capsys, llm_server):
    run_id = scenario_run["run_id"]
    code, out, err = run(capsys, "jury", "--run", run_id, "--judges", JUDGES, "--api-base", llm_server.url,
                         "--format", "json", "--instances")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["benchmark_id"] == scenario_run["benchmark_id"] and doc["method"] == "strict"
    assert (doc["n"], doc["n_scored"]) == (11, 10)  # the free-text cases; the choice case is not judged
    assert doc["mean"] == pytest.approx(4.0)
    assert doc["unscored_reasons"] == {"not a free-text case (scored by its own answer type)": 1}
    judged = [p for p in llm_server.hits_by_prompt if "CANDIDATE" in p]
    assert len(judged) == 10 and all("warfarin" in p and "apixaban" in p for p in judged)
    assert sum(llm_server.hits_by_prompt[p] for p in judged) == 30  # three judges, one request each
