"""The review store on both backends (DuckDB and a real PostgreSQL server): stored as given, once per
(queue, item, rater), events in order; and the PostgreSQL app role may add and read review rows only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from governance.review.records import QueueEvent, QueueItem, Rating, ReviewQueue
from governance.review.rubric import AUDIT
from tests.governance.dossier.test_pg_roles import _set_up, roles  # noqa: F401 - the roles fixture

T0 = datetime(2026, 12, 1, 12, tzinfo=UTC)


def queue(qid="rq-0000000001", dossier_id="D-1") -> ReviewQueue:
    return ReviewQueue(
        queue_id=qid,
        run_id="run-x",
        benchmark_id="calc_builtin",
        model="m",
        dossier_id=dossier_id,
        rubric=AUDIT,
        raters=("a", "b"),
        n_items=2,
        n_double=1,
        n_sentinels=1,
        seed=1,
        created_by="ed",
        created_at=T0,
    )


def items() -> list[QueueItem]:
    return [
        QueueItem(
            item_id=f"it-{k}",
            instance_id=f"i{k}",
            question="q?",
            output=f"out {k}",
            sentinel="number" if k == 2 else None,
            double=k == 0,
        )
        for k in range(3)
    ]


def rating(item, rater, verdict, minutes=0) -> Rating:
    return Rating(
        queue_id="rq-0000000001",
        item_id=item,
        rater=rater,
        scores={"verdict": verdict},
        recorded_by=rater,
        rated_at=T0 + timedelta(minutes=minutes),
    )


def test_queue_items_orders_ratings_and_events_round_trip(any_store):
    reviews = any_store.reviews
    reviews.create(queue(), items(), {"a": ["it-2", "it-0", "it-1"], "b": ["it-0", "it-2"]})
    reviews.create(queue("rq-0000000002", "D-2"), [], {})
    assert reviews.get("rq-0000000001") == queue() and reviews.get("rq-nope") is None
    assert [q.queue_id for q in reviews.list_queues("D-1")] == ["rq-0000000001"]
    assert len(reviews.list_queues()) == 2
    assert reviews.items("rq-0000000001")["it-2"].sentinel == "number"
    assert reviews.order("rq-0000000001", "a") == ["it-2", "it-0", "it-1"]
    assert reviews.add_ratings([rating("it-2", "a", "material"), rating("it-0", "a", "correct", 1)]) == 2
    # the same (queue, item, rater) again: kept as first given, counted once
    assert reviews.add_ratings([rating("it-2", "a", "correct", 2), rating("it-0", "b", "minor", 3)]) == 1
    got = reviews.ratings("rq-0000000001")
    assert [(r.item_id, r.rater, r.scores["verdict"]) for r in got] == [
        ("it-2", "a", "material"),
        ("it-0", "a", "correct"),
        ("it-0", "b", "minor"),
    ]
    assert [r.item_id for r in reviews.ratings("rq-0000000001", "b")] == ["it-0"]
    reviews.add_event("rq-0000000001", QueueEvent(kind="rater_removed", rater="b", by="ed", at=T0))
    reviews.add_event("rq-0000000001", QueueEvent(kind="closed", by="ed", at=T0))
    assert [e.kind for e in reviews.events("rq-0000000001")] == ["rater_removed", "closed"]


def test_a_queue_is_stored_all_or_nothing(any_store):
    reviews = any_store.reviews
    twice = [*items(), items()[0]]  # a duplicate item id fails the key: nothing of the queue remains
    with pytest.raises(Exception):  # noqa: B017, PT011 - either backend's integrity error
        reviews.create(queue(), twice, {})
    assert reviews.get("rq-0000000001") is None and reviews.items("rq-0000000001") == {}


@pytest.mark.postgres
def test_the_app_role_adds_and_reads_review_rows_and_changes_none(roles, monkeypatch, capsys):  # noqa: F811
    import psycopg

    from governance.dossier.store import Store
    from governance.review.store import TABLES

    owner_url, app_url, _, app_role = roles
    report = _set_up(owner_url, app_role, monkeypatch, capsys)  # db-roles creates every component's tables
    assert set(TABLES) <= set(report["insert_select"])
    store = Store.open_url(app_url)
    try:
        store.reviews.create(queue(), items(), {"a": ["it-0"]})
        assert store.reviews.add_ratings([rating("it-0", "a", "correct")]) == 1
        assert store.reviews.add_ratings([rating("it-0", "a", "minor")]) == 0
        basis = f"{store.reviews.seal_mark('rq-0000000001')}|-"
        store.reviews.add_agreement("rq-0000000001", basis, {"clinician_clinician": {"n": 0}})
        assert store.reviews.agreement("rq-0000000001", basis) == {"clinician_clinician": {"n": 0}}
    finally:
        store.close()
    with psycopg.connect(app_url, autocommit=True) as con:
        for sql in ("UPDATE review_ratings SET content = '{}'", "DELETE FROM review_events"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                con.execute(sql)


def test_a_closed_queues_agreement_is_kept_once_per_basis_and_its_mac_checked(any_store):
    """``review_agreements`` (migration 2): kept as given, a second one on the same basis not stored, a row
    edited behind the product's back read as none (so it is recomputed, never shown)."""
    reviews = any_store.reviews
    reviews.create(queue(), items(), {"a": ["it-0"]})
    mark = reviews.seal_mark("rq-0000000001")
    assert mark and reviews.agreement("rq-0000000001", f"{mark}|-") is None
    reviews.add_agreement("rq-0000000001", f"{mark}|-", {"clinician_clinician": {"value": 0.5, "n": 6}})
    reviews.add_agreement("rq-0000000001", f"{mark}|-", {"clinician_clinician": {"value": 0.9, "n": 6}})
    assert reviews.agreement("rq-0000000001", f"{mark}|-") == {"clinician_clinician": {"value": 0.5, "n": 6}}
    assert reviews.agreement("rq-0000000001", f"{mark}|jury-1") is None
    reviews.add_ratings([rating("it-0", "a", "correct")])
    assert reviews.seal_mark("rq-0000000001") != mark  # a write of the queue asks for a fresh computation
    any_store.cursor().execute("UPDATE review_agreements SET content = replace(content, '0.5', '0.8')")
    assert reviews.agreement("rq-0000000001", f"{mark}|-") is None
