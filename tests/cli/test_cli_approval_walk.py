"""A CLI-only approval from create to signed report with no ``--override-gaps`` (issue 27, item 13).

The mapping, the cost profile and the review and monitoring plan now have commands of their own
(``medassure mapping``, ``cost``, ``oversight``), each saved through the operations; repeating one with
the same values saves nothing. An identical re-evaluation run twice appears once in the PDF, with the
repeat named in one line. Every step is a ``python -m cli`` subprocess (``tests/cli/test_cli_walk.py``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli.test_cli_walk import PRICES, Cli
from tests.governance.reevaluation_fixtures import MODEL_A, N, scripted_models

SUB = "supporting_diagnostic_decisions"


@pytest.fixture
def cli(tmp_path):
    walk = Cli(tmp_path / "home")
    yield walk
    print("\nCLI approval walk:\n  " + "\n  ".join(walk.log))


def versions(cli: Cli, dossier: str) -> int:
    return len(cli.json("dossier", "history", dossier))


def pdf_text(path) -> str:
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout


@pytest.mark.slow  # ~20 `python -m cli` processes
def test_create_to_signed_report_without_override(cli, tmp_path, llm_server):
    llm_server.configure(answer=scripted_models())
    use = tmp_path / "use.json"
    use.write_text(cli("dossier", "example").stdout)
    bare = cli("dossier", "create", "--file", str(use), "--title", "Calculator helper").stdout.strip()
    assert bare.startswith("D-") and "\n" not in bare  # the bare id stays the default
    created = cli.json("dossier", "create", "--file", str(use), "--title", "Calculator helper (JSON)",
                       "--format", "json")
    dossier = created["id"]
    assert created["version"] == 1 and len(created["hash"]) == 64 and created["risk_tier"]

    bad = cli("mapping", dossier, "--accept", "no_such_subcategory", expect=2)
    assert "no_such_subcategory" in bad.stderr and versions(cli, dossier) == 1  # nothing stored
    mapped = cli.json("mapping", dossier, "--accept", SUB, "--note", "dose calculations")
    assert mapped["changed"] and mapped["accepted"] == [SUB] and mapped["version"] == 2
    assert mapped["decisions"][0]["subcategory"] == "Supporting Diagnostic Decisions"
    again = cli.json("mapping", dossier, "--accept", SUB, "--note", "dose calculations")
    assert not again["changed"] and again["version"] == 2  # same decision: no new version
    assert cli.json("mapping", dossier)["accepted"] == [SUB]  # the list

    cli.json("rules", dossier, "--add-score-rule", "calc_builtin", "--threshold", "0.8", "--min-n", str(N))
    cli.json("rules", dossier, "--lock")
    run = cli.json("run", "--benchmark", "calc_builtin", "--limit", str(N), "--model", MODEL_A,
                   "--api-base", llm_server.url, *PRICES, "--dossier", dossier)
    assert run["status"] == "completed" and run["attached"]["added"] >= 1

    missing = cli("cost", dossier, "--model", "openai/nobody", expect=2)
    assert "openai/nobody" in missing.stderr
    cost = cli.json("cost", dossier, "--model", MODEL_A)  # token means measured from the dossier's run
    profile = cost["profile"]
    assert cost["changed"] and profile["model"] == MODEL_A and profile["mean_prompt_tokens"] > 0
    assert run["run_id"] in profile["source"]
    n = versions(cli, dossier)
    assert not cli.json("cost", dossier, "--model", MODEL_A)["changed"] and versions(cli, dossier) == n

    plan = cli.json("oversight", dossier, "--model", MODEL_A, "--owner", "Pharmacy informatics")
    assert plan["changed"] and plan["oversight"]["monitoring"]["owner"] == "Pharmacy informatics"
    n = versions(cli, dossier)
    same = cli.json("oversight", dossier, "--model", MODEL_A, "--owner", "Pharmacy informatics")
    assert not same["changed"] and versions(cli, dossier) == n
    bad_rate = cli("oversight", dossier, "--qa-sample-rate", "7", expect=2)
    assert "qa_sample_rate" in bad_rate.stderr and versions(cli, dossier) == n

    assert "--override-gaps" not in " ".join(cli.log)
    decided = cli.json("decide", dossier, "--decision", "approve", "--model", MODEL_A, "--roles",
                       "clinical lead", "--rationale", "Model A gets every calculator case right.")
    assert decided["decision"]["model"] == MODEL_A and not decided["decision"].get("gaps_override")
    assert cli.json("signoff", dossier, "--role", "clinical lead", "--name", "Dr. Lee")["status"]["complete"]

    cli.json("reevaluate", dossier)
    cli.json("reevaluate", dossier)  # the same unchanged re-evaluation again
    pdf = tmp_path / "dossier.pdf"
    report = cli.json("report", dossier, "--out", str(pdf))
    assert pdf.read_bytes()[:5] == b"%PDF-" and report["files"]["pdf"]["bytes"] > 1000
    text = pdf_text(pdf)
    if text.count("Would this change the decision?") != 1:  # say what differs between the two
        import json

        from governance.dossier.store import Store
        from reports.sections_reevaluation import _result_key

        store = Store.open(Path(cli.env["MEDASSURE_HOME"]) / "medassure.duckdb")
        keys = [json.loads(_result_key(a)) for a in store.load(dossier).dossier.reevaluations]
        store.close()
        pytest.fail(f"an identical re-evaluation shown twice: {keys}")
    assert "Repeated with the same results" in text
