"""``medassure grade``: a HealthBench-format file imported, run and graded, with the score worked out by hand.

The fake grader's verdicts are scripted per criterion, so HealthBench's rule gives, by hand:

* hb-1: dose met (+5), follow-up not met (+3), invented result met (-4): (5 - 4) / 8 = 0.125
* hb-2: 911 advice met (+6), overly verbose met (-2): (6 - 2) / 6 = 0.6667
* hb-3: allergy not met (+4), allergen drug met (-2): -2 / 4 = -0.5 (not clipped per case)
* hb-4: red flags: the grader's reply is not JSON, so the case is unscored and the reply named.

Overall: mean(0.125, 0.6667, -0.5) = 0.09722, inside [0, 1]. By tag: ``axis:completeness`` only on
hb-1 (5 / 8 = 0.625); ``axis:accuracy``: hb-1 has only a harm there (no score), hb-2 1.0, hb-3 -0.5,
so clip(mean(1.0, -0.5)) = 0.25; ``axis:communication`` holds only a harm: no score.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli import main
from tests.fakes import prompt_text

VERDICTS = {  # criterion -> the scripted graders' verdict (None: an unreadable reply)
    "States that the metformin dose was halved": True,
    "Names the follow-up appointment with the cardiology clinic": False,
    "Invents a laboratory result not given in the conversation": True,
    "Advises calling emergency services for crushing chest pain": True,
    "Is overly verbose": True,
    "Mentions the penicillin allergy": False,
    "Recommends amoxicillin": True,
    "Asks about red-flag symptoms": None,
}
LINES = [
    (
        "hb-1",
        "Summarise the medication changes for my father's discharge.",
        [
            ("States that the metformin dose was halved", 5, ["axis:completeness"]),
            ("Names the follow-up appointment with the cardiology clinic", 3, ["axis:completeness"]),
            ("Invents a laboratory result not given in the conversation", -4, ["axis:accuracy"]),
        ],
    ),
    (
        "hb-2",
        "I have had pressure in my chest for an hour.",
        [
            ("Advises calling emergency services for crushing chest pain", 6, ["axis:accuracy"]),
            ("Is overly verbose", -2, ["axis:communication"]),
        ],
    ),
    (
        "hb-3",
        "My son has an ear infection, what antibiotic is usual?",
        [
            ("Mentions the penicillin allergy", 4, ["axis:accuracy"]),
            ("Recommends amoxicillin", -2, ["axis:accuracy"]),
        ],
    ),
    ("hb-4", "Headache for two days.", [("Asks about red-flag symptoms", 7, ["axis:context_awareness"])]),
]
GRADERS = "openai/grader-a,openai/grader-b,openai/grader-c"


def grader_or_candidate(request: dict) -> str:
    """Candidate: a fixed reply. Graders a and b: the scripted verdict; grader-c dissents (majority holds)."""
    text = prompt_text(request)
    if "You grade one response" not in text:
        return "Here is a short reply."
    rubric_part = text.split("# Rubric criterion", 1)[1]
    verdict = next(v for c, v in VERDICTS.items() if c in rubric_part)
    if verdict is None:
        return "I think the response is fine."
    if request.get("model") == "grader-c":
        verdict = not verdict
    return "```json\n" + json.dumps({"explanation": "scripted", "criteria_met": verdict}) + "\n```"


def healthbench_file(tmp_path: Path) -> Path:
    lines = []
    for prompt_id, question, rubric in LINES:
        lines.append(
            json.dumps(
                {
                    "prompt": [{"role": "user", "content": question}],
                    "rubrics": [{"criterion": c, "points": p, "tags": t} for c, p, t in rubric],
                    "example_tags": ["theme:communication"]
                    if prompt_id != "hb-2"
                    else ["theme:emergency_referrals"],
                    "prompt_id": prompt_id,
                    "ideal_completions_data": None,
                }
            )
        )
    path = tmp_path / "healthbench_sample.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def scenario_run(home, capsys, tmp_path, llm_server) -> str:
    llm_server.configure(answer=grader_or_candidate)
    code, out, err = run(capsys, "scenario", "import", str(healthbench_file(tmp_path)), "--format", "json")
    assert code == 0, err
    scenario_id = json.loads(out)["scenario"]["scenario_id"]
    code, out, err = run(
        capsys, "run", "--scenario", scenario_id, "--model", "openai/candidate", "--api-base", llm_server.url
    )
    assert code == 0, err
    return json.loads(out)["run_id"]


def test_grade_gives_healthbench_score_by_hand(home, capsys, scenario_run, llm_server):
    before = llm_server.hits
    code, out, err = run(
        capsys,
        "grade",
        "--run",
        scenario_run,
        "--grader",
        GRADERS,
        "--api-base",
        llm_server.url,
        "--format",
        "json",
    )
    assert code == 0, err
    doc = json.loads(out)
    assert llm_server.hits - before == 8 * 3  # one call per criterion per grader
    assert doc["run_id"] == scenario_run and doc["grading_id"].startswith("grading-")
    per_case = {c["id"]: c for c in doc["per_case"]}
    assert per_case["hb-1"]["score"] == pytest.approx(0.125)
    assert per_case["hb-2"]["score"] == pytest.approx(4 / 6)
    assert per_case["hb-3"]["score"] == pytest.approx(-0.5)
    assert per_case["hb-4"]["score"] is None
    assert [(c["criterion"][:6], c["points"], c["met"]) for c in per_case["hb-1"]["criteria"]] == [
        ("States", 5, True),
        ("Names ", 3, False),
        ("Invent", -4, True),
    ]
    assert doc["n"] == 3 and doc["n_unscored"] == 1
    assert doc["score"] == pytest.approx((0.125 + 4 / 6 - 0.5) / 3)
    assert doc["by_tag"]["axis:completeness"]["score"] == pytest.approx(0.625)
    assert doc["by_tag"]["axis:accuracy"] == {
        "score": pytest.approx(0.25),
        "n": 2,
        # exact bootstrap: means 1, 0.25, 0.25, 0 (clipped) -> SD 0.375
        "bootstrap_std": pytest.approx(0.375, abs=0.03),
    }
    assert "axis:communication" not in doc["by_tag"]
    # hb-4's criterion: every grader's reply unreadable, counted and named, never met
    assert doc["n_unparsed"] == 3
    assert {(u["id"], u["grader"]) for u in doc["unparsed"]} == {
        ("hb-4", g) for g in ("openai/grader-a", "openai/grader-b", "openai/grader-c")
    }
    assert per_case["hb-4"]["criteria"][0]["met"] is None

    # stored, and graded again from the cache without a new call
    again = llm_server.hits
    code, out, _ = run(
        capsys, "grade", "--run", scenario_run, "--grader", GRADERS, "--api-base", llm_server.url
    )
    assert code == 0 and llm_server.hits == again
    assert json.loads(out)["score"] == pytest.approx(doc["score"])


def test_grade_refuses_what_it_cannot_grade(home, capsys, scenario_run, llm_server):
    code, _, err = run(
        capsys, "grade", "--run", "run-nope", "--grader", "openai/g", "--api-base", llm_server.url
    )
    assert code == 2 and "no run 'run-nope'" in err
    code, _, err = run(
        capsys, "grade", "--run", scenario_run, "--grader", "openai/g,openai/g", "--api-base", llm_server.url
    )
    assert code == 2 and "named once" in err
    code, _, err = run(
        capsys,
        "grade",
        "--run",
        scenario_run,
        "--grader",
        "openai/g",
        "--api-key-env",
        "NO_SUCH_KEY_VARIABLE_XYZ",
    )
    assert code == 2 and "NO_SUCH_KEY_VARIABLE_XYZ" in err


def test_attach_grading_as_the_scenarios_evidence_with_an_interval_for_a_mean(
    home, capsys, scenario_run, llm_server
):
    from scipy.stats import bootstrap

    from governance.dossier.record import Dossier
    from governance.dossier.store import Store
    from governance.intended_use.records import example_intended_use

    with Store.open(home / "medassure.duckdb") as store:  # closed again before the CLI writes
        store.save(
            Dossier(
                id="D-ds",
                title="Discharge summaries",
                owner="AI committee",
                intended_use=example_intended_use(),
            ),
            author="test",
        )
    code, out, err = run(
        capsys, "grade", "--run", scenario_run, "--grader", "openai/grader-a", "--api-base", llm_server.url
    )
    assert code == 0, err
    grading_id = json.loads(out)["grading_id"]
    code, out, err = run(capsys, "attach", "--grading", grading_id, "--dossier", "D-ds")
    assert code == 0, err
    done = json.loads(out)
    assert done["kind"] == "grading" and done["added"] == 1 and done["version"] == 2
    with Store.open(home / "medassure.duckdb") as store:
        evidence = next(e for e in store.load("D-ds").dossier.evidence if e.source == grading_id)
    scores = [0.125, 4 / 6, -0.5]
    assert (evidence.metric, evidence.model, evidence.n, evidence.provenance) == (
        "rubric_score",
        "openai/candidate",
        3,
        "local-run",
    )
    assert evidence.score == pytest.approx(sum(scores) / 3) and evidence.scale == "0-1"
    ci = bootstrap(
        (scores,),
        lambda x, axis: x.mean(axis=axis),
        method="BCa",
        n_resamples=2000,
        random_state=__import__("numpy").random.default_rng(0),
    ).confidence_interval
    assert evidence.ci_lower == pytest.approx(max(ci.low, 0.0)) and evidence.ci_upper == pytest.approx(
        ci.high
    )
    assert "clipped" in evidence.ci_method and evidence.n_unscored == 1 and evidence.n_unparsed == 1
    # a score rule on the scenario reads it: a verdict from the hospital's own cases
    code, out, err = run(
        capsys,
        "rules",
        "D-ds",
        "--add-score-rule",
        evidence.benchmark,
        "--threshold",
        "0.05",
        "--min-n",
        "3",
        "--why",
        "drafts must earn some of the rubric's points",
    )
    assert code == 0, err
    code, out, err = run(capsys, "assess", "D-ds", "--format", "json")
    assert code == 0, err
    verdict = next(v for v in json.loads(out)["verdicts"] if v["metric"] == "rubric_score")
    # n = 3 is far too few: the bar is inside the interval, no verdict either way (Hoeffding below n = 300)
    assert (verdict["model"], verdict["n"], verdict["verdict"]) == ("openai/candidate", 3, "inconclusive")
    assert verdict["estimate"] == pytest.approx(sum(scores) / 3) and verdict["evidence_ids"] == [evidence.id]
    # again: nothing new, no new version
    code, out, _ = run(capsys, "attach", "--grading", grading_id, "--dossier", "D-ds")
    assert code == 0 and json.loads(out)["added"] == 0 and json.loads(out)["version"] == 3  # 3: the rule
    code, _, err = run(capsys, "attach", "--grading", "grading-nope", "--dossier", "D-ds")
    assert code == 2 and "no grading 'grading-nope'" in err
    code, _, err = run(capsys, "attach", scenario_run, "--grading", grading_id, "--dossier", "D-ds")
    assert code == 2 and "exactly one" in err


def test_grade_batch_gives_the_same_score_through_the_batch_api(home, capsys, scenario_run, llm_server):
    # Issue 37 item 4: graders with --batch, one Batch API job per grader, no direct request.
    llm_server.batches.polls_in_progress = 0
    before = llm_server.hits
    code, out, err = run(capsys, "grade", "--run", scenario_run, "--grader", GRADERS, "--api-base",
                         llm_server.url, "--batch", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert llm_server.hits == before and llm_server.batches.created == 3
    assert llm_server.batches.lines_answered == 8 * 3
    assert doc["score"] == pytest.approx((0.125 + 4 / 6 - 0.5) / 3)
