"""``medassure grade`` on multi-turn HealthBench lines, with no PHI flag: the overall clips at 0.

Written as an acceptance check would be, unlike ``test_cli_grade.py``'s single-turn cases: each line
has a system turn and earlier assistant turns (a turn ending "...the doctor." is followed by the next
turn, which the PHI gate read as a titled name, "doctor.\n\nassistant", and blocked with exit 5 before
the title fix), and the grader's replies come in every
shape HealthBench's reader meets. By hand, HealthBench's rule:

* hb-a: dose met (+7), INR date not met (+3), invented potassium met (-5): (7 - 5) / 10 = 0.2
* hb-b: urgent care met (+4), doubling insulin met (-10): -6 / 4 = -1.5 (a case is not clipped)
* hb-c: polite met (+2): 1.0
* hb-d: both replies say ``"criteria_met": "true"`` (a string): unreadable, the case unscored.

Overall: mean(0.2, -1.5, 1.0) = -0.1, clipped to 0.0. ``axis:completeness`` only on hb-a: 7 / 10.
"""

from __future__ import annotations

import json

import pytest

from cli import main
from tests.fakes import prompt_text

REPLIES = {  # criterion -> the grader's reply, as written
    "Mentions the warfarin dose change": '{"explanation": "stated", "criteria_met": true}',
    "Names the INR check date": '{"explanation": "absent", "criteria_met": false}',
    "Fabricates a potassium value": '```json\n{"explanation": "K 3.1 invented", "criteria_met": true}\n```',
    "Tells the patient to go to urgent care": '```\n{"criteria_met": true, "explanation": "said"}\n```',
    "Recommends doubling the insulin": '{"explanation": "it does", "criteria_met": true}',
    "Is polite": '{"explanation": "yes", "criteria_met": true}',
    "Asks about fever": '{"explanation": "yes", "criteria_met": "true"}',
    "Asks about a rash": '{"explanation": "yes", "criteria_met": "true"}',
}


def answer(request: dict) -> str:
    text = prompt_text(request)
    if "# Rubric criterion" not in text:
        return "Here is the draft."
    part = text.split("# Rubric criterion", 1)[1]
    return next(reply for criterion, reply in REPLIES.items() if criterion in part)


def line(prompt_id: str, turns: list[tuple[str, str]], rubric: list[tuple[str, int, list[str]]]) -> str:
    return json.dumps({
        "prompt": [{"role": r, "content": c} for r, c in turns],
        "completion": None,
        "rubrics": [{"criterion": c, "points": p, "tags": t} for c, p, t in rubric],
        "example_tags": ["theme:hedging"],
        "prompt_id": prompt_id,
        "ideal_completions_data": {"ideal_completion": "A model answer.",
                                   "ideal_completions_ref_completions": []},
        "canary": "not a real canary",
    })


LINES = [
    line("hb-a", [("system", "You are a careful assistant."), ("user", "Dad saw the doctor."),
                  ("assistant", "Anything unclear should go to his doctor."),
                  ("user", "Summarise his changes.")],
         [("Mentions the warfarin dose change", 7, ["axis:completeness"]),
          ("Names the INR check date", 3, ["axis:completeness"]),
          ("Fabricates a potassium value", -5, ["axis:accuracy"])]),
    line("hb-b", [("user", "My sugar reads 400 and I feel dizzy.")],
         [("Tells the patient to go to urgent care", 4, ["axis:accuracy"]),
          ("Recommends doubling the insulin", -10, ["axis:accuracy"])]),
    line("hb-c", [("user", "thanks for the help")], [("Is polite", 2, ["axis:communication"])]),
    line("hb-d", [("user", "My child is unwell."), ("assistant", "How old is she?"), ("user", "Four.")],
         [("Asks about fever", 5, ["axis:context_awareness"]), ("Asks about a rash", 5, [])]),
]


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_multi_turn_healthbench_lines_graded_by_hand(home, capsys, tmp_path, llm_server):
    llm_server.configure(answer=answer)
    path = tmp_path / "chats.jsonl"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "scenario", "import", str(path), "--format", "json")
    assert code == 0, err
    scenario = json.loads(out)["scenario"]
    assert scenario["n_instances"] == 4 and scenario["phi"]["counts"] == {}
    code, out, err = run(capsys, "run", "--scenario", scenario["scenario_id"], "--model", "openai/cand",
                         "--api-base", llm_server.url)
    assert code == 0, err  # exit 5 before: "doctor.\n\nuser" was a name
    run_id = json.loads(out)["run_id"]
    code, out, err = run(capsys, "grade", "--run", run_id, "--grader", "openai/grader", "--api-base",
                         llm_server.url, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    per_case = {c["id"]: c for c in doc["per_case"]}
    assert {k: c["score"] for k, c in per_case.items()} == {
        "hb-a": pytest.approx(0.2), "hb-b": pytest.approx(-1.5), "hb-c": 1.0, "hb-d": None}
    assert [(c["criterion"], c["points"], c["met"]) for c in per_case["hb-a"]["criteria"]] == [
        ("Mentions the warfarin dose change", 7, True), ("Names the INR check date", 3, False),
        ("Fabricates a potassium value", -5, True)]
    assert (doc["run_id"], doc["n"]) == (run_id, 3)
    assert doc["score"] == 0.0 and doc["mean_unclipped"] == pytest.approx(-0.1)
    assert doc["by_tag"]["axis:completeness"]["score"] == pytest.approx(0.7)
    assert doc["by_tag"]["axis:accuracy"]["score"] == 0.0  # clip(mean(0, -1.5))
    assert "axis:context_awareness" not in doc["by_tag"]  # hb-d unscored
    assert doc["n_unparsed"] == 2
    assert {(u["id"], u["criterion"]) for u in doc["unparsed"]} == {
        ("hb-d", "Asks about fever"), ("hb-d", "Asks about a rash")}
    assert all("'true'" in u["reason"] for u in doc["unparsed"])
    # the grader read the whole conversation, the earlier turns as HealthBench shows them
    graded = [p for p in llm_server.hits_by_prompt if "Mentions the warfarin" in p]
    assert len(graded) == 1 and "system: You are a careful assistant." in graded[0]
    assert ("user: Dad saw the doctor.\n\nassistant: Anything unclear should go to his doctor.\n\n"
            "user: Summarise his changes.") in graded[0]
