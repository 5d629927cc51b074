"""``medassure attach``, ``run --dossier`` and the rule edits of ``medassure rules``, in process."""

from __future__ import annotations

import json

import pytest

from cli import main
from evaluator.scenarios import preview_import, record_offline_run
from governance.demo.scenario import demo_answers, demo_cases_csv
from governance.dossier.record import Dossier
from governance.identity import Actor
from governance.intended_use.records import example_intended_use
from governance.scenarios.operations.local import import_for_dossier

PRICES = ["--input-price", "0.5", "--output-price", "1.5"]


def run(capsys, *argv) -> tuple[int, dict | list | None, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip()[:1] in ("{", "[") else None, out.err


@pytest.fixture
def dossier(store) -> str:
    d = Dossier(id="D-cli", title="Calculator helper", owner="AI committee",
                intended_use=example_intended_use())
    store.save(d, author="test")
    return d.id


def calc_run(llm_server, *extra: str) -> list[str]:
    return ["run", "--benchmark", "calc_builtin", "--limit", "5", "--model", "openai/fake", "--api-base",
            llm_server.url, *PRICES, *extra]


def test_run_dossier_attaches_a_benchmark_run(dossier, store, llm_server, capsys):
    llm_server.configure(answer=lambda r: "Answer: 12")
    code, out, err = run(capsys, *calc_run(llm_server, "--dossier", dossier))
    assert code == 0, err
    attached = out["attached"]
    assert (attached["dossier_id"], attached["kind"], attached["added"]) == (dossier, "benchmark", 1)
    evidence = store.load(dossier).dossier.evidence
    assert [(e.provenance, e.run_id, e.model, e.n) for e in evidence] == [
        ("local-run", out["run_id"], "openai/fake", 5)]
    assert attached["version"] == store.load(dossier).version == 2
    code, again, err = run(capsys, "attach", out["run_id"], "--dossier", dossier)
    assert code == 0 and again["added"] == 0 and again["version"] == 2 and "already attached" in err


def test_missing_dossier_exits_2_before_anything_runs(home, llm_server, capsys):
    code, out, err = run(capsys, *calc_run(llm_server, "--dossier", "D-nope"))
    assert code == 2 and out is None and "D-nope" in err and llm_server.hits == 0
    code, _, err = run(capsys, "attach", "run-x", "--dossier", "D-nope")
    assert code == 2 and "D-nope" in err


def test_unknown_and_stopped_runs_are_not_attached(dossier, store, llm_server, capsys):
    code, _, err = run(capsys, "attach", "run-20990101-000000-000000", "--dossier", dossier)
    assert code == 2 and "no stored run" in err
    llm_server.configure(answer=lambda r: "Answer: 1")
    code, out, err = run(capsys, "run", "--benchmark", "calc_builtin", "--limit", "10", "--concurrency", "1",
                         "--model", "openai/fake", "--api-base", llm_server.url, "--max-cost", "0.05",
                         "--input-price", "100", "--output-price", "100", "--dossier", dossier)
    assert code == 3 and out["status"] == "budget_exceeded" and out["attached"] is None
    assert "not attached" in err and store.load(dossier).dossier.evidence == []
    code, _, err = run(capsys, "attach", out["run_id"], "--dossier", dossier)
    assert code == 2 and "budget_exceeded" in err


def test_attach_takes_a_local_scenario_run(dossier, store, capsys):
    preview = preview_import("triage.csv", demo_cases_csv())
    version = import_for_dossier(store, preview, name="Portal triage", actor=Actor.named("test"),
                                 dossier=store.load(dossier).dossier,
                                 subcategory_ids=["patient_provider_messaging"])
    answers = demo_answers(store.scenarios, version.scenario_id, version.version)
    run_id = record_offline_run(store, version, "demo-model", answers, endpoint_name="offline")
    code, out, err = run(capsys, "attach", run_id, "--dossier", dossier)
    assert code == 0, err
    assert out["kind"] == "scenario" and out["added"] == 1
    (e,) = store.load(dossier).dossier.evidence
    assert e.run_id == run_id and e.n == 40 and e.subcategory == "Patient-Provider Messaging"
    assert {g.group for g in e.subgroups if g.tag == "language"} == {"en", "es", "vi"}


def test_rules_add_replace_remove_and_list(dossier, store, capsys):
    code, policy, _ = run(capsys, "rules", dossier, "--add-score-rule", "MedicationQA", "--threshold", "0.7")
    assert code == 0
    (rule,) = policy["rules"]
    # no --min-n: the dossier's tier's minimum n (the example use is moderate: 100), never 0 (issue 24)
    assert (rule["id"], rule["kind"], rule["threshold"], rule["min_n"]) == (
        "score.medicationqa", "score", 0.7, 100)
    assert "(the default for risk tier moderate)" in rule["rationale"]
    code, policy, _ = run(capsys, "rules", dossier, "--add-score-rule", "MedicationQA", "--threshold", "0.75",
                          "--min-n", "100", "--rationale", "Patient answers must be right 3 times in 4.")
    assert [(r["threshold"], r["min_n"], r["rationale"][:15]) for r in policy["rules"]] == [
        (0.75, 100, "Patient answers")]
    assert main(["rules", dossier, "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert "score.medicationqa" in text and "min n 100" in text and "Not locked." in text
    code, policy, _ = run(capsys, "rules", dossier, "--remove", "score.medicationqa")
    assert code == 0 and policy["rules"] == []
    assert store.history(dossier)[-1].note == "rule score.medicationqa removed"


def test_rules_bad_input_exits_2(dossier, capsys):
    code, _, err = run(capsys, "rules", dossier, "--add-score-rule", "MedicationQA")
    assert code == 2 and "--threshold" in err
    code, _, err = run(capsys, "rules", dossier, "--threshold", "0.5")
    assert code == 2 and "--add-score-rule" in err
    code, _, err = run(capsys, "rules", dossier, "--add-score-rule", "MedicationQA", "--threshold", "1.5")
    assert code == 2 and "threshold" in err
    code, _, err = run(capsys, "rules", dossier, "--remove", "no.such.rule")
    assert code == 2 and "no.such.rule" in err
    code, policy, err = run(capsys, "rules", dossier, "--add-score-rule", "MedicatonQA", "--threshold", "0.5")
    assert code == 0 and "warning" in err and "MedicatonQA" in err
    assert policy["rules"][0]["benchmark"] == "MedicatonQA"


def test_locked_rules_change_only_with_a_reason(dossier, store, capsys):
    code, policy, _ = run(capsys, "rules", dossier, "--add-score-rule", "calc_builtin", "--threshold", "0.8",
                          "--lock", "--by", "chair")
    assert code == 0 and policy["lock"]["locked_by"] == "chair"
    assert store.history(dossier)[-1].note == "rule score.calc_builtin set and rules locked"
    code, _, err = run(capsys, "rules", dossier, "--add-score-rule", "calc_builtin", "--threshold", "0.9")
    assert code == 2 and "reason" in err
    code, policy, _ = run(capsys, "rules", dossier, "--add-score-rule", "calc_builtin", "--threshold", "0.9",
                          "--why", "The CMIO asked for a stricter bar.", "--by", "cmio")
    (change,) = policy["changes"]
    assert (change["old"]["threshold"], change["new"]["threshold"], change["by"]) == (0.8, 0.9, "cmio")
    assert change["why"] == "The CMIO asked for a stricter bar."
