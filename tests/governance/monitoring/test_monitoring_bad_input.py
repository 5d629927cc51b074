"""Every refusal of a feed file names the row and the field, and leaves feed and dossier unchanged."""

from __future__ import annotations

import json

import pytest

from governance.identity import Actor
from governance.monitoring.operations.feed import MonitoringError, import_feed
from governance.monitoring.store_feed_import import FeedError
from tests.governance.monitoring_fixtures import NOW, decided_dossier, feed_rows, write_csv, write_jsonl


@pytest.fixture
def dossier_id(store):
    return store.save(decided_dossier(), author="chair").dossier.id


BAD = [
    ("outcome", "accept", "outcome is not one of"),
    ("outcome", "", "outcome is not one of"),
    ("timestamp", "2026-02-01T10:00:00", "not an ISO 8601 date and time with a zone"),
    ("timestamp", "yesterday", "not an ISO 8601 date and time with a zone"),
    ("timestamp", "2026-02-30T10:00:00Z", "not a valid date and time"),
    ("timestamp", "2027-02-01T10:00:00Z", "is in the future"),
    ("timestamp", "2026-02-01", "not an ISO 8601 date and time with a zone"),
    ("served_model", "", "served_model is missing"),
    ("tokens_in", "-3", "tokens_in is negative"),
    ("tokens_out", "2.5", "tokens_out is not a whole number"),
    ("tokens_in", "many", "tokens_in is not a number"),
    ("latency_ms", "inf", "latency_ms is not a finite number"),
    ("latency_ms", "-1", "latency_ms is negative"),
    ("cost_usd", "NaN", "cost_usd is not a finite number"),
    ("review_seconds", "-0.5", "review_seconds is negative"),
    ("judge_score", "nan", "judge_score is not a finite number"),
    ("audited", "maybe", "audited is not a boolean"),
    ("sentinel", "Y", "sentinel is not a boolean"),
    ("error", "2", "error is not a boolean"),
    ("audit_verdict", "wrong", "audit_verdict is not one of correct, minor, material"),
    ("severity", "critical", "severity is not one of near_miss, minor, moderate, severe"),
    # issue 35 item 6: a year 0001 (or any time before 2000) was accepted; so were control characters
    ("timestamp", "0001-01-01T00:00:00Z", "timestamp is before 2000"),
    ("timestamp", "1999-12-31T23:59:59Z", "timestamp is before 2000"),
    ("served_model", "m-1\u202e", "served_model holds a control character (RIGHT-TO-LEFT OVERRIDE, U+202E)"),
    ("reviewer", "dr\x00a", "reviewer holds a control character (NUL, U+0000)"),
    ("prompt_version", "v1\x1b[2J", "prompt_version holds a control character (ESC, U+001B)"),
    ("text", "take \u2066two\u2069 tablets", "text holds a control character (LEFT-TO-RIGHT ISOLATE"),
    ("id", "out\u202a7", "id holds a control character (LEFT-TO-RIGHT EMBEDDING"),
    ("tag:site", "north\x07", "tag:site holds a control character (BEL, U+0007)"),
    # A name followed by a bidi mark or a zero-width character prints exactly as the approved name
    # ("gpt-4o" + RLM): names refuse every control and format character; the prose in `text` keeps its marks.
    ("served_model", "m-1\u200f", "served_model holds a control character (RIGHT-TO-LEFT MARK, U+200F)"),
    ("served_model", "m-1\u200e", "served_model holds a control character (LEFT-TO-RIGHT MARK, U+200E)"),
    ("served_model", "m\u200b-1", "served_model holds a control character (ZERO WIDTH SPACE, U+200B)"),
    ("prompt_version", "v\u061c1", "prompt_version holds a control character (ARABIC LETTER MARK, U+061C)"),
    ("reviewer", "dr\ufeffb", "reviewer holds a control character (ZERO WIDTH NO-BREAK SPACE, U+FEFF)"),
    ("id", "out\u00ad7", "id holds a control character (SOFT HYPHEN, U+00AD)"),
    ("tag:site", "no\u2060rth", "tag:site holds a control character (WORD JOINER, U+2060)"),
    ("served_model", "m-1\x85", "served_model holds a control character"),
]


@pytest.mark.parametrize(("field", "value", "why"), BAD, ids=[f"{f}={v or 'empty'}" for f, v, _ in BAD])
def test_a_bad_value_is_refused_naming_row_and_field(store, dossier_id, tmp_path, field, value, why):
    rows = feed_rows(
        12,
        latency_ms="10",
        tokens_in="5",
        tokens_out="5",
        cost_usd="0.01",
        review_seconds="20",
        judge_score="0.8",
        sentinel="false",
        error="false",
        severity="",
        **{"tag:site": "north", "reviewer": "dr.b", "text": "ok"},
    )
    rows[6][field] = value
    version = store.load(dossier_id).version
    with pytest.raises(FeedError) as exc:
        import_feed(
            store, dossier_id, write_csv(tmp_path / "bad.csv", rows), actor=Actor.named("qa"), now=NOW
        )
    message = str(exc.value)
    assert "row 7:" in message and why in message and "nothing was imported" in message
    assert "\n" not in message
    assert store.monitoring.row_count(dossier_id) == 0
    assert store.load(dossier_id).version == version


@pytest.mark.parametrize("word", ["true", "FALSE", "1", "0", "yes", "No", ""])
def test_boolean_words_are_accepted(store, dossier_id, tmp_path, word):
    rows = feed_rows(3, sentinel=word)
    assert (
        import_feed(
            store, dossier_id, write_csv(tmp_path / "ok.csv", rows), actor=Actor.named("qa"), now=NOW
        ).record.rows_added
        == 3
    )


def test_a_zone_offset_is_kept_and_months_are_utc(store, dossier_id, tmp_path):
    rows = feed_rows(1)
    rows[0]["timestamp"] = "2026-03-01T00:30:00+02:00"  # 2026-02-28 22:30 UTC
    result = import_feed(
        store, dossier_id, write_csv(tmp_path / "tz.csv", rows), actor=Actor.named("qa"), now=NOW
    )
    assert [m.month for m in result.status.metrics["material_correction_share"]] == ["2026-02"]


def test_missing_and_unknown_columns_are_refused(store, dossier_id, tmp_path):
    rows = [{k: v for k, v in r.items() if k != "outcome"} for r in feed_rows(2)]
    with pytest.raises(FeedError, match="no column outcome"):
        import_feed(store, dossier_id, write_csv(tmp_path / "a.csv", rows), actor=Actor.named("qa"), now=NOW)
    rows = feed_rows(2, patient_name="x")
    with pytest.raises(FeedError, match="unknown column 'patient_name'"):
        import_feed(store, dossier_id, write_csv(tmp_path / "b.csv", rows), actor=Actor.named("qa"), now=NOW)


def test_unreadable_files_are_one_line_errors(store, dossier_id, tmp_path):
    (tmp_path / "x.jsonl").write_text('{"timestamp": "2026-02-01T00:00:00Z"}\n{not json\n', encoding="utf-8")
    with pytest.raises(FeedError, match="not readable as JSON"):
        import_feed(store, dossier_id, tmp_path / "x.jsonl", actor=Actor.named("qa"), now=NOW)
    (tmp_path / "x.xlsx").write_bytes(b"PK")
    with pytest.raises(FeedError, match="give a .csv, .jsonl or .parquet file"):
        import_feed(store, dossier_id, tmp_path / "x.xlsx", actor=Actor.named("qa"), now=NOW)
    (tmp_path / "empty.csv").write_text("timestamp,served_model,outcome\n", encoding="utf-8")
    with pytest.raises(FeedError, match="holds no rows"):
        import_feed(store, dossier_id, tmp_path / "empty.csv", actor=Actor.named("qa"), now=NOW)
    with pytest.raises(MonitoringError, match="no such file"):
        import_feed(store, dossier_id, tmp_path / "absent.csv", actor=Actor.named("qa"), now=NOW)
    assert store.monitoring.row_count(dossier_id) == 0


def test_jsonl_rows_are_checked_like_csv_rows(store, dossier_id, tmp_path):
    rows = feed_rows(5)
    rows[3]["tokens_in"] = -1
    rows[1]["audited"] = True  # a JSON boolean is a boolean
    with pytest.raises(FeedError, match="row 4: tokens_in is negative"):
        import_feed(
            store, dossier_id, write_jsonl(tmp_path / "f.jsonl", rows), actor=Actor.named("qa"), now=NOW
        )
    (tmp_path / "arr.jsonl").write_text(json.dumps([1, 2]) + "\n", encoding="utf-8")
    with pytest.raises(FeedError, match="row 1: each line must be one JSON object"):
        import_feed(store, dossier_id, tmp_path / "arr.jsonl", actor=Actor.named("qa"), now=NOW)


def test_two_rows_with_one_id_and_different_content_are_refused_naming_both(store, dossier_id, tmp_path):
    """Before, the second row was dropped as "already stored", exit 0, no warning (issue 35 item 6)."""
    rows = feed_rows(10)
    rows[7] = {**rows[2], "outcome": "material_correction"}  # the same id r2, another outcome
    rows[8] = dict(rows[3])  # the same row twice: harmless, kept once
    with pytest.raises(FeedError, match=r"rows 3 and 8 have the same id 'r2' with different content"):
        import_feed(
            store, dossier_id, write_csv(tmp_path / "dup.csv", rows), actor=Actor.named("qa"), now=NOW
        )
    assert store.monitoring.row_count(dossier_id) == 0
    del rows[7]
    result = import_feed(
        store, dossier_id, write_csv(tmp_path / "ok.csv", rows), actor=Actor.named("qa"), now=NOW
    )
    assert (result.record.rows_in_file, result.record.rows_added) == (9, 8)


def test_a_ragged_csv_row_is_named(store, dossier_id, tmp_path):
    """Before: "no column timestamp, served_model, outcome" (DuckDB's sniffer took one column)."""
    path = write_csv(tmp_path / "ragged.csv", feed_rows(6))
    lines = path.read_text().splitlines()
    lines[4] += ",extra"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(FeedError, match=r"row 4 has \d+ fields where the header has \d+"):
        import_feed(store, dossier_id, path, actor=Actor.named("qa"), now=NOW)
    assert store.monitoring.row_count(dossier_id) == 0


@pytest.mark.parametrize("header, named", [
    ("tag:age\u202eband", "RIGHT-TO-LEFT OVERRIDE"),
    ("tag:age\x00band", "NUL"),
    ("tag:site\u2066", "LEFT-TO-RIGHT ISOLATE"),
])
def test_a_tag_name_holding_a_control_character_is_refused(store, dossier_id, tmp_path, header, named):
    # The same characters in a cell were refused; in a column's name they went in as a tag's name.
    rows = feed_rows(4)
    for row in rows:
        row[header] = "north"
    with pytest.raises(FeedError, match=named):
        import_feed(store, dossier_id, write_csv(tmp_path / "t.csv", rows), actor=Actor.named("qa"), now=NOW)
    assert store.monitoring.row_count(dossier_id) == 0


def test_a_header_naming_a_column_twice_is_refused(store, dossier_id, tmp_path):
    # DuckDB renamed the second "tag:site" to "tag:site_1": two tags of one name, silently.
    path = write_csv(tmp_path / "h.csv", [{**r, "tag:site": "north"} for r in feed_rows(4)])
    lines = path.read_text().splitlines()
    lines = [lines[0] + ",tag:site"] + [line + ",south" for line in lines[1:]]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(FeedError, match="names column 'tag:site' twice"):
        import_feed(store, dossier_id, path, actor=Actor.named("qa"), now=NOW)
    assert store.monitoring.row_count(dossier_id) == 0


def test_prose_keeps_its_right_to_left_marks_while_names_may_not(store, dossier_id, tmp_path):
    # An Arabic or Hebrew answer may carry U+200F between a number and its text; refusing the file for that
    # would lose real outputs. Only names (compared with approved ones) are held to no format character.
    rows = feed_rows(3, text="\u0627\u0644\u062c\u0631\u0639\u0629 5\u200f mg")
    import_feed(store, dossier_id, write_csv(tmp_path / "rtl.csv", rows), actor=Actor.named("qa"), now=NOW)
    assert store.monitoring.row_count(dossier_id) == 3
