"""Integrity after opening: the hash chain checked from the stored rows, and driver errors as store errors.

Why these two together: both are about a record that is not what it should be once the store is
open (opening itself refuses a foreign, locked or damaged file, ``store_opening``).

* Both tables are a hash chain (``governance/dossier/chain.py``): each row stores the hash of the
  previous row of its dossier and a hash over its own fields. ``verify_chain`` (``medassure
  verify``) reads the raw rows and lets ``chain.verify_rows`` recompute every link, so a row
  changed, removed or inserted in the file is named, never trusted, and checks the dossier's keyed
  anchor (``chain_anchor``), so rows removed from the end are named too. (Every load also recomputes
  the content hash, ``store_reads``.)
* The file can change under a running app, and a PostgreSQL server can go away mid-way.
  ``guard_driver_errors`` wraps the store's own public methods so a database error reaches callers
  as a ``StoreError`` (``StoreCorruptError`` for damage, ``StoreUnavailableError`` for a lost
  server) with a message meant for the user, never a raw driver traceback.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from evaluator.storage.db import db_errors, is_connection_lost
from governance.dossier.chain import ChainReport, verify_rows
from governance.dossier.chain_anchor import anchor_breaks, record_key
from governance.dossier.extensions import record_checks
from governance.dossier.storage import DossierNotFound, StoreCorruptError, StoreError, StoreUnavailableError
from governance.dossier.store_opening import first_line
from governance.dossier.store_transactions import DossierTransactions

UNGUARDED = frozenset({"open", "open_url", "cursor"})
"""Public methods left as they are: opening raises its own store errors; ``cursor`` is for tests."""


class DossierChainCheck(DossierTransactions):
    """The raw rows of one dossier's chain, and their check."""

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

    def chain_anchor(self, dossier_id: str) -> dict | None:
        """The dossier's stored anchor row (``chain_anchor``), raw, or None when there is none."""
        keys = ("versions", "head_link", "events", "event_link", "key_id", "mac")
        with self._lock:
            row = self._con.execute(f"SELECT {', '.join(keys)} FROM chain_anchors WHERE dossier_id = ?",
                                    [dossier_id]).fetchone()
        return dict(zip(keys, row, strict=True)) if row else None

    def chain_started_at(self) -> Any:
        """When this store began sealing rows (the hash-chain migration was applied), or None."""
        with self._lock:
            row = self._con.execute("SELECT applied_at FROM schema_migrations WHERE component = 'dossier' "
                                    "AND number = 2").fetchone()
        return row[0] if row else None

    def verify_chain(self, dossier_id: str) -> ChainReport:
        """Check the dossier's versions and audit events from the first to the head.

        Raises:
            DossierNotFound: no such dossier.
        """
        versions, events = self.chain_rows(dossier_id)
        if not versions:
            raise DossierNotFound(f"No dossier {dossier_id!r}. `medassure dossier list` shows the ids.")
        sealed = anchor_breaks(dossier_id, self.chain_anchor(dossier_id), versions, events, record_key())
        notes: list[str] = []
        try:
            content = json.loads(versions[-1]["content"])
        except ValueError:
            content = None  # the chain names the damaged version; the seals cannot be read from it
        for check in record_checks() if isinstance(content, dict) else ():
            found, unsealed = check(self, dossier_id, content)
            sealed, notes = [*sealed, *found], [*notes, *unsealed]
        return verify_rows(dossier_id, versions, events, self.chain_started_at(), anchor_breaks=sealed,
                           unsealed=notes)


def guard_driver_errors(cls: type) -> type:
    """Wrap the store's own public methods so a database error reaches callers as a ``StoreError``.

    A damaged block found after opening (the check on open reads every block in use, but the file
    can change under a running app) then reads "the database ... could not be read", never a raw
    ``duckdb.Error`` traceback.

    "Own" means defined by ``cls`` or by its parts in ``governance.dossier`` (``store_*`` modules),
    not the component-store accessors inherited from ``evaluator.storage.components.ComponentStores``. The
    wrappers are set on ``cls`` itself; ``UNGUARDED`` names are left alone.
    """

    def wrap(name: str, method: Any) -> Any:
        @functools.wraps(method)
        def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except db_errors() as exc:
                first = first_line(exc)
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

    own = [klass for klass in cls.__mro__ if klass.__module__.startswith("governance.dossier.")]
    names = {name for klass in own for name, member in vars(klass).items()
             if callable(member) and not name.startswith("_") and name not in UNGUARDED}
    for name in sorted(names):
        method = next(vars(klass)[name] for klass in cls.__mro__ if name in vars(klass))
        setattr(cls, name, wrap(name, method))
    return cls
