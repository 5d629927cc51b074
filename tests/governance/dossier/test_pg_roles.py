"""Two PostgreSQL roles on the real test server: the owner keeps the tables, the app role only adds and reads.

Issue 25 item 5: the role that created the tables could disable or drop the append-only triggers. Each
test makes an owner role, an app role and a database the owner owns; ``medassure db-roles`` (run as the
owner) sets up the app role; the app then does its work as that role, and a matrix of statements says
what each role may do.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid

import psycopg
import pytest

from cli import main
from governance.dossier.record import Dossier
from governance.dossier.store import Store, StoreError
from governance.intended_use.records import example_intended_use
from governance.runs.operations.jobs import build_request, resume_run, start_run
from tests.calc_answers import calculator_answers


@pytest.fixture
def roles(postgres_server):
    """``(owner_url, app_url, admin_url, app_role)``: two login roles and a database the owner owns."""
    tag = uuid.uuid4().hex[:8]
    owner, app, db = f"own_{tag}", f"app_{tag}", f"roles_{tag}"
    admin = postgres_server.url("postgres")
    with psycopg.connect(admin, autocommit=True) as con:
        con.execute(f'CREATE ROLE "{owner}" LOGIN')
        con.execute(f'CREATE ROLE "{app}" LOGIN')
        con.execute(f'CREATE DATABASE "{db}" OWNER "{owner}"')
    base = postgres_server.url(db)
    urls = (base.replace("postgres@", f"{owner}@", 1), base.replace("postgres@", f"{app}@", 1), base, app)
    yield urls
    with contextlib.suppress(Exception), psycopg.connect(admin, autocommit=True) as con:
        con.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        con.execute(f'DROP ROLE IF EXISTS "{app}"')
        con.execute(f'DROP ROLE IF EXISTS "{owner}"')


def _set_up(owner_url: str, app_role: str, monkeypatch, capsys) -> dict:
    monkeypatch.setenv("MEDASSURE_DATABASE_URL", owner_url)
    assert main(["db-roles", "--app", app_role]) == 0
    captured = capsys.readouterr()
    assert "warning" not in captured.err
    monkeypatch.delenv("MEDASSURE_DATABASE_URL")
    return json.loads(captured.out)


def _dossier() -> Dossier:
    return Dossier(id="D-roles", title="Portal replies", owner="committee",
                   intended_use=example_intended_use())


def test_db_roles_gives_the_app_role_insert_select_and_the_updates_jobs_need(roles, monkeypatch, capsys):
    owner_url, _, _, app = roles
    report = _set_up(owner_url, app, monkeypatch, capsys)
    assert report["app_role"] == app and report["owner"].startswith("own_")
    assert {"dossier_versions", "audit_log", "documents"} <= set(report["insert_select"])
    assert set(report["insert_select_update"]) == {"runs", "run_requests", "run_jobs", "run_results",
                                                   "jury_runs", "jury_instances", "jury_judgements",
                                                   "response_cache", "chain_anchors", "record_seals"}
    assert report["select_only"] == ["schema_migrations"]
    assert _set_up(owner_url, app, monkeypatch, capsys) == report  # idempotent: run it after every upgrade


def test_the_app_does_its_work_as_the_app_role(roles, monkeypatch, capsys, llm_server):
    owner_url, app_url, _, app = roles
    _set_up(owner_url, app, monkeypatch, capsys)
    store = Store.open_url(app_url)
    assert store.open_warnings == ()
    saved = store.save(_dossier(), "alice")
    assert store.load("D-roles").hash == saved.hash
    # a run: its job row, its requests, results written again on resume, its status set at the end
    server = llm_server.configure(answer=calculator_answers(count=20), latency_s=0.03)
    request = build_request("calc_builtin", "openai/fake-calc", api_base=server.url, limit=8, concurrency=1)
    from evaluator.runs.jobs import JobManager, wait_job

    first = JobManager()
    job = start_run(store, request, first)
    while job.progress().done < 2:
        time.sleep(0.02)
    assert first.cancel(job.run_key)
    assert job.join(30).state == "cancelled"
    resumed = wait_job(resume_run(store, job.run_key, JobManager()), poll_s=0.02)
    assert resumed.state == "completed", resumed
    store.close()
    # the demo (dossiers, sign-offs, runs, a jury, attestations, documents) as the app role
    monkeypatch.setenv("MEDASSURE_DATABASE_URL", app_url)
    assert main(["demo"]) == 0
    assert main(["verify", "D-demo-portal"]) == 0
    # no warning about the connection's role; the local-desk line (no identity configuration) is expected
    warnings = [w for w in capsys.readouterr().err.splitlines() if "warning" in w]
    assert all(w.startswith("warning: no identity configuration") for w in warnings), warnings


# statement -> (as the owner, as the app role); each runs in a transaction that is rolled back
MATRIX = {
    "INSERT INTO audit_log (logged_at, actor, action) VALUES (now(), 'x', 'probe')": ("allowed", "allowed"),
    "SELECT count(*) FROM dossier_versions": ("allowed", "allowed"),
    "UPDATE runs SET status = status": ("allowed", "allowed"),
    "UPDATE dossier_versions SET note = 'forged'": ("refused: trigger", "refused: privilege"),
    "DELETE FROM audit_log": ("refused: trigger", "refused: privilege"),
    "TRUNCATE audit_log": ("refused: trigger", "refused: privilege"),
    "DELETE FROM runs": ("allowed", "refused: privilege"),
    "INSERT INTO schema_migrations VALUES ('dossier', 99)": ("allowed", "refused: privilege"),
    "ALTER TABLE dossier_versions DISABLE TRIGGER dossier_versions_append_only":
        ("allowed", "refused: privilege"),
    "ALTER TABLE audit_log DISABLE TRIGGER ALL": ("allowed", "refused: privilege"),
    "DROP TRIGGER audit_log_append_only ON audit_log": ("allowed", "refused: privilege"),
    "CREATE OR REPLACE FUNCTION medassure_append_only() RETURNS trigger LANGUAGE plpgsql "
    "AS $$ BEGIN RETURN NEW; END $$": ("allowed", "refused: privilege"),
    "DROP TABLE audit_log CASCADE": ("allowed", "refused: privilege"),
    "CREATE TABLE probe (i int)": ("allowed", "refused: privilege"),
    "SET session_replication_role = replica": ("refused: privilege", "refused: privilege"),
}


def _outcome(url: str, statement: str) -> str:
    with psycopg.connect(url) as con:  # not autocommit: everything is rolled back below
        try:
            con.execute(statement)
        except psycopg.errors.InsufficientPrivilege as exc:
            return "refused: trigger" if "MedAssure refuses" in str(exc) else "refused: privilege"
        finally:
            con.rollback()
    return "allowed"


def test_the_role_matrix(roles, monkeypatch, capsys):
    owner_url, app_url, _, app = roles
    _set_up(owner_url, app, monkeypatch, capsys)
    Store.open_url(app_url).save(_dossier(), "alice")
    seen = {sql: (_outcome(owner_url, sql), _outcome(app_url, sql)) for sql in MATRIX}
    assert seen == MATRIX


def test_the_owner_and_a_superuser_are_warned_when_the_store_opens(roles, monkeypatch, capsys):
    owner_url, app_url, admin_url, app = roles
    _set_up(owner_url, app, monkeypatch, capsys)
    with pytest.warns(UserWarning, match="the owner of the tables"):
        owner = Store.open_url(owner_url)
    assert len(owner.open_warnings) == 1 and "medassure db-roles" in owner.open_warnings[0]
    owner.close()
    with pytest.warns(UserWarning, match="a superuser"):
        Store.open_url(admin_url).close()
    assert Store.open_url(app_url).open_warnings == ()
    monkeypatch.setenv("MEDASSURE_DATABASE_URL", owner_url)  # the CLI says it on stderr at start
    assert main(["dossier", "list"]) == 0
    assert "warning: Connected to PostgreSQL as own_" in capsys.readouterr().err


def test_clear_refusals(roles, monkeypatch, capsys, home):
    owner_url, app_url, _, app = roles
    monkeypatch.setenv("MEDASSURE_DATABASE_URL", app_url)  # before the owner created the tables
    with pytest.raises(StoreError, match="db-roles --app ROLE` as the role that owns them"):
        Store.open_url(app_url)
    monkeypatch.setenv("MEDASSURE_DATABASE_URL", owner_url)
    for argv, says in ((["db-roles", "--app", "nobody_here"], "there is no role nobody_here"),
                       (["db-roles", "--app", 'x"; DROP TABLE audit_log; --'], "not a plain PostgreSQL role"),
                       (["db-roles", "--app", owner_url.split("//")[1].split("@")[0]], "or a member of it")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    _set_up(owner_url, app, monkeypatch, capsys)
    monkeypatch.setenv("MEDASSURE_DATABASE_URL", app_url)
    assert main(["db-roles", "--app", app]) == 2
    assert "owns no MedAssure tables" in capsys.readouterr().err
    monkeypatch.delenv("MEDASSURE_DATABASE_URL")
    assert main(["db-roles", "--app", app]) == 2  # a DuckDB file
    assert "MEDASSURE_DATABASE_URL" in capsys.readouterr().err
