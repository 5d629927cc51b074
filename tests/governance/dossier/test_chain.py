"""The record's hash chain: verify names the first broken link; show, load and report flag a changed row."""

import json
import re

import duckdb
import psycopg
import pytest

from cli import main
from evaluator.storage.db import apply_migrations
from governance.dossier.record import Dossier
from governance.dossier.store import MIGRATIONS, Store
from governance.intended_use.records import example_intended_use


def _three_versions(store: Store) -> Dossier:
    d = Dossier(id="D-chain", title="Portal replies", owner="committee", intended_use=example_intended_use())
    store.save(d, "alice", "created", auth="local, unauthenticated")
    store.save(d.model_copy(update={"title": "Portal replies v2"}), "bob", "retitled")
    store.audit("carol", "scenario import", d.id, {"scenario": "S-1"})
    store.save(d.model_copy(update={"title": "Portal replies v3"}), "carol", "retitled again")
    return d


@pytest.fixture
def store(any_store):
    """Every test here that takes ``store`` runs on the DuckDB file and on a real PostgreSQL server."""
    return any_store


def _sql(store: Store, sql: str, params=None) -> None:
    """Change stored rows behind the store's back, as someone with access to the database would.

    On PostgreSQL the append-only triggers refuse the statement first (checked here); the change is
    then made as a superuser who switches triggers off for the session, the way an administrator could.
    """
    cur = store.cursor()
    try:
        if store.backend == "postgresql":
            sql = re.sub(r"replace\(content, ('[^']*'), ('[^']*')\)", r"replace(content::text, \1, \2)::json",
                         sql)
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
                cur.execute(sql, params or [])
            cur.execute("SET session_replication_role = replica")
        cur.execute(sql, params or [])
    finally:
        if store.backend == "postgresql":  # the connection goes back to the store's pool: triggers on again
            cur.execute("RESET session_replication_role")
        cur.close()


def test_an_untouched_record_verifies_with_its_counts(store):
    _three_versions(store)
    report = store.verify_chain("D-chain")
    assert report.ok and report.first_break is None
    assert (report.versions, report.events, report.legacy_versions, report.legacy_events) == (3, 4, 0, 0)
    assert report.head_version == 3 and report.head_hash == store.load("D-chain").hash
    assert report.summary == "Record chain verified: 3 versions, 4 events."
    assert store.load("D-chain", 1).auth == "local, unauthenticated"


def test_content_changed_in_the_file_is_named_and_flagged_on_load(store):
    _three_versions(store)
    _sql(store, "UPDATE dossier_versions SET content = replace(content, 'Portal replies v2', 'Portal replies "
                "(edited)') WHERE dossier_id = 'D-chain' AND version = 2")
    report = store.verify_chain("D-chain")
    assert not report.ok
    assert (report.first_break.kind, report.first_break.version) == ("version", 2)
    assert "content was changed after it was saved" in report.first_break.problem
    assert report.summary.startswith("Record chain BROKEN at version 2")
    assert "does not match its hash" in store.load("D-chain", 2).integrity_problem
    assert store.load("D-chain", 1).integrity_problem == "" and store.load("D-chain").integrity_problem == ""


@pytest.mark.parametrize(("sql", "kind", "where", "words"), [
    ("UPDATE dossier_versions SET author = 'mallory' WHERE version = 2", "version", 2, "author, time, note"),
    ("UPDATE dossier_versions SET note = 'approved' WHERE version = 1", "version", 1, "author, time, note"),
    ("DELETE FROM dossier_versions WHERE version = 3", "event", None, "no longer stored"),
    ("UPDATE audit_log SET actor = 'mallory' WHERE action = 'scenario import'", "event", None, "actor, time"),
    ("DELETE FROM audit_log WHERE action = 'scenario import'", "event", None, "removed or reordered"),
])
def test_each_kind_of_direct_edit_breaks_a_named_link(store, sql, kind, where, words):
    _three_versions(store)
    _sql(store, sql)
    report = store.verify_chain("D-chain")
    assert not report.ok and report.first_break.kind == kind and words in report.first_break.problem
    if where is not None:
        assert report.first_break.version == where


def test_verify_cli_exit_codes_and_show_flags_a_changed_row(home, capsys):
    store = Store.open(home / "medassure.duckdb")
    _three_versions(store)
    store.close()
    assert main(["verify", "D-chain"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True and out["summary"].startswith("Record chain verified: 3 versions")
    assert {"dossier_id", "versions", "events", "first_break", "breaks", "head_row_hash"} <= set(out)

    con = duckdb.connect(str(home / "medassure.duckdb"))
    con.execute("UPDATE dossier_versions SET content = replace(content, 'v3', 'v9') WHERE version = 3")
    con.close()
    assert main(["verify", "D-chain"]) == 3
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["ok"] is False and out["first_break"]["version"] == 3 and "BROKEN at version 3" in captured.err

    assert main(["dossier", "show", "D-chain"]) == 3
    captured = capsys.readouterr()
    shown = json.loads(captured.out)
    assert shown["version"]["integrity_ok"] is False and "does not match its hash" in captured.err
    assert main(["dossier", "show", "D-chain", "--version", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["version"]["integrity_ok"] is True


def test_the_report_flags_a_changed_row_and_states_the_chain(store):
    from reports.bundle import report_bundle

    _three_versions(store)
    ok = report_bundle(store, "D-chain").report
    assert ("Record chain", "Record chain verified: 3 versions, 4 events.") in [
        (f.label, f.value) for f in ok.executive_summary.facts]
    assert not any(f.startswith("RECORD INTEGRITY") for f in ok.cover.flags)
    _sql(store, "UPDATE dossier_versions SET content = replace(content, 'v3', 'v9') WHERE version = 3")
    bad = report_bundle(store, "D-chain").report
    assert bad.cover.flags[0].startswith("RECORD INTEGRITY: version 3's stored content does not match")
    assert any("Record chain BROKEN at version 3" in f for f in bad.cover.flags)


def test_rows_from_before_the_chain_load_and_count_as_legacy(home):
    """A database written by the previous release (migration 1 only) upgrades in place."""
    path = home / "medassure.duckdb"
    home.mkdir(parents=True)
    con = duckdb.connect(str(path))
    apply_migrations(con, "dossier", MIGRATIONS[:1])
    d = Dossier(id="D-old", title="Old dossier", owner="me", intended_use=example_intended_use())
    content = d.canonical_json()
    con.execute("INSERT INTO dossier_versions VALUES (?, 1, ?, NULL, 'old', now(), 'created', ?)",
                ["D-old", d.content_hash(), content])
    con.execute("INSERT INTO audit_log (logged_at, actor, dossier_id, action, detail) VALUES (now(), 'old', "
                "'D-old', 'create', ?)", [json.dumps({"version": 1, "hash": d.content_hash()})])
    con.close()

    store = Store.open(path)
    assert store.load("D-old").dossier == d and store.load("D-old").integrity_problem == ""
    store.save(d.model_copy(update={"title": "Old dossier, edited"}), "new", "after the upgrade")
    report = store.verify_chain("D-old")
    assert report.ok and (report.versions, report.legacy_versions, report.events, report.legacy_events) == (
        2, 1, 2, 1)
    assert "predate the chain" in report.summary
    _sql(store, "UPDATE dossier_versions SET content = replace(content, 'Old dossier', 'Forged') "
                "WHERE version = 1")
    assert store.verify_chain("D-old").first_break.version == 1  # legacy content is still checked
    store.close()


def test_a_save_based_on_a_shown_version_that_is_no_longer_latest_names_what_changed(store):
    from governance.dossier.store import SaveConflict

    d = Dossier(id="D-race", title="Portal replies", owner="committee", intended_use=example_intended_use())
    shown = store.save(d, "alice", "created")
    store.save(d.model_copy(update={"title": "Portal replies, sent without review"}), "bob", "edit")
    mine = d.model_copy(update={"owner": "carol"})
    with pytest.raises(SaveConflict) as refused:
        store.save(mine, "carol", "my edit", expected_hash=shown.hash)
    assert refused.value.based_on_version == 1 and refused.value.latest_version == 2
    assert refused.value.changes == ["Title: Portal replies → Portal replies, sent without review"]
    assert "Changed since: Title: Portal replies → Portal replies, sent without review" in str(refused.value)
    assert [h.version for h in store.history(d.id)] == [1, 2]  # nothing written
    assert store.save(mine.model_copy(update={"title": "Portal replies, sent without review"}), "carol",
                      expected_hash=store.load(d.id).hash).version == 3


def test_nulling_every_seal_does_not_pass_as_rows_that_predate_the_chain(store):
    """Issue 25, item 4: nulling every row_hash/prev_row_hash made sealed rows look legacy; verify passed."""
    _three_versions(store)
    _sql(store, "UPDATE dossier_versions SET row_hash = NULL, prev_row_hash = NULL "
                "WHERE dossier_id = 'D-chain'")
    _sql(store, "UPDATE audit_log SET row_hash = NULL, prev_row_hash = NULL WHERE dossier_id = 'D-chain'")
    report = store.verify_chain("D-chain")
    assert not report.ok and report.first_break.kind == "version" and report.first_break.version == 1
    assert "written after the chain began" in report.first_break.problem
    assert "seal was removed" in report.summary
    assert {b.kind for b in report.breaks} == {"version", "event", "anchor"}  # anchor: old links


@pytest.mark.parametrize("argv", [["dossier", "show", "D-chain"], ["dossier", "list"],
                                  ["report", "D-chain", "--out", "{tmp}/d.pdf"]])
def test_a_head_row_that_no_longer_validates_is_a_one_line_error(home, tmp_path, capsys, argv):
    """Issue 25, item 4: a head row edited into an invalid dossier gave a traceback in show, list, report."""
    store = Store.open(home / "medassure.duckdb")
    _three_versions(store)
    _sql(store, "UPDATE dossier_versions SET content = replace(content, '\"title\":\"Portal replies v3\"', "
                "'\"title\":7') WHERE version = 3")
    store.close()
    code = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "version 3 of dossier 'D-chain' cannot be read" in err and "medassure verify D-chain" in err
