"""A feed row re-sent in a later file under an id already stored, with other content (issue 35).

Before: the row was left out as "already stored", exit 0, no warning, so a corrected or a different output
sent under an old id vanished while the import said it succeeded. Now the import is refused whole, naming
the id, the row of the new file and the import that stored the id; a file whose overlapping rows are the
stored ones (as the import cleans them) still adds only its new rows, and the same file again nothing.
"""

from __future__ import annotations

import pytest

from governance.identity import Actor
from governance.monitoring.operations.feed import import_feed
from governance.monitoring.store_feed_import import FeedError
from tests.governance.monitoring_fixtures import NOW, decided_dossier, feed_rows, write_csv, write_jsonl


@pytest.fixture
def first(any_store, tmp_path):
    """A dossier whose feed holds r0..r9 (a.csv, with a tag and a latency), and that import's record."""
    dossier_id = any_store.save(decided_dossier(), author="chair").dossier.id
    rows = [r | {"latency_ms": "1.5", "tag:site": f"s{i % 2}"} for i, r in enumerate(feed_rows(10))]
    result = import_feed(any_store, dossier_id, write_csv(tmp_path / "a.csv", rows), actor=Actor.named("qa"),
                         now=NOW)
    return dossier_id, rows, result.record


def _import(store, dossier_id, path):
    return import_feed(store, dossier_id, path, actor=Actor.named("qa"), now=NOW)


@pytest.mark.parametrize("change", [
    {"outcome": "material_correction"},  # another verdict on the output
    {"served_model": "m-2"},  # another model answered
    {"latency_ms": "2"},
    {"tag:site": "elsewhere"},  # a tag is content too (the seal hashes it)
    {"tag:site": ""},  # a tag dropped
    {"timestamp": "2026-02-01T07:30:00Z"},  # r7 was at 07:00Z
])
def test_a_stored_id_with_other_content_refuses_the_later_file_whole(any_store, first, tmp_path, change):
    dossier_id, rows, record = first
    later = [r | {"latency_ms": "1.5", "tag:site": f"s{i % 2}"} for i, r in enumerate(feed_rows(15))][5:]
    later[2] = later[2] | change  # r7, the file's row 3
    version = any_store.load(dossier_id).version
    with pytest.raises(FeedError) as refused:
        _import(any_store, dossier_id, write_csv(tmp_path / "b.csv", later))
    assert str(refused.value) == (
        f"b.csv: row 3 has the id 'r7' of a different row already stored by the feed import of {NOW.date()} "
        f"(a.csv, {record.id}): one id per output (send a changed output under a new id); "
        "nothing was imported")
    assert any_store.monitoring.row_count(dossier_id) == 10  # r10..r14 not stored either
    assert any_store.load(dossier_id).version == version


def test_the_first_conflicting_row_of_the_file_is_named(any_store, first, tmp_path):
    dossier_id, rows, record = first
    later = [dict(r) for r in rows[::-1]]  # r9 .. r0: the file's row 4 is r6, row 8 is r2
    later[7]["outcome"] = "discarded"
    later[3]["served_model"] = "m-9"
    with pytest.raises(FeedError, match=r"^c\.jsonl: row 4 has the id 'r6' "):
        _import(any_store, dossier_id, write_jsonl(tmp_path / "c.jsonl", later))


def test_overlapping_rows_the_same_as_stored_add_only_the_new_ones(any_store, first, tmp_path):
    dossier_id, rows, record = first
    # the same values as the import cleans them, written otherwise: case, spaces, a number's form, a time
    # in another zone, JSON rather than CSV
    later = [r | {"outcome": " Accepted " if r["outcome"] == "accepted" else r["outcome"],
                  "served_model": " m-1", "latency_ms": "1.50"} for r in rows]
    later[4]["timestamp"] = "2026-02-01T05:00:00+01:00"  # r4 is 04:00Z
    later += feed_rows(13)[10:]
    result = _import(any_store, dossier_id, write_jsonl(tmp_path / "b.jsonl", later))
    assert (result.record.rows_in_file, result.record.rows_added, result.record.rows_already_stored) == (
        13, 3, 10)
    again = _import(any_store, dossier_id, write_csv(tmp_path / "b2.csv", later))  # other bytes, same rows
    assert (again.record.rows_added, again.record.rows_already_stored) == (0, 13)
    same = _import(any_store, dossier_id, tmp_path / "a.csv")  # the same file: recognised by its hash
    assert same.record.rows_added == 0
    assert any_store.monitoring.row_count(dossier_id) == 13


def test_rows_without_an_id_never_conflict(any_store, first, tmp_path):
    dossier_id, rows, record = first
    blank = [r | {"id": ""} for r in feed_rows(4, prefix="x")]
    a = _import(any_store, dossier_id, write_csv(tmp_path / "n1.csv", blank))
    blank[1]["outcome"] = "discarded"  # another row, so another content-hash key
    b = _import(any_store, dossier_id, write_csv(tmp_path / "n2.csv", blank))
    assert (a.record.rows_added, b.record.rows_added) == (4, 1)
