"""The monitoring feed: production rows of approved candidates, and their aggregates, summed in SQL.

Storage design: one table, ``monitoring_feed``, one row per model output, keyed by (dossier, candidate,
row key), the row key being the feed's ``id`` or, without one, a hash of the row, so importing the same
file or the same rows twice adds nothing; subgroup tags in ``monitoring_feed_tags`` (one row per output
and tag, so a GROUP BY counts groups on both backends). Rows are never updated or deleted (on
PostgreSQL the app role may only insert and read). The file is read and validated by DuckDB
(``store_feed_import``) without passing rows through Python: on a DuckDB store in the store's own
database (temporary tables, then one INSERT ... SELECT); on PostgreSQL in a private in-memory DuckDB,
whose clean rows then go to the server by COPY (``store_feed_pg``). The aggregates the monitoring stage
needs (per month counts, identities seen, tags) are GROUP BYs here, run side by side on PostgreSQL
(``store_reads``); only the audited outputs' 0/1 series comes back as a list for the CUSUM.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import duckdb

from evaluator.storage.db import apply_migrations, harden, is_postgres
from governance.dossier.store_seals import ensure_seal_table
from governance.monitoring.feed_records import FeedAggregates, IdentitySeen, MonthCounts, TagCount
from governance.monitoring.store_feed_conflicts import refuse_stored_conflicts
from governance.monitoring.store_feed_import import (
    FeedError,
    clean_select,
    map_litellm,
    refuse_conflicting_ids,
    stage,
    tag_columns,
    validate,
)
from governance.monitoring.store_feed_pg import copy_feed_rows
from governance.monitoring.store_reads import ReadsAhead, side_by_side
from governance.monitoring.store_seals import FeedSeals, import_digests, seal_verdicts

MIGRATIONS = [
    """
    CREATE TABLE monitoring_feed (
        dossier_id VARCHAR NOT NULL,
        candidate VARCHAR NOT NULL,
        row_key VARCHAR NOT NULL,
        ts TIMESTAMPTZ NOT NULL,
        month VARCHAR NOT NULL,
        served_model VARCHAR NOT NULL,
        prompt_version VARCHAR,
        outcome VARCHAR NOT NULL,
        latency_ms DOUBLE,
        error BOOLEAN,
        tokens_in BIGINT,
        tokens_out BIGINT,
        cost_usd DOUBLE,
        reviewer VARCHAR,
        review_seconds DOUBLE,
        audited BOOLEAN,
        audit_verdict VARCHAR,
        judge_score DOUBLE,
        sentinel BOOLEAN,
        severity VARCHAR,
        text VARCHAR,
        import_id VARCHAR NOT NULL
    );
    CREATE TABLE monitoring_feed_tags (
        dossier_id VARCHAR NOT NULL,
        candidate VARCHAR NOT NULL,
        row_key VARCHAR NOT NULL,
        tag VARCHAR NOT NULL,
        value VARCHAR NOT NULL
    );
    """,
    # Verdicts of closed audit queues over feed rows (``medassure review create --feed``): their own rows,
    # since feed rows are never updated; the aggregates read a feed row as audited when a queue rated it.
    """
    CREATE TABLE monitoring_audit_verdicts (
        dossier_id VARCHAR NOT NULL,
        candidate VARCHAR NOT NULL,
        row_key VARCHAR NOT NULL,
        queue_id VARCHAR NOT NULL,
        verdict VARCHAR NOT NULL,
        recorded_at TIMESTAMPTZ NOT NULL
    );
    """,
]
PG_MIGRATIONS = [
    # PostgreSQL only: keys the server enforces (concurrent importers insert ON CONFLICT DO NOTHING), and feed
    # rows as evidence of what production did: added, never changed. (DuckDB has one writer and dedupes by
    # an anti-join: a primary key's index made a 1M-row import several times slower.)
    """
    ALTER TABLE monitoring_feed ADD PRIMARY KEY (dossier_id, candidate, row_key);
    ALTER TABLE monitoring_feed_tags ADD PRIMARY KEY (dossier_id, candidate, row_key, tag);
    CREATE TRIGGER monitoring_feed_append_only BEFORE UPDATE OR DELETE ON monitoring_feed
        FOR EACH ROW EXECUTE FUNCTION medassure_append_only();
    CREATE TRIGGER monitoring_feed_tags_append_only BEFORE UPDATE OR DELETE ON monitoring_feed_tags
        FOR EACH ROW EXECUTE FUNCTION medassure_append_only();
    """,
    """
    ALTER TABLE monitoring_audit_verdicts ADD PRIMARY KEY (dossier_id, candidate, row_key, queue_id);
    CREATE TRIGGER monitoring_audit_verdicts_append_only BEFORE UPDATE OR DELETE ON monitoring_audit_verdicts
        FOR EACH ROW EXECUTE FUNCTION medassure_append_only();
    """,
]
FEED_COLUMNS = (
    "row_key, ts, month, served_model, prompt_version, outcome, latency_ms, error, tokens_in, "
    "tokens_out, cost_usd, reviewer, review_seconds, audited, audit_verdict, judge_score, sentinel, "
    "severity, text"
)
_RANK = "CASE {c} WHEN 'material' THEN 3 WHEN 'minor' THEN 2 WHEN 'correct' THEN 1 END"
_NAME = "CASE {c} WHEN 3 THEN 'material' WHEN 2 THEN 'minor' WHEN 1 THEN 'correct' END"
AUDITED_FEED = (
    "(SELECT f.dossier_id, f.candidate, "
    + ", ".join(
        "f." + c.strip() for c in FEED_COLUMNS.split(",") if c.strip() not in ("audited", "audit_verdict")
    )
    + ", (f.audited OR v.rank IS NOT NULL) AS audited, "
    + _NAME.format(
        c="GREATEST(CASE WHEN f.audited THEN " + _RANK.format(c="f.audit_verdict") + " END, v.rank)"
    )
    + " AS audit_verdict FROM monitoring_feed f LEFT JOIN (SELECT dossier_id, candidate, row_key, max("
    + _RANK.format(c="verdict")
    + ") AS rank FROM monitoring_audit_verdicts GROUP BY dossier_id, candidate, row_key) v "
    "ON v.dossier_id = f.dossier_id AND v.candidate = f.candidate AND v.row_key = f.row_key)"
)
"""The feed as the aggregates read it: a row a closed audit queue rated counts as audited, and where the
row already had an audit verdict (or several queues rated it) the worse verdict stands (material over
minor over correct): an error one clinician found is not undone by another's missing it."""
TAGS_SQL = (
    "SELECT t.tag, t.value, count(*), count(*) FILTER (WHERE f.audited), "
    "count(*) FILTER (WHERE f.audited AND f.audit_verdict = 'material'), min(f.ts) "
    f"FROM monitoring_feed_tags t JOIN {AUDITED_FEED} f ON f.dossier_id = t.dossier_id "
    "AND f.candidate = t.candidate AND f.row_key = t.row_key "
    "WHERE t.dossier_id = ? AND t.candidate = ? GROUP BY t.tag, t.value ORDER BY t.tag, t.value"
)
"""A candidate's subgroup counts (parameters: dossier, candidate)."""


class ImportCounts(NamedTuple):
    """What one file held and added."""

    rows_in_file: int
    rows_added: int
    first_timestamp: datetime | None
    last_timestamp: datetime | None
    sealed_rows: int | None = None
    sealed_digest: str | None = None


_SEEN = ("served_model", "prompt_version", "severity")
"""The identities whose values the status lists with their counts and first and last times."""


class MonitoringFeedStore(FeedSeals, ReadsAhead):
    """The feed table of one database (DuckDB file or PostgreSQL server)."""

    def __init__(self, con: Any):
        self.con = con
        apply_migrations(con, "monitoring", MIGRATIONS)
        ensure_seal_table(con)
        if is_postgres(con):
            apply_migrations(con, "monitoring-postgresql", PG_MIGRATIONS)

    # -- import --------------------------------------------------------------------------------------

    def import_file(
        self,
        dossier_id: str,
        candidate: str,
        path: Path,
        *,
        source: str,
        import_id: str,
        now: datetime,
        flatten: Any = None,
    ) -> ImportCounts:
        """Validate ``path`` whole, then store its new rows; nothing is stored when a row is bad.

        Args:
            flatten: for ``otel``, a function writing the spans as a feed JSON-lines file and returning it.

        Raises:
            FeedError: a bad file, column or value (the message names the row and the field).
        """
        pg = is_postgres(self.con)
        work = duckdb.connect() if pg else self.con.cursor()
        try:
            harden(work)
            work.execute("SET TimeZone = 'UTC'")
            work.execute("SET enable_progress_bar = false")
            columns = stage(work, path)
            if source == "litellm":
                columns = map_litellm(work, columns)
            n = validate(work, columns, now, path.name)
            work.execute("DROP TABLE IF EXISTS feed_clean")
            work.execute(f"CREATE TEMP TABLE feed_clean AS {clean_select(columns, dedupe=False)}")
            if work.execute("SELECT count(*) - count(DISTINCT row_key) FROM feed_clean").fetchone()[0]:
                # a row repeated in the file: keep its first (a window over all rows costs more: only then)
                refuse_conflicting_ids(work, path.name)
                work.execute("DROP TABLE feed_clean")
                work.execute(f"CREATE TEMP TABLE feed_clean AS {clean_select(columns)}")
            work.execute("DROP TABLE feed_raw")
            first, last = work.execute("SELECT min(ts), max(ts) FROM feed_clean").fetchone()
            tags = tag_columns(columns)
            added, seal = (
                self._send_pg(work, dossier_id, candidate, import_id, tags)
                if pg
                else self._insert_duckdb(work, dossier_id, candidate, import_id, tags)
            )
            work.execute("DROP TABLE IF EXISTS feed_clean")
        finally:
            work.close()
        return ImportCounts(n, added, first, last, *seal)

    def _count(self, con: Any, dossier_id: str, candidate: str) -> int:
        return int(
            con.execute(
                "SELECT count(*) FROM monitoring_feed WHERE dossier_id = ? AND candidate = ?",
                [dossier_id, candidate],
            ).fetchone()[0]
        )

    def _insert_duckdb(
        self, work: Any, dossier_id: str, candidate: str, import_id: str, tags: list[str]
    ) -> tuple[int, tuple[int, str]]:
        new = (
            "NOT EXISTS (SELECT 1 FROM monitoring_feed f WHERE f.dossier_id = ? AND f.candidate = ? "
            "AND f.row_key = c.row_key)"
        )
        work.execute("BEGIN TRANSACTION")
        try:
            refuse_stored_conflicts(work, dossier_id, candidate)  # a stored id with other content (issue 35)
            before = self._count(work, dossier_id, candidate)
            for tag in tags:  # first: the anti-join sees which rows are new before they are added
                col = '"' + tag.replace('"', '""') + '"'
                work.execute(
                    "INSERT INTO monitoring_feed_tags SELECT ?, ?, row_key, ?, "
                    + col
                    + " FROM feed_clean c WHERE "
                    + col
                    + " IS NOT NULL AND "
                    + new,
                    [dossier_id, candidate, tag[4:], dossier_id, candidate],
                )
            work.execute(
                f"INSERT INTO monitoring_feed (dossier_id, candidate, {FEED_COLUMNS}, import_id) "
                f"SELECT ?, ?, {FEED_COLUMNS}, ? FROM feed_clean c WHERE {new}",
                [dossier_id, candidate, import_id, dossier_id, candidate],
            )
            added = self._count(work, dossier_id, candidate) - before
            seal = self._seal(work, dossier_id, import_id, added)
            work.execute("COMMIT")
        except BaseException:
            work.execute("ROLLBACK")
            raise
        return added, seal

    @staticmethod
    def _seal(con: Any, dossier_id: str, import_id: str, added: int | None = None) -> tuple[int, str]:
        # inside the import's transaction: what it stored, as verify will recompute it (store_seals). An
        # import that added no row (a re-import) seals none: no row can carry its fresh id, and the digests'
        # scans of the whole feed cost 0.5-3 s at 1M rows for that answer.
        if added == 0:
            return 0, "none"
        _, n, digest = import_digests(con, dossier_id, import_id).get(import_id, ("", 0, "none"))
        return n, digest

    def _send_pg(self, work: Any, dossier_id: str, candidate: str, import_id: str, tags: list[str]
                 ) -> tuple[int, tuple[int, str]]:
        return copy_feed_rows(
            work, self.con, dossier_id=dossier_id, candidate=candidate, import_id=import_id,
            columns=FEED_COLUMNS, tags=tags,
            seal=lambda added: self._seal(self.con, dossier_id, import_id, added),
        )

    # -- reads ---------------------------------------------------------------------------------------

    def candidates(self, dossier_id: str) -> list[str]:
        """Candidates with feed rows in the dossier, sorted."""
        return [
            r[0]
            for r in self.con.execute(
                "SELECT DISTINCT candidate FROM monitoring_feed WHERE dossier_id = ? ORDER BY candidate",
                [dossier_id],
            ).fetchall()
        ]

    def row_count(self, dossier_id: str, candidate: str | None = None) -> int:
        """Stored feed rows of a dossier (of one candidate)."""
        if candidate is None:
            return int(
                self.con.execute(
                    "SELECT count(*) FROM monitoring_feed WHERE dossier_id = ?", [dossier_id]
                ).fetchone()[0]
            )
        return self._count(self.con, dossier_id, candidate)

    def _quantile(self, column: str, q: float, where: str = "") -> str:
        filt = f" FILTER (WHERE {where})" if where else ""
        if is_postgres(self.con):
            return f"percentile_cont({q}) WITHIN GROUP (ORDER BY {column}){filt}"
        return f"quantile_cont({column}, {q}){filt}"

    def aggregates(self, dossier_id: str, candidate: str) -> FeedAggregates:
        """The candidate's feed summed for the monitoring stage (``governance.monitoring.status``)."""
        key = [dossier_id, candidate]
        where = "dossier_id = ? AND candidate = ?"
        reviewed = "outcome <> 'not_reviewed'"
        months_sql = (
            "SELECT month, count(*), count(*) FILTER (WHERE " + reviewed + "), "
            "count(*) FILTER (WHERE outcome IN ('minor_edit', 'material_correction')), "
            "count(*) FILTER (WHERE outcome = 'material_correction'), "
            "count(*) FILTER (WHERE outcome = 'discarded'), "
            "count(*) FILTER (WHERE audited), "
            "count(*) FILTER (WHERE audited AND audit_verdict = 'material'), "
            "count(*) FILTER (WHERE error), count(error), sum(cost_usd), count(cost_usd), "
            + self._quantile("latency_ms", 0.95)
            + ", count(latency_ms), "
            + self._quantile("review_seconds", 0.5, reviewed)
            + ", count(review_seconds) FILTER (WHERE "
            + reviewed
            + "), count(*) FILTER (WHERE sentinel), "
            "count(*) FILTER (WHERE sentinel AND outcome IN ('material_correction', 'discarded')), min(ts) "
            f"FROM {AUDITED_FEED} AS feed WHERE {where} GROUP BY month ORDER BY month"
        )

        def by_month(con: Any) -> tuple[list[MonthCounts], bool, list]:  # and the CUSUM's series
            names = list(MonthCounts.model_fields)
            found = con.execute(months_sql, key).fetchall()
            months = [MonthCounts(**dict(zip(names, r, strict=True))) for r in found]
            audits = any(m.audited for m in months)
            series = con.execute(
                "SELECT ts, CASE WHEN audit_verdict = 'material' THEN 1 ELSE 0 END "
                f"FROM {AUDITED_FEED} AS feed WHERE {where} AND audited ORDER BY ts, row_key"
                if audits else
                "SELECT ts, CASE WHEN outcome = 'material_correction' THEN 1 ELSE 0 END FROM monitoring_feed "
                f"WHERE {where} AND {reviewed} ORDER BY ts, row_key",
                key,
            ).fetchall()
            return months, audits, series

        def by_identity(con: Any) -> tuple[list, list, list]:  # and the judge's scores, the daily latency
            # one scan for the three identities and the totals (four queries before: 0.74 -> 0.42 s of server
            # CPU at 1M rows on PostgreSQL); GROUPING() tells a NULL severity from the set that sums all rows
            grouped = con.execute(
                f"SELECT GROUPING({_SEEN[0]}), GROUPING({_SEEN[1]}), GROUPING({_SEEN[2]}), "
                f"{', '.join(_SEEN)}, count(*), min(ts), max(ts) FROM monitoring_feed WHERE {where} "
                f"GROUP BY GROUPING SETS (({_SEEN[0]}), ({_SEEN[1]}), ({_SEEN[2]}), ())",
                key,
            ).fetchall()
            judged = con.execute(
                f"SELECT ts, judge_score FROM monitoring_feed WHERE {where} "
                "AND judge_score IS NOT NULL ORDER BY ts, row_key",
                key,
            ).fetchall()
            daily = con.execute(
                "SELECT CAST(ts AT TIME ZONE 'UTC' AS DATE) AS day, avg(latency_ms) FROM monitoring_feed "
                f"WHERE {where} AND latency_ms IS NOT NULL GROUP BY day ORDER BY day",
                key,
            ).fetchall()
            return grouped, judged, daily

        def by_tag(con: Any) -> list:
            return con.execute(TAGS_SQL, key).fetchall()

        # three readers side by side on PostgreSQL (``store_seals.side_by_side``), one after another on DuckDB
        (month_rows, has_audits, series), (grouped, judged, daily), tags = side_by_side(
            self.con, by_month, by_identity, by_tag)
        total, first, last = next((r[6:] for r in grouped if all(r[:3])), (0, None, None))

        def seen(column: str) -> list[IdentitySeen]:
            i = _SEEN.index(column)
            rows = sorted((r for r in grouped if not r[i]), key=lambda r: r[7])  # by first seen
            return [IdentitySeen(value=r[3 + i], n=int(r[6]), first_seen=r[7], last_seen=r[8]) for r in rows]

        return FeedAggregates(
            candidate=candidate,
            rows=int(total),
            first_timestamp=first,
            last_timestamp=last,
            months=month_rows,
            served_models=seen("served_model"),
            prompt_versions=seen("prompt_version"),
            severities=[s for s in seen("severity") if s.value is not None],
            tags=[
                TagCount(tag=t, value=v, n=int(n), audited=int(a), audit_material=int(m), first_seen=s)
                for t, v, n, a, m, s in tags
            ],
            correction_series=[int(x) for _, x in series],
            correction_times=[t for t, _ in series],
            correction_source="audit" if has_audits else "outcome",
            judge_scores=[float(x) for _, x in judged],
            judge_times=[t for t, _ in judged],
            latency_daily_means=[float(m) for _, m in daily],
            latency_days=[datetime(d.year, d.month, d.day, tzinfo=UTC) for d, _ in daily],
        )

    def add_audit_verdicts(
        self, dossier_id: str, candidate: str, queue_id: str, verdicts: dict[str, str], at: datetime
    ) -> int:
        """Store a closed queue's verdict per feed row key once; returns how many were new."""
        known = {
            r[0]
            for r in self.con.execute(
                "SELECT row_key FROM monitoring_audit_verdicts WHERE dossier_id = ? AND candidate = ? "
                "AND queue_id = ?",
                [dossier_id, candidate, queue_id],
            ).fetchall()
        }
        new = [
            (dossier_id, candidate, k, queue_id, v, at) for k, v in sorted(verdicts.items()) if k not in known
        ]
        if new:
            self.con.execute("BEGIN TRANSACTION")
            try:
                self.con.executemany("INSERT INTO monitoring_audit_verdicts VALUES (?, ?, ?, ?, ?, ?)", new)
                seal_verdicts(self.con, dossier_id, candidate, queue_id, at)
                self.con.execute("COMMIT")
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
        return len(new)

    def audit_verdict_rows(self, dossier_id: str) -> list[tuple[str, str, str, str]]:
        """(candidate, row key, queue id, verdict) of the dossier's stored queue verdicts."""
        return [
            tuple(r)
            for r in self.con.execute(
                "SELECT candidate, row_key, queue_id, verdict FROM monitoring_audit_verdicts "
                "WHERE dossier_id = ? ORDER BY candidate, row_key, queue_id",
                [dossier_id],
            ).fetchall()
        ]

    def review_rows(
        self, dossier_id: str, candidate: str, month: str | None = None
    ) -> tuple[list[tuple[str, str, dict[str, str]]], int]:
        """(row key, text, tags) of the candidate's rows with output text (of one month), and how many
        rows had none (they cannot be rated)."""
        where = "f.dossier_id = ? AND f.candidate = ?" + (" AND f.month = ?" if month else "")
        key = [dossier_id, candidate] + ([month] if month else [])
        rows = self.con.execute(
            f"SELECT f.row_key, f.text FROM monitoring_feed f WHERE {where} "
            "AND f.text IS NOT NULL AND trim(f.text) <> '' ORDER BY f.row_key",
            key,
        ).fetchall()
        skipped = self.con.execute(
            f"SELECT count(*) FROM monitoring_feed f WHERE {where} AND (f.text IS NULL OR trim(f.text) = '')",
            key,
        ).fetchone()[0]
        tags: dict[str, dict[str, str]] = {}
        for k, t, v in self.con.execute(
            "SELECT t.row_key, t.tag, t.value FROM monitoring_feed_tags t JOIN monitoring_feed f "
            "ON f.dossier_id = t.dossier_id AND f.candidate = t.candidate AND f.row_key = t.row_key "
            f"WHERE {where} AND f.text IS NOT NULL",
            key,
        ).fetchall():
            tags.setdefault(k, {})[t] = v
        return [(k, text, tags.get(k, {})) for k, text in rows], int(skipped)

    BLINDED_COLUMNS = (
        "row_key, ts, month, served_model, prompt_version, outcome, latency_ms, error, tokens_in, "
        "tokens_out, cost_usd, review_seconds, audited, audit_verdict, judge_score, sentinel, severity"
    )
    """The feed's columns without the reviewer and the free text (a blinded export)."""

    def blinded_rows(self, dossier_id: str, candidate: str, batch: int = 10_000):
        """The candidate's rows in time order without reviewer or free text: (column names, row batches)."""
        cur = self.con.execute(
            f"SELECT {self.BLINDED_COLUMNS} FROM monitoring_feed WHERE dossier_id = ? AND candidate = ? "
            "ORDER BY ts, row_key",
            [dossier_id, candidate],
        )
        names = [c.strip() for c in self.BLINDED_COLUMNS.split(",")]

        def batches():
            while chunk := cur.fetchmany(batch):
                yield chunk

        return names, batches()

    def text_examples(self, dossier_id: str, candidate: str, limit: int = 20) -> list[tuple[str, str]]:
        """(row key, free text) of outputs with text, materially corrected first (for masked examples)."""
        return [
            (k, t)
            for k, t in self.con.execute(
                "SELECT row_key, text FROM monitoring_feed "
                "WHERE dossier_id = ? AND candidate = ? AND text IS NOT NULL "
                "ORDER BY CASE WHEN outcome = 'material_correction' OR audit_verdict = 'material' "
                "THEN 0 ELSE 1 END, "
                "ts LIMIT ?",
                [dossier_id, candidate, limit],
            ).fetchall()
        ]


__all__ = ["FeedError", "ImportCounts", "MonitoringFeedStore"]
