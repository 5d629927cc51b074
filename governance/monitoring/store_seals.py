"""The feed's seals, computed in SQL: each import's rows (count and digest), and a queue's audit verdicts.

Why in SQL and shaped so: an import of a million rows must not pass its rows through Python to be sealed.
Each stored row hashes to the MD5 of its fields (every field length-prefixed, NULL written apart from
an empty text, the time as microseconds since the epoch, so the text does not depend on the session's
zone), its tags are hashed the same way, and an import's digest is the SHA-256 of its rows' hashes
concatenated in the order of the hashes (a canonical order that needs no collation), then of its tags'.
The same query runs in the import's transaction (the seal goes into the import's record, which the chain
and the anchor cover) and in ``verify``, which recomputes it from what is stored now. Both backends run
it; a row's text is the backend's own cast, so a seal is checked on the backend that made it.

Audit verdicts a closed queue leaves beside the feed are few; they are sealed per (dossier, candidate,
queue) in the floor's keyed ``record_seals`` (``governance.dossier.store_seals``) with one short hash per
row, so ``verify`` names the row changed, added or removed.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from evaluator.storage.db import is_postgres
from governance.dossier.store_seals import read_seal, row_digest, seal_subjects, sealing_began, write_seal
from governance.monitoring.records import OUTPUT_COLUMNS
from governance.monitoring.store_reads import side_by_side

_HASHED = (
    "candidate",
    "row_key",
    "month",
    "served_model",
    "prompt_version",
    "outcome",
    *OUTPUT_COLUMNS,
)


_AGG = "string_agg(h, '' ORDER BY h)"


def _sha(pg: bool, text: str) -> str:
    return f"encode(sha256(convert_to({text}, 'UTF8')), 'hex')" if pg else f"sha256({text})"


_TEXTS = {"candidate", "row_key", "month", "served_model", "prompt_version", "outcome", "reviewer",
          "audit_verdict", "severity", "text", "t.row_key", "t.tag", "t.value"}
"""Text columns: written with their length first, so no text can shift a separator; a number, a boolean
or a NULL (``-``) cannot hold one."""


def _field(column: str, pg: bool = False) -> str:
    # The text is ``<length>:<text>``, or ``-`` for NULL: written with concat() and a CASE rather than
    # ``coalesce(CAST(length(x) AS VARCHAR) || ':' || x, '-')`` (the same text for every value, NULL and ''
    # included; tests/governance/monitoring/test_feed_seal_digest.py pins it) because each ``||`` builds a
    # string of its own: the row hashes of 1M rows took 2.3x as long that way in DuckDB (issue 35 item 7).
    # PostgreSQL is the other way round: its concat() prints every argument through the type's output
    # function, and ``||`` under the same CASE (no operand NULL) gave the same text for 23% less server CPU
    # (1M rows: 4.0 -> 3.1 s, one process).
    if column.split(".")[-1] in _TEXTS or column in _TEXTS:
        text = f"length({column}) || ':' || {column}" if pg else f"concat(length({column}), ':', {column})"
        return f"CASE WHEN {column} IS NULL THEN '-' ELSE {text} END"
    return f"coalesce(CAST({column} AS VARCHAR), '-')"


def _hash(fields: list[str], pg: bool = False) -> str:
    """MD5 of the fields joined by ``|``, built as one string (no field is NULL, so ``||`` never is)."""
    if pg:
        return "md5(" + " || '|' || ".join(fields) + ")"
    return "md5(concat(" + ", '|', ".join(fields) + "))"


def _epoch(pg: bool, column: str) -> str:
    return f"CAST(round(extract(epoch FROM {column}) * 1000000) AS BIGINT)" if pg else f"epoch_us({column})"


def _row_hash(pg: bool, prefix: str = "") -> str:
    # MD5 per row (about twice as fast as SHA-256 in DuckDB: 1.1 s against 1.9 s per million rows), SHA-256
    # over the sorted row hashes: changing a stored row into another with the same MD5 is a second
    # preimage, which MD5 still resists (its known collisions need both rows crafted before the import).
    epoch = f"CAST({_epoch(pg, prefix + 'ts')} AS VARCHAR)"
    return _hash([_field(epoch, pg), *(_field(prefix + c, pg) for c in _HASHED)], pg)


def import_digests(
    con: Any, dossier_id: str, import_id: str | None = None
) -> dict[str, tuple[str, int, str]]:
    """Import id → (candidate, rows stored, digest) over the dossier's feed (of one import when named).

    The rows' and the tags' digests are two statements, side by side on PostgreSQL (``side_by_side``)
    unless an import's transaction is open (its seal: another connection would not see its rows).
    """
    pg = is_postgres(con)
    only = " AND import_id = ?" if import_id else ""
    # One import on PostgreSQL: the row hashes sorted in the subquery let the server hash and sort them in
    # parallel workers (Gather Merge); string_agg's own ORDER BY still fixes the order (on input already
    # sorted, its sort is one pass), and one group needs no GROUP BY (which sorted all rows again on top).
    # Same digest; at 1M rows 8.5-8.9 s -> 5.7-7.4 s for the rows' query alone, load 4.4-4.8.
    one = pg and import_id is not None
    presort, group = (" ORDER BY h", " HAVING count(*) > 0") if one else ("", " GROUP BY import_id")
    key = "min(import_id)" if one else "import_id"
    params = [dossier_id, *([import_id] if import_id else [])]
    tag = _hash([_field(c, pg) for c in ("t.row_key", "t.tag", "t.value")], pg)

    def rows_digests(c: Any) -> list[tuple]:
        return c.execute(
            f"SELECT {key}, min(candidate), count(*), {_sha(pg, _AGG)} FROM "
            f"(SELECT import_id, candidate, {_row_hash(pg)} AS h FROM monitoring_feed "
            f"WHERE dossier_id = ?{only}{presort}) r{group}",
            params,
        ).fetchall()

    def tags_digests(c: Any) -> dict[str, str]:
        return dict(
            c.execute(
                f"SELECT {key}, {_sha(pg, _AGG)} FROM (SELECT f.import_id, {tag} AS h "
                "FROM monitoring_feed_tags t JOIN monitoring_feed f ON f.dossier_id = t.dossier_id "
                "AND f.candidate = t.candidate AND f.row_key = t.row_key "
                f"WHERE t.dossier_id = ?{only.replace('import_id', 'f.import_id')}{presort}) r{group}",
                params,
            ).fetchall()
        )

    rows, tags = side_by_side(con, rows_digests, tags_digests)
    return {
        i: (c, int(n), hashlib.sha256(f"{d}|{tags.get(i) or ''}".encode()).hexdigest()) for i, c, n, d in rows
    }


def verdict_subject(dossier_id: str, candidate: str, queue_id: str) -> str:
    """The ``record_seals`` subject of a queue's verdicts on one candidate's feed."""
    return f"verdicts:{dossier_id}:{candidate}:{queue_id}"


def verdict_rows(con: Any, dossier_id: str) -> dict[tuple[str, str], dict[str, str]]:
    """(candidate, queue) → {row key: short hash of the stored verdict row} for the dossier."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for candidate, queue, key, verdict, at in con.execute(
        "SELECT candidate, queue_id, row_key, verdict, recorded_at FROM monitoring_audit_verdicts "
        "WHERE dossier_id = ? ORDER BY candidate, queue_id, row_key",
        [dossier_id],
    ).fetchall():
        entry = out.setdefault((candidate, queue), {})
        digest = row_digest(verdict, at.timestamp() if isinstance(at, datetime) else at)
        entry[key] = digest if key not in entry else row_digest(entry[key], digest)
    return out


def seal_verdicts(con: Any, dossier_id: str, candidate: str, queue_id: str, at: datetime) -> None:
    """Seal the queue's stored verdicts on the candidate's feed (inside the transaction that added them)."""
    rows = verdict_rows(con, dossier_id).get((candidate, queue_id), {})
    write_seal(con, verdict_subject(dossier_id, candidate, queue_id), {"rows": rows}, at)


class FeedSeals:
    """The seal reads of the feed store (``MonitoringFeedStore`` holds ``con``)."""

    con: Any

    def import_digests(self, dossier_id: str) -> dict[str, tuple[str, int, str]]:
        """Import id → (candidate, rows stored, digest) recomputed from the stored feed (``store_seals``)."""
        return import_digests(self.con, dossier_id)

    def import_counts(self, dossier_id: str) -> dict[str, tuple[str, int, None]]:
        """Import id → (candidate, rows stored, None): the cheap part of ``import_digests`` (one GROUP BY)."""
        rows = self.con.execute("SELECT import_id, min(candidate), count(*) FROM monitoring_feed "
                                "WHERE dossier_id = ? GROUP BY import_id", [dossier_id]).fetchall()
        return {i: (c, int(n), None) for i, c, n in rows}

    def verdict_rows(self, dossier_id: str) -> dict[tuple[str, str], dict[str, str]]:
        """(candidate, queue) → {row key: hash of the stored verdict} (``store_seals``)."""
        return verdict_rows(self.con, dossier_id)

    def seal(self, subject: str) -> tuple[dict | None, str | None]:
        """A keyed seal's state, or what is wrong with it (``governance.dossier.store_seals.read_seal``)."""
        return read_seal(self.con, subject)

    def sealing_began(self) -> datetime | None:
        """When this store began sealing verdicts and queues."""
        return sealing_began(self.con)

    def seal_subjects(self, prefix: str) -> list[str]:
        """Sealed subjects starting with ``prefix``."""
        return seal_subjects(self.con, prefix)
