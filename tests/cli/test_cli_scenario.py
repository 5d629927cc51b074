"""``medassure scenario import|list|redact|results`` and ``medassure run --scenario``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli import main
from evaluator.scenarios.store import TABLES
from governance.dossier.store import Store
from tests.fakes import constant_answer

BAD = Path(__file__).resolve().parents[1] / "data" / "bad_inputs"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def counts(home: Path) -> dict[str, int]:
    store = Store.open(home / "medassure.duckdb")
    try:

        return store.scenarios.table_counts()
    finally:
        store.close()


@pytest.fixture
def cases(tmp_path) -> Path:
    rows = ["Case,Text,Ask,Options,Gold,Site"]
    rows += [f"n{i},Note {i},Urgent?,yes|no,A,North" for i in range(15)]
    rows += [f"s{i},Note {i},Urgent?,yes|no,{'A' if i % 2 else 'B'},South" for i in range(12)]
    rows += [f"e{i},Note {i},Urgent?,yes|no,A,East" for i in range(3)]
    rows.append('p1,"Call back on 555-867-5309",Urgent?,yes|no,A,North')
    path = tmp_path / "ward.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


MAP = ["--map", "Case=id", "--map", "Text=context", "--map", "Ask=question", "--map", "Options=choices",
       "--map", "Gold=reference", "--map", "Site=tag:site"]


@pytest.mark.parametrize("name", ["duplicate_ids.csv", "latin1.csv", "semicolon_delimiter.csv",
                                  "formula.xlsx", "jsonl_broken_line.jsonl", "empty_reference.csv"])
def test_invalid_file_exits_2_with_row_level_errors_and_stores_nothing(home, capsys, name):
    code, out, err = run(capsys, "scenario", "import", str(BAD / name), "--format", "json")
    report = json.loads(out)
    assert code == 2 and report["ok"] is False and report["stored"] is False and report["errors"]
    assert set(report["errors"][0]) == {"row", "column", "reason"}
    assert "nothing stored" in err and "Traceback" not in err
    assert counts(home) == dict.fromkeys(TABLES, 0)


def test_import_with_mapping_then_list(home, capsys, cases):
    code, out, err = run(capsys, "scenario", "import", str(cases), *MAP, "--name", "Ward triage")
    assert code == 0, err
    result = json.loads(out)
    scenario = result["scenario"]
    assert (scenario["version"], scenario["n_instances"], scenario["tag_names"]) == (1, 31, ["site"])
    assert result["phi"]["counts"] == {"phone": 1} and "phone 1" in err
    assert "867-5309" not in out  # only masked examples leave the store (not "867": a timestamp may hold it)
    code, out, _ = run(capsys, "scenario", "list", "--format", "json")
    (row,) = json.loads(out)
    assert code == 0 and row["name"] == "Ward triage" and row["scenario_id"] == scenario["scenario_id"]


def test_bad_map_and_missing_dossier_exit_2(home, capsys, cases):
    code, _, err = run(capsys, "scenario", "import", str(cases), "--map", "Nope=id")
    assert code == 2 and "no column 'Nope'" in err
    code, _, err = run(capsys, "scenario", "import", str(cases), *MAP, "--dossier", "D-missing")
    assert code == 2 and "D-missing" in err
    assert counts(home)["scenario_versions"] == 0


def test_run_scenario_blocks_phi_then_runs_redacted_and_attaches(home, capsys, cases, llm_server,
                                                                  monkeypatch):
    llm_server.configure(answer=constant_answer("A"))
    code, out, _ = run(capsys, "demo")
    assert code == 0
    _, out, _ = run(capsys, "scenario", "import", str(cases), *MAP, "--format", "json")
    scenario_id = json.loads(out)["scenario"]["scenario_id"]
    base = ["run", "--scenario", scenario_id, "--model", "openai/fake", "--api-base", llm_server.url]
    code, out, err = run(capsys, *base)
    assert code == 5 and json.loads(out)["blocked"] is True
    assert "not approved for protected health information" in err and llm_server.hits == 0
    code, out, _ = run(capsys, "scenario", "redact", scenario_id)
    assert code == 0 and json.loads(out)["version"] == 2
    monkeypatch.setenv("MEDASSURE_USER", "dr.okafor")
    code, out, err = run(capsys, *base, "--dossier", "D-demo-portal")
    result = json.loads(out)
    assert code == 0, err
    assert (result["version"], result["n"], result["status"]) == (2, 31, "completed")
    assert result["transport"] in ("litellm", "openai")  # documented for every `run` (issue 36 item 20)
    groups = {r["group"]: r for r in result["subgroups"]}
    assert groups["South"]["flagged"] is True and groups["East"]["suppressed"] is True
    assert groups["East"]["n"] is None and groups["East"]["estimate"] is None
    assert result["attached"]["dossier_id"] == "D-demo-portal"
    store = Store.open(home / "medassure.duckdb")
    try:  # the scenario run is attached by whoever ran it, not "cli"
        assert store.load("D-demo-portal").author == "dr.okafor"
    finally:
        store.close()
    code, out, _ = run(capsys, "scenario", "results", result["run_id"], "--reference", "site=South")
    doc = json.loads(out)
    shown = {r["group"]: r for r in doc["subgroups"]}
    assert code == 0 and shown["South"]["reference"] is True and shown["North"]["flagged"] is True
    # typed numbers, not display strings: North is 16 cases all right (scipy Wilson 0.8064-1.000)
    north = shown["North"]
    assert (north["n"], north["estimate"], north["method"]) == (16, 1.0, "wilson")
    assert north["lower"] == pytest.approx(0.8064, abs=1e-4) and north["upper"] == 1.0
    assert isinstance(north["ratio"], float) and north["ratio_lower"] < north["ratio"] < north["ratio_upper"]
    assert not [k for r in doc["subgroups"] for k in r if " " in k]
    # a reference group of a tag the cases do not carry is refused, not ignored
    code, out, err = run(capsys, "scenario", "results", result["run_id"], "--reference", "sex=F")
    assert code == 2 and "no subgroup tag 'sex'" in err and "tags: site" in err and not out


def test_run_scenario_with_an_approved_endpoint_and_flag_errors(home, capsys, cases, llm_server):
    _, out, _ = run(capsys, "scenario", "import", str(cases), *MAP, "--format", "json")
    scenario_id = json.loads(out)["scenario"]["scenario_id"]
    base = ["run", "--scenario", scenario_id, "--model", "openai/fake", "--api-base", llm_server.url]
    code, out, _ = run(capsys, *base, "--phi-approved", "--dry-run")
    est = json.loads(out)
    assert code == 0 and est["dry_run"] and est["n_to_send"] == 31 and est["phi_check"]["allowed"]
    assert llm_server.hits == 0
    code, _, err = run(capsys, *base, "--benchmark", "calc_builtin")
    assert code == 2 and "give only one" in err
    code, _, err = run(capsys, "run", "--scenario", "sc_nope", "--model", "openai/fake")
    assert code == 2 and "no scenario 'sc_nope'" in err
    code, _, err = run(capsys, "run", "--model", "openai/fake")
    assert code == 2 and "--scenario" in err
