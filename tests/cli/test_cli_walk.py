"""A dossier built, decided and re-evaluated from the command line alone, as a CI pipeline would.

Every step is a ``python -m cli ...`` subprocess with MEDASSURE_HOME in a temporary folder; the only
thing in this process is the local test server (tests/fakes.py), which answers as model A (always
right) or model B (wrong on three known calculator cases, ``bad_ids``). The walk: create → rules →
lock → run → attach → decide → sign-off → report → re-evaluate unchanged (exit 0, nothing sent) →
re-evaluate with model B (exit 3, exactly the three cases). The commands and exit codes are
printed (``pytest -s``) so they can be quoted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.governance.reevaluation_fixtures import MODEL_A, MODEL_B, N, bad_ids, scripted_models

REPO = Path(__file__).resolve().parents[2]
PRICES = ["--input-price", "0.5", "--output-price", "1.5"]  # no price lookup (it imports litellm)


class Cli:
    """Runs ``python -m cli`` in a fresh home and keeps a log of commands and exit codes."""

    def __init__(self, home: Path) -> None:
        self.env = {**os.environ, "MEDASSURE_HOME": str(home), "MEDASSURE_USER": "ci-pipeline",
                    "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                    "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        self.log: list[str] = []

    def __call__(self, *argv: str, expect: int = 0) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "cli", *argv], cwd=REPO, env=self.env,
                              capture_output=True, text=True, timeout=300)
        self.log.append(f"exit {proc.returncode}  medassure {' '.join(argv)}")
        assert proc.returncode == expect, f"{argv}: exit {proc.returncode}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    def json(self, *argv: str, expect: int = 0):
        return json.loads(self(*argv, expect=expect).stdout)


@pytest.fixture
def cli(tmp_path):
    walk = Cli(tmp_path / "home")
    yield walk
    print("\nCLI walk:\n  " + "\n  ".join(walk.log))


def decide_gap_flags(cli: Cli) -> list[str]:
    """The decision-gap override, when this checkout's ``decide`` has one.

    Cost inputs, the review plan and the monitoring plan have no command of their own yet (the
    Cost and Review pages record them), so a CLI-only pipeline records the override with its reason.
    """
    return ["--override-gaps", "CLI walk test"] if "--override-gaps" in cli("decide", "--help").stdout else []


@pytest.mark.slow  # a dozen `python -m cli` processes: ~30 s here
def test_create_rules_lock_run_attach_decide_signoff_report_reevaluate(cli, tmp_path, llm_server):
    llm_server.configure(answer=scripted_models())
    use = tmp_path / "use.json"
    use.write_text(cli("dossier", "example").stdout)
    title = "Calculator helper (CLI walk)"
    dossier = cli("dossier", "create", "--file", str(use), "--title", title).stdout.strip()
    assert dossier.startswith("D-")

    policy = cli.json("rules", dossier, "--add-score-rule", "calc_builtin", "--threshold", "0.8",
                      "--min-n", str(N))
    (rule,) = policy["rules"]
    assert (rule["id"], rule["benchmark"], rule["threshold"], rule["min_n"]) == ("score.calc_builtin",
                                                                                "calc_builtin", 0.8, N)
    assert "score.calc_builtin" in cli("rules", dossier, "--format", "text").stdout
    assert cli.json("rules", dossier, "--lock")["lock"]["locked_by"] == "ci-pipeline"

    endpoint = ["--model", MODEL_A, "--api-base", llm_server.url, *PRICES]
    missing = cli("run", "--benchmark", "calc_builtin", "--limit", str(N), *endpoint, "--dossier", "D-nope",
                  expect=2)
    assert "D-nope" in missing.stderr and llm_server.hits == 0, "nothing is run for a missing dossier"
    run = cli.json("run", "--benchmark", "calc_builtin", "--limit", str(N), *endpoint)
    assert (run["status"], run["n"], run["new_requests"], run["transport"]) == ("completed", N, N, "openai")
    attached = cli.json("attach", run["run_id"], "--dossier", dossier)
    assert attached["kind"] == "benchmark" and attached["added"] >= 1

    verdicts = cli.json("assess", dossier)["verdicts"]
    assert [(v["rule_id"], v["verdict"]) for v in verdicts if v["model"] == MODEL_A] == [
        ("score.calc_builtin", "pass")]
    decided = cli.json("decide", dossier, "--decision", "approve", "--model", MODEL_A,
                       "--roles", "clinical lead", "--rationale", "Model A gets every calculator case right.",
                       *decide_gap_flags(cli))
    assert decided["decision"]["model"] == MODEL_A
    signed = cli.json("signoff", dossier, "--role", "clinical lead", "--name", "Dr. Lee")
    assert signed["status"]["complete"] is True
    pdf = tmp_path / "dossier.pdf"
    report = cli.json("report", dossier, "--out", str(pdf))
    assert pdf.read_bytes()[:5] == b"%PDF-" and report["files"]["pdf"]["bytes"] > 1000

    hits = llm_server.hits
    same = cli.json("reevaluate", dossier)
    # a re-evaluation observes the model, never the cache: the unchanged one asks again, and nothing flips
    assert (same["new_requests"], same["cache_hits"], same["verdict_changes"]) == (N, 0, [])
    assert llm_server.hits == hits + N, "an unchanged re-evaluation asks the model again"

    worse = cli.json("reevaluate", dossier, "--model", MODEL_B, *PRICES, expect=3)
    (bench,) = worse["benchmarks"]
    assert bench["flipped"] == {"worse": bad_ids(), "better": []}
    assert worse["verdicts_flipped"] is True and worse["new_requests"] == N
    assert llm_server.hits == hits + 2 * N  # the unchanged re-run above, then this one
