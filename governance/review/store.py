"""The review-queue tables: queues, items, each rater's assignments, ratings and queue events.

Why append-only and shaped so: a rating is stored as given, once per (queue, item, rater): the
primary key and ``INSERT ... ON CONFLICT DO NOTHING`` make a reload, a second tab or a re-imported
sheet a no-op rather than a second count, and no row is ever updated, so the PostgreSQL app role
needs no ``UPDATE`` here (``evaluator.storage.pg_roles`` grants ``SELECT, INSERT``). A queue's state
(closed, a rater removed) is a row of ``review_events``, never an edit of the queue. Records are
JSON text (VARCHAR, the same on DuckDB and PostgreSQL) validated back into the pydantic models of
``review_records``; the columns beside them are what queries select on.

Sealed: every write of a queue writes, in the same transaction, the queue's keyed seal in the floor's
``record_seals`` (``governance.dossier.store_seals``): a short hash of the queue row, of each item and event
and of the assignments (subject ``queue:<id>``), and, for a queue created since issue 34 item 6, one seal
row per rating (``queue-rating:<id>:<n>``: its hash, its number, the rating sealed before it) with a head
(``queue-ratings:<id>``: how many, the last), so a rating writes two small rows whatever the queue's size
instead of rehashing every row. ``verify`` names the rating changed, added or removed behind the product's
back (``governance.review.seals``); a rating removed with its seal row is named by the next one. A queue
sealed before keeps its one state (every rating's hash in it), extended by the new rows only.

Derived: a closed queue's agreement (``review_agreements``) is computed once, when the queue closes, and kept
against the seal's MAC at that time, so a page rerun reads it instead of recomputing ICCs; any later write of
the queue changes the MAC and so asks for a fresh one.

Migrations: component ``review`` (both backends); ``review-postgresql`` is reserved for PostgreSQL-only
statements and empty so far.
"""

from __future__ import annotations

import hmac
import json
from datetime import UTC, datetime
from typing import Any

from evaluator.storage.db import apply_migrations, is_postgres
from governance.dossier.chain_anchor import record_key
from governance.dossier.store_seals import (
    ensure_seal_table,
    read_seal,
    read_seals,
    row_digest,
    seal_mac,
    seal_subjects,
    sealing_began,
    write_seal,
)
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
    # 2: a closed queue's agreement, computed once (at close) and kept per state of the queue it was
    # computed on (``basis``: the queue seal's MAC and the jury compared), MACed under the record key.
    """
    CREATE TABLE review_agreements (
        queue_id VARCHAR NOT NULL, basis VARCHAR NOT NULL, computed_at TIMESTAMPTZ NOT NULL,
        content VARCHAR NOT NULL, mac VARCHAR NOT NULL,
        PRIMARY KEY (queue_id, basis)
    );
    """,
]
PG_MIGRATIONS: list[str] = []
TABLES = ("review_queues", "review_items", "review_assignments", "review_ratings", "review_events",
          "review_agreements")


def _head(queue_id: str) -> str:
    """The seal subject of a queue's ratings' head: how many are sealed, and the last one's key."""
    return f"queue-ratings:{queue_id}"


def _rating_prefix(queue_id: str) -> str:
    """The seal subjects of a queue's ratings, one each, numbered from 1 in the order sealed."""
    return f"queue-rating:{queue_id}:"


def _agreement(queue_id: str, basis: str) -> str:
    return f"agreement:{queue_id}:{basis}"


def _when(t: Any) -> Any:
    """A stored timestamp as the seal digests it (epoch seconds; the same on DuckDB and PostgreSQL)."""
    return t.timestamp() if isinstance(t, datetime) else t


QUEUE_LOCK_SPACE = 0x5251
"""First key of the PostgreSQL advisory locks that writers of one queue take (second: its id's hash).
Two raters writing at once would otherwise read the same ratings head and seal rating n + 1 twice, the
second seal overwriting the first (a rating then looks added outside MedAssure)."""


class ReviewStore:
    """Review queues over the store's connection (built by ``Store.reviews``)."""

    def __init__(self, con: Any) -> None:
        self.con = con
        apply_migrations(con, "review", MIGRATIONS)
        if is_postgres(con) and PG_MIGRATIONS:
            apply_migrations(con, "review-postgresql", PG_MIGRATIONS)
        ensure_seal_table(con)

    def _tx(self, statements: list[tuple[str, list[Any]]], queue_id: str,
            added: tuple[str, list[tuple]] | None = None, *, new: bool = False) -> None:
        """Run ``statements`` and seal what they wrote, all or nothing.

        ``added`` names the rows this write adds (``("ratings", [(item, rater), ...])`` or ``("events",
        [(event_no,), ...])``): only those are read back and digested. A queue sealed per rating (``new``
        ones since issue 34 item 6) gets one seal row per new rating and its ratings' head rewritten, so a
        rating costs the same on a queue of 100 items as on one of 16,000; a queue sealed in the first
        form has the rows' digests put into its one state. With no readable seal to extend, every row is
        digested into the first form (``seal_state``), as before.
        """
        self.con.execute("BEGIN TRANSACTION")
        try:
            if is_postgres(self.con):  # other processes may write this queue: wait before reading its head
                self.con.execute("SELECT pg_advisory_xact_lock(?, hashtext(?))", [QUEUE_LOCK_SPACE, queue_id])
            fresh = self._not_stored(queue_id, added[1]) if added and added[0] == "ratings" else []
            for sql, params in statements:
                self.con.execute(sql, params)
            at = datetime.now(UTC)
            head, problem = read_seal(self.con, _head(queue_id))
            if added and added[0] == "ratings" and head is not None and not problem:
                self._seal_ratings(queue_id, head, fresh, at)
            else:
                state = self._state_after(queue_id, added) if added else None
                if state is None:
                    state = self.seal_state(queue_id)
                    if new:  # sealed per rating from the start: the queue's state holds no rating
                        state = {k: v for k, v in state.items() if k != "ratings"} | {"form": 2}
                        write_seal(self.con, _head(queue_id), {"n": 0, "last": None}, at)
                write_seal(self.con, f"queue:{queue_id}", state, at)
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            raise

    def _not_stored(self, queue_id: str, keys: list[tuple]) -> list[tuple[str, str]]:
        """Of the (item, rater) keys, in order, those with no stored rating yet."""
        if len(keys) == 1:
            row = self.con.execute(
                "SELECT 1 FROM review_ratings WHERE queue_id = ? AND item_id = ? AND rater = ?",
                [queue_id, *keys[0]]).fetchone()
            return [] if row else [tuple(keys[0])]
        stored = {tuple(r) for r in self.con.execute(
            "SELECT item_id, rater FROM review_ratings WHERE queue_id = ?", [queue_id]).fetchall()}
        return list(dict.fromkeys(tuple(k) for k in keys if tuple(k) not in stored))

    def _seal_ratings(self, queue_id: str, head: dict, keys: list[tuple[str, str]], at: datetime) -> None:
        """One seal row per new rating (its digest, its number, the rating before it), then the head."""
        n, last = int(head["n"]), head["last"]
        for item, rater in keys:
            row = self.con.execute("SELECT rated_at, content FROM review_ratings "
                                   "WHERE queue_id = ? AND item_id = ? AND rater = ?",
                                   [queue_id, item, rater]).fetchone()
            n, key = n + 1, f"{item}|{rater}"
            write_seal(self.con, f"{_rating_prefix(queue_id)}{n}",
                       {"key": key, "digest": row_digest(_when(row[0]), row[1]), "prev": last}, at)
            last = key
        write_seal(self.con, _head(queue_id), {"n": n, "last": last}, at)

    def _state_after(self, queue_id: str, added: tuple[str, list[tuple]]) -> dict[str, Any] | None:
        """The queue's sealed state with the added rows' digests put in; None when there is no good seal of
        that shape to extend.

        Rows changed behind the product's back stay as sealed, so the next ``verify`` still names them
        (resealing every row would have made them look sealed).
        """
        state, problem = read_seal(self.con, f"queue:{queue_id}")  # the queue's own state, not its ratings'
        part, keys = added
        if state is None or problem or part not in state:
            return None
        if part == "ratings":
            # stored before (ON CONFLICT DO NOTHING): its sealed digest stands
            new = {f"{item}|{rater}" for item, rater in keys} - set(state["ratings"])
            if len(keys) == 1:  # the rating page's write: one row by its key
                rows = self.con.execute(
                    "SELECT item_id, rater, rated_at, content FROM review_ratings "
                    "WHERE queue_id = ? AND item_id = ? AND rater = ?", [queue_id, *keys[0]]).fetchall()
            else:  # a sheet's batch: one read of the queue's ratings
                rows = self.con.execute("SELECT item_id, rater, rated_at, content FROM review_ratings "
                                        "WHERE queue_id = ?", [queue_id]).fetchall()
            for item, rater, at, content in rows:
                if f"{item}|{rater}" in new:
                    state["ratings"][f"{item}|{rater}"] = row_digest(_when(at), content)
        else:
            for (number,) in keys:
                row = self.con.execute(
                    "SELECT happened_at, content FROM review_events WHERE queue_id = ? AND event_no = ?",
                    [queue_id, number]).fetchone()
                state["events"][str(number)] = row_digest(_when(row[0]), row[1])
        return state

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
        self._tx(statements, queue.queue_id, new=True)

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

    def item(self, queue_id: str, item_id: str) -> QueueItem | None:
        """One item, read alone (a criteria queue's rating checks its answers against the item's criteria)."""
        row = self.con.execute("SELECT content FROM review_items WHERE queue_id = ? AND item_id = ?",
                               [queue_id, item_id]).fetchone()
        return QueueItem.model_validate_json(row[0]) if row else None

    def order(self, queue_id: str, rater: str) -> list[str]:
        """The item ids assigned to one rater, in their own order."""
        rows = self.con.execute(
            "SELECT item_id FROM review_assignments WHERE queue_id = ? AND rater = ? ORDER BY position",
            [queue_id, rater],
        ).fetchall()
        return [r[0] for r in rows]

    def is_assigned(self, queue_id: str, rater: str, item_id: str) -> bool:
        """The item is one of the rater's."""
        return self.con.execute(
            "SELECT 1 FROM review_assignments WHERE queue_id = ? AND rater = ? AND item_id = ?",
            [queue_id, rater, item_id]).fetchone() is not None

    def assigned(self, queue_id: str, rater: str) -> int:
        """How many items are assigned to one rater."""
        row = self.con.execute("SELECT count(*) FROM review_assignments WHERE queue_id = ? AND rater = ?",
                               [queue_id, rater]).fetchone()
        return int(row[0])

    def rated_ids(self, queue_id: str, rater: str) -> list[str]:
        """The item ids one rater has rated or skipped, in the order given (no rating parsed)."""
        rows = self.con.execute("SELECT item_id FROM review_ratings WHERE queue_id = ? AND rater = ? "
                                "ORDER BY rated_at, item_id", [queue_id, rater]).fetchall()
        return [r[0] for r in rows]

    def assigned_items(self, queue_id: str, rater: str, *, unrated_first: bool = False
                       ) -> list[tuple[int, QueueItem]]:
        """One rater's items with their positions, in their order (``unrated_first``: only the first item
        they have neither rated nor skipped, read alone)."""
        sql = ("SELECT a.position, i.content FROM review_assignments a JOIN review_items i "
               "ON i.queue_id = a.queue_id AND i.item_id = a.item_id WHERE a.queue_id = ? AND a.rater = ?")
        if unrated_first:
            sql += (" AND NOT EXISTS (SELECT 1 FROM review_ratings r WHERE r.queue_id = a.queue_id "
                    "AND r.item_id = a.item_id AND r.rater = a.rater) ORDER BY a.position LIMIT 1")
        else:
            sql += " ORDER BY a.position"
        rows = self.con.execute(sql, [queue_id, rater]).fetchall()
        return [(int(k), QueueItem.model_validate_json(c)) for k, c in rows]

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
            ],
            queue_id,
            ("ratings", [(r.item_id, r.rater) for r in ratings]),
        )
        return self._count(queue_id) - before

    def _count(self, queue_id: str) -> int:
        return int(
            self.con.execute("SELECT count(*) FROM review_ratings WHERE queue_id = ?", [queue_id]).fetchone()[
                0
            ]
        )

    def unrated(self, queue_id: str, raters: list[str]) -> int:
        """How many items assigned to ``raters`` have no rating (or skip) by the rater assigned."""
        if not raters:
            return 0
        row = self.con.execute(
            "SELECT count(*) FROM review_assignments a WHERE a.queue_id = ? AND a.rater IN "
            f"({', '.join('?' * len(raters))}) AND NOT EXISTS (SELECT 1 FROM review_ratings r "
            "WHERE r.queue_id = a.queue_id AND r.item_id = a.item_id AND r.rater = a.rater)",
            [queue_id, *raters]).fetchone()
        return int(row[0])

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
        number = int(row[0]) + 1
        self._tx(
            [("INSERT INTO review_events VALUES (?, ?, ?, ?)",
              [queue_id, number, event.at, event.model_dump_json()])],
            queue_id,
            ("events", [(number,)]),
        )

    def seal_state(self, queue_id: str) -> dict[str, Any]:
        """What the queue's rows hash to now: the queue, each item, rating and event, the assignments."""
        def rows(sql: str) -> list[tuple]:
            return [tuple(r) for r in self.con.execute(sql, [queue_id]).fetchall()]

        queue = rows("SELECT created_at, content, dossier_id FROM review_queues WHERE queue_id = ?")
        return {
            "dossier": queue[0][2] if queue else None,
            "queue": row_digest(_when(queue[0][0]), queue[0][1]) if queue else None,
            "items": {i: row_digest(c) for i, c in rows(
                "SELECT item_id, content FROM review_items WHERE queue_id = ?")},
            "ratings": {f"{i}|{r}": row_digest(_when(t), c) for i, r, t, c in rows(
                "SELECT item_id, rater, rated_at, content FROM review_ratings WHERE queue_id = ?")},
            "events": {str(n): row_digest(_when(t), c) for n, t, c in rows(
                "SELECT event_no, happened_at, content FROM review_events WHERE queue_id = ?")},
            "assignments": row_digest(rows(
                "SELECT rater, item_id, position FROM review_assignments WHERE queue_id = ? "
                "ORDER BY rater, position, item_id")),
        }

    def seal_mark(self, queue_id: str) -> str | None:
        """The MACs of the queue's seal as stored (they change with every write of the queue), or None."""
        rows = self.con.execute("SELECT mac FROM record_seals WHERE subject IN (?, ?) ORDER BY subject",
                                [f"queue:{queue_id}", _head(queue_id)]).fetchall()
        return "+".join(r[0][:32] for r in rows) if rows else None

    def agreement(self, queue_id: str, basis: str) -> dict | None:
        """The agreement stored for the queue on ``basis``, or None (none stored, or its MAC is wrong)."""
        row = self.con.execute("SELECT content, mac FROM review_agreements WHERE queue_id = ? AND basis = ?",
                               [queue_id, basis]).fetchone()
        if row is None or not hmac.compare_digest(seal_mac(record_key(), _agreement(queue_id, basis), row[0]),
                                                  row[1]):
            return None
        return json.loads(row[0])

    def add_agreement(self, queue_id: str, basis: str, content: dict) -> None:
        """Keep the agreement computed on ``basis`` (a second one for the same basis is not stored)."""
        text = json.dumps(content, sort_keys=True, separators=(",", ":"))
        mac = seal_mac(record_key(), _agreement(queue_id, basis), text)
        self.con.execute(
            "INSERT INTO review_agreements VALUES (?, ?, ?, ?, ?) ON CONFLICT (queue_id, basis) DO NOTHING",
            [queue_id, basis, datetime.now(UTC), text, mac])

    def seal(self, queue_id: str) -> tuple[dict | None, str | None]:
        """The queue's sealed state, or what is wrong with its seal (both None: no seal).

        A queue sealed per rating gets its ``ratings`` from their seal rows; a rating whose seal row was
        removed is named by the next one's ``prev`` (or the head's ``last``) and given the digest
        ``"seal removed"``, so the comparison calls it altered (row kept) or removed (row gone).
        """
        state, problem = read_seal(self.con, f"queue:{queue_id}")
        if state is None or problem or state.get("form") != 2:
            return state, problem
        head, problem = read_seal(self.con, _head(queue_id))
        if problem:
            return None, f"its ratings' seal: {problem}"
        if head is None:
            return None, "its ratings' seal is missing (removed outside MedAssure)"
        prefix = _rating_prefix(queue_id)
        seals, bad = read_seals(self.con, prefix)
        if bad:
            return None, (f"the seal of its rating no. {bad[0][len(prefix):]} was altered outside MedAssure"
                          f" (or made with another record key)")
        by_number = {int(subject[len(prefix):]): s for subject, s in seals.items()}
        ratings: dict[str, str] = {}
        for n in range(1, int(head["n"]) + 1):
            if n in by_number:
                ratings[by_number[n]["key"]] = by_number[n]["digest"]
                continue
            key = by_number[n + 1]["prev"] if n + 1 in by_number else head["last"] if n == head["n"] else None
            if key is None:
                return None, f"the seals of its ratings no. {n} and {n + 1} were removed outside MedAssure"
            ratings[key] = "seal removed"
        return state | {"ratings": ratings}, None

    def sealing_began(self) -> datetime | None:
        """When this store began sealing queues."""
        return sealing_began(self.con)

    def sealed_queues(self) -> list[str]:
        """Ids of every queue that has a seal (a queue whose rows were deleted keeps its seal)."""
        return [s[len("queue:"):] for s in seal_subjects(self.con, "queue:")]
