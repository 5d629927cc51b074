"""``medassure monitor report``: the month's PDF (signed with the export key when set); bad input: 2."""

from __future__ import annotations

import json

from cli import main
from reports.signing import DETACHED_SUFFIX
from tests.demo_monitoring import DEMO, copy_demo, demo_db  # noqa: F401 (fixture)
from tests.reports.test_signing import make_key_and_cert


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip().startswith("{") else None, out.err


def test_writes_the_pdf_and_signs_it_with_the_export_key(capsys, home, demo_db, tmp_path, monkeypatch):  # noqa: F811
    copy_demo(demo_db, home)
    out = tmp_path / "oct.pdf"
    code, payload, _ = run(capsys, "monitor", "report", DEMO, "--month", "2026-10", "--out", str(out))
    assert code == 0 and payload["status"] == "pause" and payload["signature"] is None
    assert out.read_bytes().startswith(b"%PDF-") and payload["bytes"] == out.stat().st_size
    key, cert = make_key_and_cert(tmp_path, "Hospital Exports")
    monkeypatch.setenv("MEDASSURE_EXPORT_KEY", str(key))
    monkeypatch.setenv("MEDASSURE_EXPORT_CERT", str(cert))
    code, payload, _ = run(capsys, "monitor", "report", DEMO, "--month", "2026-10", "--out", str(out))
    assert code == 0 and payload["signature"] == f"{out}{DETACHED_SUFFIX}"
    code, verified, _ = run(capsys, "verify-export", str(out), "--cert", str(cert))
    assert code == 0 and verified["verified"] is True


def test_bad_input_exits_2_in_one_line_and_writes_nothing(capsys, home, demo_db, tmp_path):  # noqa: F811
    copy_demo(demo_db, home)
    out = tmp_path / "x.pdf"
    for argv in (["--month", "2026-13"], ["--month", "2999-01"]):
        code, payload, err = run(capsys, "monitor", "report", DEMO, *argv, "--out", str(out))
        assert code == 2 and payload is None and err.startswith("error: ") and err.count("\n") == 1
    code, _, err = run(capsys, "monitor", "report", "D-nope", "--month", "2026-10", "--out", str(out))
    assert code == 2 and err.count("\n") == 1
    code, _, err = run(capsys, "monitor", "report", DEMO, "--month", "2026-10", "--out", str(tmp_path))
    assert code == 2 and "folder" in err
    assert not out.exists()
