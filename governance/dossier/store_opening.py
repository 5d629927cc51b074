"""Opening the store: a DuckDB file (the default) or a PostgreSQL server, with user-facing refusals.

Why shaped so: opening is where most failures a user meets happen, so each one is a ``StoreError``
with what to do, and in every case nothing is written.

* ``$MEDASSURE_HOME/medassure.duckdb`` (default ``~/.medassure``) holds all state. The database
  holds PHI: its folder is 0700 when we create it (or it is ``$MEDASSURE_HOME``), the file 0600.
* DuckDB allows one writing process per file (STACK_NOTES §7). A second process waits up to
  ``LOCK_WAIT_SECONDS`` (``$MEDASSURE_LOCK_WAIT``) and then gets a ``StoreLockedError`` naming the
  holder; a file that is not a readable database (another format, another application's DuckDB
  file, damaged tables) gets a ``StoreCorruptError``. A full read of every table is skipped only
  for a file exactly as a clean close left it (``evaluator.storage.integrity``).
* What opening found and the user should know without a refusal (a dropped write-ahead log) is a
  ``StoreWarning``, kept in ``open_warnings`` for the CLI and the app to show.
* ``MEDASSURE_DATABASE_URL=postgresql://...`` puts the same tables on a PostgreSQL server
  (``evaluator.storage.postgres``) for a shared deployment: several app processes and CLI runs at once. An
  unreachable server is a ``StoreUnavailableError``. psycopg is imported when such a store opens,
  not before, so a DuckDB deployment never pays for it.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from evaluator.storage.db import db_errors, is_postgres_url, redact_url
from evaluator.storage.idle import IdleReleasingConnection
from evaluator.storage.integrity import (
    CleanCloseMark,
    WalCheck,
    connect_file,
    damaged_tables,
    foreign_file_reason,
    is_foreign_database,
)
from governance.dossier.store_errors import (
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    StoreUnavailableError,
)

if TYPE_CHECKING:
    from typing import Self

    from evaluator.storage.postgres import PgConnection

LOCK_WAIT_SECONDS = 15.0
"""How long ``Store.open`` waits for another process to release the file before refusing."""


def default_home() -> Path:
    """``$MEDASSURE_HOME`` or ``~/.medassure``."""
    return Path(os.environ.get("MEDASSURE_HOME") or Path.home() / ".medassure")


def database_url() -> str | None:
    """``$MEDASSURE_DATABASE_URL`` when it names a PostgreSQL server, else None (the DuckDB file).

    Raises:
        StoreError: the variable is set to something that is not a ``postgresql://`` URL.
    """
    url = os.environ.get("MEDASSURE_DATABASE_URL", "").strip()
    if not url:
        return None
    if not is_postgres_url(url):
        raise StoreError(
            f"MEDASSURE_DATABASE_URL={redact_url(url)!r} is not a PostgreSQL URL. Use "
            "postgresql://USER@HOST:PORT/DATABASE, or unset it to use the DuckDB file in MEDASSURE_HOME."
        )
    return url


def first_line(exc: BaseException) -> str:
    """An exception's first line, at most 200 characters (for messages)."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


def _holder_description(message: str) -> str:
    match = re.search(r"PID (\d+)", message)
    if not match:
        return "another process"
    pid = match.group(1)
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        cmd = ""
    return f"process {pid}" + (f" ({cmd[:120]})" if cmd else "")


def connect(path: Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the database file with user-facing errors for the two common failures."""
    # The database holds PHI: its folder is 0700 when we create it (or it is $MEDASSURE_HOME), the file 0600.
    home_is_new = not path.parent.exists()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    ours = path.parent.stat().st_uid == os.getuid()
    if home_is_new or (ours and path.parent.resolve() == default_home().resolve()):
        os.chmod(path.parent, 0o700)
    _refuse_foreign_file(path)
    wal = None if read_only else WalCheck.before_open(path)
    full_check = not CleanCloseMark.matches(path) or wal is not None
    try:
        con = connect_file(path, read_only=read_only)
        if path.stat().st_uid == os.getuid():  # a file someone else owns keeps its mode
            os.chmod(path, 0o600)
        _check_opened(con, path, wal, full_check)
        return con
    except duckdb.IOException as exc:
        text = str(exc)
        if "lock" in text.lower():
            raise StoreLockedError(
                f"The database {path} is in use by {_holder_description(text)}. Only one process can "
                "write to it: close the app or command that holds it, or set MEDASSURE_HOME to use "
                "another database. Nothing was changed."
            ) from None
        raise StoreCorruptError(
            f"{path} is not a readable MedAssure database ({text.splitlines()[0]}). Nothing was changed: "
            "move the file aside or set MEDASSURE_HOME to another folder."
        ) from None
    except duckdb.Error as exc:
        raise StoreCorruptError(
            f"{path} is not a readable MedAssure database ({str(exc).splitlines()[0]}). Nothing was "
            "changed: move the file aside or set MEDASSURE_HOME to another folder."
        ) from None


class StoreWarning(UserWarning):
    """Something found while opening the database that the user should know (nothing was refused)."""


OPEN_WARNINGS: dict[str, list[str]] = {}
"""Warnings raised while opening each database file (by path), for the CLI and the app to show."""


def _refuse_foreign_file(path: Path) -> None:
    """Refuse a file that is not a DuckDB database before DuckDB sees it (it would try extensions)."""
    reason = foreign_file_reason(path)
    if reason:
        raise StoreCorruptError(
            f"{path} is not a readable MedAssure database: {reason}. Nothing was changed: move the file "
            "aside or set MEDASSURE_HOME to another folder."
        )


def _check_opened(con: duckdb.DuckDBPyConnection, path: Path, wal: WalCheck | None,
                  full: bool = True) -> None:
    """After opening: report a dropped write-ahead log, refuse someone else's database or damaged tables."""
    notes = OPEN_WARNINGS.setdefault(str(path), [])
    notes.clear()
    try:
        if wal is not None and (note := wal.after_open(con)):
            notes.append(note)
        if is_foreign_database(con):
            raise StoreCorruptError(
                f"{path} is not a readable MedAssure database: it is a DuckDB database of another "
                "application (tables but no MedAssure schema). Nothing was changed: point MEDASSURE_HOME "
                "at a folder of its own."
            )
        damaged = damaged_tables(con) if full else {}
    except BaseException:
        con.close()
        raise
    if damaged:
        con.close()
        listed = "; ".join(f"{table}: {why}" for table, why in sorted(damaged.items()))
        raise StoreCorruptError(
            f"{path} is damaged: {len(damaged)} table(s) cannot be read ({listed}). Nothing was changed. "
            "Restore the file from your last backup (or a `medassure dossier export`), or move it aside and "
            "set MEDASSURE_HOME to start a new database."
        )


def _announce_open_warnings(path: Path) -> list[str]:
    """The warnings opening ``path`` raised, also issued as ``StoreWarning`` (notebooks show them)."""
    found = list(OPEN_WARNINGS.pop(str(path), []))
    for note in found:
        warnings.warn(note, StoreWarning, stacklevel=3)
    return found


def _connect_waiting(path: Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """``connect``, retried while another process holds the file, for up to ``LOCK_WAIT_SECONDS``.

    A CLI command started while another one writes usually gets the file a moment later; only a
    holder that stays (the app) is refused, with what to do instead.
    """
    wait = float(os.environ.get("MEDASSURE_LOCK_WAIT", LOCK_WAIT_SECONDS))
    deadline = time.monotonic() + wait
    delay = 0.05
    while True:
        try:
            return connect(path, read_only=read_only)
        except StoreLockedError as exc:
            if time.monotonic() + delay > deadline:
                raise StoreLockedError(
                    f"{exc} Waited {wait:g} s for it. The app lets go of the file within a second of its "
                    "last use, unless a run or a re-evaluation is working: wait for it to finish, or give "
                    "several processes one PostgreSQL server (MEDASSURE_DATABASE_URL, "
                    "docs/shared-deployment.md)."
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


def _url_folder(url: str) -> str:
    """A folder name for one server URL (journals of its runs), readable and without the password."""
    return "pg-" + hashlib.sha256(url.encode()).hexdigest()[:12]


COMPONENTS = ("runs", "scenarios", "juries", "gradings", "attestations", "documents", "reviews", "monitoring")
"""The component stores; each creates or upgrades its tables when first used."""


class DossierOpening:
    """``Store.open`` and ``Store.open_url``, and the close that marks a DuckDB file clean."""

    _con: duckdb.DuckDBPyConnection | PgConnection
    path: Path | None

    open_warnings: tuple[str, ...] = ()
    """What opening the file found and the user should know (e.g. an unreadable write-ahead log)."""
    read_only: bool = False
    """Opened over a read-only connection: a figure computed on read is shown but not kept."""

    @classmethod
    def open(cls, path: Path | None = None, *, release_when_idle: float | None = None,
             read_only: bool = False) -> Self:
        """Open (creating if needed) the store at ``path`` or the configured default.

        The default is the PostgreSQL server named by ``MEDASSURE_DATABASE_URL`` when it is set
        (``open_url``), else ``default_home()/medassure.duckdb``. An explicit ``path`` is always a
        DuckDB file.

        ``release_when_idle`` (seconds; the app passes it) lets go of a DuckDB file once nothing has
        used it for that long and opens it again on the next use (``evaluator.storage.idle``), so that
        command-line readers get in while the app is open.

        ``read_only`` (commands that only read: ``dossier show``, ``review status``, ``monitor status`` ...)
        opens an existing, up-to-date DuckDB file read-only, so several such commands read at once; a
        file that is new, left with a write-ahead log, or needs a migration is opened read-write as before.
        A write through a read-only store fails (``duckdb.Error``).

        Raises:
            StoreLockedError: another process holds the file (one writer per DuckDB file).
            StoreCorruptError: the file is not a readable MedAssure database.
            StoreUnavailableError: the configured PostgreSQL server cannot be reached.

        Example:
            >>> import tempfile
            >>> from governance.dossier.store import Store
            >>> store = Store.open(Path(tempfile.mkdtemp()) / "medassure.duckdb")
            >>> store.is_empty()
            True
        """
        if path is None and (url := database_url()):
            return cls.open_url(url)
        path = path or default_home() / "medassure.duckdb"
        if read_only and release_when_idle is None and (reader := cls._open_read_only(path)) is not None:
            return reader
        con = _connect_waiting(path)
        try:
            store = cls(con, path)
        except duckdb.Error as exc:
            con.close()
            raise StoreCorruptError(f"{path} could not be prepared: {exc}. Nothing was changed.") from None
        store.open_warnings = tuple(_announce_open_warnings(path))
        if release_when_idle is not None:
            opened = path

            def reopen() -> duckdb.DuckDBPyConnection:
                again = _connect_waiting(opened)
                _announce_open_warnings(opened)
                return again

            con = IdleReleasingConnection(reopen, idle_s=release_when_idle, first=con,
                                          on_release=lambda: CleanCloseMark.record(opened))
            store._con = con
        store._opened_con = con
        return store

    @classmethod
    def _open_read_only(cls, path: Path) -> Self | None:
        """The store over a read-only connection, or None when a read-write open is needed instead.

        A file whose tables need creating or upgrading (a component never used yet, a newer release) is
        opened read-write once to do that, then read-only. None for a file that does not exist yet, has a
        write-ahead log to replay (the read-write open checks it), or that this process already holds
        read-write (DuckDB refuses a second configuration in one process); the read-write open then
        refuses whatever is really wrong.
        """
        if not path.exists() or path.with_name(path.name + ".wal").exists():
            return None
        for attempt in range(2):
            try:
                con = _connect_waiting(path, read_only=True)
            except StoreCorruptError:
                return None
            try:
                store = cls(con, path)
                for component in COMPONENTS:  # a pending migration would write: refused on a read-only file
                    getattr(store, component)
            except duckdb.Error:
                con.close()
                if attempt:
                    return None
                upgrade = cls.open(path)  # once per file and release: its tables made, then read-only
                for component in COMPONENTS:
                    getattr(upgrade, component)
                upgrade.close()
                continue
            store.open_warnings = tuple(_announce_open_warnings(path))
            store._opened_con = con
            store.read_only = True
            return store
        return None

    @classmethod
    def open_url(cls, url: str) -> Self:
        """Open the store on a PostgreSQL server (creating the tables on first use).

        Several processes may hold such a store at once. Journals of runs in progress go under
        ``default_home()/journals/`` (a folder per server), as they go beside a DuckDB file.

        Raises:
            StoreUnavailableError: the server cannot be reached or refuses the login; nothing was changed.
            StoreError: the tables could not be created or upgraded.
        """
        import psycopg  # noqa: PLC0415 - ~0.2 s, paid only by a PostgreSQL deployment

        from evaluator.storage.postgres import PgConnection  # noqa: PLC0415

        shown = redact_url(url)
        try:
            con = PgConnection.connect(url)
        except psycopg.Error as exc:
            raise StoreUnavailableError(
                f"The database server {shown} could not be reached ({first_line(exc)}). Nothing was "
                "changed. Check MEDASSURE_DATABASE_URL and that the server is running and accepts this user."
            ) from None
        con.journal_dir = default_home() / "journals" / _url_folder(shown)
        try:
            store = cls(con, None)
        except db_errors() as exc:
            con.close()
            hint = (" This role may not create or upgrade the tables: run `medassure db-roles --app ROLE` as "
                    "the role that owns them first (docs/shared-deployment.md)."
                    if isinstance(exc, psycopg.errors.InsufficientPrivilege) else "")
            raise StoreError(f"The database on {shown} could not be prepared ({first_line(exc)}). "
                             f"Nothing was changed.{hint}") from None
        store._opened_con = con
        from evaluator.storage.pg_roles import privilege_warning  # noqa: PLC0415

        if note := privilege_warning(con):  # the owner or a superuser can switch the triggers off
            warnings.warn(note, StoreWarning, stacklevel=2)
            store.open_warnings = (note,)
        return store

    def grant_app_role(self, app_role: str) -> dict:
        """PostgreSQL: create every component's tables, then give ``app_role`` the app's rights on them.

        Run as the role that owns the tables (``medassure db-roles``); see ``evaluator.storage.pg_roles``.

        Raises:
            RoleSetupError: on a DuckDB file, or when the role cannot be set up (the message says why).
        """
        from evaluator.storage.db import is_postgres  # noqa: PLC0415
        from evaluator.storage.pg_roles import RoleSetupError, grant_app_role  # noqa: PLC0415

        if not is_postgres(self._con):
            raise RoleSetupError("db-roles sets up PostgreSQL roles: set MEDASSURE_DATABASE_URL to the "
                                 "server, connecting as the role that is to own the tables")
        for component in COMPONENTS:
            getattr(self, component)  # each component store creates or upgrades its tables on opening
        return grant_app_role(self._con, app_role)

    def close(self) -> None:
        """Close the connection; closing the store itself (not a thread's view) marks the file clean."""
        owner = self._con is getattr(self, "_opened_con", None)  # for_thread() views hold a cursor
        super().close()
        if owner and self.path is not None and self.path.exists():
            CleanCloseMark.record(self.path)
