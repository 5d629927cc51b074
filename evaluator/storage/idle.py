"""A DuckDB connection that lets go of the file while idle, so command-line readers get in.

Why: DuckDB allows one process to hold a file read-write, or many read-only, never both (STACK_NOTES
§7). The app used to hold its connection for its whole life, so with the app open every
``medassure dossier show``, ``assess`` or ``report`` waited 15 s and failed. The app's store now
holds its connection through this object: the file is opened on first use, and a watcher closes
it once nothing has used it for ``idle_s`` seconds, no transaction is open and no cursor is alive
(a background run's ``for_thread()`` view holds one, so the file stays held while a run works).
The next use opens it again, waiting (``opener``) while a command-line process holds it.

Measured on the 2-core test machine: closing and reopening the demo database takes ~0.07 s, paid
once per idle period, not per query.

The object answers the DuckDB connection methods the stores call (``execute``, ``executemany``,
``cursor``, ``register`` ...). A result is read from the connection ``execute`` returns at once
(``.fetchone()``), well inside ``idle_s``; the watcher also takes the same lock as ``execute``.
"""

from __future__ import annotations

import contextlib
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import duckdb

IDLE_SECONDS = 1.0
"""How long the app's store keeps the file after its last use (``$MEDASSURE_IDLE_RELEASE``)."""


class IdleReleasingConnection:
    """Opens the file on use and closes it after ``idle_s`` seconds without use.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "x.duckdb"
        >>> con = IdleReleasingConnection(lambda: duckdb.connect(str(path)), idle_s=0.05)
        >>> con.execute("SELECT 42").fetchone(), con.holds_file
        ((42,), True)
        >>> time.sleep(0.5); con.holds_file
        False
        >>> con.execute("SELECT 1").fetchone(); con.close()
        (1,)
    """

    dialect = "duckdb"
    """Answered without opening the file (``evaluator.storage.db.dialect``)."""

    def __init__(self, opener: Callable[[], duckdb.DuckDBPyConnection], *, idle_s: float = IDLE_SECONDS,
                 on_release: Callable[[], None] | None = None,
                 first: duckdb.DuckDBPyConnection | None = None) -> None:
        self._opener, self._idle_s, self._on_release = opener, idle_s, on_release
        self._con = first
        self._lock = threading.RLock()
        self._last = time.monotonic()
        self._in_transaction = False
        self._cursors: weakref.WeakSet = weakref.WeakSet()
        self._closed = False
        self._opens = 1 if first is not None else 0
        watcher = threading.Thread(target=self._watch, name="medassure-idle-release", daemon=True)
        watcher.start()

    @property
    def holds_file(self) -> bool:
        """Whether the file is open now."""
        return self._con is not None

    @property
    def opens(self) -> int:
        """How many times the file was opened (for tests and the bench)."""
        return self._opens

    def _live(self) -> duckdb.DuckDBPyConnection:
        if self._closed:
            raise duckdb.ConnectionException("Connection Error: Connection already closed!")
        if self._con is None:
            self._con = self._opener()
            self._opens += 1
        self._last = time.monotonic()
        return self._con

    def execute(self, sql: str, parameters: Any = None) -> duckdb.DuckDBPyConnection:
        with self._lock:
            con = self._live()
            head = sql.lstrip()[:8].upper()
            if head.startswith("BEGIN"):
                self._in_transaction = True
            elif head.startswith(("COMMIT", "ROLLBACK", "ABORT", "END")):
                self._in_transaction = False
            result = con.execute(sql) if parameters is None else con.execute(sql, parameters)
            self._last = time.monotonic()
            return result

    def executemany(self, sql: str, parameters: Any = None) -> duckdb.DuckDBPyConnection:
        with self._lock:
            return self._live().executemany(sql, parameters)

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor of the open file; the file stays open while the cursor object lives."""
        with self._lock:
            cur = self._live().cursor()
            self._cursors.add(cur)
            return cur

    def __getattr__(self, name: str) -> Any:  # register, unregister, description, fetch... of the live one
        if name.startswith("_"):
            raise AttributeError(name)
        with self._lock:
            return getattr(self._live(), name)

    def release_if_idle(self) -> bool:
        """Close the file now if nothing holds it (True when it was closed)."""
        with self._lock:
            if (self._con is None or self._in_transaction or len(self._cursors)
                    or time.monotonic() - self._last < self._idle_s):
                return False
            con, self._con = self._con, None
            con.close()
        if self._on_release is not None:
            self._on_release()
        return True

    def _watch(self) -> None:
        while not self._closed:
            time.sleep(max(min(self._idle_s / 4, 0.25), 0.01))
            with contextlib.suppress(Exception):  # a failed close is retried at the next tick
                self.release_if_idle()

    def close(self) -> None:
        """Close for good (the store's ``close``)."""
        with self._lock:
            self._closed = True
            if self._con is not None:
                self._con.close()
                self._con = None
