"""The record's keyed anchor: removing the newest rows, or the anchor, fails ``verify`` (issue 25, 4)."""

from __future__ import annotations

import json
import stat

import duckdb
import pytest

from cli import main
from evaluator.storage.db import apply_migrations
from governance.dossier.chain_anchor import RecordKeyError, anchor_mac
from governance.dossier.key_files import key_id
from governance.dossier.record import Dossier
from governance.dossier.store import MIGRATIONS, Store
from governance.intended_use.records import example_intended_use
from tests.governance.dossier.test_chain import _sql, _three_versions


@pytest.fixture
def store(any_store):
    """DuckDB and a real PostgreSQL server."""
    return any_store


def _remove_head(store: Store, dossier_id: str = "D-chain") -> None:
    """Delete the newest version and the audit event recording its save, as a database user could."""
    head = store.load(dossier_id).version
    _sql(store, "DELETE FROM audit_log WHERE seq = (SELECT max(seq) FROM audit_log WHERE dossier_id = ?)",
         [dossier_id])
    _sql(store, "DELETE FROM dossier_versions WHERE dossier_id = ? AND version = ?", [dossier_id, head])


def _anchor_sql(store: Store, sql: str, params=None) -> None:
    """The anchor table has no append-only trigger (the app rewrites it); edit it directly."""
    cur = store.cursor()
    try:
        cur.execute(sql, params or [])
    finally:
        cur.close()


def test_removing_the_head_version_with_its_audit_event_is_found(store):
    _three_versions(store)
    _remove_head(store)
    # The chain alone still holds: what is left is a consistent, shorter record.
    versions, events = store.chain_rows("D-chain")
    assert len(versions) == 2 and len(events) == 3
    report = store.verify_chain("D-chain")
    assert not report.ok
    assert [b.kind for b in report.breaks] == ["anchor", "anchor"]
    assert "seals 3 versions" in report.breaks[0].problem and "2 are stored" in report.breaks[0].problem
    assert "seals 4 audit events, but 3 are stored" in report.breaks[1].problem
    assert report.summary.startswith("Record chain BROKEN at its anchor: the anchor seals 3 versions")


def test_deleting_the_anchor_as_well_is_found(store):
    _three_versions(store)
    _remove_head(store)
    _anchor_sql(store, "DELETE FROM chain_anchors WHERE dossier_id = 'D-chain'")
    report = store.verify_chain("D-chain")
    assert not report.ok and report.first_break.kind == "anchor"
    assert "has no anchor" in report.first_break.problem


def test_an_anchor_edited_to_agree_without_the_key_is_found(store):
    _three_versions(store)
    _remove_head(store)
    _anchor_sql(store, "UPDATE chain_anchors SET versions = 2, events = 3 WHERE dossier_id = 'D-chain'")
    report = store.verify_chain("D-chain")
    assert not report.ok and "altered outside MedAssure" in report.first_break.problem


def test_an_anchor_resealed_under_an_outsiders_key_is_not_trusted(store):
    _three_versions(store)
    _remove_head(store)
    versions, events = store.chain_rows("D-chain")
    head = versions[-1]["row_hash"]
    last = events[-1]["row_hash"]
    outsider = b"an outsider's key, 32 bytes long"
    _anchor_sql(store, "UPDATE chain_anchors SET versions = 2, head_link = ?, events = 3, event_link = ?, "
                       "key_id = ?, mac = ? WHERE dossier_id = 'D-chain'",
                [head, last, key_id(outsider), anchor_mac(outsider, "D-chain", 2, head, 3, last)])
    report = store.verify_chain("D-chain")
    assert not report.ok and "sealed with another record key" in report.first_break.problem
    assert key_id(outsider) in report.first_break.problem


def test_every_write_reseals_and_an_untouched_record_verifies(store):
    _three_versions(store)
    assert store.verify_chain("D-chain").ok
    store.audit("dan", "scenario redact", "D-chain", {"scenario": "S-1"})
    report = store.verify_chain("D-chain")
    assert report.ok and (report.versions, report.events) == (3, 5)
    d = store.load("D-chain").dossier
    assert store.save(d, "erin", "no change").version == 3  # an unchanged save writes nothing
    assert store.verify_chain("D-chain").ok


def test_a_failed_save_leaves_the_anchor_as_it_was(store, monkeypatch):
    d = _three_versions(store)
    before = store.chain_anchor("D-chain")
    monkeypatch.setenv("MEDASSURE_RECORD_KEY", "short")
    with pytest.raises(RecordKeyError, match="MEDASSURE_RECORD_KEY: the record key is 5 bytes long"):
        store.save(d.model_copy(update={"title": "never saved"}), "mallory", "with a short key")
    monkeypatch.undo()
    assert store.load("D-chain").version == 3 and store.chain_anchor("D-chain") == before
    assert store.verify_chain("D-chain").ok


def test_a_database_from_before_the_anchor_is_sealed_on_upgrade(home):
    """A file written with the first two migrations: opening it anchors the dossiers it holds."""
    path = home / "medassure.duckdb"
    home.mkdir(parents=True)
    con = duckdb.connect(str(path))
    apply_migrations(con, "dossier", MIGRATIONS[:2])
    con.close()
    # Rows written by the previous release's store: chained, no anchor table.
    import governance.dossier.store_migrations as sm

    old = sm.MIGRATIONS
    sm.MIGRATIONS = MIGRATIONS[:2]
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("governance.dossier.store_audit.DossierAudit._seal_anchor", lambda *a, **k: None)
            s = Store.open(path)
            _three_versions(s)
            s.close()
    finally:
        sm.MIGRATIONS = old
    con = duckdb.connect(str(path))
    tables = "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'chain_anchors'"
    assert con.execute(tables).fetchone() == (0,)
    con.close()

    s = Store.open(path)
    assert s.chain_anchor("D-chain") is not None and s.verify_chain("D-chain").ok
    _remove_head(s)
    assert not s.verify_chain("D-chain").ok
    s.close()


def test_verify_cli_exits_3_on_a_record_cut_short(home, capsys):
    s = Store.open(home / "medassure.duckdb")
    _three_versions(s)
    _remove_head(s)
    s.close()
    assert main(["verify", "D-chain"]) == 3
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["ok"] is False and out["first_break"]["kind"] == "anchor"
    assert "BROKEN at its anchor" in captured.err


def test_without_an_environment_key_the_key_file_is_made_0600_in_the_home(home, monkeypatch):
    monkeypatch.delenv("MEDASSURE_RECORD_KEY")
    s = Store.open(home / "medassure.duckdb")
    s.save(Dossier(id="D-k", title="Key file", owner="me", intended_use=example_intended_use()), "alice")
    key = home / "record.key"
    assert len(key.read_bytes()) == 64 and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert s.verify_chain("D-k").ok
    key.write_bytes(b"0123456789abcdef0123456789abcdef")  # another key: the seal cannot be checked
    report = s.verify_chain("D-k")
    assert not report.ok and "another record key" in report.first_break.problem
    s.close()
