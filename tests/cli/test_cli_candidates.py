"""CLI contract of candidates, candidate-add and candidate-answer: JSON, CSV, new versions, exit codes."""

from __future__ import annotations

import json

import pytest

from cli import main
from governance.dossier.store import Store
from governance.procurement.store import sha256_hex
from tests.governance.candidate_fixtures import base_dossier


def run(capsys, *argv) -> tuple[int, object, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip().startswith("{") else out.out, out.err


@pytest.fixture
def saved(home):
    store = Store.open(home / "medassure.duckdb")
    store.save(base_dossier(), author="alice", note="created")
    store.close()
    return home


def latest(home):
    store = Store.open(home / "medassure.duckdb")
    try:
        return store.load("D-cand")
    finally:
        store.close()


def test_candidates_json_is_the_comparison(capsys, saved):
    code, doc, _ = run(capsys, "--home", str(saved), "candidates", "D-cand", "--format", "json")
    assert code == 0 and doc["version"] == 1 and len(doc["hash"]) == 64
    rows = {c["id"]: c for c in doc["candidates"]}
    assert rows["claude"]["cost_per_1k"] == pytest.approx(33.75) and rows["llama"]["on_frontier"]
    assert [b["name"] for b in doc["benchmarks"]] == ["MedConfInfo", "PrivacyDetection", "MedicationQA"]
    assert len(doc["cells"]) == 9 and doc["methods"]["cost"]


def test_candidates_csv_and_unknown_dossier(capsys, saved):
    code, text, _ = run(capsys, "--home", str(saved), "candidates", "D-cand", "--format", "csv")
    assert (
        code == 0 and text.splitlines()[0].startswith("candidate,id,model") and len(text.splitlines()) == 10
    )
    code, _, err = run(capsys, "--home", str(saved), "candidates", "D-nope")
    assert code == 2 and "D-nope" in err and "Traceback" not in err


def test_candidate_add_validates_and_saves_a_version(capsys, saved, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "id": "x",
                "vendor": "V",
                "product": "P",
                "model_id": "gpt-4o",
                "pricing": {"kind": "per_seat", "usd_per_seat_month": 10},
                "endpoint": {"name": "e", "model": "gpt-4o", "api_key_env": "sk-abc-123"},
            }
        )
    )
    code, _, err = run(capsys, "--home", str(saved), "candidate-add", "D-cand", str(bad))
    assert code == 2 and "pricing" in err and "api_key_env" in err and latest(saved).version == 1
    good = tmp_path / "good.json"
    good.write_text(
        json.dumps(
            {
                "id": "mistral",
                "vendor": "V",
                "product": "P",
                "model_id": "mistral-large",
                "pricing": {"kind": "per_seat", "usd_per_seat_month": 10, "seats": 4},
                "endpoint": {"name": "e", "model": "mistral/large", "api_key_env": "MISTRAL_KEY"},
            }
        )
    )
    code, doc, _ = run(capsys, "--home", str(saved), "candidate-add", "D-cand", str(good), "--by", "buyer")
    assert code == 0 and doc["version"] == 2 and doc["candidate"]["added_by"] == "buyer"
    assert [c.id for c in latest(saved).dossier.candidates][-1] == "mistral"


def test_candidate_answer_stores_the_document_and_refuses_bad_values(capsys, saved, tmp_path):
    report = tmp_path / "soc2.pdf"
    report.write_bytes(b"%PDF-1.4 demo certificate")
    code, doc, _ = run(
        capsys,
        "--home",
        str(saved),
        "candidate-answer",
        "D-cand",
        "gpt",
        "incident_reporting",
        "no",
        "--document",
        str(report),
        "--note",
        "contract draft §9",
        "--by",
        "buyer",
    )
    assert code == 0 and doc["answer"]["document"]["sha256"] == sha256_hex(report.read_bytes())
    answer = next(
        a for a in latest(saved).dossier.candidates[0].attestations if a.question_id == "incident_reporting"
    )
    assert (answer.value, answer.entered_by, answer.note) == ("no", "buyer", "contract draft §9")
    store = Store.open(saved / "medassure.duckdb")
    assert store.documents.get(answer.document.sha256) == report.read_bytes()
    store.close()
    code, cmp, _ = run(capsys, "--home", str(saved), "candidates", "D-cand")
    gpt = next(c for c in cmp["candidates"] if c["id"] == "gpt")
    assert any(c.startswith("Incident reporting") for c in gpt["conditions"])
    for argv, match in [
        (("gpt", "incident_reporting", "maybe"), "is not one of"),
        (("nobody", "incident_reporting", "yes"), "no candidate 'nobody'"),
        (("gpt", "model_updates", "yes", "--judgement", "satisfactory"), "free-text"),
    ]:
        code, _, err = run(capsys, "--home", str(saved), "candidate-answer", "D-cand", *argv)
        assert code == 2 and match in err, err


def test_candidates_json_carries_each_retirement_date_and_its_source(capsys, saved):
    """Issue 37: gpt-4o 2024-05-13 is dated 2026-10-23 by litellm's shipped map (its version named)."""
    import importlib.metadata

    code, doc, _ = run(capsys, "--home", str(saved), "candidates", "D-cand")
    rows = {c["id"]: c for c in doc["candidates"]}
    assert code == 0 and rows["gpt"]["retires_on"] == "2026-10-23"
    assert f"litellm {importlib.metadata.version('litellm')} model map (gpt-4o-2024-05-13)" == (
        rows["gpt"]["retires_on_source"])
    assert rows["llama"]["retires_on"] is None and rows["llama"]["retires_on_source"] is None


def test_a_vendor_announced_date_on_the_candidate_is_its_source(capsys, saved, tmp_path):
    doc = {"id": "azure", "vendor": "V", "product": "P", "model_id": "gpt-4o", "model_version": "2024-05-13",
           "snapshot": "gpt-4o-2024-05-13", "retires_on": "2026-09-30"}
    (tmp_path / "c.json").write_text(json.dumps(doc))
    code, added, err = run(capsys, "--home", str(saved), "candidate-add", "D-cand", str(tmp_path / "c.json"))
    assert code == 0, err
    c = added["candidate"]
    assert (c["snapshot"], c["retires_on"]) == ("gpt-4o-2024-05-13", "2026-09-30")
    code, out, _ = run(capsys, "--home", str(saved), "candidates", "D-cand")
    row = next(c for c in out["candidates"] if c["id"] == "azure")
    assert row["retires_on"] == "2026-09-30"
    assert row["retires_on_source"].startswith("the vendor's announcement")
