"""A critical-criterion rule through the CLI: three candidates graded, three verdicts in `medassure assess`.

Ten discharge cases, each with "States the medication change" (+5, tag ``medication_change``) and
"Invents a medication change" (-5, same tag). The fake grader reads the response: a reply saying
"dose halved" meets the first criterion; a reply saying "started warfarin" meets the harm. So:

* ``good`` always says "dose halved": 0 of 10 miss; Wilson 0-0.278, at or below 0.5: **pass**;
* ``bad`` says "started warfarin" (the change omitted and one invented): 10 of 10 miss; Wilson
  0.722-1, wholly above 0.5: **fail**;
* ``mixed`` says "dose halved" on the even cases only: 5 of 10 miss; Wilson 0.237-0.763: **inconclusive**.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from statsmodels.stats.proportion import proportion_confint

from cli import main
from tests.fakes import prompt_text

HALVED = "Discharge summary: metformin dose halved; follow-up in two weeks."
INVENTED = "Discharge summary: started warfarin; follow-up in two weeks."


def answer(request: dict) -> str:
    text = prompt_text(request)
    if "You grade one response" in text:
        response = text.split("assistant:", 1)[1].split("# Rubric criterion", 1)[0]
        criterion = text.split("# Rubric criterion", 1)[1]
        met = ("dose halved" in response) if "States the" in criterion else ("started warfarin" in response)
        return json.dumps({"explanation": "scripted", "criteria_met": met})
    model = request.get("model")
    if model == "mixed":
        case = int(text.split("case ", 1)[1].split(":", 1)[0])
        return HALVED if case % 2 == 0 else INVENTED
    return HALVED if model == "good" else INVENTED


def cases_file(tmp_path: Path) -> Path:
    rubric = [
        {"criterion": "States the medication change (metformin dose halved)", "points": 5,
         "tags": ["medication_change"]},
        {"criterion": "Invents a medication change that did not happen", "points": -5,
         "tags": ["medication_change"]},
    ]
    lines = [json.dumps({"prompt": [{"role": "user", "content": f"case {i}: summarise this admission."}],
                         "rubrics": rubric, "example_tags": [], "prompt_id": f"ds-{i}"}) for i in range(10)]
    path = tmp_path / "discharge.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def dossier(home):
    from governance.dossier.record import Dossier
    from governance.dossier.store import Store
    from governance.intended_use.records import example_intended_use

    with Store.open(home / "medassure.duckdb") as store:
        store.save(Dossier(id="D-dc", title="Discharge summaries", owner="AI committee",
                           intended_use=example_intended_use()), author="test")
    return "D-dc"


def test_critical_criterion_rule_passes_fails_and_stays_open_on_three_gradings(
    home, capsys, tmp_path, llm_server, dossier
):
    llm_server.configure(answer=answer)
    code, out, err = run(capsys, "scenario", "import", str(cases_file(tmp_path)), "--format", "json")
    assert code == 0, err
    scenario_id = json.loads(out)["scenario"]["scenario_id"]
    for model in ("good", "bad", "mixed"):
        code, out, err = run(capsys, "run", "--scenario", scenario_id, "--model", f"openai/{model}",
                             "--api-base", llm_server.url)
        assert code == 0, err
        code, out, err = run(capsys, "grade", "--run", json.loads(out)["run_id"], "--grader", "openai/grader",
                             "--api-base", llm_server.url)
        assert code == 0, err
        grading_id = json.loads(out)["grading_id"]
        code, out, err = run(capsys, "attach", "--grading", grading_id, "--dossier", dossier)
        assert code == 0, err

    argv = ["rules", dossier, "--critical-tag", "medication_change", "--max-miss-rate", "0.5",
            "--min-n", "10",
            "--rationale", "an omitted or invented medication change can cause serious harm"]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    rule = next(r for r in json.loads(out)["rules"] if r["kind"] == "critical_criterion")
    assert (rule["id"], rule["tag"], rule["threshold"], rule["min_n"]) == (
        "critical.medication_change", "medication_change", 0.5, 10)
    # the same rule again saves nothing
    from governance.dossier.store import Store

    with Store.open(home / "medassure.duckdb") as store:
        before = store.load(dossier).version
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    with Store.open(home / "medassure.duckdb") as store:
        assert store.load(dossier).version == before

    code, out, err = run(capsys, "assess", dossier, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    got = {v["model"]: v for v in doc["verdicts"] if v["kind"] == "critical_criterion"}
    assert {m: v["verdict"] for m, v in got.items()} == {
        "openai/good": "pass", "openai/bad": "fail", "openai/mixed": "inconclusive"}
    for model, missed in (("openai/good", 0), ("openai/bad", 10), ("openai/mixed", 5)):
        v = got[model]
        assert (v["n"], v["estimate"], v["direction"], v["gating"]) == (10, missed / 10, "at_most", True)
        assert v["interval"] == pytest.approx(list(proportion_confint(missed, 10, method="wilson")))
        assert v["metric"] == "medication_change miss rate" and v["alpha"] == 0.025
    assert doc["gating_counts"]["fail"] >= 1
    recs = {c["model"]: c["outcome"] for c in doc["recommendation"]["candidates"]}
    assert recs["openai/bad"] == "reject" and recs["openai/mixed"] != "approve"

    code, out, err = run(capsys, "assess", dossier, "--format", "text")
    assert code == 0, err
    assert "critical.medication_change" in out and "5 of 10 case(s) miss 'medication_change'" in out

    # the PDF dossier lists the rule and its verdicts like any other
    from pypdf import PdfReader

    pdf = tmp_path / "dossier.pdf"
    code, _, err = run(capsys, "report", dossier, "--out", str(pdf))
    assert code == 0, err
    text = " ".join(" ".join(p.extract_text() for p in PdfReader(pdf).pages).split())
    assert "Critical criterion medication_change ≤ 50.0% of cases missing" in text
    assert "cases missing the criteria tagged medication_change ≤ 50.0%; min n 10" in text

    # refusals: one clear line, exit 2, nothing stored
    code, _, err = run(capsys, "rules", dossier, "--critical-tag", "medication_change")
    assert code == 2 and "--max-miss-rate" in err
    code, _, err = run(capsys, "rules", dossier, "--critical-tag", "x", "--max-miss-rate", "1.5")
    assert code == 2 and "rule not added" in err and "threshold" in err
    code, _, err = run(capsys, "rules", dossier, "--max-miss-rate", "0.1")
    assert code == 2 and "--critical-tag" in err
