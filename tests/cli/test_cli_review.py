"""``medassure review``: JSON contract, sheets in and out, exit 2 with the row named, export for agreement."""

from __future__ import annotations

import csv
import io
import json

import pytest

from cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def calc_run(home, capsys, llm_server):
    llm_server.configure(answer=lambda request: "The answer is 12. Answer: 12")
    code, out, err = run(
        capsys,
        "run",
        "--benchmark",
        "calc_builtin",
        "--model",
        "openai/cand",
        "--api-base",
        llm_server.url,
        "--limit",
        "8",
    )
    assert code == 0, err
    return json.loads(out)["run_id"]


def fill(sheet: str, verdicts: dict[int, str]) -> bytes:
    """The sheet with row k's verdict set (0-based data rows)."""
    lines = sheet.splitlines()
    rows = list(csv.reader(io.StringIO("\n".join(lines[1:]))))
    for k, verdict in verdicts.items():
        rows[k + 1][7] = verdict
    out = io.StringIO()
    out.write(lines[0] + "\n")
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


def test_create_sheet_import_status_close_export(calc_run, capsys, tmp_path, home):
    code, out, err = run(
        capsys,
        "review",
        "create",
        "--run",
        calc_run,
        "--n",
        "6",
        "--double",
        "0.34",
        "--sentinels",
        "2",
        "--raters",
        "dr.a,dr.b",
        "--seed",
        "5",
        "--format",
        "json",
    )
    assert code == 0, err
    doc = json.loads(out)
    qid = doc["queue_id"]
    assert qid.startswith("rq-") and (doc["n_items"], doc["n_double"], doc["n_sentinels"]) == (6, 2, 2)
    assert doc["rubric"] == "audit" and doc["criteria"] == ["verdict"]  # calc_builtin has no jury rubric
    assert doc["guidance"]["icc_n"] == 218 and doc["guidance"]["audit_n"] == 208

    sheet_path = tmp_path / "a.csv"
    code, out, err = run(capsys, "review", "sheet", qid, "--rater", "dr.a", "--out", str(sheet_path))
    assert code == 0, err
    sheet = sheet_path.read_text()
    assert sheet.startswith("# MAY HOLD PATIENT DATA") and "openai/cand" not in sheet
    n_rows = json.loads(out)["rows"]
    assert n_rows == 2 + 2 + 2  # 2 single + 2 double + 2 sentinels

    bad = tmp_path / "bad.csv"
    bad.write_bytes(fill(sheet, {0: "correct", 1: "wrong"}))
    code, out, err = run(capsys, "review", "import", qid, str(bad))
    assert code == 2 and "row 4: verdict 'wrong' is not one of correct, minor, material" in err
    assert "nothing was stored" in err and out == ""

    good = tmp_path / "good.csv"
    good.write_bytes(fill(sheet, dict.fromkeys(range(n_rows), "material")))
    code, out, err = run(capsys, "review", "import", qid, str(good), "--by", "coordinator")
    assert code == 0, err
    assert json.loads(out)["added"] == n_rows and json.loads(out)["imported_by"] == "coordinator"
    code, out, _ = run(capsys, "review", "import", qid, str(good))
    assert code == 0 and json.loads(out)["added"] == 0  # the same sheet again changes nothing

    code, out, err = run(capsys, "review", "status", qid, "--format", "json")
    status = json.loads(out)
    a, b = status["raters"]
    assert a["rater"] == "dr.a" and a["progress"] == 1.0 and b["progress"] == 0.0
    # every sentinel rated material: 2 of 2, Wilson [0.3424, 1]
    assert a["catch_rate"]["n"] == 2 and a["catch_rate"]["estimate"] == 1.0
    assert a["catch_rate"]["lower"] == pytest.approx(0.3424, abs=1e-4) and a["catch_rate"]["upper"] == 1.0
    assert b["catch_rate"] is None and status["closed"] is False

    code, _, err = run(capsys, "review", "export", qid, "--out", str(tmp_path / "r.csv"))
    assert code == 2 and "still open" in err
    code, out, err = run(capsys, "review", "close", qid)
    assert code == 0 and json.loads(out)["changed"] is True
    code, _, err = run(capsys, "review", "import", qid, str(good))
    assert code == 2 and "closed" in err
    code, out, err = run(capsys, "review", "export", qid, "--out", str(tmp_path / "r.csv"))
    assert code == 0, err
    exported = (tmp_path / "r.csv").read_text().splitlines()
    assert exported[0].startswith("# MAY HOLD PATIENT DATA")
    assert exported[1] == "dataset,instance_id,rater,audit_verdict" and len(exported) == 2 + 4

    from governance.dossier.store import Store
    from governance.review.operations.status import audit_verdicts

    store = Store.open(home / "medassure.duckdb")
    try:  # the monitoring feed's audited / audit_verdict values: dr.a's 4 real outputs, all rated material
        verdicts = audit_verdicts(store, qid)
    finally:
        store.close()
    assert len(verdicts) == 4 and set(verdicts.values()) == {"material"}


def test_bad_input_exits_2_with_one_line(calc_run, capsys, tmp_path):
    cases = [
        (["review", "create", "--run", "run-nope", "--n", "2", "--raters", "a"], "no stored run"),
        (["review", "create", "--run", calc_run, "--n", "50", "--raters", "a"], "has 8 answered outputs"),
        (["review", "create", "--run", calc_run, "--n", "2", "--raters", "a,a"], "named twice"),
        (
            ["review", "create", "--run", calc_run, "--n", "2", "--raters", "a", "--double", "2"],
            "out of range",
        ),
        (
            ["review", "create", "--run", calc_run, "--n", "2", "--raters", "a", "--rubric", "jury"],
            "no jury rubric",
        ),
        (["review", "status", "rq-nope"], "no review queue"),
        (["review", "import", "rq-nope", str(tmp_path / "none.csv")], "no such file"),
    ]
    for argv, message in cases:
        code, out, err = run(capsys, *argv)
        assert code == 2 and message in err and "Traceback" not in err, (argv, err)
    code, out, _ = run(capsys, "review", "create", "--run", calc_run, "--n", "2", "--raters", "a,b")
    qid = json.loads(out)["queue_id"]
    code, _, err = run(capsys, "review", "sheet", qid, "--rater", "z", "--out", str(tmp_path / "z.csv"))
    assert code == 2 and "'z' is not a rater" in err and not (tmp_path / "z.csv").exists()
    other = tmp_path / "other.csv"
    run(capsys, "review", "sheet", qid, "--rater", "a", "--out", str(other))
    code, out, _ = run(capsys, "review", "create", "--run", calc_run, "--n", "2", "--raters", "a,b")
    second = json.loads(out)["queue_id"]
    code, _, err = run(capsys, "review", "import", second, str(other))
    assert code == 2 and f"the sheet is for queue '{qid}'" in err
