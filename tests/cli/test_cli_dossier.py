"""The CLI contract of the foundation: commands, JSON keys, exit codes."""

import json
import subprocess
import sys

from cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_taxonomy_json(home, capsys):
    code, out, _ = run(capsys, "taxonomy", "--format", "json")
    data = json.loads(out)
    assert code == 0 and len(data["categories"]) == 5


def test_create_show_update_history(home, capsys, tmp_path):
    code, out, _ = run(capsys, "dossier", "example")
    use = json.loads(out)
    path = tmp_path / "use.json"
    path.write_text(json.dumps(use))
    code, out, err = run(capsys, "dossier", "create", "--file", str(path), "--author", "alice")
    assert code == 0
    dossier_id = out.strip()
    assert dossier_id.startswith("D-") and "risk tier moderate" in err

    code, out, _ = run(capsys, "dossier", "show", dossier_id, "--format", "json")
    shown = json.loads(out)
    assert shown["intended_use"] == use and shown["risk"]["tier"] == "moderate"
    assert shown["version"]["number"] == 1

    use["error_severity"] = "critical"
    path.write_text(json.dumps(use))
    code, out, _ = run(capsys, "dossier", "update", dossier_id, "--file", str(path), "--author", "bob")
    assert code == 0 and json.loads(out)["version"] == 2
    code, out, _ = run(capsys, "dossier", "update", dossier_id, "--file", str(path), "--author", "bob")
    assert json.loads(out)["version"] == 2  # nothing changed, no new version

    code, out, _ = run(capsys, "dossier", "history", dossier_id, "--format", "json")
    history = json.loads(out)
    assert [h["author"] for h in history] == ["alice", "bob"]
    assert len({h["hash"] for h in history}) == 2
    assert all({"version", "hash", "created_at", "author"} <= set(h) for h in history)

    code, out, _ = run(capsys, "dossier", "list", "--format", "json")
    assert [d["id"] for d in json.loads(out)] == [dossier_id]


def test_invalid_json_exits_2_naming_field(home, capsys, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"purpose": "Draft replies to portal messages", "decision_role": "decides"}))
    code, out, err = run(capsys, "dossier", "create", "--file", str(path))
    assert code == 2 and out == ""
    assert "decision_role" in err and "intended_users: Field required" in err
    path.write_text("{not json")
    code, _, err = run(capsys, "dossier", "create", "--file", str(path))
    assert code == 2 and "not valid JSON" in err and "line 1" in err
    code, _, err = run(capsys, "dossier", "create", "--file", str(tmp_path / "missing.json"))
    assert code == 2 and "no such file" in err


def test_unknown_dossier_exits_2(home, capsys):
    code, _, err = run(capsys, "dossier", "show", "D-missing")
    assert code == 2 and "D-missing" in err


def test_demo_is_idempotent(home, capsys):
    code, out, _ = run(capsys, "demo")
    first = json.loads(out)["id"]
    run(capsys, "demo")
    code, out, _ = run(capsys, "dossier", "history", first)
    versions = json.loads(out)
    code, out, _ = run(capsys, "demo")
    code, out2, _ = run(capsys, "dossier", "history", first)
    assert json.loads(out2) == versions
    code, out, _ = run(capsys, "dossier", "show", first)
    assert set(json.loads(out)["accepted_subcategories"]) >= {"patient_provider_messaging"}


def test_console_script_reports_corrupt_database(tmp_path):
    (tmp_path / "medassure.duckdb").write_bytes(b"garbage" * 500)
    out = subprocess.run([sys.executable, "-m", "cli", "--home", str(tmp_path), "dossier", "list"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "not a readable MedAssure database" in out.stderr and "Traceback" not in out.stderr
