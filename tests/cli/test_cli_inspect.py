"""``medassure import-inspect``: real Inspect logs in, evidence out (and attached with ``--dossier``)."""

from __future__ import annotations

import json
import sys

import pytest

from cli import main
from governance.dossier.record import Dossier
from governance.dossier.store import Store
from governance.intended_use.records import example_intended_use
from tests.inspect_logs import make_logs


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    return make_logs(tmp_path_factory.mktemp("inspect"), names=("match_eval",))["match_eval"]


@pytest.fixture
def dossier_id(home) -> str:
    store = Store.open(home / "medassure.duckdb")
    d = store.save(Dossier(title="Portal replies", owner="committee", intended_use=example_intended_use()),
                   author="alice").dossier
    store.close()
    return d.id


def test_without_inspect_ai_exits_2_with_the_install_hint(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    code, out, err = run(capsys, "import-inspect", str(tmp_path / "x.eval"))
    assert code == 2 and out == ""
    assert "needs the inspect_ai package, which is not installed: pip install 'medassure[inspect]'" in err


def test_import_prints_the_logs_figures_and_attaches(capsys, log, home, dossier_id):
    code, out, err = run(capsys, "import-inspect", str(log), "--dossier", dossier_id, "--author", "bob")
    assert code == 0, err
    result = json.loads(out)
    (row,) = result["logs"]
    assert (row["task"], row["task_version"], row["model"], row["scorer"]) == (
        "addition", "3", "mockllm/model", "match")
    assert row["log_metrics"] == {"match": {"accuracy": 0.75, "stderr": 0.25}} and row["log_stderr"] == 0.25
    assert row["n"] == 4 and row["tokens"]["output"] == 4 and row["tokens"]["input"] > 0
    e = row["evidence"]
    assert e["provenance"] == "inspect-import" and e["score"] == 0.75 and row["sha256"] in e["source"]
    assert round(e["ci_lower"], 4) == 0.3006 and round(e["ci_upper"], 4) == 0.9544
    store = Store.open(home / "medassure.duckdb")
    v = store.load(dossier_id)
    store.close()
    assert result["dossier"] == {"id": dossier_id, "version": v.version, "hash": v.hash} and v.version == 2
    assert [x.id for x in v.dossier.evidence] == [e["id"]] and v.author == "bob"
    code, out, _ = run(capsys, "import-inspect", str(log), "--dossier", dossier_id)
    assert code == 0 and json.loads(out)["dossier"]["version"] == 2  # same record again: no new version


def test_unknown_dossier_and_corrupt_log_exit_2(capsys, log, home, tmp_path):
    code, out, err = run(capsys, "import-inspect", str(log), "--dossier", "D-nope")
    assert code == 2 and out == "" and "no dossier 'D-nope': nothing attached" in err
    cut = tmp_path / "cut.eval"
    cut.write_bytes(log.read_bytes()[:500])
    code, out, err = run(capsys, "import-inspect", str(cut))
    assert code == 2 and out == "" and "nothing imported" in err
    assert f"{cut}: not a readable Inspect log" in err


def test_text_format_shows_the_row(capsys, log, home):
    code, out, _ = run(capsys, "import-inspect", str(log), "--format", "text")
    assert code == 0
    header, line = out.strip().splitlines()
    assert header.split() == ["task", "model", "scorer", "benchmark", "score", "n", "ci_lower", "ci_upper"]
    assert line.split()[:6] == ["addition", "mockllm/model", "match", "addition", "0.75", "4"]


def test_a_folder_with_an_unscorable_log_attaches_nothing_and_names_it(capsys, home, dossier_id, tmp_path):
    logs = make_logs(tmp_path, names=("match_eval", "unscored"))
    folder = tmp_path / "both"
    folder.mkdir()
    for path in logs.values():
        (folder / path.name).write_bytes(path.read_bytes())
    code, out, err = run(capsys, "import-inspect", str(folder), "--dossier", dossier_id)
    assert code == 2 and out == "" and "Traceback" not in err
    assert logs["unscored"].name in err and "nothing attached" in err and logs["match_eval"].name not in err
    store = Store.open(home / "medassure.duckdb")
    v = store.load(dossier_id)
    store.close()
    assert v.version == 1 and v.dossier.evidence == []
    code, out, _ = run(capsys, "import-inspect", str(folder))  # a preview still shows both, with the reason
    rows = {r["task"]: r for r in json.loads(out)["logs"]}
    assert code == 0 and rows["unscorable"]["not_attachable"] and rows["addition"]["evidence"]
