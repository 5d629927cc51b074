import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from governance.dossier.record import Dossier
from governance.dossier.store import (
    DossierNotFound,
    SaveConflict,
    Store,
    StoreCorruptError,
    StoreLockedError,
)
from governance.intended_use.records import example_intended_use
from governance.mapping.taxonomy import TaxonomyError


@pytest.fixture
def store(any_store):
    """Every test here that takes ``store`` runs on the DuckDB file and on a real PostgreSQL server."""
    return any_store


def make() -> Dossier:
    return Dossier(title="Portal replies", owner="committee", intended_use=example_intended_use())


def test_every_save_appends_a_version_with_a_chained_hash(store):
    d = make()
    v1 = store.save(d, "alice", "created")
    d2 = d.model_copy(
        update={"mapping": d.mapping.decide("patient_provider_messaging", "accepted", by="bob")}
    )
    v2 = store.save(d2, "bob", "mapped")
    history = store.history(d.id)
    assert [h.version for h in history] == [1, 2]
    assert history[1].parent_hash == v1.hash and history[0].parent_hash is None
    assert v1.hash != v2.hash
    assert store.load(d.id, 1).dossier == d
    assert store.load(d.id).dossier.mapping.accepted == ["patient_provider_messaging"]
    audit = store.audit_log(d.id)
    assert [a.action for a in audit] == ["create", "save"]
    assert audit[1].actor == "bob" and audit[1].detail["changed"] == ["mapping"]


def test_unchanged_save_is_not_a_new_version(store):
    d = make()
    store.save(d, "alice")
    again = store.save(d, "alice")
    assert again.version == 1
    assert len(store.history(d.id)) == 1


def test_hash_is_content_hash_and_survives_reload(store):
    d = make()
    v = store.save(d, "alice")
    loaded = store.load(d.id)
    assert loaded.hash == v.hash == loaded.dossier.content_hash()


def test_missing_dossier_and_unknown_subcategory(store):
    with pytest.raises(DossierNotFound, match="dossier list"):
        store.load("D-nope")
    with pytest.raises(TaxonomyError, match="unknown subcategory"):
        make().mapping.decide("not_a_subcategory", "accepted", by="x")


def test_author_required(store):
    with pytest.raises(Exception, match="author"):
        store.save(make(), "  ")


def test_corrupt_file_gives_clear_error_and_is_untouched(tmp_path):
    path = tmp_path / "medassure.duckdb"
    junk = b"this is not a database" * 100
    path.write_bytes(junk)
    with pytest.raises(StoreCorruptError, match="Nothing was changed"):
        Store.open(path)
    assert path.read_bytes() == junk


def test_second_process_gets_lock_message(tmp_path):
    path = tmp_path / "medassure.duckdb"
    holder = Store.open(path)
    holder.save(make(), "alice")
    code = textwrap.dedent(f"""
        from pathlib import Path
        from governance.dossier.store import Store, StoreLockedError
        try:
            Store.open(Path({str(path)!r}))
        except StoreLockedError as exc:
            print("LOCKED:", exc)
    """)
    env = {**os.environ, "MEDASSURE_LOCK_WAIT": "0.5"}  # refuse after half a second, not the default 15 s
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    holder.close()
    assert "LOCKED:" in out.stdout, out.stderr
    assert "in use by process" in out.stdout and "Nothing was changed" in out.stdout
    assert "Waited 0.5 s" in out.stdout and "wait for it to finish" in out.stdout  # what to do instead
    assert "PostgreSQL server (MEDASSURE_DATABASE_URL" in out.stdout and "later release" not in out.stdout


def test_a_second_process_waits_for_a_short_holder_instead_of_failing(tmp_path):
    path = tmp_path / "medassure.duckdb"
    holder = Store.open(path)
    holder.save(make(), "alice")
    code = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from governance.dossier.store import Store
        print("TRYING", flush=True)
        start = time.monotonic()
        store = Store.open(Path({str(path)!r}))
        print("OPENED after", round(time.monotonic() - start, 1), "s;", len(store.list_dossiers()), "dossier")
    """)
    env = {**os.environ, "MEDASSURE_LOCK_WAIT": "60"}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    assert proc.stdout.readline().strip() == "TRYING"  # imports done: now it meets the lock
    time.sleep(1.5)
    holder.close()
    out, err = proc.communicate(timeout=120)
    waited = float(out.split("OPENED after")[1].split("s;")[0])
    assert waited >= 1.0 and out.strip().endswith("1 dossier"), (out, err)
    assert StoreLockedError  # the class the message came from


def test_list_dossiers_reports_latest(store):
    d = make()
    store.save(d, "a")
    store.save(d.model_copy(update={"title": "Portal replies v2"}), "a")
    rows = store.list_dossiers()
    assert len(rows) == 1 and rows[0].version == 2 and rows[0].title == "Portal replies v2"
    assert rows[0].risk_tier == "moderate"
    json.dumps([r.model_dump(mode="json") for r in rows])


def test_hash_ignores_sections_still_at_their_defaults():
    # A release that adds an optional section must not change the hash of older content.
    d = make()
    doc = json.loads(d.canonical_json())
    assert "evidence" not in doc and "mapping" not in doc
    assert Dossier.model_validate(doc).content_hash() == d.content_hash()
    mapped = d.model_copy(update={"mapping": d.mapping.decide("planning_treatments", "accepted", by="x")})
    assert mapped.content_hash() != d.content_hash()


def test_a_save_based_on_an_old_version_is_refused_and_writes_nothing(store):
    d = make()
    with pytest.raises(SaveConflict):
        store.save(d, "alice", expected_version=1)  # nothing saved yet: version 0 is the latest
    assert store.is_empty()
    store.save(d, "alice", expected_version=0)
    second = d.model_copy(update={"title": "Portal replies, edited by bob"})
    assert store.save(second, "bob", expected_version=1).version == 2
    stale = d.model_copy(update={"title": "Portal replies, edited by carol"})
    audit_before = len(store.audit_log(d.id))
    with pytest.raises(SaveConflict, match="version 2 by bob after version 1"):
        store.save(stale, "carol", expected_version=1)
    assert [h.version for h in store.history(d.id)] == [1, 2] and len(store.audit_log(d.id)) == audit_before
    assert store.load(d.id).dossier.title == "Portal replies, edited by bob"
    assert store.save(stale, "carol").version == 3, "without expected_version the check is skipped"
