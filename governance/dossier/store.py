"""The dossier store: one database, append-only versions and an append-only audit log.

Storage design, in short (each part's module says why it is shaped so):

* One database holds all state: a DuckDB file, ``$MEDASSURE_HOME/medassure.duckdb`` by default, or
  a PostgreSQL server named by ``MEDASSURE_DATABASE_URL`` for a shared deployment. Other components
  (the run store, ...) add their own tables through the same migration helper.
* Dossier versions are never overwritten: a save appends a version with its content hash and its
  parent's, a save based on an old version is refused as a ``SaveConflict``, and the audit log
  says who did what. Both tables are a hash chain that ``verify_chain`` checks.
* Every write is one transaction, so nothing is half-written; a failure is a ``StoreError`` with a
  message for the user, never a driver traceback.

``Store`` is the one class callers use, composed of one part per job, each a mixin in its own
module of ``governance/dossier/``; only these ``store*`` modules (and ``documents.py``) write SQL:

==========================  ================================================================
``store_opening``           ``open`` / ``open_url`` (DuckDB path vs PostgreSQL URL, lock waits,
                            refusals, open warnings) and the ``close`` that marks a file clean
``store_versions``          ``save`` / ``update``: expected parent, conflicts, content and row hashes
``store_reads``             ``load``, ``latest_or_none``, ``history``, ``list_dossiers``, ``is_empty``
``store_audit``             ``audit`` / ``audit_log``, and the chained event every save writes
``store_integrity``         ``verify_chain`` / ``chain_rows``; driver errors as ``StoreError``
``store_transactions``      the write transaction (PostgreSQL: an advisory lock per dossier)
``store_migrations``        the ordered SQL migrations (their ids are recorded in databases)
``store_components``        the component stores handed out (runs, scenarios, juries, documents, ...)
==========================  ================================================================

Why mixins rather than delegation: the parts share one connection, one lock and one transaction
(a save's version row and audit row are written together, and a conflict reads versions back), so
they are methods of one object calling each other through ``self``. ``for_thread()`` copies that
object over a new cursor, so a thread's view carries every part at once, and a test may replace
one step (``Store._append_event``) for the whole store. Delegation would need each part to hold the
others and ``Store`` to forward every method of the storage interface a second time.

``Store`` implements the storage interface (``governance/dossier/storage.py``: its methods, types
and transaction rules); ``guard_driver_errors`` wraps the public methods of all its parts. Callers
import from here alone: ``Store``, the errors and models, ``connect``, ``database_url``,
``default_home``, ``MIGRATIONS`` and the other constants stay importable from this module.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from evaluator.storage.db import is_postgres
from governance.dossier import store_migrations, store_opening, store_transactions
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
from governance.dossier.store_components import DossierComponents
from governance.dossier.store_integrity import DossierChainCheck, guard_driver_errors
from governance.dossier.store_migrations import apply_dossier_migrations
from governance.dossier.store_opening import (
    DossierOpening,
    StoreWarning,
    connect,
    database_url,
    default_home,
)
from governance.dossier.store_versions import DossierVersions

if TYPE_CHECKING:
    from evaluator.storage.postgres import PgConnection

__all__ = ["AuditEvent", "DossierNotFound", "DossierSummary", "DossierVersion", "SaveConflict", "Store",
           "StoreCorruptError", "StoreError", "StoreLockedError", "StoreUnavailableError", "StoreWarning",
           "VersionInfo", "connect", "database_url", "default_home"]

# Also importable from here, as before the split (tests and tools read them); defined in the parts.
MIGRATIONS = store_migrations.MIGRATIONS
PG_MIGRATIONS = store_migrations.PG_MIGRATIONS
VERSION_COLUMNS = store_migrations.VERSION_COLUMNS
CHAIN_COLUMNS = store_migrations.CHAIN_COLUMNS
LOCK_WAIT_SECONDS = store_opening.LOCK_WAIT_SECONDS
OPEN_WARNINGS = store_opening.OPEN_WARNINGS
DOSSIER_LOCK_SPACE = store_transactions.DOSSIER_LOCK_SPACE


class Store(DossierOpening, DossierVersions, DossierChainCheck, DossierComponents):
    """Dossier versions, the audit log and the component stores over one DuckDB connection.

    Implements ``DossierStorage`` (``governance/dossier/storage.py``). The connection is private:
    callers use the methods here and the component stores (``runs``, ``scenarios``, ``juries``,
    ``documents``), never SQL.

    Example:
        >>> store = Store.open(Path("/tmp/doctest-medassure/medassure.duckdb"))  # doctest: +SKIP
        >>> v = store.save(dossier, author="dr.lee", note="created")  # doctest: +SKIP
    """

    def __init__(self, con: duckdb.DuckDBPyConnection | PgConnection, path: Path | None = None):
        super().__init__(con)
        self.path = path
        self._lock = threading.RLock()
        applied = apply_dossier_migrations(con)
        if applied and len(store_migrations.MIGRATIONS) - applied < store_migrations.ANCHOR_MIGRATION:
            self._anchor_all()  # the anchor table is new here: seal the dossiers that already exist

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

    def cursor(self) -> duckdb.DuckDBPyConnection | PgConnection:
        """A raw connection (a DuckDB cursor, or a PostgreSQL one), for tests that write rows directly.

        Outside the storage interface: app code, the job manager's threads included, uses
        ``for_thread()``. Close it after.
        """
        return self._con.cursor()


guard_driver_errors(Store)
