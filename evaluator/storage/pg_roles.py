"""PostgreSQL roles: an owner that creates the tables, an app role that may only add and read records.

Why two roles: PostgreSQL lets the role that owns a table ``ALTER TABLE ... DISABLE TRIGGER`` or
``DROP TRIGGER`` (and a superuser do anything), so an app that connects as the tables' owner keeps
dossier versions and the audit log append-only by courtesy only. The owner runs the migrations;
the app role gets ``SELECT`` and ``INSERT`` on every table, ``UPDATE`` on the run and jury tables
whose rows change as a job progresses (``UPDATED_TABLES``), ``SELECT`` only on the migration record,
and nothing else: no ``DELETE``, ``TRUNCATE``, ``TRIGGER``, ``CREATE`` or ownership.

``grant_app_role`` runs as the owner, after the migrations, and is idempotent: run it again after an
upgrade adds a table. ``privilege_warning`` is what a store says on opening when it is connected as
the tables' owner (or a member of that role) or as a superuser. The recipe: docs/shared-deployment.md.
"""

from __future__ import annotations

import re
from typing import Any

UPDATED_TABLES = {
    "runs": "a run's status, totals and finish time are set when it ends",
    "run_requests": "a request is linked to the run that served it",
    "run_jobs": "a background job's progress, and a request to cancel it",
    "run_results": "a result is written again when an interrupted run resumes (upsert)",
    "jury_runs": "a jury's judge runs and summary are set as it completes",
    "jury_instances": "a jury's per-instance scores are written again on resume (upsert)",
    "jury_judgements": "a judge's verdict is written again on resume (upsert)",
    "response_cache": "a newer answer to the same request replaces the older one (upsert)",
    "chain_anchors": "a dossier's keyed seal over its length is rewritten with every write (upsert)",
    "record_seals": "a review queue's (or its verdicts') keyed seal is rewritten with every write (upsert)",
}
"""The tables whose rows the app updates (``UPDATE`` or ``INSERT ... ON CONFLICT DO UPDATE``), and why."""
APPEND_ONLY = ("dossier_versions", "audit_log")
"""Tables the app only ever inserts into (and triggers refuse every change of)."""
READ_ONLY = ("schema_migrations",)
"""Tables the app reads only: a row here makes the owner skip a migration."""

_ROLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")


class RoleSetupError(ValueError):
    """The app role cannot be set up as asked; the message says why and what to do."""


def _quoted(role: str) -> str:
    if not _ROLE.fullmatch(role):
        raise RoleSetupError(f"not a plain PostgreSQL role name: {role!r} (letters, digits, underscore)")
    return f'"{role}"'


def _tables(con: Any) -> list[str]:
    rows = con.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                       "AND tableowner = current_user ORDER BY tablename").fetchall()
    return [r[0] for r in rows]


def grant_statements(app_role: str, tables: list[str], schema: str = "public") -> list[str]:
    """The statements that give ``app_role`` exactly the app's rights on ``tables`` (run as their owner).

    Example:
        >>> for line in grant_statements("app", ["audit_log", "runs", "schema_migrations"])[-3:]:
        ...     print(line)
        GRANT SELECT, INSERT ON "audit_log" TO "app"
        GRANT SELECT, INSERT, UPDATE ON "runs" TO "app"
        GRANT SELECT ON "schema_migrations" TO "app"
    """
    app, where = _quoted(app_role), _quoted(schema)
    statements = [
        f"REVOKE CREATE ON SCHEMA {where} FROM PUBLIC",
        f"REVOKE CREATE ON SCHEMA {where} FROM {app}",
        f"GRANT USAGE ON SCHEMA {where} TO {app}",
        f"REVOKE ALL ON ALL TABLES IN SCHEMA {where} FROM {app}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {where} TO {app}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA {where} GRANT SELECT, INSERT ON TABLES TO {app}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA {where} GRANT USAGE, SELECT ON SEQUENCES TO {app}",
    ]
    for table in tables:
        rights = ("SELECT" if table in READ_ONLY else
                  "SELECT, INSERT, UPDATE" if table in UPDATED_TABLES else "SELECT, INSERT")
        statements.append(f"GRANT {rights} ON {_quoted(table)} TO {app}")
    return statements


def grant_app_role(con: Any, app_role: str) -> dict[str, Any]:
    """Give ``app_role`` the app's rights on the tables the connected role owns; return what was done.

    Raises:
        RoleSetupError: the role does not exist, is a superuser, is (a member of) the owner, or the
            connected role owns no MedAssure tables.
    """
    _quoted(app_role)  # a plain name, or RoleSetupError before anything is asked of the server
    owner, schema = con.execute("SELECT current_user, current_schema()").fetchone()
    tables = _tables(con)
    if "dossier_versions" not in tables:
        raise RoleSetupError(f"{owner} owns no MedAssure tables here: run this as the role that owns them")
    found = con.execute("SELECT rolsuper, pg_has_role(?, current_user, 'MEMBER') FROM pg_roles "
                        "WHERE rolname = ?", [app_role, app_role]).fetchone()
    if found is None:
        raise RoleSetupError(f"there is no role {app_role} on this server: an administrator creates it first "
                             f"(CREATE ROLE {app_role} LOGIN PASSWORD '...'; docs/shared-deployment.md)")
    if found[0]:
        raise RoleSetupError(f"{app_role} is a superuser: the app role must be an ordinary role")
    if found[1]:
        raise RoleSetupError(f"{app_role} is {owner}, the role that owns the tables, or a member of it: "
                             "the app role must be a separate role")
    statements = grant_statements(app_role, tables, schema)
    con.execute("BEGIN TRANSACTION")
    try:
        for statement in statements:
            con.execute(statement)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return {"owner": owner, "app_role": app_role, "schema": schema,
            "insert_select": [t for t in tables if t not in READ_ONLY and t not in UPDATED_TABLES],
            "insert_select_update": [t for t in tables if t in UPDATED_TABLES],
            "select_only": [t for t in tables if t in READ_ONLY]}


def privilege_warning(con: Any) -> str | None:
    """A warning when ``con`` could switch the append-only triggers off (owner or superuser), else None."""
    row = con.execute(
        "SELECT current_user, r.rolsuper, pg_has_role(current_user, c.relowner, 'MEMBER'), "
        "pg_get_userbyid(c.relowner) FROM pg_roles r, pg_class c "
        "WHERE r.rolname = current_user AND c.oid = to_regclass('dossier_versions')").fetchone()
    if row is None:
        return None
    user, superuser, owns, owner = row
    if not (superuser or owns):
        return None
    why = ("a superuser" if superuser else
           "the owner of the tables" if user == owner else f"a member of {owner}, the owner of the tables")
    return (f"Connected to PostgreSQL as {user}, {why}: this role can switch off the triggers that keep "
            "dossier versions and the audit log append-only. Connect the app and the command line as an "
            "app role with INSERT and SELECT only (`medassure db-roles`, docs/shared-deployment.md).")
