"""The dossier store: one DuckDB file, append-only versions and an append-only audit log.

Storage design:

* ``$MEDASSURE_HOME/medassure.duckdb`` (default ``~/.medassure``) holds all state. Other
  components (the run store, ...) add their own tables through the same migration helper.
* ``dossier_versions`` rows are never updated or deleted. A save appends version n+1 with the
  SHA-256 of the dossier's canonical JSON and the hash of its parent, so the history is a chain
  a reviewer can verify. Saving unchanged content is a no-op, not a new version.
* ``audit_log`` records who did what and when, including which fields a save changed.
* DuckDB allows one writing process per file (STACK_NOTES §7). A second process gets a
  ``StoreLockedError`` naming the holder, and a file that is not a readable database gets a
  ``StoreCorruptError``; in both cases nothing is written.

Only this module writes dossier SQL. ``Store`` implements the storage interface
(``governance/dossier/storage.py``: its methods, types and transaction rules) and hands out the
component stores (runs, scenarios, juries, documents), so no caller ever holds the connection
and a shared deployment could later put PostgreSQL behind the same interface.
"""

from __future__ import annotations

import json
import os
import re
import threading
import warnings
from pathlib import Path
from typing import Any

import duckdb

from evaluator.db import apply_migrations
from evaluator.db_integrity import (
    CleanCloseMark,
    WalCheck,
    connect_file,
    damaged_tables,
    foreign_file_reason,
    is_foreign_database,
)
from evaluator.stores import ComponentStores
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
    VersionInfo,
)

__all__ = ["AuditEvent", "DossierNotFound", "DossierSummary", "DossierVersion", "SaveConflict", "Store",
           "StoreCorruptError", "StoreError", "StoreLockedError", "StoreWarning", "VersionInfo", "connect",
           "default_home"]

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
]


def default_home() -> Path:
    """``$MEDASSURE_HOME`` or ``~/.medassure``."""
    return Path(os.environ.get("MEDASSURE_HOME") or Path.home() / ".medassure")


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

    def __init__(self, con: duckdb.DuckDBPyConnection, path: Path | None = None):
        super().__init__(con)
        self.path = path
        self._lock = threading.RLock()
        apply_migrations(con, "dossier", MIGRATIONS)

    @classmethod
    def open(cls, path: Path | None = None) -> Store:
        """Open (creating if needed) the store at ``path`` or ``default_home()/medassure.duckdb``.

        Raises:
            StoreLockedError: another process holds the file (one writer per DuckDB file).
            StoreCorruptError: the file is not a readable MedAssure database.

        Example:
            >>> import tempfile
            >>> store = Store.open(Path(tempfile.mkdtemp()) / "medassure.duckdb")
            >>> store.is_empty()
            True
        """
        path = path or default_home() / "medassure.duckdb"
        con = connect(path)
        try:
            store = cls(con, path)
        except duckdb.Error as exc:
            con.close()
            raise StoreCorruptError(f"{path} could not be prepared: {exc}. Nothing was changed.") from None
        store.open_warnings = tuple(_announce_open_warnings(path))
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

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A raw DuckDB cursor, for tests that write rows directly (close it after).

        DuckDB-only and outside the storage interface: app code, the job manager's threads included,
        uses ``for_thread()``.
        """
        return self._con.cursor()

    # ---- writes -------------------------------------------------------------------------
    def audit(
        self, actor: str, action: str, dossier_id: str | None = None, detail: dict | None = None
    ) -> None:
        """Append one audit record."""
        with self._lock:
            self._con.execute(
                "INSERT INTO audit_log (logged_at, actor, dossier_id, action, detail)"
                    " VALUES (?, ?, ?, ?, ?)",
                [utcnow(), actor, dossier_id, action, json.dumps(detail or {}, default=str)],
            )

    def save(self, dossier: Dossier, author: str, note: str = "", *,
             expected_version: int | None = None) -> DossierVersion:
        """Append a new version (or return the latest if the content did not change).

        The version row and its audit record are written in one transaction, under the store's
        lock, after re-reading the latest version.

        Args:
            dossier: the full dossier content.
            author: who saves it (recorded in the version and the audit log).
            note: what the save was for.
            expected_version: the version this edit was based on (0 for a new dossier); when the
                latest version differs the save is refused. None skips the check.

        Raises:
            StoreError: no author.
            SaveConflict: ``expected_version`` is not the latest version; nothing was written.

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
        digest = dossier.content_hash()
        with self._lock:
            latest = self.latest_or_none(dossier.id)
            current = latest.version if latest else 0
            if expected_version is not None and expected_version != current:
                raise SaveConflict(
                    f"Dossier {dossier.id} was saved as version {current} by "
                    f"{latest.author if latest else 'nobody'} after version {expected_version}, which "
                    "this edit started from. Nothing was saved: reload the dossier and make the change again."
                )
            if latest is not None and latest.hash == digest:
                return latest
            number = 1 if latest is None else latest.version + 1
            now = utcnow()
            content = dossier.canonical_json()
            changed = (
                ["(created)"]
                if latest is None
                else _changed_paths(json.loads(latest.dossier.canonical_json()), json.loads(content))
            )
            self._con.execute("BEGIN TRANSACTION")
            try:
                self._con.execute(
                    "INSERT INTO dossier_versions VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [dossier.id, number, digest, latest.hash if latest else None, author, now, note, content],
                )
                self._con.execute(
                    "INSERT INTO audit_log (logged_at, actor, dossier_id, action, detail)"
                    " VALUES (?, ?, ?, ?, ?)",
                    [
                        now,
                        author,
                        dossier.id,
                        "create" if latest is None else "save",
                        json.dumps({"version": number, "hash": digest, "note": note, "changed": changed}),
                    ],
                )
                self._con.execute("COMMIT")
            except Exception:
                self._con.execute("ROLLBACK")
                raise
        return DossierVersion(
            dossier=dossier,
            version=number,
            hash=digest,
            parent_hash=latest.hash if latest else None,
            author=author,
            created_at=now,
            note=note,
        )

    # ---- reads --------------------------------------------------------------------------
    def _row_to_version(self, row: tuple) -> DossierVersion:
        dossier_id, version, digest, parent, author, created_at, note, content = row
        return DossierVersion(
            dossier=Dossier.model_validate_json(content),
            version=version,
            hash=digest,
            parent_hash=parent,
            author=author,
            created_at=created_at,
            note=note or "",
        )

    def latest_or_none(self, dossier_id: str) -> DossierVersion | None:
        """The newest version, or None when the dossier does not exist."""
        with self._lock:
            row = self._con.execute(
                "SELECT * FROM dossier_versions WHERE dossier_id = ? ORDER BY version DESC LIMIT 1",
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
                    "SELECT * FROM dossier_versions WHERE dossier_id = ? AND version = ?",
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
                "SELECT version, hash, parent_hash, created_at, author, note FROM dossier_versions "
                "WHERE dossier_id = ? ORDER BY version",
                [dossier_id],
            ).fetchall()
        if not rows:
            raise DossierNotFound(f"No dossier {dossier_id!r}. `medassure dossier list` shows the ids.")
        return [
            VersionInfo(version=v, hash=h, parent_hash=p, created_at=c, author=a, note=n or "")
            for v, h, p, c, a, n in rows
        ]

    def list_dossiers(self) -> list[DossierSummary]:
        """One summary per dossier (latest version), newest first."""
        with self._lock:
            rows = self._con.execute(
                """
                SELECT dossier_id, version, hash, created_at, content FROM dossier_versions
                QUALIFY row_number() OVER (PARTITION BY dossier_id ORDER BY version DESC) = 1
                ORDER BY created_at DESC
                """
            ).fetchall()
        out = []
        for dossier_id, version, digest, created_at, content in rows:
            d = Dossier.model_validate_json(content)
            out.append(
                DossierSummary(id=dossier_id, title=d.title, owner=d.owner, status=d.status,
                               risk_tier=d.risk.tier, version=version, hash=digest, updated_at=created_at)
            )
        return out

    def audit_log(self, dossier_id: str | None = None) -> list[AuditEvent]:
        """Audit records, oldest first, optionally for one dossier."""
        sql = "SELECT seq, logged_at, actor, dossier_id, action, detail FROM audit_log"
        params: list = []
        if dossier_id:
            sql += " WHERE dossier_id = ?"
            params.append(dossier_id)
        with self._lock:
            rows = self._con.execute(sql + " ORDER BY seq", params).fetchall()
        return [
            AuditEvent(seq=s, at=at, actor=a, dossier_id=d, action=act, detail=json.loads(det) if det else {})
            for s, at, a, d, act, det in rows
        ]

    def is_empty(self) -> bool:
        """True when no dossier has been saved yet."""
        with self._lock:
            return self._con.execute("SELECT count(*) FROM dossier_versions").fetchone()[0] == 0


def _driver_errors_as_store_errors(cls: type) -> type:
    """Wrap the store's own public methods so a DuckDB error reaches callers as a ``StoreError``.

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
            except duckdb.Error as exc:
                first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
                damaged = any(word in first.lower() for word in ("corrupt", "checksum"))
                raise (StoreCorruptError if damaged else StoreError)(
                    f"The database {self.path or '(in memory)'} could not be read ({name}: {first}). "
                    "Nothing was changed. If this repeats, restore the file from your last backup (or a "
                    "`medassure dossier export`)."
                ) from None

        return guarded

    for name, method in list(vars(cls).items()):
        if callable(method) and not name.startswith("_") and name not in {"open", "cursor"}:
            setattr(cls, name, wrap(name, method))
    return cls


_driver_errors_as_store_errors(Store)
