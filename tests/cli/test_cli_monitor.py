"""CLI contract of ``medassure monitor``: the status JSON keys and exit codes 0 / 3 / 4 / 2."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from cli import main
from tests.governance.monitoring_fixtures import decided_dossier, feed_rows, monitoring_plan, write_csv

RECENT = datetime.now(UTC) - timedelta(days=20)


def run(capsys, *argv) -> tuple[int, dict | None, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip().startswith("{") else None, out.err


@pytest.fixture
def dossier_id(store):
    # decided recently, a 12-month schedule: nothing is due
    d = decided_dossier(monitoring_plan(approved_prompt_version="v1"), decided_at=RECENT - timedelta(days=10))
    return store.save(d, author="chair").dossier.id


def test_import_then_status_in_control_exits_0_with_the_contract_keys(dossier_id, tmp_path, capsys):
    path = write_csv(tmp_path / "feed.csv", feed_rows(100, start=RECENT, prompt_version="v1"))
    code, data, err = run(capsys, "monitor", "import", str(path), "--dossier", dossier_id, "--format", "json")
    assert code == 0, err
    assert (data["rows_in_file"], data["rows_added"], data["rows_already_stored"]) == (100, 100, 0)
    assert data["status"] == "in_control" and len(data["file_sha256"]) == 64
    code, data, err = run(capsys, "monitor", "status", dossier_id, "--format", "json")
    assert code == 0, err
    assert {"status", "approved", "signals", "metrics", "rows"} <= set(data)
    assert data["approved"] == {**data["approved"], "candidate": "M1", "model": "m-1", "prompt_version": "v1"}
    assert data["rows"] == 100 and data["signals"] == []
    month = data["metrics"]["material_correction_share"][0]
    assert {"n", "rate", "interval", "bar"} <= set(month) and month["bar"] == 0.05 and month["n"] == 50
    code, again, _ = run(capsys, "monitor", "import", str(path), "--dossier", dossier_id)
    assert code == 0 and again["rows_added"] == 0


def test_a_rate_above_its_bar_exits_3_and_a_new_model_exits_4_with_the_command(dossier_id, tmp_path, capsys):
    rows = feed_rows(200, start=RECENT, material_every=4, prompt_version="v1")  # 25% of audits material
    run(capsys, "monitor", "import", str(write_csv(tmp_path / "a.csv", rows)), "--dossier", dossier_id)
    code, data, err = run(capsys, "monitor", "status", dossier_id)
    assert code == 3, err
    assert data["status"] == "review"
    sig = next(s for s in data["signals"] if s["kind"] == "rate_above_bar")
    assert {"kind", "metric", "first_seen", "owner", "deadline", "detail"} <= set(sig)
    assert sig["owner"] == "AI quality lead" and sig["metric"] == "material_correction_share"
    rows = feed_rows(10, start=RECENT + timedelta(days=12), model="m-1-0601", prefix="n", prompt_version="v1")
    run(capsys, "monitor", "import", str(write_csv(tmp_path / "b.csv", rows)), "--dossier", dossier_id)
    code, data, err = run(capsys, "monitor", "status", dossier_id)
    assert code == 4 and data["status"] == "pause"
    assert "run: medassure reevaluate D-mon1" in err
    assert data["reevaluation_command"] == "medassure reevaluate D-mon1"


def test_event_suspends_exit_4_and_resolve_by_the_local_chair(dossier_id, capsys):
    code, data, err = run(
        capsys,
        "monitor",
        "event",
        dossier_id,
        "--severity",
        "severe",
        "--description",
        "Draft told a patient to stop insulin",
        "--output-id",
        "r3",
        "--by",
        "dr.rivera",
    )
    assert code == 4, err
    assert data["severity"] == "severe" and data["output_ids"] == ["r3"] and data["status"] == "suspend"
    _, status, _ = run(capsys, "monitor", "status", dossier_id)
    (sig,) = status["signals"]
    code, data, err = run(capsys, "monitor", "ack", dossier_id, sig["id"], "--note", "calling the vendor")
    assert code == 0 and data["state"] == "acknowledged", err
    code, _, err = run(capsys, "monitor", "resolve", dossier_id, sig["id"])
    assert code == 2 and "--reason" in err
    code, data, err = run(
        capsys,
        "monitor",
        "resolve",
        dossier_id,
        sig["id"],
        "--reason",
        "Insulin advice blocked by the prompt; retrained reviewers",
        "--by",
        "dr.rivera",
    )
    assert code == 0 and data["state"] == "resolved", err
    code, data, _ = run(capsys, "monitor", "status", dossier_id)
    assert code == 0 and data["status"] == "in_control"
    code, _, _ = run(capsys, "verify", dossier_id)
    assert code == 0


def test_bad_input_exits_2_with_one_line_and_stores_nothing(dossier_id, store, tmp_path, capsys):
    rows = feed_rows(5, start=RECENT)
    rows[2]["timestamp"] = "2026-02-01 10:00"
    path = write_csv(tmp_path / "bad.csv", rows)
    code, data, err = run(capsys, "monitor", "import", str(path), "--dossier", dossier_id)
    assert code == 2 and data is None
    assert "row 3: timestamp is not an ISO 8601 date and time with a zone" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert store.monitoring.row_count(dossier_id) == 0
    for argv in (
        ["monitor", "status", "D-nope"],
        ["monitor", "import", str(tmp_path / "none.csv"), "--dossier", dossier_id],
        ["monitor", "event", dossier_id, "--severity", "awful", "--description", "x y z"],
        ["monitor", "event", dossier_id, "--severity", "minor", "--description", "bell \x07 here"],
    ):
        code, data, err = run(capsys, *argv)
        assert code == 2 and "Traceback" not in err, argv


def test_go_live_records_an_alias_and_a_prompt_version_without_voiding_the_signoffs(
    dossier_id, store, tmp_path, capsys
):
    from governance.dossier.content_hash import signable_hash

    rows = feed_rows(20, start=RECENT, model="m-1-eu", prompt_version="v2")
    run(capsys, "monitor", "import", str(write_csv(tmp_path / "a.csv", rows)), "--dossier", dossier_id)
    code, data, err = run(capsys, "monitor", "status", dossier_id)
    assert code == 4 and sorted(s["kind"] for s in data["signals"]) == ["model_change", "prompt_change"], err
    code, _, err = run(
        capsys,
        "monitor",
        "go-live",
        dossier_id,
        "--alias",
        "m-1-eu",
        "--prompt-version",
        "v2",
        "--note",
        "EU deployment of the same build; prompt v2 approved at go-live",
    )
    assert code == 0, err
    # the two pause signals are recorded; the settings do not resolve them, they stop new ones for later rows
    _, data, _ = run(capsys, "monitor", "status", dossier_id)
    assert data["approved"]["prompt_version"] == "v2" and "m-1-eu" in data["approved"]["accepted_models"]
    assert signable_hash(store.load(dossier_id).dossier) == signable_hash(store.load(dossier_id, 1).dossier)
    for bad in (["--baseline-rate", "1.5"], ["--baseline-start", "2026-01-01"], []):
        code, _, err = run(capsys, "monitor", "go-live", dossier_id, *bad)
        assert code == 2 and "Traceback" not in err, bad


def test_the_dossier_status_is_the_worst_of_its_candidates(dossier_id, tmp_path, capsys):
    ok = feed_rows(20, start=RECENT, prompt_version="v1")
    run(capsys, "monitor", "import", str(write_csv(tmp_path / "a.csv", ok)), "--dossier", dossier_id)
    other = feed_rows(20, start=RECENT, model="m-9", prefix="o", prompt_version="v1")
    run(
        capsys,
        "monitor",
        "import",
        str(write_csv(tmp_path / "b.csv", other)),
        "--dossier",
        dossier_id,
        "--candidate",
        "gpt-4o",  # a candidate model of the intended use, not yet decided
    )
    code, data, _ = run(capsys, "monitor", "status", dossier_id)
    assert code == 4 and data["status"] == "pause"
    assert data["candidates"] == {"M1": "in_control", "gpt-4o": "pause"} and data["rows"] == 40
    assert [(s["candidate"], s["kind"]) for s in data["signals"]] == [("gpt-4o", "model_change")]
    code, data, _ = run(capsys, "monitor", "status", dossier_id, "--candidate", "M1")
    assert code == 0 and data["status"] == "in_control" and data["rows"] == 20


def test_blinded_register_and_feed_export_leave_out_reviewers_and_names(dossier_id, tmp_path, capsys):
    rows = feed_rows(
        5,
        start=RECENT,
        prompt_version="v1",
        reviewer="rn-ada.lovelace",
        text="Dear Mr. Robert Chen-Morales, your refill is ready.",
    )
    run(capsys, "monitor", "import", str(write_csv(tmp_path / "a.csv", rows)), "--dossier", dossier_id)
    run(
        capsys,
        "monitor",
        "event",
        dossier_id,
        "--severity",
        "minor",
        "--description",
        "Reply to Mr. Robert Chen-Morales named the wrong clinic",
        "--by",
        "rn.ada",
    )
    code, data, _ = run(capsys, "monitor", "events", dossier_id, "--blinded")
    (event,) = data["events"]
    assert code == 0 and event["description"] == "Reply to [NAME] named the wrong clinic"
    assert "reported_by" not in event
    code, data, _ = run(capsys, "monitor", "events", dossier_id)
    assert data["events"][0]["reported_by"] == "rn.ada"
    out = tmp_path / "blinded.csv"
    code, data, _ = run(capsys, "monitor", "export", dossier_id, "--out", str(out))
    text = out.read_text()
    assert code == 0 and data["rows"] == 5 and text.splitlines()[0].startswith("id,ts,month,served_model")
    assert "rn-ada" not in text and "Chen-Morales" not in text and "r0," in text


def test_text_format_is_a_summary_for_people(dossier_id, tmp_path, capsys):
    rows = feed_rows(10, start=RECENT, model="m-7", prompt_version="v1")
    run(capsys, "monitor", "import", str(write_csv(tmp_path / "a.csv", rows)), "--dossier", dossier_id)
    code = main(["monitor", "status", dossier_id, "--format", "text"])
    out = capsys.readouterr().out
    assert code == 4 and "status: pause" in out and "pause (open): 10 outputs were served as m-7" in out
    assert not out.lstrip().startswith("{")


def test_the_feed_export_neutralises_a_formula_a_vendor_log_carried(dossier_id, tmp_path, capsys):
    """Issue 35 item 3: a served_model of ``=HYPERLINK(...)`` was written back as a live formula."""
    import csv

    formula = '=HYPERLINK("http://attacker.example/x","open")'
    rows = feed_rows(3, start=RECENT, prompt_version="v1", model=formula)
    code, _, err = run(capsys, "monitor", "import", str(write_csv(tmp_path / "a.csv", rows)),
                       "--dossier", dossier_id, "--candidate", "M1")
    assert code == 0, err
    out = tmp_path / "blinded.csv"
    code, data, _ = run(capsys, "monitor", "export", dossier_id, "--out", str(out))
    assert code == 0 and data["rows"] == 3
    served = [r["served_model"] for r in csv.DictReader(out.open(newline=""))]
    assert served == ["'" + formula] * 3
    cells = [c for r in csv.reader(out.open(newline="")) for c in r]
    assert not [c for c in cells if c.startswith(("=", "+", "@"))]


def test_an_unknown_candidate_is_refused_everywhere_and_nothing_is_stored(
    dossier_id, store, tmp_path, capsys
):
    """Issue 36 items 18 and 19: ``--candidate`` with a typo stored rows under a made-up name (exit 0, a
    pause raised) and ``monitor status --candidate <typo>`` said "in control" (exit 0)."""
    path = write_csv(tmp_path / "feed.csv", feed_rows(20, start=RECENT, prompt_version="v1"))
    version = store.load(dossier_id).version
    code, data, err = run(
        capsys, "monitor", "import", str(path), "--dossier", dossier_id, "--candidate", "M11"
    )
    assert (code, data) == (2, None)
    assert "no candidate 'M11' in dossier D-mon1" in err and "M1, gpt-4o" in err and "Traceback" not in err
    assert store.monitoring.candidates(dossier_id) == [] and store.load(dossier_id).version == version
    for argv in (
        ["monitor", "status", dossier_id, "--candidate", "M11"],
        ["monitor", "event", dossier_id, "--severity", "minor", "--description", "wrong clinic",
         "--candidate", "M11"],
        ["monitor", "export", dossier_id, "--out", str(tmp_path / "x.csv"), "--candidate", "M11"],
        ["monitor", "go-live", dossier_id, "--prompt-version", "v2", "--candidate", "M11"],
    ):
        code, data, err = run(capsys, *argv)
        assert code == 2 and "no candidate 'M11'" in err and "M1" in err, argv
    assert store.load(dossier_id).version == version
    # the known name still works, and a queue from the feed names the candidates it has
    code, _, err = run(capsys, "monitor", "import", str(path), "--dossier", dossier_id, "--candidate", "M1")
    assert code == 0, err
    store.close()  # the review command opens the file for writing
    code, _, err = run(capsys, "review", "create", "--feed", dossier_id, "--candidate", "M11", "--n", "2",
                       "--raters", "dr.a")
    assert code == 2 and "no feed rows of candidate 'M11'" in err and "candidates with a feed: M1" in err
    code, _, err = run(capsys, "monitor", "events", dossier_id, "--candidate", "M11")
    assert code == 2 and "no candidate 'M11'" in err


def test_a_later_file_resending_a_stored_id_with_other_content_exits_2(dossier_id, tmp_path, capsys):
    """Issue 35: it exited 0 and dropped the row as already stored; the overlap as stored still exits 0."""
    rows = feed_rows(10, start=RECENT, prompt_version="v1")
    code, first, err = run(capsys, "monitor", "import", str(write_csv(tmp_path / "a.csv", rows)),
                           "--dossier", dossier_id)
    assert code == 0, err
    later = [*rows[5:], *feed_rows(12, start=RECENT, prompt_version="v1")[10:]]
    code, data, _ = run(capsys, "monitor", "import", str(write_csv(tmp_path / "b.csv", later)),
                        "--dossier", dossier_id)
    assert code == 0 and (data["rows_added"], data["rows_already_stored"]) == (2, 5)
    later[1] = later[1] | {"outcome": "discarded"}  # r6
    code, data, err = run(capsys, "monitor", "import", str(write_csv(tmp_path / "c.csv", later)),
                          "--dossier", dossier_id)
    assert code == 2 and data is None and "Traceback" not in err
    assert "c.csv: row 2 has the id 'r6' of a different row already stored by the feed import of " in err
    assert f"(a.csv, {first['id']})" in err and len(err.strip().splitlines()) == 1
