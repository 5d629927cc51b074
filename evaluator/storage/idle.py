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

A cursor per thread (issue 36 item 2): a DuckDB connection keeps one pending result, and every
Streamlit session's script thread shares this object, so one thread's ``execute`` and its ``fetchall``
could have another thread's statement in between (the Decision page unpacked a row of someone else's
query and lost a sign-off), and a transaction begun by one thread took in another's statements. Every
statement now runs on the calling thread's own cursor of the open file: its result and its transaction
are that thread's alone. The cursors are closed when the file is let go of, and a dead thread's when
a new thread takes one.
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


def _settled(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """``con`` with the result of the last statement run on it (opening, migrations) consumed.

    Statements now run on the threads' cursors, never on ``con`` itself, so nothing else would end
    that result, and DuckDB counts it as a write transaction still open: another connection's
    CHECKPOINT (a second ``Store.open`` of the file in this process) was refused.
    """
    con.execute("SELECT 1").fetchall()
    return con


class _Rows:
    """A statement's rows, read while the lock was held, so the thread's cursor is settled at once."""

    def __init__(self, rows: list[tuple], description: Any) -> None:
        self._rows, self._at, self.description = rows, 0, description

    def fetchone(self) -> tuple | None:
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchmany(self, size: int = 1) -> list[tuple]:
        out = self._rows[self._at:self._at + size]
        self._at += len(out)
        return out

    def fetchall(self) -> list[tuple]:
        return self.fetchmany(len(self._rows))

    def df(self) -> Any:
        """The remaining rows as a pandas DataFrame (column names from the statement)."""
        import pandas as pd  # noqa: PLC0415 - only the jury pages ask for frames

        return pd.DataFrame(self.fetchall(), columns=[d[0] for d in self.description or []])

    fetchdf = df

    def close(self) -> None:
        self._rows, self._at = [], 0


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
        self._con = _settled(first) if first is not None else None
        self._lock = threading.RLock()
        self._last = time.monotonic()
        self._in_transaction: set[int] = set()
        """Threads with a transaction open on their cursor (the file is kept while any has one)."""
        self._thread_cursors: dict[int, duckdb.DuckDBPyConnection] = {}
        """Thread id → that thread's cursor of the open file."""
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
            self._con = _settled(self._opener())
            self._opens += 1
        self._last = time.monotonic()
        return self._con

    def _mine(self) -> duckdb.DuckDBPyConnection:
        """The calling thread's cursor of the open file (the caller holds ``self._lock``)."""
        con = self._live()
        me = threading.get_ident()
        cur = self._thread_cursors.get(me)
        if cur is None:
            alive = {t.ident for t in threading.enumerate()}
            for gone in [t for t in self._thread_cursors if t not in alive]:
                self._in_transaction.discard(gone)
                with contextlib.suppress(duckdb.Error):  # a dead thread's open transaction is rolled back
                    self._thread_cursors.pop(gone).close()
            cur = self._thread_cursors[me] = con.cursor()
        return cur

    def execute(self, sql: str, parameters: Any = None) -> _Rows:
        """Run ``sql`` on this thread's cursor; its rows are read at once (``_Rows``)."""
        with self._lock:
            cur = self._mine()
            head = sql.lstrip()[:8].upper()
            if head.startswith("BEGIN"):
                self._in_transaction.add(threading.get_ident())
            elif head.startswith(("COMMIT", "ROLLBACK", "ABORT", "END")):
                self._in_transaction.discard(threading.get_ident())
            result = cur.execute(sql) if parameters is None else cur.execute(sql, parameters)
            rows = _Rows(result.fetchall() if result.description is not None else [], result.description)
            _settled(cur)  # a fetched write (nextval, RETURNING) otherwise keeps its transaction open
            self._last = time.monotonic()
            return rows

    def executemany(self, sql: str, parameters: Any = None) -> None:
        with self._lock:
            _settled(self._mine().executemany(sql, parameters))

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor of the open file; the file stays open while the cursor object lives."""
        with self._lock:
            cur = self._live().cursor()
            self._cursors.add(cur)
            return cur

    def __getattr__(self, name: str) -> Any:  # register, unregister, description, fetch... of this thread's
        if name.startswith("_"):
            raise AttributeError(name)
        with self._lock:
            return getattr(self._mine(), name)

    def release_if_idle(self) -> bool:
        """Close the file now if nothing holds it (True when it was closed)."""
        with self._lock:
            if (self._con is None or self._in_transaction or len(self._cursors)
                    or time.monotonic() - self._last < self._idle_s):
                return False
            self._close_thread_cursors()
            con, self._con = self._con, None
            con.close()
        if self._on_release is not None:
            self._on_release()
        return True

    def _close_thread_cursors(self) -> None:
        cursors, self._thread_cursors = list(self._thread_cursors.values()), {}
        self._in_transaction.clear()
        for cur in cursors:
            with contextlib.suppress(duckdb.Error):
                cur.close()

    def _watch(self) -> None:
        while not self._closed:
            time.sleep(max(min(self._idle_s / 4, 0.25), 0.01))
            with contextlib.suppress(Exception):  # a failed close is retried at the next tick
                self.release_if_idle()

    def close(self) -> None:
        """Close for good (the store's ``close``)."""
        with self._lock:
            self._closed = True
            self._close_thread_cursors()
            if self._con is not None:
                self._con.close()
                self._con = None
