"""The one PHI gate on every path that sends cases or outputs (benchmark file, scenario, jury, re-evaluation).

For each path, a file of identifiers bound for an endpoint not approved for PHI is blocked with
exit 5 and 0 requests reach the test server; with a recorded de-identification attestation it
runs; with an endpoint approved for PHI it runs. The attestation shows in the dossier.
"""

from __future__ import annotations

import json

import pytest

from cli import main
from evaluator.phi.attestation import AttestationInput
from governance.identity import Actor
from governance.scenarios.operations.deidentification import attest_file
from tests.fakes import prompt_text

CASES = [
    ("c1", "Patient John Smith, 67, MRN 4471223, called 555-867-5309 about his potassium.", "K?", "4.1"),
    ("c2", "Mrs. Garcia (DOB 3/4/52) reports dizziness.", "Sodium?", "131"),
    ("c3", "Follow-up: SS# 123 45 6789 on file; asks about INR.", "INR?", "2.5"),
]
JUDGES = "openai/judge-a,openai/judge-b,openai/judge-c"
GOOD = json.dumps({"accuracy": {"score": 4}, "completeness": {"score": 3}, "clarity": {"score": 5}})


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def answer(request: dict) -> str:
    """Candidate: the reference of the case it is asked about; judges: a usable grade."""
    text = prompt_text(request)
    if "CANDIDATE" in text:
        return GOOD
    return next((ref for _, ctx, _, ref in CASES if ctx in text), "0")


@pytest.fixture
def cases_csv(tmp_path):
    path = tmp_path / "cases.csv"
    lines = ["id,context,question,reference"] + [f'{i},"{c}",{q},{r}' for i, c, q, r in CASES]
    path.write_text("\n".join(lines) + "\n")
    return path


def bench_args(server, path, *extra) -> list[str]:
    return ["run", "--benchmark", "generic", "--dataset-file", str(path), "--model", "openai/cand",
            "--api-base", server.url, "--format", "json", *extra]


# ---- benchmark run on a user file ------------------------------------------------------------


def test_benchmark_on_a_file_of_identifiers_is_blocked_with_nothing_sent(home, capsys, llm_server, cases_csv):
    llm_server.configure(answer=answer)
    code, out, err = run(capsys, *bench_args(llm_server, cases_csv))
    doc = json.loads(out)
    assert code == 5 and llm_server.hits == 0
    assert doc["blocked"] is True and doc["phi_check"]["basis"] == "blocked"
    assert {"name", "mrn", "phone", "dob", "ssn"} <= set(doc["phi_check"]["counts"])
    assert "Nothing was sent" in err and "--deidentified-by" in err and "--phi-approved" in err
    examples = " ".join(doc["phi_check"]["examples"])
    assert "555-867-5309" not in examples and "4471223" not in examples and "case c1" in examples


def test_a_dry_run_foresees_the_block_and_exits_5(home, capsys, llm_server, cases_csv):
    code, out, err = run(capsys, *bench_args(llm_server, cases_csv, "--dry-run"))
    doc = json.loads(out)
    assert code == 5 and llm_server.hits == 0
    assert doc["dry_run"] is True and doc["blocked"] is True and doc["n_to_send"] == 3
    assert doc["phi_check"]["basis"] == "blocked" and {"mrn", "ssn"} <= set(doc["phi_check"]["counts"])
    assert "would be blocked" in err and "--deidentified-by" in err and "Traceback" not in err
    code, out, err = run(capsys, *bench_args(llm_server, cases_csv, "--dry-run", "--phi-approved"))
    assert code == 0 and "blocked" not in json.loads(out), err
    code, out, err = run(capsys, *bench_args(llm_server, cases_csv, "--dry-run", "--deidentified-by", "Dr. P",
                                             "--deidentification-method", "safe_harbor"))
    assert code == 0 and "would be recorded" in err and llm_server.hits == 0
    code, _, err = run(capsys, *bench_args(llm_server, cases_csv))
    assert code == 5, "the dry run recorded nothing: the real run is still blocked"


def test_benchmark_with_an_attestation_runs_and_records_it(home, capsys, llm_server, cases_csv):
    llm_server.configure(answer=answer)
    code, out, err = run(capsys, *bench_args(llm_server, cases_csv, "--deidentified-by", "Dr. Privacy",
                                             "--deidentification-method", "expert_determination"))
    assert code == 0, err
    assert json.loads(out)["n"] == 3 and llm_server.hits == 3
    assert "recorded attestation A-" in err and "attested by Dr. Privacy" in err
    # the attestation is kept with the file's hash: a second model on the same file needs no flags
    code, _, err = run(capsys, *bench_args(llm_server, cases_csv)[:-4], "--model", "openai/other",
                       "--api-base", llm_server.url, "--format", "json")
    assert code == 0, err
    # a changed file is not covered
    cases_csv.write_text(cases_csv.read_text() + 'c4,"Call Mr. Jones at 555-201-7788",K?,4\n')
    hits = llm_server.hits
    code, _, _ = run(capsys, *bench_args(llm_server, cases_csv))
    assert code == 5 and llm_server.hits == hits


def test_benchmark_on_an_approved_endpoint_runs(home, capsys, llm_server, cases_csv):
    llm_server.configure(answer=answer)
    code, out, err = run(capsys, *bench_args(llm_server, cases_csv, "--phi-approved"))
    assert code == 0, err
    assert json.loads(out)["n"] == 3 and llm_server.hits == 3


def test_an_attestation_needs_a_name_a_method_and_a_file(home, capsys, llm_server, cases_csv):
    code, _, err = run(capsys, *bench_args(llm_server, cases_csv, "--deidentified-by", "x"))
    assert code == 2 and "--deidentification-method" in err
    code, _, err = run(capsys, "run", "--benchmark", "calc_builtin", "--model", "openai/c", "--api-base",
                       llm_server.url, "--deidentified-by", "x", "--deidentification-method", "safe_harbor")
    assert code == 2 and "--dataset-file" in err and llm_server.hits == 0


# ---- local scenario ---------------------------------------------------------------------------


def imported_scenario(capsys, path) -> str:
    code, out, err = run(capsys, "scenario", "import", str(path), "--name", "Phone notes")
    assert code == 0, err
    return json.loads(out)["scenario"]["scenario_id"]


def scenario_args(server, sid, *extra) -> list[str]:
    return ["run", "--scenario", sid, "--model", "openai/cand", "--api-base", server.url, *extra]


def test_scenario_blocked_attested_and_approved(home, capsys, llm_server, cases_csv):
    llm_server.configure(answer=answer)
    sid = imported_scenario(capsys, cases_csv)
    code, out, err = run(capsys, *scenario_args(llm_server, sid))
    assert code == 5 and llm_server.hits == 0 and json.loads(out)["blocked"] is True
    assert "--deidentification-method" in err
    code, _, err = run(capsys, *scenario_args(llm_server, sid, "--phi-approved"))
    assert code == 0, err
    assert llm_server.hits == 3
    code, out, err = run(capsys, *scenario_args(llm_server, sid, "--model", "openai/other",
                                                "--deidentified-by", "Privacy Office",
                                                "--deidentification-method", "safe_harbor"))
    assert code == 0, err
    assert json.loads(out)["phi_check"]["basis"] == "attested" and llm_server.hits == 6


# ---- jury pass --------------------------------------------------------------------------------


@pytest.fixture
def approved_run(home, capsys, llm_server, cases_csv) -> str:
    llm_server.configure(answer=answer)
    code, out, err = run(capsys, *bench_args(llm_server, cases_csv, "--phi-approved"))
    assert code == 0, err
    return json.loads(out)["run_id"]


def jury_args(server, run_id, path, *extra) -> list[str]:
    return ["jury", "--run", run_id, "--judges", JUDGES, "--api-base", server.url,
            "--dataset-file", str(path), "--format", "json", *extra]


def test_jury_blocked_then_attested(approved_run, capsys, llm_server, cases_csv, store):
    before = llm_server.hits
    code, out, err = run(capsys, *jury_args(llm_server, approved_run, cases_csv))
    assert code == 5 and llm_server.hits == before, "no judge request may be sent"
    assert json.loads(out)["phi_check"]["basis"] == "blocked" and "judge-a" in err
    assert store.juries.list_juries() == [], "a blocked jury is not recorded"
    code, out, err = run(capsys, *jury_args(llm_server, approved_run, cases_csv, "--deidentified-by", "Dr. P",
                                           "--deidentification-method", "safe_harbor"))
    assert code == 0, err
    assert json.loads(out)["n_scored"] == 3 and llm_server.hits == before + 9


def test_jury_with_approved_judges_runs(approved_run, capsys, llm_server, cases_csv):
    before = llm_server.hits
    code, out, err = run(capsys, *jury_args(llm_server, approved_run, cases_csv, "--phi-approved"))
    assert code == 0, err
    assert json.loads(out)["n_scored"] == 3 and llm_server.hits == before + 9


def test_jury_scans_the_outputs_too(home, capsys, llm_server, tmp_path):
    """Clean cases, but the candidate's outputs carry an identifier: the judges may not see them."""
    clean = tmp_path / "clean.csv"
    clean.write_text("id,context,question,reference\nq1,Potassium 4.1 mmol/L.,K?,4.1\n")
    leaky = "Call me at 555-867-5309"
    llm_server.configure(answer=lambda r: GOOD if "CANDIDATE" in prompt_text(r) else leaky)
    code, out, err = run(capsys, *bench_args(llm_server, clean))
    assert code == 0, err
    run_id = json.loads(out)["run_id"]
    before = llm_server.hits
    code, out, err = run(capsys, *jury_args(llm_server, run_id, clean))
    doc = json.loads(out)
    assert code == 5 and llm_server.hits == before
    assert doc["phi_check"]["counts"] == {"phone": 1} and "model output" in doc["phi_check"]["examples"][0]


# ---- re-evaluation ----------------------------------------------------------------------------


def decided_dossier(store, server, path) -> str:
    """A dossier decided on a run of the generic benchmark on ``path`` (endpoint approved for PHI)."""
    from evaluator.gateway.llm import ModelEndpoint
    from evaluator.runs.jobs import RunRequest
    from governance.decision.operations import decide as actions_decision
    from governance.dossier.record import Dossier
    from governance.intended_use.records import example_intended_use
    from governance.runs.operations.jobs import start_run
    from governance.runs.operations.view import attach_run

    d = Dossier(id="D-phi", title="Phone notes helper", owner="AI committee",
                intended_use=example_intended_use())
    store.save(d, author="seed", note="created")
    endpoint = ModelEndpoint(name="Model A (on premises)", model="openai/model-a", api_base=server.url,
                             transport="openai", phi_approved=True, input_price_per_mtok=0.5,
                             output_price_per_mtok=1.5)
    job = start_run(store, RunRequest(benchmark_id="generic", dataset_path=str(path), endpoint=endpoint))
    progress = job.join(120)
    assert progress.state == "completed", progress
    attach_run(store, "D-phi", progress.run_id, actor=Actor.named("seed"))
    d = actions_decision.decide(store.load("D-phi").dossier, "approve", "Model A answers the notes.", [],
                         by="chair", model="openai/model-a", required_roles=[], store=store,
                         override_gaps="No cost or oversight plan in this fixture.")
    store.save(d, author="chair", note="decision: approve")
    return "D-phi"


def test_reevaluation_blocked_attested_and_approved(home, store, capsys, llm_server, cases_csv):
    llm_server.configure(answer=answer)
    dossier_id = decided_dossier(store, llm_server, cases_csv)
    before = llm_server.hits
    args = ["reevaluate", dossier_id, "--model", "openai/model-b", "--by", "qa", "--input-price", "1",
            "--output-price", "1"]
    code, out, err = run(capsys, *args)
    assert code == 5 and llm_server.hits == before, "a changed endpoint loses the PHI approval"
    assert json.loads(out)["phi_check"]["basis"] == "blocked" and "Nothing was sent" in err
    code, _, err = run(capsys, *args, "--phi-approved")
    assert code in (0, 3), err
    assert llm_server.hits == before + 3
    attest_file(store, cases_csv, AttestationInput(attested_by="Dr. P", method="safe_harbor"), dossier_id)
    code, _, err = run(capsys, *args[:2], "--model", "openai/model-c", *args[4:])
    assert code in (0, 3), err
    assert llm_server.hits == before + 6
    shown = store.load(dossier_id).dossier.deidentification
    assert [a.attested_by for a in shown] == ["Dr. P"] and shown[0].method == "safe_harbor"


# ---- prompts, system messages and few-shot examples -------------------------------------------

PHI_PROMPT = "Patient John Smith (MRN 12345678) is the example.\n{context}\n{question}"


@pytest.fixture
def clean_csv(tmp_path):
    path = tmp_path / "clean.csv"
    path.write_text("id,context,question,reference\nq1,Potassium 4.1 mmol/L.,K?,4.1\n"
                    "q2,Sodium 131 mmol/L.,Na?,131\n")
    return path


def test_reevaluation_with_a_prompt_file_naming_a_patient_is_blocked(home, store, capsys, llm_server,
                                                                     clean_csv, tmp_path):
    """Issue 25 item 7: the prompt file's text went to an unapproved endpoint (1 request)."""
    llm_server.configure(answer=lambda r: "4.1")
    dossier_id = decided_dossier(store, llm_server, clean_csv)
    prompt = tmp_path / "p.txt"
    prompt.write_text(PHI_PROMPT)
    before = llm_server.hits
    args = ["reevaluate", dossier_id, "--model", "openai/model-b", "--by", "qa", "--input-price", "1",
            "--output-price", "1", "--format", "json"]
    code, out, err = run(capsys, *args, "--prompt-file", str(prompt))
    assert code == 5 and llm_server.hits == before, "nothing may be sent"
    check = json.loads(out)["phi_check"]
    assert check["basis"] == "blocked" and {"name", "mrn"} <= set(check["counts"])
    assert any(e.startswith("prompt template:") for e in check["examples"])
    assert "John Smith" not in out and "12345678" not in out and "in the prompt" in err
    # an attestation of the cases' file does not cover the prompt
    attest_file(store, clean_csv, AttestationInput(attested_by="Dr. P", method="safe_harbor"), dossier_id)
    code, _, _ = run(capsys, *args, "--prompt-file", str(prompt))
    assert code == 5 and llm_server.hits == before
    # a system message in a YAML prompt file is scanned too
    system = tmp_path / "p.yaml"
    system.write_text("system_prompt: 'Few-shot example: Mrs. Aoife Byrne, call 087 555 1234.'\n")
    code, out, _ = run(capsys, *args, "--prompt-file", str(system))
    assert code == 5 and llm_server.hits == before
    assert any(e.startswith("system prompt:") for e in json.loads(out)["phi_check"]["examples"])
    # the same change with a clean prompt runs: it was the prompt that blocked
    prompt.write_text("Answer briefly.\n{context}\n{question}")
    code, _, err = run(capsys, *args, "--prompt-file", str(prompt))
    assert code in (0, 3), err
    assert llm_server.hits == before + 2
    # an endpoint approved for PHI may receive the prompt
    prompt.write_text(PHI_PROMPT)
    code, _, err = run(capsys, *args[:3], "openai/model-c", *args[4:], "--prompt-file", str(prompt),
                       "--phi-approved")
    assert code in (0, 3), err
    assert llm_server.hits == before + 4
