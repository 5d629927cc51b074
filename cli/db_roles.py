"""``medassure db-roles --app ROLE``: set up the PostgreSQL app role, run as the role that owns the tables.

Connects to ``MEDASSURE_DATABASE_URL`` as the owner, creates or upgrades every table (the migrations),
then gives ROLE ``SELECT`` and ``INSERT`` on the tables, ``UPDATE`` on the run and jury tables the app
updates, and ``SELECT`` only on the migration record; nothing else (no ``DELETE``, ``TRUNCATE`` or
``CREATE``, and no way to switch the append-only triggers off). Idempotent: run it again after an
upgrade. JSON on stdout: ``owner``, ``app_role``, ``schema``, ``insert_select``,
``insert_select_update``, ``select_only`` (table names). Exit 0, or 2 with one line saying why.
The recipe: docs/shared-deployment.md#two-database-roles.
"""

from __future__ import annotations

import argparse

from cli._common import emit, fail, open_store, say


def cmd_db_roles(args: argparse.Namespace) -> int:
    import warnings

    import psycopg

    from evaluator import RoleSetupError
    from governance.dossier import StoreWarning

    with warnings.catch_warnings():  # connecting as the owner is the point here: no owner warning
        warnings.simplefilter("ignore", StoreWarning)
        store = _open_quietly(args)
    try:
        report = store.grant_app_role(args.app)
    except RoleSetupError as exc:
        fail(str(exc))
    except psycopg.Error as exc:
        fail(f"the app role could not be set up ({str(exc).strip().splitlines()[0]}); nothing was changed")
    finally:
        store.close()
    say(f"{report['app_role']} may now add and read records; {report['owner']} keeps the tables and their "
        "triggers. Connect the app and the command line as the app role.")
    emit(report)
    return 0


def _open_quietly(args: argparse.Namespace):
    import contextlib
    import io

    with contextlib.redirect_stderr(io.StringIO()):  # open_store says the owner warning; not wanted here
        return open_store(args)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("db-roles", help="PostgreSQL: give an app role INSERT/SELECT only (run as the owner)")
    p.add_argument("--app", required=True, help="the role the app and the CLI connect as (it must exist)")
    p.set_defaults(func=cmd_db_roles)
