"""The review-queue tables: queues, items, each rater's assignments, ratings and queue events.

Why append-only and shaped so: a rating is stored as given, once per (queue, item, rater): the
primary key and ``INSERT ... ON CONFLICT DO NOTHING`` make a reload, a second tab or a re-imported
sheet a no-op rather than a second count, and no row is ever updated, so the PostgreSQL app role
needs no ``UPDATE`` here (``evaluator.storage.pg_roles`` grants ``SELECT, INSERT``). A queue's state
(closed, a rater removed) is a row of ``review_events``, never an edit of the queue. Records are
JSON text (VARCHAR, the same on DuckDB and PostgreSQL) validated back into the pydantic models of
``review_records``; the columns beside them are what queries select on.

Migrations: component ``review`` (both backends); ``review-postgresql`` is reserved for PostgreSQL-only
statements and empty so far.
"""

from __future__ import annotations

from typing import Any

from evaluator.storage.db import apply_migrations, is_postgres
from governance.review.records import QueueEvent, QueueItem, Rating, ReviewQueue

MIGRATIONS = [
    """
    CREATE TABLE review_queues (
        queue_id VARCHAR PRIMARY KEY, dossier_id VARCHAR, run_id VARCHAR, created_at TIMESTAMPTZ NOT NULL,
        content VARCHAR NOT NULL
    );
    CREATE TABLE review_items (
        queue_id VARCHAR NOT NULL, item_id VARCHAR NOT NULL, content VARCHAR NOT NULL,
        PRIMARY KEY (queue_id, item_id)
    );
    CREATE TABLE review_assignments (
        queue_id VARCHAR NOT NULL, rater VARCHAR NOT NULL, item_id VARCHAR NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (queue_id, rater, item_id)
    );
    CREATE TABLE review_ratings (
        queue_id VARCHAR NOT NULL, item_id VARCHAR NOT NULL, rater VARCHAR NOT NULL,
        rated_at TIMESTAMPTZ NOT NULL, content VARCHAR NOT NULL,
        PRIMARY KEY (queue_id, item_id, rater)
    );
    CREATE TABLE review_events (
        queue_id VARCHAR NOT NULL, event_no INTEGER NOT NULL, happened_at TIMESTAMPTZ NOT NULL,
        content VARCHAR NOT NULL,
        PRIMARY KEY (queue_id, event_no)
    );
    """,
]
PG_MIGRATIONS: list[str] = []
TABLES = ("review_queues", "review_items", "review_assignments", "review_ratings", "review_events")


class ReviewStore:
    """Review queues over the store's connection (built by ``Store.reviews``)."""

    def __init__(self, con: Any) -> None:
        self.con = con
        apply_migrations(con, "review", MIGRATIONS)
        if is_postgres(con) and PG_MIGRATIONS:
            apply_migrations(con, "review-postgresql", PG_MIGRATIONS)

    def _tx(self, statements: list[tuple[str, list[Any]]]) -> None:
        self.con.execute("BEGIN TRANSACTION")
        try:
            for sql, params in statements:
                self.con.execute(sql, params)
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            raise

    def create(self, queue: ReviewQueue, items: list[QueueItem], orders: dict[str, list[str]]) -> None:
        """Store a new queue with its items and each rater's order, all or nothing."""
        statements: list[tuple[str, list[Any]]] = [
            (
                "INSERT INTO review_queues VALUES (?, ?, ?, ?, ?)",
                [queue.queue_id, queue.dossier_id, queue.run_id, queue.created_at, queue.model_dump_json()],
            )
        ]
        statements += [
            ("INSERT INTO review_items VALUES (?, ?, ?)", [queue.queue_id, it.item_id, it.model_dump_json()])
            for it in items
        ]
        statements += [
            ("INSERT INTO review_assignments VALUES (?, ?, ?, ?)", [queue.queue_id, rater, item, k])
            for rater, order in orders.items()
            for k, item in enumerate(order, 1)
        ]
        self._tx(statements)

    def get(self, queue_id: str) -> ReviewQueue | None:
        """One queue, or None."""
        row = self.con.execute("SELECT content FROM review_queues WHERE queue_id = ?", [queue_id]).fetchone()
        return ReviewQueue.model_validate_json(row[0]) if row else None

    def list_queues(self, dossier_id: str | None = None) -> list[ReviewQueue]:
        """Queues, newest first (only the dossier's when one is named)."""
        if dossier_id is None:
            rows = self.con.execute(
                "SELECT content FROM review_queues ORDER BY created_at DESC, queue_id"
            ).fetchall()
        else:
            rows = self.con.execute(
                "SELECT content FROM review_queues WHERE dossier_id = ? ORDER BY created_at DESC, queue_id",
                [dossier_id],
            ).fetchall()
        return [ReviewQueue.model_validate_json(r[0]) for r in rows]

    def items(self, queue_id: str) -> dict[str, QueueItem]:
        """The queue's items by id."""
        rows = self.con.execute(
            "SELECT content FROM review_items WHERE queue_id = ? ORDER BY item_id", [queue_id]
        ).fetchall()
        items = [QueueItem.model_validate_json(r[0]) for r in rows]
        return {it.item_id: it for it in items}

    def order(self, queue_id: str, rater: str) -> list[str]:
        """The item ids assigned to one rater, in their own order."""
        rows = self.con.execute(
            "SELECT item_id FROM review_assignments WHERE queue_id = ? AND rater = ? ORDER BY position",
            [queue_id, rater],
        ).fetchall()
        return [r[0] for r in rows]

    def ratings(self, queue_id: str, rater: str | None = None) -> list[Rating]:
        """Stored ratings (one rater's, when named), in the order they were given."""
        sql = "SELECT content FROM review_ratings WHERE queue_id = ?"
        params: list[Any] = [queue_id]
        if rater is not None:
            sql, params = sql + " AND rater = ?", [*params, rater]
        rows = self.con.execute(sql + " ORDER BY rated_at, item_id", params).fetchall()
        return [Rating.model_validate_json(r[0]) for r in rows]

    def add_ratings(self, ratings: list[Rating]) -> int:
        """Store ratings all or nothing (one stored before per queue, item and rater is kept); count new."""
        if not ratings:
            return 0
        queue_id = ratings[0].queue_id
        before = self._count(queue_id)
        self._tx(
            [
                (
                    "INSERT INTO review_ratings VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (queue_id, item_id, rater) DO NOTHING",
                    [r.queue_id, r.item_id, r.rater, r.rated_at, r.model_dump_json()],
                )
                for r in ratings
            ]
        )
        return self._count(queue_id) - before

    def _count(self, queue_id: str) -> int:
        return int(
            self.con.execute("SELECT count(*) FROM review_ratings WHERE queue_id = ?", [queue_id]).fetchone()[
                0
            ]
        )

    def events(self, queue_id: str) -> list[QueueEvent]:
        """The queue's events in order."""
        rows = self.con.execute(
            "SELECT content FROM review_events WHERE queue_id = ? ORDER BY event_no", [queue_id]
        ).fetchall()
        return [QueueEvent.model_validate_json(r[0]) for r in rows]

    def add_event(self, queue_id: str, event: QueueEvent) -> None:
        """Append one event (its number is the next; a concurrent writer's same number fails the key)."""
        row = self.con.execute(
            "SELECT coalesce(max(event_no), 0) FROM review_events WHERE queue_id = ?", [queue_id]
        ).fetchone()
        self.con.execute(
            "INSERT INTO review_events VALUES (?, ?, ?, ?)",
            [queue_id, int(row[0]) + 1, event.at, event.model_dump_json()],
        )
