"""``medassure rehearse`` (issue 36 item 16): a practice copy whose decision lies days back, a generated feed
the real import takes, exports refused, the original untouched."""

from __future__ import annotations

import json
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import pytest
from pypdf import PdfReader

from cli import main
from governance.dossier.content_hash import decision_basis_hash, signable_hash
from governance.dossier.record import Dossier
from governance.dossier.store import Store
from governance.intended_use.records import example_intended_use
from tests.governance.monitoring_fixtures import decided_dossier, monitoring_plan
from tests.reports.test_signing import make_key_and_cert

RECENT = datetime.now(UTC) - timedelta(days=2)


def run(capsys, *argv) -> tuple[int, dict | list | None, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    text = out.out.strip()
    return code, json.loads(text) if text[:1] in "{[" and text else None, out.err


@contextmanager
def opened(home):
    """The store, open only while the test reads it (the CLI opens the same file itself)."""
    s = Store.open(home / "medassure.duckdb")
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def dossier_id(home):
    # decided two days ago: a real feed could hold two days at most
    d = decided_dossier(monitoring_plan(approved_prompt_version="v1"), decided_at=RECENT)
    with opened(home) as store:
        return store.save(d, author="chair").dossier.id


def test_rehearse_makes_a_marked_copy_whose_generated_feed_imports_and_yields_a_status(
    dossier_id, home, tmp_path, capsys
):
    with opened(home) as store:
        before, history = store.load(dossier_id), store.history(dossier_id)
    feed = tmp_path / "practice.csv"
    code, data, err = run(capsys, "rehearse", dossier_id, "--days-ahead", "120", "--feed-out", str(feed))
    assert code == 0, err
    copy_id = data["id"]
    assert copy_id.startswith(f"{dossier_id}-practice-") and data["source_id"] == dossier_id
    assert data["practice"] is True and data["days_back"] == 120 and data["candidate"] == "M1"
    assert data["title"] == "PRACTICE — Portal replies"
    decided = datetime.fromisoformat(data["decided_at"])
    assert abs(decided - (RECENT - timedelta(days=120))) < timedelta(seconds=1)
    assert data["feed"]["rows"] == feed.read_text().count("\n") - 1 > 100 * 40
    with opened(home) as store:
        copy = store.load(copy_id).dossier
    assert copy.practice.source_id == dossier_id and copy.practice.source_hash == before.hash
    assert copy.signoffs == [] and copy.decision.content_hash == decision_basis_hash(copy)

    code, data, err = run(capsys, "monitor", "import", str(feed), "--dossier", copy_id, "--format", "json")
    assert code == 0, err
    assert data["rows_added"] > 4000 and data["status"] == "in_control"
    code, status, err = run(capsys, "monitor", "status", copy_id, "--format", "json")
    assert code == 0, err
    assert status["status"] == "in_control" and status["rows"] == data["rows_added"]
    assert status["approved"]["model"] == "m-1" and status["approved"]["prompt_version"] == "v1"
    # about four months of audited outputs, each month's rate charted against the bar
    assert len(status["metrics"]["material_correction_share"]) >= 4

    # the monthly report of last month: written, the mark on every page, never signed
    month = (datetime.now(UTC).replace(day=1) - timedelta(days=1)).strftime("%Y-%m")
    pdf = tmp_path / "month.pdf"
    code, report, err = run(capsys, "monitor", "report", copy_id, "--month", month, "--out", str(pdf))
    assert code == 0, err
    assert report["practice"] is True and report["signature"] is None
    pages = PdfReader(pdf).pages
    assert len(pages) >= 2 and all("PRACTICE COPY — not a record" in p.extract_text() for p in pages)
    key, cert = make_key_and_cert(tmp_path, "Hospital Exports")
    signed = tmp_path / "s.pdf"
    code, _, err = run(capsys, "monitor", "report", copy_id, "--month", month, "--out", str(signed),
                       "--sign-key", str(key), "--sign-cert", str(cert))
    assert code == 2 and "never signed" in err and not signed.exists()

    # the original: the same latest version, the same content hash, the same history, no feed rows
    with opened(home) as store:
        after = store.load(dossier_id)
        assert (after.version, after.hash) == (before.version, before.hash)
        assert store.history(dossier_id) == history and store.monitoring.row_count(dossier_id, "M1") == 0
    # the import into the real dossier still refuses the generated rows (before its decision, the clock
    # unchanged): its monitoring counts nothing before the decision
    code, data, err = run(capsys, "monitor", "status", dossier_id, "--format", "json")
    assert code == 0 and data["rows"] == 0


def test_exports_signoffs_and_signatures_of_a_practice_copy_are_refused_with_one_line(
    dossier_id, home, tmp_path, capsys
):
    code, data, _ = run(capsys, "rehearse", dossier_id)
    copy_id = data["id"]
    for extra in (["--out", str(tmp_path / "d.pdf")], ["--bundle", str(tmp_path / "d.zip")],
                  ["--out", str(tmp_path / "e.pdf"), "--chai", str(tmp_path / "c.xml")]):
        code, out, err = run(capsys, "report", copy_id, *extra)
        assert code == 2 and out is None, err
        assert err.count("\n") == 1 and "practice copy" in err and "Traceback" not in err
    assert [p.name for p in tmp_path.iterdir()] == ["home"]  # nothing written
    code, _, err = run(capsys, "signoff", copy_id, "--role", "chair", "--name", "Dr. A")
    assert code == 2 and "practice copy" in err
    with opened(home) as store:
        assert store.load(copy_id).dossier.signoffs == []
    # the real dossier's report is still written
    code, _, err = run(capsys, "report", dossier_id, "--out", str(tmp_path / "real.pdf"))
    assert code == 0, err


def test_dossier_list_and_show_mark_the_copy(dossier_id, capsys):
    _, data, _ = run(capsys, "rehearse", dossier_id, "--days-ahead", "30")
    copy_id = data["id"]
    code, listed, _ = run(capsys, "dossier", "list")
    assert code == 0
    by_id = {d["id"]: d for d in listed}
    assert by_id[copy_id]["practice_of"] == dossier_id and "practice_of" not in by_id[dossier_id]
    code, shown, _ = run(capsys, "dossier", "show", copy_id)
    assert shown["practice"]["source_id"] == dossier_id and shown["practice"]["days_back"] == 30
    code, real, _ = run(capsys, "dossier", "show", dossier_id)
    assert code == 0 and "practice" not in real


def test_rehearse_refuses_an_undecided_dossier_a_copy_of_a_copy_and_a_bad_day_count(home, dossier_id, capsys):
    with opened(home) as store:
        draft = store.save(Dossier(id="D-draft", title="Draft use", owner="me",
                                   intended_use=example_intended_use()), author="me").dossier.id
    code, _, err = run(capsys, "rehearse", draft)
    assert code == 2 and "no decision" in err
    code, _, err = run(capsys, "rehearse", dossier_id, "--days-ahead", "0")
    assert code == 2 and "between 1 and 3650" in err
    _, data, _ = run(capsys, "rehearse", dossier_id)
    code, _, err = run(capsys, "rehearse", data["id"])
    assert code == 2 and "already a practice copy" in err
    with opened(home) as store:
        assert len(store.list_dossiers()) == 3  # the two, and one copy


def test_a_real_dossier_keeps_its_content_hash_with_the_new_field():
    d = decided_dossier()
    assert "practice" not in json.loads(d.canonical_json())
    # the hash of this fixture before the field existed (computed on main at f9e218f)
    assert d.content_hash() == "1588d02c5ee41605d6ebd71870bf406e0870136d3577471c6ed62eec11fdf88a"
    assert signable_hash(d) == "9e5e1f9a7f5a60a29930f87c0931dd8ad21a278cb7734bd7a56994dd7e8f834a"


def test_discard_sets_a_copy_aside_lists_leave_it_out_and_a_real_dossier_is_never_discarded(
    dossier_id, home, capsys
):
    _, data, _ = run(capsys, "rehearse", dossier_id)
    copy_id = data["id"]
    code, out, err = run(capsys, "rehearse", copy_id, "--discard")
    assert code == 0, err
    assert out["id"] == copy_id and out["discarded"] is True and out["version"] == 2
    _, listed, _ = run(capsys, "dossier", "list")
    assert [d["id"] for d in listed] == [dossier_id]
    code, shown, _ = run(capsys, "dossier", "show", copy_id)  # still readable by its id, and marked
    assert code == 0 and shown["practice"]["discarded_at"] and shown["practice"]["discarded_by"]
    code, _, err = run(capsys, "rehearse", copy_id, "--discard")
    assert code == 2 and "was discarded on" in err
    with opened(home) as store:
        before = store.load(dossier_id)
    code, _, err = run(capsys, "rehearse", dossier_id, "--discard")
    assert code == 2 and "not a practice copy" in err
    code, _, err = run(capsys, "verify", copy_id)
    assert code == 0, err
    with opened(home) as store:
        assert store.load(dossier_id).hash == before.hash and store.load(dossier_id).version == before.version


def test_the_generated_feed_holds_no_live_formula(home, tmp_path, capsys):
    # Issue 35 item 3: the practice feed was written with a plain csv.DictWriter; the prompt version (and the
    # served model) are names an editor typed, and "=HYPERLINK(...)" went out as a live formula.
    import csv

    planted = '=HYPERLINK("http://x.example","open")'
    d = decided_dossier(monitoring_plan(approved_prompt_version=planted), decided_at=RECENT)
    with opened(home) as store:
        did = store.save(d, author="chair").dossier.id
    feed = tmp_path / "practice.csv"
    code, _, err = run(capsys, "rehearse", did, "--days-ahead", "30", "--feed-out", str(feed))
    assert code == 0, err
    with feed.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and {r["prompt_version"] for r in rows} == {"'" + planted}
    assert not [c for r in rows for c in r.values() if c.startswith(("=", "+", "@", "\t", "\r"))]
