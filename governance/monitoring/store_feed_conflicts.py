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

Cost: a candidate's first import compares nothing (one ``EXISTS``; on PostgreSQL the direct ``COPY`` path
does not call it). Measured at 1M rows on the shared 2-core machine: DuckDB, a re-sent file of 1M stored rows
0.57-0.63 s at load 4 (two hash joins: values, tags), 1.1-3.9 s at load 4.5-5, about 1.0 s of CPU in an
A/B of the whole re-send (4.7-4.9 s CPU without the check, 5.7-5.8 with); a file of new ids under
0.01 s here (DuckDB's join filters skip the stored ids' range: ids interleaved with the stored ones
cost a join); PostgreSQL, a file of 1M new rows beside 1M stored 1.1 s (the join of
keys into a temporary table, which is empty), the same 1M rows re-sent as CSV 7.4 s (keys 1.2, values
2.4, tags 1.7 + 2.0) of a 29.6 s import.
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
OVERLAP = "feed_stored_keys"
"""PostgreSQL: the temporary table of the staged keys already stored for the candidate; the comparisons start
there, so a file of rows not stored yet (a later month's export) costs one join of keys and nothing more."""


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _file_tags(columns: list[str], table: str) -> str:
    """The file's tags as (row_key, tag, value) rows (an empty cell is no tag, as the import stores it)."""
    parts = [f"SELECT row_key, {_lit(c[4:])} AS tag, {_q(c)} AS value FROM {table} WHERE {_q(c)} IS NOT NULL"
             for c in columns if c.startswith("tag:")]
    return " UNION ALL ".join(parts) or "SELECT NULL::VARCHAR AS row_key, NULL::VARCHAR AS tag, " \
                                        "NULL::VARCHAR AS value WHERE false"


def refuse_stored_conflicts(con: Any, dossier_id: str, candidate: str, table: str = "feed_clean") -> None:
    """DuckDB: refuse the cleaned file (``table``, in the store's own database) if a row of it has a stored
    key with other values or tags.

    Two joins of the file with the candidate's stored rows (values; tags). The PostgreSQL leg's table of
    stored keys first made no measurable difference here (1M re-sent rows, alternated in one process at
    load 4.5-5: 1.1-3.9 s direct, 1.3-3.1 s with it), so DuckDB joins directly.

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
        f"n AS (SELECT t.* FROM ({_file_tags(columns, table)}) t "
        "WHERE t.row_key IN (SELECT row_key FROM s)), "
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


def _stored_by(con: Any, key: list[str], row_key: str) -> str:
    """The import that stored ``row_key`` for the candidate."""
    return con.execute("SELECT import_id FROM monitoring_feed WHERE dossier_id = ? AND candidate = ? "
                       "AND row_key = ?", [*key, row_key]).fetchone()[0]


def refuse_staged_conflicts(con: Any, work: Any, key: list[str], has_tags: bool) -> None:
    """PostgreSQL: refuse the staged rows (``feed_stage``, ``feed_tag_stage`` on ``con``) if one has a stored
    key with other values or tags; the row in the file is looked up in ``work``'s ``feed_clean``.

    The staged keys already stored go first into a temporary table (one join of keys; a file of new rows
    stops there); the values and tags are compared for those only, the tags by two anti-joins (a staged
    tag not stored; a stored tag not staged) rather than one full join: at 1M re-sent rows 1.7-1.8 s
    against 3.3-4.5 s (load 4.5-6).

    Raises:
        FeedConflict: the first such row of the file.
    """
    # ON COMMIT DROP, and dropped below: on an error the transaction takes it (no statement after one)
    con.execute(f"CREATE TEMP TABLE {OVERLAP} ON COMMIT DROP AS SELECT s.row_key FROM feed_stage s "
                f"JOIN monitoring_feed f ON f.dossier_id = {_lit(key[0])} AND f.candidate = {_lit(key[1])} "
                "AND f.row_key = s.row_key")
    found: set[str] = set()
    if con.execute(f"SELECT EXISTS (SELECT 1 FROM {OVERLAP})").fetchone()[0]:
        con.execute(f"ANALYZE {OVERLAP}")  # a temporary table has no statistics; the joins need its size
        found = {k for (k,) in con.execute(
            f"SELECT k.row_key FROM {OVERLAP} k JOIN feed_stage n ON n.row_key = k.row_key "
            "JOIN monitoring_feed f ON f.dossier_id = ? AND f.candidate = ? AND f.row_key = k.row_key "
            f"WHERE {_DIFFERS}", key).fetchall()}
        if has_tags:  # a staged tag of a stored row, not stored
            found |= {k for (k,) in con.execute(
                f"SELECT n.row_key FROM feed_tag_stage n JOIN {OVERLAP} k ON k.row_key = n.row_key "
                "WHERE NOT EXISTS (SELECT 1 FROM monitoring_feed_tags t WHERE t.dossier_id = ? "
                "AND t.candidate = ? AND t.row_key = n.row_key AND t.tag = n.tag AND t.value = n.value)",
                key).fetchall()}
        staged = ("SELECT 1 FROM feed_tag_stage n WHERE n.row_key = t.row_key AND n.tag = t.tag "
                  "AND n.value = t.value") if has_tags else "SELECT 1 WHERE false"
        found |= {k for (k,) in con.execute(  # a stored tag of a staged row, not staged
            f"SELECT t.row_key FROM monitoring_feed_tags t JOIN {OVERLAP} k ON k.row_key = t.row_key "
            f"WHERE t.dossier_id = ? AND t.candidate = ? AND NOT EXISTS ({staged})", key).fetchall()}
    con.execute(f"DROP TABLE {OVERLAP}")
    if not found:
        return
    rows = dict(work.execute("SELECT row_key, min(_row) FROM feed_clean WHERE row_key IN "
                             "(SELECT unnest(?)) GROUP BY row_key", [sorted(found)]).fetchall())
    row_key = min(found, key=lambda k: (rows.get(k) is None, rows.get(k) or 0, k))
    raise FeedConflict(row_key, rows.get(row_key), _stored_by(con, key, row_key))
