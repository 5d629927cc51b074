"""``medassure report`` writes the PDF and exports; ``medassure import-dossier`` restores the same hash."""

from __future__ import annotations

import json

import pytest

from cli import main
from evaluator.evidence.record import published_evidence
from governance.dossier.record import Dossier
from governance.dossier.store import Store
from governance.intended_use.records import example_intended_use


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def saved(home) -> tuple[str, str]:
    """A small dossier with published evidence, saved in the test's home: (id, hash)."""
    dossier = Dossier(title="Portal replies", owner="committee", intended_use=example_intended_use(),
                      evidence=published_evidence(["MedConfInfo", "MedicationQA"], ["GPT-4o (2024-05-13)"]))
    store = Store.open(home / "medassure.duckdb")
    v = store.save(dossier, author="alice")
    store.close()
    return dossier.id, v.hash


def test_report_writes_every_file(capsys, saved, tmp_path):
    dossier_id, digest = saved
    files = {k: tmp_path / name for k, name in
             (("out", "d.pdf"), ("json", "d.json"), ("chai", "d.xml"), ("csv", "e.csv"), ("hti1", "h.csv"))}
    options = [a for k, p in files.items() for a in (f"--{k}", str(p))]
    code, out, err = run(capsys, "report", dossier_id, *options)
    assert code == 0, err
    result = json.loads(out)
    assert result["hash"] == digest and set(result["files"]) == {"pdf", "json", "chai", "evidence", "hti1"}
    assert files["out"].read_bytes().startswith(b"%PDF-")
    assert json.loads(files["json"].read_text())["hash"] == digest
    assert "<AppliedModelCard" in files["chai"].read_text()
    assert files["csv"].read_text(encoding="utf-8-sig").startswith("id,model,benchmark")
    assert len(files["hti1"].read_text(encoding="utf-8-sig").splitlines()) == 32
    assert "Decision and sign-offs" in result["not_recorded"]
    assert "wrote" in err


def test_report_bad_input_exits_2(capsys, saved, tmp_path):
    code, _, err = run(capsys, "report", "D-nope", "--out", str(tmp_path / "x.pdf"))
    assert code == 2 and "No dossier 'D-nope'" in err
    code, _, err = run(capsys, "report", saved[0], "--out", str(tmp_path / "missing" / "x.pdf"))
    assert code == 2 and "no such folder" in err
    code, _, err = run(capsys, "report", saved[0], "--out", str(tmp_path / "x.pdf"), "--version", "9")
    assert code == 2 and "version 9" in err


def test_import_round_trip_and_tampered_file(capsys, saved, tmp_path, monkeypatch):
    dossier_id, digest = saved
    path = tmp_path / "d.json"
    assert run(capsys, "report", dossier_id, "--out", str(tmp_path / "d.pdf"), "--json", str(path))[0] == 0
    monkeypatch.setenv("MEDASSURE_HOME", str(tmp_path / "elsewhere"))
    code, out, err = run(capsys, "import-dossier", str(path), "--author", "auditor")
    assert code == 0, err
    assert json.loads(out) == {"id": dossier_id, "version": 1, "hash": digest}
    doc = json.loads(path.read_text())
    doc["dossier"]["owner"] = "someone else"
    path.write_text(json.dumps(doc))
    code, _, err = run(capsys, "import-dossier", str(path))
    assert code == 2 and "does not match the file's hash" in err
    code, _, err = run(capsys, "import-dossier", str(tmp_path / "none.json"))
    assert code == 2 and "no such file" in err


def test_report_label_writes_the_one_page_model_facts_label(capsys, saved, tmp_path):
    from pypdf import PdfReader

    dossier_id, digest = saved
    code, out, err = run(capsys, "report", dossier_id, "--label", "--out", str(tmp_path / "label.pdf"))
    assert code == 0, err
    assert set(json.loads(out)["files"]) == {"label"}
    pages = PdfReader(tmp_path / "label.pdf").pages
    assert len(pages) == 1
    text = " ".join(pages[0].extract_text().split())
    assert "Model facts: Portal replies" in text and "NOT APPROVED" in text and digest in text
    code, out, err = run(capsys, "report", dossier_id, "--out", str(tmp_path / "d.pdf"),
                         "--label", str(tmp_path / "l.pdf"))
    assert code == 0 and set(json.loads(out)["files"]) == {"pdf", "label"}
    assert len(PdfReader(tmp_path / "l.pdf").pages) == 1


def test_report_label_without_a_file_exits_2(capsys, saved):
    code, _, err = run(capsys, "report", saved[0], "--label")
    assert code == 2 and "--label without a file name" in err
