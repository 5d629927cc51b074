"""Reading dossier versions back: one version, the latest, a history, the list of dossiers.

Why its own part: every read goes through ``_row_to_version``, which recomputes the SHA-256 of the
stored canonical JSON and compares it with the stored hash. A row changed in the file is flagged on
the version it returns (``integrity_problem``, which the app, the CLI and the report show), never
trusted; the full check of the chain is ``verify_chain`` (``store_integrity``). A row whose content is no
longer a valid dossier at all raises ``StoreCorruptError`` naming the dossier and version (``show``,
``list`` and ``report`` print it as one line), never a validation traceback. Reads take the
store's lock but no transaction: a version row is never changed once written.
"""

from __future__ import annotations

from pydantic import ValidationError

from governance.dossier.chain import content_digest
from governance.dossier.record import Dossier
from governance.dossier.storage import (
    DossierNotFound,
    DossierSummary,
    DossierVersion,
    StoreCorruptError,
    VersionInfo,
)
from governance.dossier.store_migrations import VERSION_COLUMNS
from governance.dossier.store_transactions import DossierTransactions
from governance.dossier.user_text import STORED


def _stored_dossier(dossier_id: str, version: int, content: str) -> Dossier:
    """The dossier a stored row holds; ``StoreCorruptError`` when it no longer validates."""
    try:
        return Dossier.model_validate_json(content, context=STORED)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(content)"
        raise StoreCorruptError(
            f"version {version} of dossier {dossier_id!r} cannot be read: its stored content is not a valid "
            f"dossier ({where}: {first['msg']}), so it was changed after it was saved. `medassure verify "
            f"{dossier_id}` checks the record; restore it from a backup or an export.") from None


class DossierReads(DossierTransactions):
    """Versions, histories and summaries of the stored dossiers."""

    def _row_to_version(self, row: tuple) -> DossierVersion:
        dossier_id, version, digest, parent, author, created_at, note, content, auth = row
        again = content_digest(content)
        problem = "" if again == digest else (
            f"version {version}'s stored content does not match its hash (stored {digest[:12]}…, content "
            f"{again[:12]}…): it was changed after it was saved. `medassure verify {dossier_id}` checks "
            "the record.")
        return DossierVersion(
            dossier=_stored_dossier(dossier_id, version, content),
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
            >>> from pathlib import Path
            >>> from governance.intended_use.records import example_intended_use
            >>> from governance.dossier.store import Store
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
            d = _stored_dossier(dossier_id, version, content)
            out.append(
                DossierSummary(id=dossier_id, title=d.title, owner=d.owner, status=d.status,
                               risk_tier=d.risk.tier, version=version, hash=digest, updated_at=created_at,
                               practice_of=d.practice.source_id if d.practice else None,
                               discarded=bool(d.practice and d.practice.discarded_at))
            )
        return out

    def is_empty(self) -> bool:
        """True when no dossier has been saved yet."""
        with self._lock:
            return self._con.execute("SELECT count(*) FROM dossier_versions").fetchone()[0] == 0
