"""The dossier store: one DuckDB file, append-only versions and an append-only audit log.

Storage design:

* ``$MEDASSURE_HOME/medassure.duckdb`` (default ``~/.medassure``) holds all state. Other
  components (the run store, ...) add their own tables through the same migration helper.
* ``dossier_versions`` rows are never updated or deleted. A save appends version n+1 with the
  SHA-256 of the dossier's canonical JSON and the hash of its parent, so the history is a chain
  a reviewer can verify. Saving unchanged content is a no-op, not a new version.
* ``audit_log`` records who did what and when, including which fields a save changed.
* Both tables are a hash chain (``governance/dossier/chain.py``): each row stores the hash of the
  previous row of its dossier and a hash over its own fields; ``verify_chain`` checks it, and every
  load recomputes the content hash, so a row changed in the file is flagged, never trusted.
* A save says which version it was based on (``expected_hash``); when another save came first it is
  refused with ``SaveConflict`` naming what changed, never applied over content the user did not see.
* DuckDB allows one writing process per file (STACK_NOTES §7). A second process gets a
  ``StoreLockedError`` naming the holder, and a file that is not a readable database gets a
  ``StoreCorruptError``; in both cases nothing is written.
* ``MEDASSURE_DATABASE_URL=postgresql://...`` puts the same tables on a PostgreSQL server
  (``evaluator.storage.postgres``) for a shared deployment: several app processes and CLI runs at once.
  Writers of one dossier take a transaction-scoped advisory lock before reading the latest version, so the
  check for a conflict and the append are one step across processes; triggers refuse UPDATE,
  DELETE and TRUNCATE on the versions and the audit log. An unreachable server is a
  ``StoreUnavailableError``; nothing is half-written (every write is one transaction).

Only this module writes dossier SQL. ``Store`` implements the storage interface
(``governance/dossier/storage.py``: its methods, types and transaction rules) and hands out the
component stores (runs, scenarios, juries, documents), so no caller ever holds the connection.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from evaluator.storage.components import ComponentStores
from evaluator.storage.db import (
    apply_migrations,
    db_errors,
    is_connection_lost,
    is_postgres,
    is_postgres_url,
    redact_url,
)
from evaluator.storage.integrity import (
    CleanCloseMark,
    WalCheck,
    connect_file,
    damaged_tables,
    foreign_file_reason,
    is_foreign_database,
)
from governance.dossier.chain import (
    ChainReport,
    content_digest,
    event_link,
    event_row_hash,
    verify_rows,
    version_link,
    version_row_hash,
)
from governance.dossier.change_text import change_sentence
from governance.dossier.documents import DocumentStore
from governance.dossier.record import Dossier, utcnow
from governance.dossier.storage import (
    AuditEvent,
    DossierNotFound,
    DossierSummary,
    DossierVersion,
    SaveConflict,
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    StoreUnavailableError,
    VersionInfo,
)
from governance.dossier.user_text import STORED

if TYPE_CHECKING:
    from evaluator.storage.postgres import PgConnection

__all__ = ["AuditEvent", "DossierNotFound", "DossierSummary", "DossierVersion", "SaveConflict", "Store",
           "StoreCorruptError", "StoreError", "StoreLockedError", "StoreUnavailableError", "StoreWarning",
           "VersionInfo", "connect", "database_url", "default_home"]

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
]

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
def _connect_waiting(path: Path) -> duckdb.DuckDBPyConnection:
    """``connect``, retried while another process holds the file, for up to ``LOCK_WAIT_SECONDS``.

    A CLI command started while another one writes usually gets the file a moment later; only a
    holder that stays (the app) is refused, with what to do instead.
    """
    wait = float(os.environ.get("MEDASSURE_LOCK_WAIT", LOCK_WAIT_SECONDS))
    deadline = time.monotonic() + wait
    delay = 0.05
    while True:
        try:
            return connect(path)
        except StoreLockedError as exc:
            if time.monotonic() + delay > deadline:
                raise StoreLockedError(
                    f"{exc} Waited {wait:g} s for it. While the app is open, make the report from its Report "
                    "page; several processes at once need a database server (PostgreSQL, a later release)."
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


DOSSIER_LOCK_SPACE = 0x4D41
"""First key of the PostgreSQL advisory locks that queue writers of one dossier (second: its id's hash)."""


def _first_line(exc: BaseException) -> str:
    """An exception's first line, at most 200 characters (for messages)."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


def _url_folder(url: str) -> str:
    """A folder name for one server URL (journals of its runs), readable and without the password."""
    import hashlib

    return "pg-" + hashlib.sha256(url.encode()).hexdigest()[:12]


def _value_at(doc: Any, path: str) -> Any:
    """The value at a dotted path of ``_changed_paths`` (None where it is absent)."""
    for key in path.split("."):
        doc = doc.get(key) if isinstance(doc, dict) else None
    return doc


def _changed_paths(old: Any, new: Any, prefix: str = "", limit: int = 40) -> list[str]:
    """Dotted paths whose values differ between two JSON values (capped at ``limit``)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new)):
            out += _changed_paths(old.get(key), new.get(key), f"{prefix}.{key}" if prefix else key, limit)
            if len(out) >= limit:
                return out[:limit]
        return out
    return [] if old == new else [prefix or "(root)"]


class Store(ComponentStores):
    """Dossier versions, the audit log and the component stores over one DuckDB connection.

    Implements ``DossierStorage`` (``governance/dossier/storage.py``). The connection is private:
    callers use the methods here and the component stores (``runs``, ``scenarios``, ``juries``,
    ``documents``), never SQL.

    Example:
        >>> store = Store.open(Path("/tmp/doctest-medassure/medassure.duckdb"))  # doctest: +SKIP
        >>> v = store.save(dossier, author="dr.lee", note="created")  # doctest: +SKIP
    """

    open_warnings: tuple[str, ...] = ()
    """What opening the file found and the user should know (e.g. an unreadable write-ahead log)."""

    def __init__(self, con: duckdb.DuckDBPyConnection | PgConnection, path: Path | None = None):
        super().__init__(con)
        self.path = path
        self._lock = threading.RLock()
        apply_migrations(con, "dossier", MIGRATIONS)
        if is_postgres(con):
            apply_migrations(con, "dossier-postgresql", PG_MIGRATIONS)

    @property
    def location(self) -> str:
        """Where the record lives, for people: the DuckDB file, or the server URL without its password."""
        if is_postgres(self._con):
            return self._con.url
        return str(self.path) if self.path else "(in memory)"

    @property
    def backend(self) -> str:
        """``"duckdb"`` (one file, one writing process) or ``"postgresql"`` (a shared server)."""
        return "postgresql" if is_postgres(self._con) else "duckdb"

    @classmethod
    def open(cls, path: Path | None = None) -> Store:
        """Open (creating if needed) the store at ``path`` or the configured default.

        The default is the PostgreSQL server named by ``MEDASSURE_DATABASE_URL`` when it is set
        (``open_url``), else ``default_home()/medassure.duckdb``. An explicit ``path`` is always a
        DuckDB file.

        Raises:
            StoreLockedError: another process holds the file (one writer per DuckDB file).
            StoreCorruptError: the file is not a readable MedAssure database.
            StoreUnavailableError: the configured PostgreSQL server cannot be reached.

        Example:
            >>> import tempfile
            >>> store = Store.open(Path(tempfile.mkdtemp()) / "medassure.duckdb")
            >>> store.is_empty()
            True
        """
        if path is None and (url := database_url()):
            return cls.open_url(url)
        path = path or default_home() / "medassure.duckdb"
        con = _connect_waiting(path)
        try:
            store = cls(con, path)
        except duckdb.Error as exc:
            con.close()
            raise StoreCorruptError(f"{path} could not be prepared: {exc}. Nothing was changed.") from None
        store.open_warnings = tuple(_announce_open_warnings(path))
        store._opened_con = con
        return store

    @classmethod
    def open_url(cls, url: str) -> Store:
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
                f"The database server {shown} could not be reached ({_first_line(exc)}). Nothing was "
                "changed. Check MEDASSURE_DATABASE_URL and that the server is running and accepts this user."
            ) from None
        con.journal_dir = default_home() / "journals" / _url_folder(shown)
        try:
            store = cls(con, None)
        except db_errors() as exc:
            con.close()
            raise StoreError(f"The database on {shown} could not be prepared ({_first_line(exc)}). "
                             "Nothing was changed.") from None
        store._opened_con = con
        return store

    def close(self) -> None:
        """Close the connection; closing the store itself (not a thread's view) marks the file clean."""
        owner = self._con is getattr(self, "_opened_con", None)  # for_thread() views hold a cursor
        super().close()
        if owner and self.path is not None and self.path.exists():
            CleanCloseMark.record(self.path)

    @property
    def documents(self) -> DocumentStore:
        """Uploaded documents (vendor attestations), stored once per SHA-256."""
        return DocumentStore(self._con)

    def cursor(self) -> duckdb.DuckDBPyConnection | PgConnection:
        """A raw connection (a DuckDB cursor, or a PostgreSQL one), for tests that write rows directly.

        Outside the storage interface: app code, the job manager's threads included, uses
        ``for_thread()``. Close it after.
        """
        return self._con.cursor()

    def _begin(self, dossier_id: str | None) -> None:
        """Start a write transaction for one dossier (the caller holds ``self._lock``).

        On PostgreSQL, other processes may write the same dossier: a transaction-scoped advisory
        lock keyed by the dossier id makes them queue here, so each reads the latest version and the
        last chain link only after the previous writer committed. A DuckDB file has one writing
        process; the in-process lock suffices.
        """
        self._con.execute("BEGIN TRANSACTION")
        if is_postgres(self._con):
            try:
                self._con.execute("SELECT pg_advisory_xact_lock(?, hashtext(?))", [DOSSIER_LOCK_SPACE,
                                                                                   dossier_id or ""])
            except BaseException:
                self._rollback()
                raise

    @contextlib.contextmanager
    def _transaction(self, dossier_id: str | None):
        """One write transaction for one dossier (``_begin``): committed at the end, rolled back on error."""
        with self._lock:
            self._begin(dossier_id)
            try:
                yield
                self._con.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        """Roll back, quietly when the connection itself is gone (the error that got us here is raised)."""
        with contextlib.suppress(*db_errors()):
            self._con.execute("ROLLBACK")

    # ---- writes -------------------------------------------------------------------------
    def _append_event(self, at, actor: str, auth: str | None, dossier_id: str | None, action: str,
                      detail_text: str) -> None:
        """Insert one chained audit row (caller holds the lock, inside a transaction)."""
        prev = self._con.execute(
            "SELECT seq, row_hash FROM audit_log WHERE dossier_id IS NOT DISTINCT FROM ? "
            "ORDER BY seq DESC LIMIT 1", [dossier_id]).fetchone()
        link = event_link(prev[1], prev[0]) if prev else None
        row_hash = event_row_hash(at, actor, auth, dossier_id, action, detail_text, link)
        self._con.execute(
            "INSERT INTO audit_log (logged_at, actor, dossier_id, action, detail, " + CHAIN_COLUMNS + ")"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [at, actor, dossier_id, action, detail_text, auth, link, row_hash],
        )

    def audit(
        self, actor: str, action: str, dossier_id: str | None = None, detail: dict | None = None,
        *, auth: str | None = None,
    ) -> None:
        """Append one audit record, chained to the previous record of the same dossier.

        ``auth`` says how ``actor`` was established (``governance.identity``), e.g. "local, unauthenticated".
        """
        with self._transaction(dossier_id):
            detail_text = json.dumps(detail or {}, default=str)
            self._append_event(utcnow(), actor, auth, dossier_id, action, detail_text)

    def _conflict(self, dossier_id: str, latest: DossierVersion, based_on: int | None) -> SaveConflict:
        """The refusal of a save based on an older version, naming what changed since."""
        lines: list[str] = []
        if based_on:
            old = json.loads(self.load(dossier_id, based_on).dossier.canonical_json())
            new = json.loads(latest.dossier.canonical_json())
            paths = _changed_paths(old, new)
            for path in paths[:8]:
                a, b = _value_at(old, path), _value_at(new, path)
                kind = "added" if a is None else "removed" if b is None else "changed"
                lines.append(change_sentence(path, kind, a, b))
            if len(paths) > 8:
                lines.append(f"… and {len(paths) - 8} more change(s)")
        seen = f"version {based_on}" if based_on else "a version that is no longer stored"
        message = (f"Dossier {dossier_id} changed while you worked: it was saved as version "
                   f"{latest.version} by {latest.author} after {seen}, which this edit started from. "
                   "Nothing was saved. Review the changes, then redo your change on the latest version.")
        if lines:
            message += "\nChanged since: " + "; ".join(lines)
        return SaveConflict(message, dossier_id=dossier_id, based_on_version=based_on,
                            latest_version=latest.version, latest_hash=latest.hash, changes=lines)

    def save(self, dossier: Dossier, author: str, note: str = "", *,
             expected_version: int | None = None, expected_hash: str | None = None,
             auth: str | None = None) -> DossierVersion:
        """Append a new version (or return the latest if the content did not change).

        The version row and its audit record are written in one transaction, under the store's
        lock, after re-reading the latest version; both are chained to their predecessors.

        Args:
            dossier: the full dossier content.
            author: who saves it (recorded in the version and the audit log).
            note: what the save was for.
            expected_version: the version this edit was based on (0 for a new dossier); when the
                latest version differs the save is refused. None skips the check.
            expected_hash: the hash of the version this edit was based on (the version the user was
                shown); when the latest version has another hash the save is refused. None skips it.
            auth: how ``author`` was established (``Identity.auth_label``); None for older callers.

        Raises:
            StoreError: no author.
            SaveConflict: the edit was based on an older version than the latest; nothing was written.

        Example:
            >>> import tempfile
            >>> from governance.dossier.intended_use import example_intended_use
            >>> store = Store.open(Path(tempfile.mkdtemp()) / "medassure.duckdb")
            >>> d = Dossier(title="Portal replies", owner="dr.lee", intended_use=example_intended_use())
            >>> store.save(d, author="dr.lee", note="created").version
            1
            >>> store.save(d, author="dr.lee").version  # unchanged content: no new version
            1
        """
        if not author or not author.strip():
            raise StoreError("A save needs an author (who is making this change).")
        content = dossier.canonical_json()
        digest = content_digest(content)
        with self._transaction(dossier.id):
            return self._append_version(dossier, content, digest, author, note, auth, expected_version,
                                        expected_hash)

    def update(self, dossier_id: str, change: Callable[[Dossier], Dossier], author: str, note: str = "", *,
               auth: str | None = None) -> DossierVersion:
        """Apply ``change`` to the latest version and append the result, as one step.

        For changes that do not depend on what a person was shown (attaching evidence, an attestation,
        a re-evaluation addendum). The latest version is read inside the save's transaction, after the
        dossier's lock (on PostgreSQL, across processes), so a change another writer made in between is
        kept, never overwritten. An error raised by ``change`` writes nothing. A change a person
        reviewed (a form, a decision, a sign-off) uses ``save(expected_hash=...)`` instead.

        Raises:
            StoreError: no author.
            DossierNotFound: no such dossier.

        Example:
            >>> import tempfile
            >>> from governance.dossier.intended_use import example_intended_use
            >>> store = Store.open(Path(tempfile.mkdtemp()) / "medassure.duckdb")
            >>> d = Dossier(id="D-u", title="Portal replies", owner="dr.lee",
            ...             intended_use=example_intended_use())
            >>> _ = store.save(d, author="dr.lee")
            >>> store.update("D-u", lambda x: x.model_copy(update={"owner": "pharmacy"}), "cli").version
            2
        """
        if not author or not author.strip():
            raise StoreError("A save needs an author (who is making this change).")
        with self._transaction(dossier_id):
            latest = self.latest_or_none(dossier_id)
            if latest is None:
                raise DossierNotFound(f"No dossier {dossier_id!r}. `medassure dossier list` shows the ids.")
            changed = change(latest.dossier)
            content = changed.canonical_json()
            return self._append_version(changed, content, content_digest(content), author, note, auth, None,
                                        latest.hash)

    def _append_version(self, dossier: Dossier, content: str, digest: str, author: str, note: str,
                        auth: str | None, expected_version: int | None,
                        expected_hash: str | None) -> DossierVersion:
        """``save`` inside its transaction: check the expected parent, then append version and event."""
        latest = self.latest_or_none(dossier.id)
        current = latest.version if latest else 0
        if expected_version is not None and expected_version != current:
            if latest is None:
                raise SaveConflict(f"Dossier {dossier.id} no longer exists. Nothing was saved.")
            raise self._conflict(dossier.id, latest, expected_version or None)
        if expected_hash is not None and (latest is None or latest.hash != expected_hash):
            if latest is None:
                raise SaveConflict(f"Dossier {dossier.id} does not exist yet. Nothing was saved.")
            raise self._conflict(dossier.id, latest, self._version_with_hash(dossier.id, expected_hash))
        if latest is not None and latest.hash == digest:
            return latest
        number = 1 if latest is None else latest.version + 1
        now = utcnow()
        changed = (
            ["(created)"]
            if latest is None
            else _changed_paths(json.loads(latest.dossier.canonical_json()), json.loads(content))
        )
        parent = latest.hash if latest else None
        link = None
        if latest is not None:
            prev = self._con.execute(
                "SELECT row_hash FROM dossier_versions WHERE dossier_id = ? AND version = ?",
                [dossier.id, latest.version]).fetchone()
            link = version_link(prev[0], latest.hash)
        row_hash = version_row_hash(dossier.id, number, digest, parent, author, auth, now, note, link)
        self._con.execute(
            f"INSERT INTO dossier_versions ({VERSION_COLUMNS}, {CHAIN_COLUMNS})"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [dossier.id, number, digest, parent, author, now, note, content, auth, link, row_hash],
        )
        self._append_event(
            now, author, auth, dossier.id, "create" if latest is None else "save",
            json.dumps({"version": number, "hash": digest, "note": note, "changed": changed}),
        )
        return DossierVersion(
            dossier=dossier,
            version=number,
            hash=digest,
            parent_hash=parent,
            author=author,
            created_at=now,
            note=note,
            auth=auth,
        )

    # ---- reads --------------------------------------------------------------------------
    def _row_to_version(self, row: tuple) -> DossierVersion:
        dossier_id, version, digest, parent, author, created_at, note, content, auth = row
        again = content_digest(content)
        problem = "" if again == digest else (
            f"version {version}'s stored content does not match its hash (stored {digest[:12]}…, content "
            f"{again[:12]}…): it was changed after it was saved. `medassure verify {dossier_id}` checks "
            "the record.")
        return DossierVersion(
            dossier=Dossier.model_validate_json(content, context=STORED),
            version=version,
            hash=digest,
            parent_hash=parent,
            author=author,
            created_at=created_at,
            note=note or "",
            auth=auth,
            integrity_problem=problem,
        )

    def _version_with_hash(self, dossier_id: str, digest: str) -> int | None:
        with self._lock:
            row = self._con.execute(
                "SELECT max(version) FROM dossier_versions WHERE dossier_id = ? AND hash = ?",
                [dossier_id, digest]).fetchone()
        return row[0] if row else None

    def latest_or_none(self, dossier_id: str) -> DossierVersion | None:
        """The newest version, or None when the dossier does not exist."""
        with self._lock:
            row = self._con.execute(
                f"SELECT {VERSION_COLUMNS}, auth FROM dossier_versions WHERE dossier_id = ? "
                "ORDER BY version DESC LIMIT 1",
                [dossier_id],
            ).fetchone()
        return self._row_to_version(row) if row else None

    def load(self, dossier_id: str, version: int | None = None) -> DossierVersion:
        """A version of a dossier (the newest by default).

        Raises:
            DossierNotFound: no such dossier or version.

        Example:
            >>> import tempfile
            >>> from governance.dossier.intended_use import example_intended_use
            >>> store = Store.open(Path(tempfile.mkdtemp()) / "medassure.duckdb")
            >>> d = Dossier(id="D-example", title="Portal replies", owner="dr.lee",
            ...             intended_use=example_intended_use())
            >>> _ = store.save(d, author="dr.lee")
            >>> store.load("D-example").dossier.title, store.load("D-example", version=1).version
            ('Portal replies', 1)
        """
        if version is None:
            found = self.latest_or_none(dossier_id)
        else:
            with self._lock:
                row = self._con.execute(
                    f"SELECT {VERSION_COLUMNS}, auth FROM dossier_versions"
                    " WHERE dossier_id = ? AND version = ?",
                    [dossier_id, version],
                ).fetchone()
            found = self._row_to_version(row) if row else None
        if found is None:
            what = f"version {version} of dossier" if version else "dossier"
            raise DossierNotFound(f"No {what} {dossier_id!r}. `medassure dossier list` shows the ids.")
        return found

    def history(self, dossier_id: str) -> list[VersionInfo]:
        """Versions of one dossier, oldest first: version, hash, parent, timestamp, author, note."""
        with self._lock:
            rows = self._con.execute(
                "SELECT version, hash, parent_hash, created_at, author, note, auth FROM dossier_versions "
                "WHERE dossier_id = ? ORDER BY version",
                [dossier_id],
            ).fetchall()
        if not rows:
            raise DossierNotFound(f"No dossier {dossier_id!r}. `medassure dossier list` shows the ids.")
        return [
            VersionInfo(version=v, hash=h, parent_hash=p, created_at=c, author=a, note=n or "", auth=auth)
            for v, h, p, c, a, n, auth in rows
        ]

    def list_dossiers(self) -> list[DossierSummary]:
        """One summary per dossier (latest version), newest first."""
        with self._lock:
            rows = self._con.execute(
                """
                SELECT v.dossier_id, v.version, v.hash, v.created_at, v.content FROM dossier_versions v
                JOIN (SELECT dossier_id, max(version) AS version FROM dossier_versions GROUP BY dossier_id) m
                  ON m.dossier_id = v.dossier_id AND m.version = v.version
                ORDER BY v.created_at DESC
                """
            ).fetchall()
        out = []
        for dossier_id, version, digest, created_at, content in rows:
            d = Dossier.model_validate_json(content, context=STORED)
            out.append(
                DossierSummary(id=dossier_id, title=d.title, owner=d.owner, status=d.status,
                               risk_tier=d.risk.tier, version=version, hash=digest, updated_at=created_at)
            )
        return out

    def audit_log(self, dossier_id: str | None = None) -> list[AuditEvent]:
        """Audit records, oldest first, optionally for one dossier."""
        sql = "SELECT seq, logged_at, actor, dossier_id, action, detail, auth FROM audit_log"
        params: list = []
        if dossier_id:
            sql += " WHERE dossier_id = ?"
            params.append(dossier_id)
        with self._lock:
            rows = self._con.execute(sql + " ORDER BY seq", params).fetchall()
        return [
            AuditEvent(seq=s, at=at, actor=a, dossier_id=d, action=act, detail=json.loads(det) if det else {},
                       auth=auth)
            for s, at, a, d, act, det, auth in rows
        ]

    def is_empty(self) -> bool:
        """True when no dossier has been saved yet."""
        with self._lock:
            return self._con.execute("SELECT count(*) FROM dossier_versions").fetchone()[0] == 0

    # ---- the hash chain -----------------------------------------------------------------
    def chain_rows(self, dossier_id: str) -> tuple[list[dict], list[dict]]:
        """The stored version rows and audit rows of one dossier, raw, for ``chain.verify_rows``."""
        with self._lock:
            versions = self._con.execute(
                "SELECT version, hash, parent_hash, author, created_at, note, content, auth, prev_row_hash, "
                "row_hash FROM dossier_versions WHERE dossier_id = ? ORDER BY version",
                [dossier_id]).fetchall()
            events = self._con.execute(
                "SELECT seq, logged_at, actor, dossier_id, action, detail, auth, prev_row_hash, row_hash "
                "FROM audit_log WHERE dossier_id = ? ORDER BY seq", [dossier_id]).fetchall()
        vkeys = ("version", "hash", "parent_hash", "author", "created_at", "note", "content", "auth",
                 "prev_row_hash", "row_hash")
        ekeys = ("seq", "logged_at", "actor", "dossier_id", "action", "detail", "auth", "prev_row_hash",
                 "row_hash")
        return ([dict(zip(vkeys, r, strict=True)) for r in versions],
                [dict(zip(ekeys, r, strict=True)) for r in events])

    def verify_chain(self, dossier_id: str) -> ChainReport:
        """Check the dossier's versions and audit events from the first to the head.

        Raises:
            DossierNotFound: no such dossier.
        """
        versions, events = self.chain_rows(dossier_id)
        if not versions:
            raise DossierNotFound(f"No dossier {dossier_id!r}. `medassure dossier list` shows the ids.")
        return verify_rows(dossier_id, versions, events)

def _driver_errors_as_store_errors(cls: type) -> type:
    """Wrap the store's own public methods so a database error reaches callers as a ``StoreError``.

    A damaged block found after opening (the check on open reads every block in use, but the file
    can change under a running app) then reads "the database ... could not be read", never a raw
    ``duckdb.Error`` traceback.
    """
    import functools

    def wrap(name: str, method: Any) -> Any:
        @functools.wraps(method)
        def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except db_errors() as exc:
                first = _first_line(exc)
                if is_connection_lost(exc):  # a PostgreSQL server that went away or refused mid-way
                    raise StoreUnavailableError(
                        f"The database server {self.location} could not be reached ({name}: {first}). "
                        "Nothing was changed: every write is one transaction. Try again when the server is "
                        "back."
                    ) from None
                damaged = any(word in first.lower() for word in ("corrupt", "checksum"))
                raise (StoreCorruptError if damaged else StoreError)(
                    f"The database {self.location} could not be read ({name}: {first}). "
                    "Nothing was changed. If this repeats, restore the file from your last backup (or a "
                    "`medassure dossier export`)."
                ) from None

        return guarded

    for name, method in list(vars(cls).items()):
        if callable(method) and not name.startswith("_") and name not in {"open", "open_url", "cursor"}:
            setattr(cls, name, wrap(name, method))
    return cls


_driver_errors_as_store_errors(Store)
