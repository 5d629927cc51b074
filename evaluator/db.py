"""Schema migrations shared by every store that lives in the one DuckDB file.

The app keeps all state in a single DuckDB file (one writer process, see STACK_NOTES §7).
Each component (the dossier store, the run store, ...) owns its tables and declares them as an
ordered list of SQL migrations. ``apply_migrations`` applies the ones not yet recorded in the
``schema_migrations`` table, once, in order, so that an old database upgrades in place and a
component never has to know about another component's tables.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

SAFE_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
"""DuckDB settings on every connection we open: never fetch or load an extension on our behalf
(opening a foreign file made DuckDB try to download one). Checks made on open: ``evaluator.db_integrity``."""


def harden(con: duckdb.DuckDBPyConnection) -> None:
    """Switch extension auto-install and auto-load off on a connection (``SAFE_CONFIG``).

    Example:
        >>> con = duckdb.connect(); harden(con)
        >>> con.execute("SELECT current_setting('autoload_known_extensions')").fetchone()[0]
        False
    """
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
            con.execute(sql)
            con.execute(
                "INSERT INTO schema_migrations (component, number) VALUES (?, ?)", [component, number]
            )
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        applied += 1
    return applied
