"""The shared deployment's database: PostgreSQL selected by MEDASSURE_DATABASE_URL, its faults, and parity.

The store's own tests run on both backends (test_store.py, test_chain.py); this module holds what
only a server can do: be unreachable, drop a connection in the middle of a save, be shared by the
CLI, and carry the same demo dossier to the same assessment as the DuckDB file.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from cli import main
from evaluator.storage.postgres import PgConnection
from governance.dossier.record import Dossier
from governance.dossier.store import Store, StoreError, StoreUnavailableError
from governance.intended_use.records import example_intended_use
from tests.pg_server import free_port


def _dossier() -> Dossier:
    return Dossier(id="D-pg", title="Portal replies", owner="committee", intended_use=example_intended_use())


def test_an_unreachable_server_is_a_clear_error_that_never_shows_the_password():
    url = f"postgresql://app:s3cret@127.0.0.1:{free_port()}/medassure"
    with pytest.raises(StoreUnavailableError) as caught:
        Store.open_url(url)
    message = str(caught.value)
    assert "could not be reached" in message and "Nothing was changed" in message
    assert "app:***@127.0.0.1" in message and "s3cret" not in message


def test_the_cli_says_so_in_one_line_without_a_traceback(home):
    env = {**os.environ, "MEDASSURE_HOME": str(home),
           "MEDASSURE_DATABASE_URL": f"postgresql://app:s3cret@127.0.0.1:{free_port()}/medassure"}
    out = subprocess.run([sys.executable, "-m", "cli", "dossier", "list"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode != 0 and out.stdout == ""
    assert "could not be reached" in out.stderr and "MEDASSURE_DATABASE_URL" in out.stderr
    assert "Traceback" not in out.stderr and "s3cret" not in out.stderr


def test_a_database_url_that_is_not_postgresql_is_refused(monkeypatch):
    monkeypatch.setenv("MEDASSURE_DATABASE_URL", "mysql://app:pw@db/medassure")
    with pytest.raises(StoreError, match="not a PostgreSQL URL") as caught:
        Store.open()
    assert "pw" not in str(caught.value).replace("postgresql", "")


def test_the_url_in_the_environment_selects_postgresql(pg_url, monkeypatch, home):
    monkeypatch.setenv("MEDASSURE_DATABASE_URL", pg_url)
    store = Store.open()
    assert store.backend == "postgresql" and store.location == pg_url and store.path is None
    store.save(_dossier(), "alice")
    store.close()
    assert not (home / "medassure.duckdb").exists()  # nothing went to the DuckDB file
    again = Store.open_url(pg_url)
    assert [d.id for d in again.list_dossiers()] == ["D-pg"]
    again.close()


def test_a_connection_lost_in_the_middle_of_a_save_writes_nothing_and_the_store_recovers(pg_url, monkeypatch):
    store = Store.open_url(pg_url)
    v1 = store.save(_dossier(), "alice", "created")
    pid = store._con.execute("SELECT pg_backend_pid()").fetchone()[0]
    original = Store._append_event

    def killed_before_the_audit_row(self, *args, **kwargs):
        # the version row is already inserted in this transaction; now the server drops the connection
        admin = PgConnection.connect(pg_url)
        admin.execute("SELECT pg_terminate_backend(?)", [pid])
        admin.close()
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Store, "_append_event", killed_before_the_audit_row)
    edited = _dossier().model_copy(update={"title": "Portal replies, edited"})
    with pytest.raises(StoreUnavailableError, match="could not be reached .*Nothing was changed"):
        store.save(edited, "bob", "retitled", expected_hash=v1.hash)
    monkeypatch.setattr(Store, "_append_event", original)

    fresh = Store.open_url(pg_url)
    assert [h.version for h in fresh.history("D-pg")] == [1] and len(fresh.audit_log("D-pg")) == 1
    assert fresh.verify_chain("D-pg").ok
    fresh.close()
    v2 = store.save(edited, "bob", "retitled", expected_hash=v1.hash)  # the same store reconnects
    assert v2.version == 2 and store.verify_chain("D-pg").ok
    store.close()


def test_update_applies_a_change_to_the_latest_version_so_a_change_in_between_is_kept(any_store):
    store = any_store
    v1 = store.save(_dossier(), "alice", "created")
    seen = store.load("D-pg")  # a background step read version 1 ...
    store.save(seen.dossier.model_copy(update={"title": "Portal replies v2"}), "bob", expected_hash=v1.hash)
    # ... and now adds its change: it lands on version 2, keeping bob's title
    v3 = store.update("D-pg", lambda d: d.model_copy(update={"owner": "pharmacy"}), "ci", "owner")
    assert (v3.version, v3.dossier.title, v3.dossier.owner) == (3, "Portal replies v2", "pharmacy")
    assert v3.parent_hash == store.load("D-pg", 2).hash

    def refuse(d: Dossier) -> Dossier:
        raise ValueError("the change itself failed")

    with pytest.raises(ValueError, match="change itself"):
        store.update("D-pg", refuse, "ci")
    assert len(store.history("D-pg")) == 3 and len(store.audit_log("D-pg")) == 3
    same = store.update("D-pg", lambda d: d, "ci")  # no change: no version
    assert same.version == 3 and store.verify_chain("D-pg").ok


def _normalised(assessment: dict) -> dict:
    """An assessment without what differs between two seedings: times, generated ids and hashes."""
    text = json.dumps({k: assessment[k] for k in ("counts", "verdicts", "recommendation", "family")},
                      sort_keys=True)
    text = re.sub(r"local-run:[0-9a-f]+|sc_[0-9a-f]+|run-[0-9a-z-]+", "<id>", text)
    return json.loads(re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)?", "<time>", text))


def test_the_demo_dossier_reaches_the_same_assessment_on_both_backends(home, pg_url, monkeypatch, capsys):
    results = {}
    for backend in ("duckdb", "postgresql"):
        if backend == "postgresql":
            monkeypatch.setenv("MEDASSURE_DATABASE_URL", pg_url)
        assert main(["demo"]) == 0
        capsys.readouterr()
        assert main(["assess", "D-demo-portal"]) == 0
        results[backend] = json.loads(capsys.readouterr().out)
        assert main(["verify", "D-demo-portal"]) == 0
        verified = json.loads(capsys.readouterr().out)
        assert verified["ok"] and verified["versions"] == results[backend]["version"]
    duck, pg = results["duckdb"], results["postgresql"]
    assert len(pg["verdicts"]) == len(duck["verdicts"]) > 20
    assert _normalised(pg) == _normalised(duck)
    assert pg["recommendation"]["outcome"] == duck["recommendation"]["outcome"]


def test_documents_and_attestations_round_trip_on_both_backends(any_store):
    from evaluator.phi.attestation import AttestationInput
    from governance.procurement.store import DocumentError
    from governance.scenarios.operations.deidentification import record_attestation

    data = bytes(range(256)) * 3  # every byte value, NUL included
    ref = any_store.documents.put(data, "soc2.pdf", "application/pdf", by="buyer")
    assert any_store.documents.put(data, "again.pdf", None, by="x") == ref.model_copy(
        update={"filename": "again.pdf", "media_type": "application/octet-stream"})  # stored once per hash
    assert any_store.documents.get(ref.sha256) == data and any_store.documents.exists(ref.sha256)
    with pytest.raises(DocumentError, match="no stored document"):
        any_store.documents.get("0" * 64)

    any_store.save(_dossier(), "alice")
    given = AttestationInput(attested_by="Privacy Officer", method="safe_harbor")
    attestation = given.for_file("ab" * 32, "f.csv")
    record_attestation(any_store, attestation, "D-pg")
    assert any_store.attestations.find(["cd" * 32, "ab" * 32]) == attestation
    recorded = any_store.attestations.for_dossier("D-pg")
    assert [a.attestation_id for a in recorded] == [attestation.attestation_id]
    latest = any_store.load("D-pg")
    assert latest.version == 2 and latest.dossier.deidentification == [attestation]
    assert latest.author == "Privacy Officer" and any_store.verify_chain("D-pg").ok
