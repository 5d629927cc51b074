"""Supporting documents (vendor reports, certificates, contract excerpts), stored by their SHA-256.

Storage choice: the bytes go into the app's one DuckDB file (component ``documents``), not into
files under ``MEDASSURE_HOME``. One file keeps the deployment's state together (a backup or a
move copies one file, and the store's single-writer rule covers documents too), and the app
never builds file paths from uploaded names. Documents are content-addressed: the SHA-256 of the
bytes is the key, storing the same bytes twice adds nothing, and rows are never updated or
deleted, so a dossier that cites a hash can always show the exact document it cites. The dossier
holds only a ``DocumentRef`` (hash, name, type, size), which its version hash, and therefore
every sign-off, covers.

Uploads are limited to ``MAX_BYTES``; larger documents belong in the hospital's document system,
cited in the answer's note.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import duckdb

from evaluator.storage.db import apply_migrations
from governance.procurement.records import DocumentRef

MAX_BYTES = 20 * 1024 * 1024
MIGRATIONS = [
    """
    CREATE TABLE documents (
        sha256 VARCHAR PRIMARY KEY,
        filename VARCHAR NOT NULL,
        media_type VARCHAR NOT NULL,
        size BIGINT NOT NULL,
        content BLOB NOT NULL,
        uploaded_by VARCHAR NOT NULL,
        uploaded_at TIMESTAMPTZ NOT NULL
    );
    """,
]


class DocumentError(ValueError):
    """A document that cannot be stored or found, with a message for the user."""


def sha256_hex(data: bytes) -> str:
    """SHA-256 hex digest of bytes.

    Example:
        >>> sha256_hex(b"")[:12]
        'e3b0c44298fc'
    """
    return hashlib.sha256(data).hexdigest()


class DocumentStore:
    """Content-addressed documents in the app's DuckDB file."""

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = con
        apply_migrations(con, "documents", MIGRATIONS)

    def put(self, data: bytes, filename: str, media_type: str | None, by: str) -> DocumentRef:
        """Store the bytes (once per hash) and return the reference to cite.

        Raises:
            DocumentError: empty or larger than ``MAX_BYTES``.

        Example:
            >>> docs = DocumentStore(duckdb.connect())
            >>> ref = docs.put(b"SOC 2 report", "soc2.pdf", "application/pdf", by="buyer")
            >>> docs.get(ref.sha256) == b"SOC 2 report", ref.size
            (True, 12)
        """
        if not data:
            raise DocumentError(f"{filename}: the file is empty")
        if len(data) > MAX_BYTES:
            raise DocumentError(f"{filename}: {len(data):,} bytes is over the {MAX_BYTES:,}-byte limit; cite "
                                "the document in the answer's note instead")
        name = (filename or "document").replace("\\", "/").rsplit("/", 1)[-1][:300] or "document"
        ref = DocumentRef(sha256=sha256_hex(data), filename=name, size=len(data),
                          media_type=(media_type or "application/octet-stream")[:200])
        self.con.execute(
            "INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING",
            [ref.sha256, ref.filename, ref.media_type, ref.size, data, by, datetime.now(UTC)])
        return ref

    def get(self, sha256: str) -> bytes:
        """The bytes of a stored document, checked against their hash.

        Raises:
            DocumentError: no such document, or its bytes no longer match the hash.
        """
        row = self.con.execute("SELECT content FROM documents WHERE sha256 = ?", [sha256]).fetchone()
        if row is None:
            raise DocumentError(f"no stored document with SHA-256 {sha256[:12]}…")
        data = bytes(row[0])
        if sha256_hex(data) != sha256:
            raise DocumentError(f"document {sha256[:12]}… does not match its hash: the store was altered")
        return data

    def exists(self, sha256: str) -> bool:
        """Whether the document is stored."""
        return self.con.execute("SELECT 1 FROM documents WHERE sha256 = ?", [sha256]).fetchone() is not None
