"""Saving dossier versions: append-only, hash-chained, refused on a conflict.

Why shaped so:

* ``dossier_versions`` rows are never updated or deleted. A save appends version n+1 with the
  SHA-256 of the dossier's canonical JSON and the hash of its parent, so the history is a chain a
  reviewer can verify. Saving unchanged content is a no-op, not a new version.
* Each row also stores the link to the previous row of its dossier and a hash over its own fields
  (``governance/dossier/chain.py``); the audit row the save writes beside it is chained the same way
  (``store_audit``), in the same transaction (``store_transactions``): both or neither.
* A save says which version it was based on (``expected_hash``, or ``expected_version``); when
  another save came first it is refused with ``SaveConflict`` naming what changed, never applied
  over content the user did not see. ``update`` is for changes that do not depend on what a person
  was shown: it reads the latest version inside the transaction and applies the change to it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from governance.dossier.chain import content_digest, version_link, version_row_hash
from governance.dossier.change_text import change_sentence
from governance.dossier.record import Dossier, utcnow
from governance.dossier.storage import DossierNotFound, DossierVersion, SaveConflict, StoreError
from governance.dossier.store_audit import DossierAudit
from governance.dossier.store_migrations import CHAIN_COLUMNS, VERSION_COLUMNS
from governance.dossier.store_reads import DossierReads


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


class DossierVersions(DossierAudit, DossierReads):
    """``save`` and ``update``: a new version and its audit event, checked against the expected parent."""

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
            >>> from pathlib import Path
            >>> from governance.intended_use.records import example_intended_use
            >>> from governance.dossier.store import Store
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
            >>> from pathlib import Path
            >>> from governance.intended_use.records import example_intended_use
            >>> from governance.dossier.store import Store
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
