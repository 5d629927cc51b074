"""The dossier tables, as the ordered list of migrations that builds them.

Why a list and never an edit: ``evaluator.storage.db.apply_migrations`` records each applied migration in
``schema_migrations`` as (component, number), number being the position in its list plus one, so
an old database upgrades in place. Existing databases already hold ``("dossier", 1)``,
``("dossier", 2)`` and ``("dossier-postgresql", 1)``: a landed migration is never edited, reordered
or moved to another list; a change of schema is a new entry at the end. Other components (the run
store, ...) add their own tables through the same helper under their own names.

* ``dossier_versions``: one row per saved version, never updated or deleted (``store_versions``).
* ``audit_log``: who did what and when, numbered by ``audit_seq`` (``store_audit``).
* The second migration adds the hash chain (``governance/dossier/chain.py``) and how each author
  was established. Rows written before it keep NULL there: they are counted as legacy, not sealed
  after the fact.
* The third adds ``chain_anchors``: a keyed seal per dossier over its length (``chain_anchor.py``).
* On PostgreSQL only, triggers refuse UPDATE, DELETE and TRUNCATE on both tables, so the record is
  append-only in the database itself, not only by convention.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evaluator.storage.db import apply_migrations, is_postgres

if TYPE_CHECKING:
    import duckdb

    from evaluator.storage.postgres import PgConnection

MIGRATIONS = [
    """
    CREATE TABLE dossier_versions (
        dossier_id VARCHAR NOT NULL,
        version INTEGER NOT NULL,
        hash VARCHAR NOT NULL,
        parent_hash VARCHAR,
        author VARCHAR NOT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        note VARCHAR,
        content JSON NOT NULL,
        PRIMARY KEY (dossier_id, version)
    );
    CREATE SEQUENCE audit_seq;
    CREATE TABLE audit_log (
        seq BIGINT PRIMARY KEY DEFAULT nextval('audit_seq'),
        logged_at TIMESTAMPTZ NOT NULL,
        actor VARCHAR NOT NULL,
        dossier_id VARCHAR,
        action VARCHAR NOT NULL,
        detail JSON
    );
    """,
    # The hash chain (governance/dossier/chain.py) and how each author was established. Rows written
    # before it keep NULL here: they are counted as legacy, not sealed after the fact.
    """
    ALTER TABLE dossier_versions ADD COLUMN auth VARCHAR;
    ALTER TABLE dossier_versions ADD COLUMN prev_row_hash VARCHAR;
    ALTER TABLE dossier_versions ADD COLUMN row_hash VARCHAR;
    ALTER TABLE audit_log ADD COLUMN auth VARCHAR;
    ALTER TABLE audit_log ADD COLUMN prev_row_hash VARCHAR;
    ALTER TABLE audit_log ADD COLUMN row_hash VARCHAR;
    """,
    # The anchor (governance/dossier/chain_anchor.py): one keyed seal per dossier over its length and
    # newest rows, rewritten with every write, so removing the newest rows is found. Dossiers that exist
    # when this is applied are sealed at once by Store (``_anchor_all``).
    """
    CREATE TABLE chain_anchors (
        dossier_id VARCHAR PRIMARY KEY,
        versions INTEGER NOT NULL,
        head_link VARCHAR,
        events INTEGER NOT NULL,
        event_link VARCHAR,
        key_id VARCHAR NOT NULL,
        mac VARCHAR NOT NULL,
        sealed_at TIMESTAMPTZ NOT NULL
    );
    """,
]
ANCHOR_MIGRATION = 3
"""The number of the migration above that adds ``chain_anchors``."""

PG_MIGRATIONS = [
    # PostgreSQL only: the record is append-only in the database itself, not only by convention. A
    # role that owns the tables can still drop a trigger; `medassure verify` then finds the change.
    """
    CREATE FUNCTION medassure_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'MedAssure refuses % on %: dossier versions and audit events are append-only',
            TG_OP, TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
    END $$;
    CREATE TRIGGER dossier_versions_append_only BEFORE UPDATE OR DELETE ON dossier_versions
        FOR EACH ROW EXECUTE FUNCTION medassure_append_only();
    CREATE TRIGGER dossier_versions_no_truncate BEFORE TRUNCATE ON dossier_versions
        FOR EACH STATEMENT EXECUTE FUNCTION medassure_append_only();
    CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
        FOR EACH ROW EXECUTE FUNCTION medassure_append_only();
    CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
        FOR EACH STATEMENT EXECUTE FUNCTION medassure_append_only();
    """,
]

VERSION_COLUMNS = "dossier_id, version, hash, parent_hash, author, created_at, note, content"
"""The columns a ``DossierVersion`` is read from, in ``_row_to_version`` order."""
CHAIN_COLUMNS = "auth, prev_row_hash, row_hash"


def apply_dossier_migrations(con: duckdb.DuckDBPyConnection | PgConnection) -> int:
    """Create or upgrade the dossier tables on ``con`` (the PostgreSQL triggers too, on a server).

    Returns how many of ``MIGRATIONS`` were applied now (the store anchors existing dossiers when the
    anchor migration was among them).
    """
    applied = apply_migrations(con, "dossier", MIGRATIONS)
    if is_postgres(con):
        apply_migrations(con, "dossier-postgresql", PG_MIGRATIONS)
    return applied
