"""Importing a monitoring feed in the operations: whole or not at all, idempotent, recorded, both backends."""

from __future__ import annotations

import pytest

from governance.dossier.content_hash import signable_hash
from governance.identity import Actor
from governance.monitoring.operations.feed import import_feed, monitoring_status
from governance.monitoring.records import FeedImport, SignalRecord
from governance.monitoring.store_feed_import import FeedError
from tests.governance.monitoring_fixtures import (
    CANDIDATE,
    NOW,
    decided_dossier,
    feed_rows,
    write_csv,
    write_jsonl,
)


@pytest.fixture
def dossier_id(any_store):
    return any_store.save(decided_dossier(), author="chair").dossier.id


def test_csv_import_stores_every_row_and_records_the_file(any_store, dossier_id, tmp_path):
    rows = feed_rows(240, material_every=0)
    for i, r in enumerate(rows):
        r |= {"latency_ms": str(i), "review_seconds": str(20 + i % 10), "cost_usd": "0.002",
              "tag:site": f"s{i % 3}"}
    path = write_csv(tmp_path / "feed.csv", rows)
    result = import_feed(any_store, dossier_id, path, actor=Actor.named("qa"), now=NOW)
    assert (result.record.rows_in_file, result.record.rows_added, result.record.rows_already_stored) == (
        240,
        240,
        0,
    )
    assert any_store.monitoring.row_count(dossier_id, CANDIDATE) == 240
    entries = any_store.load(dossier_id).dossier.monitoring
    assert isinstance(entries[0], FeedImport) and len(entries[0].file_sha256) == 64
    assert result.status.status == "in_control" and result.status.rows == 240
    # 240 hourly rows from 2026-02-01: 10 days, one month; 120 audited, none material
    months = result.status.metrics["material_correction_share"]
    assert [(m.month, m.n, m.rate) for m in months] == [("2026-02", 120, 0.0)]
    # the same SQL figures on both backends: p95 of 0..239 by linear interpolation, cost per 1,000
    assert result.status.metrics["latency_p95_ms"][0].rate == pytest.approx(0.95 * 239)
    assert result.status.metrics["cost_per_1k"][0].rate == pytest.approx(2.0)
    agg = any_store.monitoring.aggregates(dossier_id, CANDIDATE)
    assert agg.months[0].review_seconds_median == pytest.approx(24.5)  # median of 20..29, 24 times each
    # 240 hourly rows from 2026-02-01: ten UTC days of 24, latency i on row i
    assert agg.latency_days[0].isoformat() == "2026-02-01T00:00:00+00:00" and len(agg.latency_days) == 10
    assert agg.latency_daily_means[:2] == [pytest.approx(11.5), pytest.approx(35.5)]
    assert [(t.value, t.n, t.audited) for t in agg.tags] == [("s0", 80, 40), ("s1", 80, 40), ("s2", 80, 40)]
    assert any_store.verify_chain(dossier_id).ok


def test_the_same_file_twice_adds_nothing_and_rows_without_ids_dedupe_by_hash(
    any_store, dossier_id, tmp_path
):
    rows = [{k: v for k, v in r.items() if k != "id"} for r in feed_rows(50)]
    path = write_csv(tmp_path / "noid.csv", rows)
    first = import_feed(any_store, dossier_id, path, actor=Actor.named("qa"), now=NOW)
    again = import_feed(any_store, dossier_id, path, actor=Actor.named("qa"), now=NOW)
    assert first.record.rows_added == 50
    assert (again.record.rows_added, again.record.rows_already_stored) == (0, 50)
    assert again.version == first.version  # nothing new: no new version of the dossier either
    assert any_store.monitoring.row_count(dossier_id, CANDIDATE) == 50
    # the same rows by id, in another format, add nothing either
    with_ids = feed_rows(50)
    import_feed(any_store, dossier_id, write_jsonl(tmp_path / "a.jsonl", with_ids),
                actor=Actor.named("qa"), now=NOW)
    again = import_feed(any_store, dossier_id, write_csv(tmp_path / "a.csv", with_ids),
                        actor=Actor.named("qa"), now=NOW)
    assert again.record.rows_added == 0
    assert any_store.monitoring.row_count(dossier_id, CANDIDATE) == 100


def test_a_bad_row_refuses_the_whole_file_and_stores_nothing(any_store, dossier_id, tmp_path):
    rows = feed_rows(30)
    rows[17]["outcome"] = "approved"
    before = any_store.load(dossier_id).version
    with pytest.raises(FeedError, match=r"row 18: outcome is not one of accepted, minor_edit"):
        import_feed(any_store, dossier_id, write_csv(tmp_path / "bad.csv", rows),
                    actor=Actor.named("qa"), now=NOW)
    assert any_store.monitoring.row_count(dossier_id) == 0
    assert any_store.load(dossier_id).version == before


def test_the_decision_stays_signed_after_imports(any_store, dossier_id, tmp_path):
    signed = signable_hash(any_store.load(dossier_id).dossier)
    rows = feed_rows(100, model="m-2")  # an unapproved served identity: a pause signal is recorded
    result = import_feed(any_store, dossier_id, write_csv(tmp_path / "f.csv", rows),
                         actor=Actor.named("qa"), now=NOW)
    after = any_store.load(dossier_id).dossier
    assert signable_hash(after) == signed
    assert result.status.status == "pause"
    recorded = [e for e in after.monitoring if isinstance(e, SignalRecord)]
    assert [(s.signal_kind, s.level, s.metric) for s in recorded] == [
        ("model_change", "pause", "served_model")
    ]
    assert (recorded[0].deadline - recorded[0].recorded_at).total_seconds() == 4 * 3600
    # recording again (a second import of the same rows) adds no second signal
    import_feed(any_store, dossier_id, write_csv(tmp_path / "f.csv", rows), actor=Actor.named("qa"), now=NOW)
    again = [e for e in any_store.load(dossier_id).dossier.monitoring if isinstance(e, SignalRecord)]
    assert len(again) == 1
    assert (
        monitoring_status(any_store, dossier_id, now=NOW).reevaluation_command
        == "medassure reevaluate D-mon1"
    )


def _counted(monkeypatch, module, name):
    """Wrap ``module.name`` with a counter; the list of calls is returned."""
    calls = []
    real = getattr(module, name)

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def test_an_import_computes_the_status_once_and_returns_what_it_recorded(
    any_store, dossier_id, tmp_path, monkeypatch
):
    import governance.monitoring.operations.feed as feed

    calls = _counted(monkeypatch, feed, "compute_status")
    rows = feed_rows(100, model="m-2")  # an unapproved served identity: a pause signal is recorded
    path = write_csv(tmp_path / "f.csv", rows)
    result = import_feed(any_store, dossier_id, path, actor=Actor.named("qa"), now=NOW)
    assert len(calls) == 1  # was 2: once to raise the signals, again for the status returned
    assert result.new_signals and result.status.status == "pause"
    # the one status, computed before its signals were appended, is the status of the version after it
    assert result.status == monitoring_status(any_store, dossier_id, now=NOW)
    calls.clear()
    import_feed(any_store, dossier_id, write_csv(tmp_path / "g.csv", feed_rows(10, prefix="g")),
                actor=Actor.named("qa"), now=NOW)
    assert len(calls) == 1


def test_an_unchanged_file_is_recognised_by_its_hash_before_its_rows_are_read(
    any_store, dossier_id, tmp_path, monkeypatch
):
    path = write_csv(tmp_path / "feed.csv", feed_rows(60, material_every=3))
    first = import_feed(any_store, dossier_id, path, actor=Actor.named("qa"), now=NOW)
    reads = _counted(monkeypatch, type(any_store.monitoring), "import_file")
    renamed = tmp_path / "renamed.csv"
    renamed.write_bytes(path.read_bytes())
    for same in (path, renamed):  # the bytes decide, not the name
        again = import_feed(any_store, dossier_id, same, actor=Actor.named("qa"), now=NOW)
        assert reads == []
        r = again.record
        assert (r.rows_in_file, r.rows_added, r.rows_already_stored) == (60, 0, 60)
        assert (r.file_sha256, r.first_timestamp, r.last_timestamp, r.file_name) == (
            first.record.file_sha256, first.record.first_timestamp, first.record.last_timestamp, same.name
        )
        assert again.version == first.version and again.new_signals == []
        assert again.status == first.status
    # another candidate's import of the same bytes reads them (its rows are not stored yet)
    other = import_feed(any_store, dossier_id, path, candidate="gpt-4o", actor=Actor.named("qa"), now=NOW)
    assert len(reads) == 1 and other.record.rows_added == 60
    # the same file later, when the clock raised a signal (the schedule), records it as before
    later = import_feed(any_store, dossier_id, path, actor=Actor.named("qa"), now=NOW.replace(year=2027))
    assert len(reads) == 1 and [e.signal_kind for e in any_store.load(dossier_id).dossier.monitoring
                                if isinstance(e, SignalRecord) and e.id in later.new_signals] == ["schedule"]
    assert later.version == other.version + 1
