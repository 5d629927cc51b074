"""The feed import's PostgreSQL leg: validated rows go to the server by COPY, not row by row.

Why apart from ``store``: the import validates and deduplicates a file in a private in-memory DuckDB
(``store_feed_import``) on either backend; only the last step differs. On DuckDB the rows move with one
``INSERT ... SELECT`` inside the store's own database. On PostgreSQL they used to go through
``executemany`` in batches of 5,000 (200,000 rows in 8.8 s against 1.26 s on DuckDB). Here DuckDB writes
the clean rows as CSV (its quoting matches PostgreSQL's CSV format: an unquoted empty field is NULL, a
quoted ``""`` an empty string), PostgreSQL's ``COPY ... FROM STDIN`` loads them into a temporary table
that the transaction drops, and one ``INSERT ... SELECT`` adds the rows not yet stored. The seal is
computed in the same transaction from what was stored.

Why no ``ON CONFLICT`` on the way in (issue 35 item 7): at 1M rows ``ON CONFLICT DO NOTHING`` (a
speculative insertion per row) took 10.5 s for the feed and 7.8 s for its tags, a plain ``INSERT`` of the
same rows in key order 4.0 s and 3.2 s. So the rows already stored are left out by an anti-join against
the table (``NOT EXISTS``), the rows go in in key order (DuckDB sorts the file; a B-tree takes keys in
order on its right edge), and the plain ``INSERT`` runs under a savepoint: should a concurrent importer
have stored one of the same keys meanwhile, the key violation rolls back to the savepoint and the
import takes the ``ON CONFLICT DO NOTHING`` path (the one before issue 35 item 7), so two importers still
both succeed and neither stores a row twice. A tag goes in with its row only, as on DuckDB.

A candidate's first import (no row of it stored yet, the common case at scale) skips the staging: its rows
and tags are COPY'd straight into the feed tables (1M rows: 8.6 s for COPY + INSERT ... SELECT + ANALYZE of
the staged table at load 3-5 → 5.5 s for the feed's COPY; 6.3 → 3.1 s for the tags'), under a savepoint,
so a concurrent importer's key (a unique violation) rolls back to it and the import takes the staged path.

After a large import the two tables are analyzed in the transaction (when the role owns them; PostgreSQL
skips it with a warning otherwise): without statistics the planner took 1M rows for a handful and sealed
the tags by 1M index probes (5.6 s; 3.3 s with a hash join), and the status after the import planned
the same way.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from governance.monitoring.store_feed_conflicts import refuse_staged_conflicts

CHUNK = 1 << 20
"""Bytes per write to the COPY stream."""
FEED_LOCK_SPACE = 0x4645
"""First key of the PostgreSQL advisory locks an import of one candidate's feed takes (second: the hash of
dossier and candidate)."""


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _chunks(path: Path) -> Any:
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            yield chunk


def copy_feed_rows(
    work: Any,
    con: Any,
    *,
    dossier_id: str,
    candidate: str,
    import_id: str,
    columns: str,
    tags: list[str],
    seal: Callable[[int], tuple[int, str]],
) -> tuple[int, tuple[int, str]]:
    """Store the rows of ``feed_clean`` (in the DuckDB ``work``) on the PostgreSQL ``con``; (added, seal).

    ``columns``: the feed columns in table order (``store.FEED_COLUMNS``); ``tags``: the ``tag:*``
    columns of the file; ``seal`` (given the rows added) runs on ``con`` inside the transaction.
    """
    feed_cols = f"dossier_id, candidate, {columns}, import_id"
    with tempfile.TemporaryDirectory(prefix="medassure-feed-") as tmp:
        rows_csv = Path(tmp) / "rows.csv"
        work.execute(
            f"COPY (SELECT {_lit(dossier_id)}, {_lit(candidate)}, {columns}, {_lit(import_id)} "
            f"FROM feed_clean ORDER BY row_key) TO {_lit(str(rows_csv))} (FORMAT csv, HEADER false)"
        )
        count = work.execute("SELECT count(*) FROM feed_clean").fetchone()[0]
        tag_files = []
        for i, tag in enumerate(tags):
            col = '"' + tag.replace('"', '""') + '"'
            out = Path(tmp) / f"tag{i}.csv"
            work.execute(
                f"COPY (SELECT {_lit(dossier_id)}, {_lit(candidate)}, row_key, {_lit(tag[4:])}, {col} "
                f"FROM feed_clean WHERE {col} IS NOT NULL ORDER BY row_key) TO {_lit(str(out))} "
                "(FORMAT csv, HEADER false)"
            )
            tag_files.append(out)
        key = [dossier_id, candidate]
        con.execute("BEGIN TRANSACTION")
        try:
            # One import of a candidate's feed at a time: another importer's rows, committed between this
            # one's comparison with the stored rows and its insert, would be left out as "already stored"
            # (the ON CONFLICT path) instead of compared; the lock is released at COMMIT or ROLLBACK.
            con.execute("SELECT pg_advisory_xact_lock(?, hashtext(?))",
                        [FEED_LOCK_SPACE, f"{dossier_id}|{candidate}"])
            added = copy_first(con, feed_cols, rows_csv, tag_files, key, rows=count)
            if added is None:
                con.execute("CREATE TEMP TABLE feed_stage (LIKE monitoring_feed) ON COMMIT DROP")
                con.copy_csv("feed_stage", feed_cols, _chunks(rows_csv))
                if tag_files:
                    con.execute("CREATE TEMP TABLE feed_tag_stage (LIKE monitoring_feed_tags) ON COMMIT DROP")
                    for out in tag_files:
                        con.copy_csv("feed_tag_stage", TAG_COLUMNS, _chunks(out))
                refuse_staged_conflicts(con, work, key, bool(tag_files))  # a stored id, other content
                added = insert_new(con, feed_cols, bool(tag_files), key)
            analyze_if_grown(con, added)
            sealed = seal(added)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return added, sealed


TAG_COLUMNS = "dossier_id, candidate, row_key, tag, value"
_STORED = ("NOT EXISTS (SELECT 1 FROM monitoring_feed f WHERE f.dossier_id = ? AND f.candidate = ? "
           "AND f.row_key = s.row_key)")
"""A staged row whose key is not stored (parameters: dossier, candidate: the stored side is read for the
candidate only, an empty one at its first import)."""


def insert_new(con: Any, feed_cols: str, has_tags: bool, key: list[str]) -> int:
    """Add the staged rows not yet stored (and their tags) by plain ``INSERT``s; the rows added.

    A key stored by a concurrent importer since the anti-join saw the table rolls back to the savepoint
    and the rows go in by ``insert_on_conflict`` instead.
    """
    con.execute("ANALYZE feed_stage")  # temporary tables: the anti-joins' plans need their sizes
    if has_tags:
        con.execute("ANALYZE feed_tag_stage")
    con.execute("SAVEPOINT feed_rows")
    try:
        if has_tags:  # first: the anti-join sees which rows are new before they are added
            con.execute(f"INSERT INTO monitoring_feed_tags ({TAG_COLUMNS}) SELECT {TAG_COLUMNS} "
                        f"FROM feed_tag_stage s WHERE {_STORED}", key)
        added = con.execute(f"INSERT INTO monitoring_feed ({feed_cols}) SELECT {feed_cols} "
                            f"FROM feed_stage s WHERE {_STORED}", key).rowcount
    except Exception as exc:
        if getattr(exc, "sqlstate", None) != UNIQUE_VIOLATION:
            raise
        con.execute("ROLLBACK TO SAVEPOINT feed_rows")
        added = insert_on_conflict(con, feed_cols, has_tags, key)
    con.execute("RELEASE SAVEPOINT feed_rows")
    return added


_HAS_ROWS = "SELECT EXISTS (SELECT 1 FROM monitoring_feed WHERE dossier_id = ? AND candidate = ?)"
"""Whether the candidate has stored rows (parameters: dossier, candidate)."""


def copy_first(con: Any, feed_cols: str, rows_csv: Path, tag_files: list[Path], key: list[str], *,
               rows: int) -> int | None:
    """The candidate's first rows: COPY'd straight into the feed tables; the rows added, or None.

    None (nothing stored) when the candidate already has rows (they must be left out: the staged path)
    or when a concurrent importer stored one of the keys meanwhile (rolled back to the savepoint).
    """
    if con.execute(_HAS_ROWS, key).fetchone()[0]:
        return None
    con.execute("SAVEPOINT feed_first")
    try:
        con.copy_csv("monitoring_feed", feed_cols, _chunks(rows_csv))
        for out in tag_files:
            con.copy_csv("monitoring_feed_tags", TAG_COLUMNS, _chunks(out))
    except Exception as exc:
        if getattr(exc, "sqlstate", None) != UNIQUE_VIOLATION:
            raise
        con.execute("ROLLBACK TO SAVEPOINT feed_first")
        con.execute("RELEASE SAVEPOINT feed_first")
        return None
    con.execute("RELEASE SAVEPOINT feed_first")
    return rows


UNIQUE_VIOLATION = "23505"
"""PostgreSQL's SQLSTATE for a duplicate key."""


def insert_on_conflict(con: Any, feed_cols: str, has_tags: bool, key: list[str]) -> int:
    """Add the staged rows not yet stored, a key stored meanwhile skipped (``ON CONFLICT DO NOTHING``)."""
    if has_tags:
        con.execute(f"INSERT INTO monitoring_feed_tags ({TAG_COLUMNS}) SELECT {TAG_COLUMNS} "
                    f"FROM feed_tag_stage s WHERE {_STORED} ON CONFLICT DO NOTHING", key)
    return con.execute(f"INSERT INTO monitoring_feed ({feed_cols}) SELECT {feed_cols} FROM feed_stage "
                       "ON CONFLICT DO NOTHING").rowcount


ANALYZE_SHARE = 0.2
"""Analyze the feed tables in the import's transaction when it adds more than this share of their rows."""


def analyze_if_grown(con: Any, added: int) -> None:
    """Refresh the feed tables' statistics when this import changed their size a lot (see the docstring)."""
    if added < 10_000:
        return
    known = con.execute("SELECT reltuples FROM pg_class WHERE oid = 'monitoring_feed'::regclass").fetchone()
    known = known[0] if known else None
    if known is None or known < 0 or added > ANALYZE_SHARE * known:
        con.execute("ANALYZE monitoring_feed")
        con.execute("ANALYZE monitoring_feed_tags")
