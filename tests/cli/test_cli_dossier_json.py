"""`dossier list` and `dossier history` print the same JSON now that the store returns models.

The expected documents are built here field by field the way the store built its dicts before
(``created_at.isoformat()`` and so on), from the versions the store loads, so a renamed key, a
reordered key or a differently formatted timestamp fails.
"""

import json

from cli import main
from governance.dossier.record import Dossier
from governance.dossier.store import Store
from governance.intended_use.records import example_intended_use

HISTORY_KEYS = ["version", "hash", "parent_hash", "created_at", "author", "note", "auth"]  # auth: issue 17
LIST_KEYS = ["id", "title", "owner", "status", "risk_tier", "version", "hash", "updated_at",
             "monitoring"]  # monitoring: issue 36 item 6
AUDIT_KEYS = ["seq", "at", "actor", "dossier_id", "action", "detail", "auth"]  # auth: added by issue 17


def _cli_json(capsys, *argv) -> object:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def _two_versions(home) -> tuple[str, list]:
    store = Store.open(home / "medassure.duckdb")
    try:
        d = Dossier(title="Portal replies", owner="dr.lee", intended_use=example_intended_use())
        store.save(d, author="alice", note="created")
        store.save(d.model_copy(update={"title": "Portal replies v2"}), author="bob")
        versions = [store.load(d.id, n) for n in (1, 2)]
    finally:
        store.close()
    return d.id, versions


def test_history_json_has_the_same_keys_and_values_as_before(home, capsys):
    dossier_id, versions = _two_versions(home)
    printed = _cli_json(capsys, "dossier", "history", dossier_id)
    expected = [
        {"version": v.version, "hash": v.hash, "parent_hash": v.parent_hash,
         "created_at": v.created_at.isoformat(), "author": v.author, "note": v.note, "auth": v.auth}
        for v in versions
    ]
    assert [list(row) for row in printed] == [HISTORY_KEYS, HISTORY_KEYS]
    assert printed == expected
    assert printed[1]["parent_hash"] == printed[0]["hash"] and printed[1]["note"] == ""


def test_list_json_has_the_same_keys_and_values_as_before(home, capsys):
    dossier_id, versions = _two_versions(home)
    latest = versions[-1]
    printed = _cli_json(capsys, "dossier", "list")
    assert [list(row) for row in printed] == [LIST_KEYS]
    assert printed == [{
        "id": dossier_id, "title": "Portal replies v2", "owner": "dr.lee", "status": "draft",
        "risk_tier": latest.dossier.risk.tier, "version": 2, "hash": latest.hash,
        "updated_at": latest.created_at.isoformat(), "monitoring": None,  # a draft: nothing watched
    }]


def test_audit_events_dump_to_the_old_dicts(home):
    dossier_id, versions = _two_versions(home)
    store = Store.open(home / "medassure.duckdb")
    try:
        events = [e.model_dump(mode="json") for e in store.audit_log(dossier_id)]
    finally:
        store.close()
    assert [list(e) for e in events] == [AUDIT_KEYS, AUDIT_KEYS]
    assert [(e["actor"], e["action"], e["dossier_id"]) for e in events] == [
        ("alice", "create", dossier_id), ("bob", "save", dossier_id)]
    assert events[0]["at"] == versions[0].created_at.isoformat()
    assert events[1]["detail"] == {"version": 2, "hash": versions[1].hash, "note": "", "changed": ["title"]}
    assert events[0]["seq"] < events[1]["seq"]


def test_a_paused_use_says_pause_in_show_and_list(home, capsys, tmp_path):
    """Issue 36 item 6: the served model changed after go-live, so monitoring pauses the use."""
    from datetime import UTC, datetime

    from governance.identity import Actor
    from governance.monitoring import import_feed
    from tests.governance.monitoring_fixtures import NOW, decided_dossier, feed_rows, write_csv

    store = Store.open(home / "medassure.duckdb")
    try:
        dossier_id = store.save(decided_dossier(), author="chair").dossier.id
    finally:
        store.close()
    assert _cli_json(capsys, "dossier", "show", dossier_id)["monitoring"] is None  # nothing watched yet
    store = Store.open(home / "medassure.duckdb")
    try:
        import_feed(store, dossier_id, write_csv(tmp_path / "a.csv", feed_rows(200)), actor=Actor.named("qa"),
                    now=NOW)
    finally:
        store.close()
    assert _cli_json(capsys, "dossier", "show", dossier_id)["monitoring"] == "in_control"
    store = Store.open(home / "medassure.duckdb")
    try:
        changed = feed_rows(50, model="m-2", prefix="x", start=datetime(2026, 3, 1, tzinfo=UTC))
        import_feed(store, dossier_id, write_csv(tmp_path / "b.csv", changed), actor=Actor.named("qa"),
                    now=NOW)
    finally:
        store.close()
    shown = _cli_json(capsys, "dossier", "show", dossier_id)
    assert shown["monitoring"] == "pause" and shown["status"] == "decided"  # no key removed
    (listed,) = _cli_json(capsys, "dossier", "list")
    assert listed["monitoring"] == "pause" and list(listed) == LIST_KEYS


def test_text_format_is_a_summary_for_people_not_json(home, capsys):
    """``--format text`` was accepted by `dossier list` and `dossier show` and printed JSON anyway."""
    dossier_id, versions = _two_versions(home)
    assert main(["dossier", "list", "--format", "text"]) == 0
    out = capsys.readouterr().out
    head, row = out.splitlines()
    assert head.split()[:3] == ["id", "status", "monitoring"]
    assert row.startswith(dossier_id) and row.rstrip().endswith(versions[-1].dossier.title)
    assert row.split()[1:3] == [versions[-1].dossier.status, "-"]  # nothing watched: no state shown
    assert main(["dossier", "show", dossier_id, "--format", "text"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"{versions[-1].dossier.title} ({dossier_id})\n")
    assert "monitoring nothing watched" in shown and f"version 2 · {versions[-1].hash[:12]}" in shown
    assert not shown.lstrip().startswith("{")
