"""One write transaction for one dossier: the ground the other parts of the store stand on.

Why its own part: a save writes a version row and its audit row, an audit call writes one audit
row, and both must read the dossier's latest row (version, chain link) and append after it as one
step. ``_transaction`` is that step for every writer, so there is one copy of begin, commit and
rollback, and nothing is half-written: every write is one transaction, rolled back on any error.

* In one process, the store's re-entrant lock (``_lock``) serialises the threads that share it.
* A DuckDB file has one writing process (STACK_NOTES §7), so the in-process lock suffices.
* On PostgreSQL (``MEDASSURE_DATABASE_URL``) several app processes and CLI runs write at once.
  Writers of one dossier take a transaction-scoped advisory lock keyed by the dossier id before
  reading the latest version, so the check for a conflict and the append are one step across
  processes.

The other parts (``store_versions``, ``store_audit``, ``store_reads``, ``store_integrity``) subclass
``DossierTransactions`` for the connection and the lock it declares; ``Store.__init__`` sets them.
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING

from evaluator.storage.db import db_errors, is_postgres

if TYPE_CHECKING:
    import duckdb

    from evaluator.storage.postgres import PgConnection

DOSSIER_LOCK_SPACE = 0x4D41
"""First key of the PostgreSQL advisory locks that queue writers of one dossier (second: its id's hash)."""


class DossierTransactions:
    """The connection, the lock and the write transaction the store's parts share."""

    _con: duckdb.DuckDBPyConnection | PgConnection
    """The one connection (or, in a ``for_thread()`` view, this thread's cursor); private to the store."""
    _lock: threading.RLock
    """Held for every statement, so the threads sharing one store take turns."""

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
