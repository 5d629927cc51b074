"""Schema migrations and the few dialect differences shared by every store of the one database.

The app keeps all state in one database: a DuckDB file by default (one writer process, see
STACK_NOTES §7), or a PostgreSQL server for a shared deployment (``evaluator.storage.postgres``, several
processes at once). Each component (the dossier store, the run store, ...) owns its tables
and declares them as an ordered list of SQL migrations. ``apply_migrations`` applies the ones
not yet recorded in the ``schema_migrations`` table, once, in order, so that an old database
upgrades in place and a component never has to know about another component's tables.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import duckdb

SAFE_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
"""DuckDB settings on every connection we open: never fetch or load an extension on our behalf
(opening a foreign file made DuckDB try to download one). Checks made on open:
``evaluator.storage.integrity``."""


# psycopg (~0.2 s to import) is loaded only when a PostgreSQL store is opened
# (``evaluator.storage.postgres``); until then no psycopg error can be raised, so the error tuples
# below name its classes only once it is loaded.


def db_errors() -> tuple[type[Exception], ...]:
    """What either backend raises for a failed statement or a lost connection.

    Example:
        >>> duckdb.Error in db_errors()
        True
    """
    pg = sys.modules.get("psycopg")
    return (duckdb.Error, pg.Error) if pg is not None else (duckdb.Error,)


def missing_table_errors() -> tuple[type[Exception], ...]:
    """What either backend raises when a table does not exist (yet)."""
    pg = sys.modules.get("psycopg")
    if pg is None:
        return (duckdb.CatalogException,)
    return duckdb.CatalogException, pg.errors.UndefinedTable


def is_connection_lost(exc: BaseException) -> bool:
    """True for a PostgreSQL server that went away or refused (a DuckDB file has no connection to lose)."""
    pg = sys.modules.get("psycopg")
    return pg is not None and isinstance(exc, pg.OperationalError)


def is_raw_connection(con: Any) -> bool:
    """A raw connection of either backend (evaluator code and its tests pass one instead of the stores)."""
    return isinstance(con, duckdb.DuckDBPyConnection) or is_postgres(con)


def redact_url(url: str) -> str:
    """The URL without its password (for messages, logs and the sidebar).

    Example:
        >>> redact_url("postgresql://app:s3cret@db.example:5432/medassure")
        'postgresql://app:***@db.example:5432/medassure'
        >>> redact_url("postgresql://postgres@127.0.0.1:5432/x")
        'postgresql://postgres@127.0.0.1:5432/x'
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


def is_postgres_url(location: str | None) -> bool:
    """True for a ``postgresql://`` or ``postgres://`` URL."""
    return bool(location) and str(location).split("://", 1)[0] in {"postgresql", "postgres"}


def dialect(con: Any) -> str:
    """``"postgresql"`` for an ``evaluator.storage.postgres.PgConnection``, else ``"duckdb"``.

    Example:
        >>> dialect(duckdb.connect())
        'duckdb'
    """
    return getattr(con, "dialect", "duckdb")


def is_postgres(con: Any) -> bool:
    """True when ``con`` talks to PostgreSQL (see ``dialect``)."""
    return dialect(con) == "postgresql"


_PG_TYPES = [(re.compile(r"\bDOUBLE\b(?!\s+PRECISION)"), "DOUBLE PRECISION"),
             (re.compile(r"\bBLOB\b"), "BYTEA")]


def for_dialect(sql: str, con: Any) -> str:
    """A migration's DDL in the connection's dialect (DuckDB's ``DOUBLE``/``BLOB`` spelled for PostgreSQL).

    Example:
        >>> class Pg: dialect = "postgresql"
        >>> for_dialect("CREATE TABLE t (x DOUBLE, b BLOB, y DOUBLE PRECISION)", Pg())
        'CREATE TABLE t (x DOUBLE PRECISION, b BYTEA, y DOUBLE PRECISION)'
    """
    if not is_postgres(con):
        return sql
    for pattern, replacement in _PG_TYPES:
        sql = pattern.sub(replacement, sql)
    return sql


def upsert_sql(table: str, columns: Sequence[str], key: Sequence[str], *, update: bool = True) -> str:
    """``INSERT ... ON CONFLICT (key) DO UPDATE`` of every other column: one statement both backends run.

    With ``update=False`` an existing row is kept (``DO NOTHING``: insert-or-ignore).

    Example:
        >>> upsert_sql("t", ["id", "a"], ["id"])
        'INSERT INTO t (id, a) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET a = excluded.a'
    """
    rest = [c for c in columns if c not in key] if update else []
    action = ("DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in rest)) if rest else "DO NOTHING"
    return (f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))}) "
            f"ON CONFLICT ({', '.join(key)}) {action}")


def harden(con: duckdb.DuckDBPyConnection) -> None:
    """Switch extension auto-install and auto-load off on a connection (``SAFE_CONFIG``).

    Example:
        >>> con = duckdb.connect(); harden(con)
        >>> con.execute("SELECT current_setting('autoload_known_extensions')").fetchone()[0]
        False
    """
    if is_postgres(con):  # a server fetches no extension on a client's behalf
        return
    for name, value in SAFE_CONFIG.items():
        con.execute(f"SET {name} = {str(value).lower()}")


def apply_migrations(con: duckdb.DuckDBPyConnection, component: str, migrations: Sequence[str]) -> int:
    """Apply the not-yet-applied migrations of one component.

    Args:
        con: an open read-write connection.
        component: a stable name such as ``"dossier"`` or ``"runs"``.
        migrations: SQL scripts; index i is migration number i + 1. Never edit or reorder a
            landed migration: append a new one.

    Returns:
        How many migrations were applied now.

    Example:
        >>> con = duckdb.connect()
        >>> apply_migrations(con, "demo", ["CREATE TABLE t (x INT)"])
        1
        >>> apply_migrations(con, "demo", ["CREATE TABLE t (x INT)"])
        0
    """
    harden(con)  # every store passes here: no extension is fetched or loaded behind our back
    if not _pending(con, component, migrations):
        return 0
    # Several processes may open a new PostgreSQL database at once: one applies, the others wait and
    # then find nothing left to do. (A DuckDB file has one writing process.)
    if is_postgres(con):
        con.execute("SELECT pg_advisory_lock(?)", [MIGRATION_LOCK])
    try:
        return _apply(con, component, migrations)
    finally:
        if is_postgres(con):
            con.execute("SELECT pg_advisory_unlock(?)", [MIGRATION_LOCK])


MIGRATION_LOCK = 0x4D454441
"""The PostgreSQL advisory lock key held while migrations are applied ("MEDA")."""


def _pending(con: Any, component: str, migrations: Sequence[str]) -> bool:
    """True when the component has a migration not recorded yet (or no migration table exists)."""
    try:
        done = con.execute("SELECT count(*) FROM schema_migrations WHERE component = ?",
                           [component]).fetchone()
    except missing_table_errors():
        return True
    return done[0] < len(migrations)


def _apply(con: Any, component: str, migrations: Sequence[str]) -> int:
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " component VARCHAR, number INTEGER, applied_at TIMESTAMPTZ DEFAULT now(),"
        " PRIMARY KEY (component, number))"
    )
    done = {
        row[0]
        for row in con.execute(
            "SELECT number FROM schema_migrations WHERE component = ?", [component]
        ).fetchall()
    }
    applied = 0
    for number, sql in enumerate(migrations, start=1):
        if number in done:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(for_dialect(sql, con))
            con.execute(
                "INSERT INTO schema_migrations (component, number) VALUES (?, ?)", [component, number]
            )
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        applied += 1
    return applied
