"""The CLI contract of ``evidence published``, ``winrate`` and ``import-helm``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli import main

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / ".." / "shared" / "helm_runs" / "suite_simple"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_evidence_published_json(home, capsys):
    code, out, _ = run(capsys, "evidence", "published", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 333
    code, out, _ = run(capsys, "evidence", "published", "--benchmark", "MedQA", "--model", "DeepSeek R1")
    (row,) = json.loads(out)
    assert row["score"] == 0.857 and row["provenance"] == "published"
    assert row["ci_lower"] < 0.857 < row["ci_upper"] and "Wilson" in row["ci_method"]


def test_evidence_published_unknown_benchmark_exits_2(home, capsys):
    code, out, err = run(capsys, "evidence", "published", "--benchmark", "NoSuch")
    assert code == 2 and out == "" and "NoSuch" in err and "Traceback" not in err


def test_winrate_published_matches_medhelm(home, capsys):
    code, out, _ = run(capsys, "winrate", "--published", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and [r["model"] for r in rows][:2] == ["DeepSeek R1", "o3-mini (2025-01-31)"]
    by_model = {r["model"]: r for r in rows}
    assert by_model["DeepSeek R1"]["mean_win_rate"] == pytest.approx(0.662, abs=0.002)
    assert by_model["Gemini 1.5 Pro (001)"]["mean_win_rate"] == pytest.approx(0.235, abs=0.002)
    assert all(r["n_columns"] == 37 for r in rows)


def test_winrate_from_a_scores_file(home, capsys, tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("model,benchmark,score,lower_is_better\n"
                    "a,acc,0.9,false\nb,acc,0.5,false\nc,acc,0.5,false\n"
                    "a,err,0.1,true\nb,err,0.2,true\nc,err,0.3,true\n")
    code, out, _ = run(capsys, "winrate", "--scores", str(path))
    rows = {r["model"]: r["mean_win_rate"] for r in json.loads(out)}
    assert code == 0
    assert rows == pytest.approx({"a": 1.0, "b": 0.375, "c": 0.125})


@pytest.mark.parametrize("content,message", [
    ("model,benchmark,score\na,x,1\n", "missing column(s) ['lower_is_better']"),
    ("model,benchmark,score,lower_is_better\na,x,high,false\n", "row 2: score 'high' is not a number"),
    ("model,benchmark,score,lower_is_better\na,x,1,maybe\n", "row 2: lower_is_better 'maybe'"),
    ("model,benchmark,score,lower_is_better\na,x,1,false\na,x,2,false\n", "row 3: second score"),
])
def test_winrate_bad_scores_file_exits_2_naming_the_problem(home, capsys, tmp_path, content, message):
    path = tmp_path / "scores.csv"
    path.write_text(content)
    code, out, err = run(capsys, "winrate", "--scores", str(path))
    assert code == 2 and out == "" and message in err


def test_winrate_needs_a_source(home, capsys):
    code, _, err = run(capsys, "winrate")
    assert code == 2 and "--published" in err


def test_import_helm_json(home, capsys):
    if not SUITE.is_dir():
        pytest.skip(f"genuine HELM run not found at {SUITE} (../shared absent)")
    code, out, _ = run(capsys, "import-helm", str(SUITE), "--format", "json")
    (row,) = json.loads(out)
    assert code == 0
    assert row["benchmark"] == "unmapped" and row["model"] == "simple/model1"
    assert row["metric"] is None and row["mean"] is None and row["interval"] is None
    assert row["n"] == 10 and row["n_stats"] == 57 and row["warnings"]


def test_import_helm_broken_folder_exits_2_naming_the_file(home, capsys, tmp_path):
    run_dir = tmp_path / "suite" / "r1"
    run_dir.mkdir(parents=True)
    (run_dir / "run_spec.json").write_text("{not json")
    code, out, err = run(capsys, "import-helm", str(tmp_path / "suite"))
    assert code == 2 and out == ""
    assert "run_spec.json: not valid JSON" in err and "stats.json: file is missing" in err


def test_console_script_runs_as_a_subprocess(home):
    proc = subprocess.run([sys.executable, "-m", "cli", "winrate", "--published"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)) == 9
