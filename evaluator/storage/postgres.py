"""PostgreSQL behind the same stores: a connection that speaks the DuckDB connection's small dialect.

Why an adapter and not a second set of stores: every component store (dossiers, runs, scenarios,
juries, documents, attestations) is written against the handful of DuckDB connection methods it
uses (``execute``, ``executemany``, ``cursor``, ``close``, a result's ``fetchone``/``fetchall``/
``description``/``df``) and portable SQL with ``?`` placeholders. ``PgConnection`` offers exactly
those over psycopg 3, so one set of SQL serves both backends and the DuckDB file stays the
embedded default. What cannot be portable asks ``evaluator.storage.db.dialect(con)``: the schema types
(``DOUBLE``, ``BLOB``), DuckDB's bulk insert from an Arrow table, and its catalogue functions.

Behaviour kept from DuckDB: autocommit unless the caller sends ``BEGIN TRANSACTION`` (then
``COMMIT``/``ROLLBACK``); ``JSON`` columns come back as the stored text (so content hashes can be
recomputed from it); timestamps are read in UTC; ``cursor()`` gives an independent connection
for another thread (from a small per-URL pool, returned on ``close()``).

Selected by ``MEDASSURE_DATABASE_URL=postgresql://user@host:port/db`` (``Store.open``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import psycopg
from psycopg.adapt import Loader
from psycopg.pq import TransactionStatus

from evaluator.storage.db import redact_url

DIALECT = "postgresql"
CONNECT_TIMEOUT_S = 5
"""How long opening a connection waits for the server before the store says it is unreachable."""
POOL_IDLE_MAX = 8


class _TextJson(Loader):
    """``json``/``jsonb`` read as the stored text, as DuckDB returns JSON (hashes are over that text)."""

    def load(self, data: Any) -> str:
        return bytes(data).decode()


class _Number(Loader):
    """``numeric`` (what ``sum`` of integers returns) as int when whole, else float, as DuckDB does."""

    def load(self, data: Any) -> int | float:
        value = Decimal(bytes(data).decode())
        return int(value) if value == value.to_integral_value() else float(value)


_PLACEHOLDER = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\?|%")


def translate(sql: str, has_params: bool) -> str:
    """DuckDB's ``?`` placeholders as psycopg's ``%s`` (and a literal ``%`` doubled), quotes left alone.

    Example:
        >>> translate("SELECT * FROM t WHERE a = ? AND b LIKE 'x%?'", True)
        "SELECT * FROM t WHERE a = %s AND b LIKE 'x%%?'"
        >>> translate("SELECT 1 % 2", False)
        'SELECT 1 % 2'
    """
    if not has_params:
        return sql

    def swap(match: re.Match) -> str:
        token = match.group(0)
        if token == "?":
            return "%s"
        if token == "%":
            return "%%"
        return token.replace("%", "%%")

    return _PLACEHOLDER.sub(swap, sql)


class PgResult:
    """The result of one statement: the DuckDB result methods the stores use."""

    def __init__(self, cursor: psycopg.Cursor) -> None:
        self._cursor = cursor

    @property
    def description(self) -> list[tuple] | None:
        cols = self._cursor.description
        return None if cols is None else [(c.name, c.type_code, None, None, None, None, None) for c in cols]

    @property
    def rowcount(self) -> int:
        """Rows the statement inserted, updated or deleted (-1 when the server does not say)."""
        return self._cursor.rowcount

    def fetchone(self) -> tuple | None:
        return self._cursor.fetchone() if self._cursor.description is not None else None

    def fetchall(self) -> list[tuple]:
        return self._cursor.fetchall() if self._cursor.description is not None else []

    def df(self):
        """The rows as a pandas DataFrame (column names from the query)."""
        import pandas as pd  # noqa: PLC0415 - pandas is heavy and only the jury pages ask for frames

        return pd.DataFrame(self.fetchall(), columns=[d[0] for d in self.description or []])


class _Pool:
    """Idle connections to one URL, handed to ``cursor()`` views and taken back on their ``close()``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.journal_dir = None
        self._idle: list[psycopg.Connection] = []
        self._lock = threading.RLock()  # re-entrant: a view collected inside get() or put() gives back too

    def get(self) -> psycopg.Connection:
        with self._lock:
            while self._idle:
                raw = self._idle.pop()
                if not raw.closed:
                    return raw
        return _open_raw(self.url)

    def put(self, raw: psycopg.Connection) -> None:
        if raw.closed:
            return
        if raw.info.transaction_status != TransactionStatus.IDLE:
            raw.close()  # a view closed inside a transaction: never hand that state to someone else
            return
        with self._lock:
            if len(self._idle) < POOL_IDLE_MAX:
                self._idle.append(raw)
                return
        raw.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for raw in idle:
            raw.close()


def _open_raw(url: str) -> psycopg.Connection:
    raw = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S,
                          options="-c TimeZone=UTC", application_name="medassure")
    for name in ("json", "jsonb"):
        raw.adapters.register_loader(name, _TextJson)
    raw.adapters.register_loader("numeric", _Number)
    return raw


class PgConnection:
    """One PostgreSQL connection with the DuckDB connection methods the stores call.

    Example:
        >>> con = PgConnection.connect("postgresql://postgres@127.0.0.1:5432/medassure")  # doctest: +SKIP
        >>> con.execute("SELECT ? + 1", [1]).fetchone()  # doctest: +SKIP
        (2,)
    """

    dialect = DIALECT

    def __init__(self, pool: _Pool, raw: psycopg.Connection | None = None, *, root: bool = False) -> None:
        self._pool = pool
        self._raw = raw
        self._root = root
        self._closed = False

    @classmethod
    def connect(cls, url: str) -> PgConnection:
        """Open the first connection (raises ``psycopg.OperationalError`` when the server is unreachable)."""
        pool = _Pool(url)
        return cls(pool, _open_raw(url), root=True)

    @property
    def journal_dir(self):
        """Where run journals go for this server (set by ``Store.open_url``; None: no journal)."""
        return self._pool.journal_dir

    @journal_dir.setter
    def journal_dir(self, value) -> None:
        self._pool.journal_dir = value

    @property
    def url(self) -> str:
        """The server URL without its password."""
        return redact_url(self._pool.url)

    def _connection(self) -> psycopg.Connection:
        if self._closed:
            raise psycopg.InterfaceError("the connection is closed")
        if self._raw is not None and self._raw.broken:  # the server restarted or the network dropped:
            self._raw.close()                           # the failed statement raised; the next one reconnects
        if self._raw is None or self._raw.closed:
            self._raw = self._pool.get()
        return self._raw

    def execute(self, sql: str, params: list | tuple | None = None) -> PgResult:
        """Run one statement (or several, without parameters); ``?`` placeholders as in DuckDB."""
        has = params is not None and len(params) > 0
        cur = self._connection().cursor()
        cur.execute(translate(sql, has), list(params) if has else None)
        return PgResult(cur)

    def executemany(self, sql: str, rows: list) -> None:
        """One statement for each row of parameters."""
        with self._connection().cursor() as cur:
            cur.executemany(translate(sql, True), [list(r) for r in rows])

    def copy_csv(self, table: str, columns: str, chunks: Iterable[bytes]) -> None:
        """``COPY table (columns) FROM STDIN`` in CSV, fed the bytes of ``chunks`` (no header line).

        ``table`` and ``columns`` are the caller's own identifiers, never user text.
        """
        with self._connection().cursor() as cur, cur.copy(
            f"COPY {table} ({columns}) FROM STDIN WITH (FORMAT csv)"
        ) as copy:
            for chunk in chunks:
                copy.write(chunk)

    def cursor(self) -> PgConnection:
        """An independent connection to the same server (for another thread); ``close()`` it after."""
        return PgConnection(self._pool)

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open on this connection (another connection would not see its writes)."""
        raw = self._raw
        return raw is not None and not raw.closed and raw.info.transaction_status != TransactionStatus.IDLE

    def close(self) -> None:
        """Give the connection back (a view) or close it and the idle pool (the store's own)."""
        if self._closed:
            return
        self._closed = True
        raw, self._raw = self._raw, None
        if self._root:
            if raw is not None:
                raw.close()
            self._pool.close()
        elif raw is not None:
            self._pool.put(raw)

    def __del__(self) -> None:  # a view dropped without close(): its connection goes back to the pool
        try:
            if not self._root:
                self.close()
        except Exception:  # noqa: BLE001, S110 - never raise from a finaliser
            pass
