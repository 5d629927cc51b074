"""Two raters recording at the same moment on PostgreSQL: every rating keeps its own seal.

Each rating's seal row is numbered from the queue's ratings head, read in the writer's transaction. Two
processes (here: two stores on their own connections, in two threads) that read the same head would both
write rating n + 1, the second overwriting the first, and ``verify`` would name a rating "added outside
MedAssure" that was recorded through the product. Writers of one queue therefore queue on a
transaction-scoped advisory lock before they read the head.
"""

from __future__ import annotations

import threading

import pytest

from governance.dossier.store import Store
from governance.identity import Actor
from governance.monitoring.operations.feed import import_feed
from governance.review.operations.create import create_queue_from_feed
from governance.review.operations.queues import rater_view, record_rating
from governance.review.seals import queue_seal_breaks
from tests.governance.monitoring_fixtures import NOW, decided_dossier, feed_rows, write_csv

pytestmark = pytest.mark.postgres


def test_two_raters_writing_at_once_leave_every_rating_sealed(pg_url, tmp_path):
    raters = ["dr.a", "dr.b"]
    setup = Store.open_url(pg_url)
    try:
        dossier_id = setup.save(decided_dossier(), author="chair").dossier.id
        rows = feed_rows(60)
        for i, row in enumerate(rows):
            row["text"] = f"Take {i + 1} mg daily."
        import_feed(setup, dossier_id, write_csv(tmp_path / "f.csv", rows), actor=Actor.named("qa"), now=NOW)
        queue, _ = create_queue_from_feed(setup, dossier_id, 60, raters, seed=3, actor=Actor.named("ed"))
    finally:
        setup.close()

    start = threading.Barrier(len(raters))
    errors: list[BaseException] = []

    def rate(rater: str) -> None:
        store = Store.open_url(pg_url)  # a process of its own would have its own connection, as here
        try:
            who = Actor.named(rater)
            items = rater_view(store, queue.queue_id, actor=who).items
            start.wait()
            for item in items:
                record_rating(store, queue.queue_id, item.item_id, {"verdict": "correct"}, actor=who)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=rate, args=(r,)) for r in raters]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors

    check = Store.open_url(pg_url)
    try:
        rated = check.reviews.ratings(queue.queue_id)
        assert len(rated) == 60
        breaks, _ = queue_seal_breaks(check, queue.queue_id)
        assert [b.problem for b in breaks] == []
    finally:
        check.close()
