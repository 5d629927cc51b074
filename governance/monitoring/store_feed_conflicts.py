"""A feed row re-sent under an id already stored, with other content: the import is refused, not shortened.

Why: a row whose key (its ``id``, else a hash of the row) is already stored for the candidate is left out
as "already stored", which makes re-importing a file, or a file that overlaps an earlier one, add nothing
(a contract). But a later file that sends *another* row under a stored id had that row dropped without a
word (exit 0): one id per output is the feed's rule, and within one file the same conflict is refused
(``store_feed_import.refuse_conflicting_ids``). So before the new rows are added, each row of the file
whose key is stored is compared with the stored row: the values as the import cleaned them (what the
table holds and the seal hashes, not the file's text: ``1.50`` and ``1.5`` are the same latency) and its
tags. The first row that differs (by its row in the file) refuses the import whole: ``FeedConflict``
names the id, the row and the import that stored it; the operation adds that import's date and file.

Cost: only rows whose key is already stored are compared, so a candidate's first import compares nothing
(one ``EXISTS``); a re-sent million-row file is one hash join of the file's rows with the stored ones.
A row without an id is keyed by a hash of its text, so a different row gets a different key and never
conflicts (its comparison finds it equal).
"""

from __future__ import annotations

from typing import Any

from governance.monitoring.store_feed_import import FeedError

COMPARED = (
    "ts", "served_model", "prompt_version", "outcome", "latency_ms", "error", "tokens_in", "tokens_out",
    "cost_usd", "reviewer", "review_seconds", "audited", "audit_verdict", "judge_score", "sentinel",
    "severity", "text",
)
"""The stored values of a feed row besides its key (``month`` follows from ``ts``; ``import_id`` is who
stored it, not what)."""


class FeedConflict(FeedError):
    """A row of the file has an id already stored for the candidate, with other content; nothing was stored.

    ``row``: the row in the file as the import's other refusals number it (1-based data row), None where
    it could not be found; ``import_id``: the import that stored the id's row.
    """

    def __init__(self, row_key: str, row: int | None, import_id: str):
        self.row_key, self.row, self.import_id = row_key, row, import_id
        where = f"row {row}" if row is not None else "a row"
        super().__init__(f"{where} has the id {row_key!r} of a different row already stored (by import "
                         f"{import_id}): one id per output; nothing was imported")


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


_DIFFERS = " OR ".join(f"n.{c} IS DISTINCT FROM f.{c}" for c in COMPARED)
_HAS_ROWS = "SELECT EXISTS (SELECT 1 FROM monitoring_feed WHERE dossier_id = ? AND candidate = ?)"


def _tag_rows(columns: list[str], table: str = "feed_clean") -> str:
    """The file's tags as (row_key, tag, value) rows (an empty cell is no tag, as the import stores it)."""
    parts = [f"SELECT row_key, {_lit(c[4:])} AS tag, {_q(c)} AS value FROM {table} WHERE {_q(c)} IS NOT NULL"
             for c in columns if c.startswith("tag:")]
    return " UNION ALL ".join(parts) or "SELECT NULL::VARCHAR AS row_key, NULL::VARCHAR AS tag, " \
                                        "NULL::VARCHAR AS value WHERE false"


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def refuse_stored_conflicts(con: Any, dossier_id: str, candidate: str, table: str = "feed_clean") -> None:
    """DuckDB: refuse the cleaned file (``table``, in the store's own database) if a row of it has a stored
    key with other values or tags.

    Raises:
        FeedConflict: the first such row of the file.
    """
    key = [dossier_id, candidate]
    if not con.execute(_HAS_ROWS, key).fetchone()[0]:
        return  # the candidate's first import: nothing stored to differ from
    found = con.execute(
        f"SELECT n._row, n.row_key, f.import_id FROM {table} n JOIN monitoring_feed f "
        f"ON f.dossier_id = ? AND f.candidate = ? AND f.row_key = n.row_key WHERE {_DIFFERS} "
        "ORDER BY n._row LIMIT 1", key).fetchone()
    columns = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
    stored = "(SELECT row_key, import_id FROM monitoring_feed WHERE dossier_id = ? AND candidate = ?)"
    tagged = con.execute(
        f"WITH s AS {stored}, "
        f"n AS (SELECT t.* FROM ({_tag_rows(columns, table)}) t WHERE t.row_key IN (SELECT row_key FROM s)), "
        "o AS (SELECT row_key, tag, value FROM monitoring_feed_tags WHERE dossier_id = ? AND candidate = ? "
        f"AND row_key IN (SELECT row_key FROM {table})), "
        "d AS (SELECT DISTINCT coalesce(n.row_key, o.row_key) AS row_key FROM n FULL JOIN o "
        "ON n.row_key = o.row_key AND n.tag = o.tag WHERE n.value IS DISTINCT FROM o.value) "
        f"SELECT min(c._row), d.row_key, min(s.import_id) FROM d JOIN {table} c ON c.row_key = d.row_key "
        "JOIN s ON s.row_key = d.row_key GROUP BY d.row_key ORDER BY 1 LIMIT 1", key + key).fetchone()
    first = min((x for x in (found, tagged) if x), default=None)
    if first is not None:
        row, row_key, import_id = first
        raise FeedConflict(row_key, int(row), import_id)


def refuse_staged_conflicts(con: Any, work: Any, key: list[str], has_tags: bool) -> None:
    """PostgreSQL: refuse the staged rows (``feed_stage``, ``feed_tag_stage`` on ``con``) if one has a stored
    key with other values or tags; the row in the file is looked up in ``work``'s ``feed_clean``.

    Raises:
        FeedConflict: the first such row of the file.
    """
    differs = " OR ".join(f"s.{c} IS DISTINCT FROM f.{c}" for c in COMPARED)
    keys = dict(con.execute(
        "SELECT s.row_key, f.import_id FROM feed_stage s JOIN monitoring_feed f ON f.dossier_id = ? "
        f"AND f.candidate = ? AND f.row_key = s.row_key WHERE {differs}", key).fetchall())
    new_tags = ("(SELECT row_key, tag, value FROM feed_tag_stage)" if has_tags else
                "(SELECT NULL::text AS row_key, NULL::text AS tag, NULL::text AS value WHERE false)")
    keys.update(con.execute(
        "WITH s AS (SELECT f.row_key, f.import_id FROM monitoring_feed f JOIN feed_stage g "
        "ON f.row_key = g.row_key WHERE f.dossier_id = ? AND f.candidate = ?), "
        f"n AS (SELECT t.* FROM {new_tags} t JOIN s ON s.row_key = t.row_key), "
        "o AS (SELECT t.row_key, t.tag, t.value FROM monitoring_feed_tags t JOIN s ON s.row_key = t.row_key "
        "WHERE t.dossier_id = ? AND t.candidate = ?), "
        "d AS (SELECT DISTINCT coalesce(n.row_key, o.row_key) AS row_key FROM n FULL JOIN o "
        "ON n.row_key = o.row_key AND n.tag = o.tag WHERE n.value IS DISTINCT FROM o.value) "
        "SELECT d.row_key, s.import_id FROM d JOIN s ON s.row_key = d.row_key", key + key).fetchall())
    if not keys:
        return
    rows = dict(work.execute("SELECT row_key, min(_row) FROM feed_clean WHERE row_key IN "
                             "(SELECT unnest(?)) GROUP BY row_key", [list(keys)]).fetchall())
    row_key = min(keys, key=lambda k: (rows.get(k) is None, rows.get(k) or 0, k))
    raise FeedConflict(row_key, rows.get(row_key), keys[row_key])
