"""Checks made when the DuckDB file is opened: is it ours, is it whole, was a write-ahead log lost.

Why on open: DuckDB verifies a block's checksum only when the block is read, so 64 KB of junk in
the middle of the file opens without complaint and surfaces later as a raw driver error in some
unrelated read (the audit log, a run's results). Reading every column of every table once at
open (``SELECT count(*), sum(hash(COLUMNS(*)))``) touches every block in use, so a damaged table
is named at once, before anything is written. Measured on our shared 2-core machine: 0.04 s for
the 5 MB demo database, 3.1 s for a 300 MB one (cheaper scans such as ``count(col)`` or
``col IS NULL`` are answered from metadata and miss the damage). So the full read is skipped
when the file is exactly as a clean close left it (``CleanCloseMark``: size, mtime and inode
recorded after the connection closed); junk written since changes the mtime, a crash leaves no
fresh mark, and either way the next open reads everything.

Two more traps are closed here. A file that is not a DuckDB database (say a SQLite file) made
DuckDB try to download the extension that reads it, so every connection is opened with
extension auto-install and auto-load off (``SAFE_CONFIG``) and a foreign header is refused before
DuckDB sees it. And a write-ahead log DuckDB cannot read is dropped silently (measured: the rows
in it are gone, the junk ``.wal`` stays beside the file): ``WalCheck`` notices a non-empty log
before opening, checkpoints after, and reports a log that is still there unchanged, keeping a
copy of it.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from evaluator.storage.db import SAFE_CONFIG, harden

__all__ = ["SAFE_CONFIG", "CleanCloseMark", "WalCheck", "connect_file", "damaged_tables",
           "foreign_file_reason", "harden", "is_foreign_database", "user_tables"]

DUCKDB_MAGIC = b"DUCK"
"""Bytes 8-11 of every DuckDB database file."""


def connect_file(path: Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """``duckdb.connect`` with ``SAFE_CONFIG`` (no extension is installed or loaded automatically)."""
    return duckdb.connect(str(path), read_only=read_only, config=dict(SAFE_CONFIG))


def foreign_file_reason(path: Path) -> str | None:
    """Why ``path`` is not a DuckDB database file, or None (also None when it is absent or empty).

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "x.duckdb"; _ = p.write_bytes(b"SQLite format 3\\0")
        >>> foreign_file_reason(p)
        'it is a SQLite database, not a DuckDB file'
    """
    if not path.is_file() or path.stat().st_size == 0:
        return None
    with path.open("rb") as fh:
        head = fh.read(16)
    if head[8:12] == DUCKDB_MAGIC:
        return None
    if head.startswith(b"SQLite format 3"):
        return "it is a SQLite database, not a DuckDB file"
    return "it does not start like a DuckDB database file"


def user_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Base tables of the main schema, sorted."""
    return [r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' ORDER BY table_name").fetchall()]


def is_foreign_database(con: duckdb.DuckDBPyConnection) -> bool:
    """True for a DuckDB database with tables but without our ``schema_migrations`` (someone else's)."""
    tables = user_tables(con)
    return bool(tables) and "schema_migrations" not in tables


def damaged_tables(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Tables whose blocks cannot all be read, with the driver's first line (empty when all read).

    Example:
        >>> con = duckdb.connect(); _ = con.execute("CREATE TABLE t AS SELECT range AS x FROM range(10)")
        >>> damaged_tables(con)
        {}
    """
    bad: dict[str, str] = {}
    for table in user_tables(con):
        quoted = '"' + table.replace('"', '""') + '"'
        try:
            con.execute(f"SELECT count(*), sum(hash(COLUMNS(*))) FROM {quoted}").fetchall()
        except duckdb.Error as exc:
            bad[table] = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
    return bad


@dataclass(frozen=True)
class CleanCloseMark:
    """The file's size, mtime and inode as the last clean close left them (``<file>.clean``)."""

    size: int
    mtime_ns: int
    inode: int

    @staticmethod
    def _path(db_path: Path) -> Path:
        return db_path.with_name(db_path.name + ".clean")

    @classmethod
    def of(cls, db_path: Path) -> CleanCloseMark:
        """The file as it is now."""
        st = db_path.stat()
        return cls(st.st_size, st.st_mtime_ns, st.st_ino)

    @classmethod
    def record(cls, db_path: Path) -> None:
        """Call after the last connection closed cleanly (best effort)."""
        try:
            mark = cls.of(db_path)
            cls._path(db_path).write_text(f"{mark.size} {mark.mtime_ns} {mark.inode}\n")
        except OSError:
            pass

    @classmethod
    def matches(cls, db_path: Path) -> bool:
        """True when the file is unchanged since the recorded clean close; the mark is used up."""
        marker = cls._path(db_path)
        try:
            size, mtime_ns, inode = (int(x) for x in marker.read_text().split())
            now = cls.of(db_path)
        except (OSError, ValueError):
            return False
        finally:
            marker.unlink(missing_ok=True)  # a crash before the next clean close leaves no mark
        return (size, mtime_ns, inode) == (now.size, now.mtime_ns, now.inode)


@dataclass
class WalCheck:
    """The write-ahead log beside a database file as seen before opening; ``after_open`` tells its fate."""

    path: Path
    size: int
    digest: str

    @classmethod
    def before_open(cls, db_path: Path) -> WalCheck | None:
        """The non-empty ``<file>.wal`` as it is now, or None when there is none."""
        wal = db_path.with_name(db_path.name + ".wal")
        if not wal.is_file() or wal.stat().st_size == 0:
            return None
        return cls(wal, wal.stat().st_size, hashlib.sha256(wal.read_bytes()).hexdigest())

    def after_open(self, con: duckdb.DuckDBPyConnection) -> str | None:
        """Checkpoint; a log still there unchanged was not replayed: keep a copy and return a warning.

        A log DuckDB replayed is folded into the file by the checkpoint and removed, so nothing is said.
        """
        con.execute("CHECKPOINT")
        if not self.path.is_file() or self.path.stat().st_size != self.size:
            return None
        if hashlib.sha256(self.path.read_bytes()).hexdigest() != self.digest:
            return None
        kept = self.path.with_name(f"{self.path.name}.unreadable-{datetime.now(UTC):%Y%m%d-%H%M%S}")
        shutil.copy2(self.path, kept)
        return (
            f"The write-ahead log {self.path} ({self.size} bytes) could not be read and DuckDB ignored it: "
            "changes made just before the last unclean shutdown may be missing from the database. "
            f"A copy was kept as {kept}; restore the database from a backup if something is missing."
        )
