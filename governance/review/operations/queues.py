"""Review queues in the operations: rate, skip, close, remove a rater (creating one: ``review_create``).

Why here and shaped so: every operation here takes the store, so the rating page, the ``medassure review``
commands and the demo call these same functions, and each write passes the one authorization check
(``authorize.require``): an *editor* creates, imports, exports and closes a queue; a *rater* rates, and
only the items of their own queue (the signed-in identity's subject or name must be one of the
queue's raters). The pure parts (sample, sentinels, orders, catch rates) are ``governance.review``;
sheets (the offline path) are ``governance.review.operations.sheets``.

Blinding is enforced here, not in the page: ``rater_view`` returns ``ItemView``s (no model, no score,
no other rating, no sentinel flag), the rater's catch rate only once they have rated all their
items, and ``queue_status`` gives agreement only once the queue is closed (every rater done, or
``close_queue``). A closed queue is frozen; a removed rater keeps their ratings, flagged.

Creating a queue (from a run or from the monitoring feed) is ``governance.review.operations.create``.
Production outputs are the other source: ``create_queue_from_feed`` samples the monitoring feed's rows
that carry text (the same sampling, sentinels and orders as a run's, ``_assemble``), on the audit
verdict; once such a queue closes, ``flow_verdicts`` stores its verdicts beside the feed (never editing a
feed row), and the monitoring aggregates count them as audits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, PrivateAttr

from governance.dossier.storage import DossierStorage
from governance.identity.actor import Actor
from governance.identity.identity import Identity
from governance.identity.operations.authorize import require
from governance.review.measures import CatchRate, catch_rate, clinician_frame, rubber_stamp_flags
from governance.review.operations.agreement import queue_agreement
from governance.review.records import (
    AUDIT_VERDICTS,
    ItemView,
    QueueEvent,
    QueueItem,
    Rating,
    ReviewQueue,
)

BLINDING = (
    "Raters saw neither the model, nor the jury's or another rater's scores, nor which items were "
    "planted; each had their own random order."
)

class ReviewError(ValueError):
    """A review operation refused as asked, with a one-line message; nothing was stored."""


def get_queue(store: DossierStorage, queue_id: str) -> ReviewQueue:
    """The queue, or ``ReviewError`` naming the unknown id."""
    queue = store.reviews.get(queue_id)
    if queue is None:
        raise ReviewError(f"no review queue {queue_id!r} (`medassure review create` prints the queue_id)")
    return queue


def removed_raters(store: DossierStorage, queue_id: str) -> set[str]:
    """Raters removed from the queue (their ratings are kept, flagged)."""
    return {e.rater for e in store.reviews.events(queue_id) if e.kind == "rater_removed"}


def is_closed(store: DossierStorage, queue: ReviewQueue) -> bool:
    """Closed by an editor, or every (remaining) rater has rated or skipped all their items."""
    reviews = store.reviews
    events = reviews.events(queue.queue_id)  # a handful of rows: a close, removed raters
    if any(e.kind == "closed" for e in events):
        return True
    gone = {e.rater for e in events if e.kind == "rater_removed"}
    active = [r for r in queue.raters if r not in gone]
    return bool(active) and reviews.unrated(queue.queue_id, active) == 0  # counted in SQL, no rating parsed


def rater_of(queue: ReviewQueue, who: Identity | None) -> str:
    """The queue rater the identity is (its subject or its name); ``ReviewError`` when it is none."""
    if who is None:
        raise ReviewError("Nobody is signed in: sign in to rate.")
    for name in (who.subject, who.name):
        if name in queue.raters:
            return name
    raise ReviewError(f"{who.name} is not a rater of queue {queue.queue_id}: raters see only their own queue")


class RaterView(BaseModel):
    """What the rating page shows one rater: their next item (blinded), progress, their catch rate once done.

    Read so a rerun of the page costs the same on a queue of 400 items as on one of 16,000: counts and ids
    come from the store, and only the next item's text is read. ``items`` (every one of the rater's items,
    for the demo, a notebook or a test walking them all) is read on first use.
    """

    queue_id: str
    """The queue."""
    rater: str
    """Whose view."""
    rubric_kind: str
    """``jury``, ``audit`` or ``criteria`` (met / not met per criterion of each item's ``criteria``)."""
    criteria: tuple[str, ...]
    """What to answer."""
    questions: dict[str, str]
    """Guiding question per criterion."""
    scale: tuple[int, int]
    """The jury scale."""
    total: int
    """How many items the rater has."""
    next_item: ItemView | None
    """The first item in their order not yet rated or skipped."""
    done: list[str]
    """Item ids rated or skipped."""
    closed: bool
    """The queue is closed (frozen)."""
    removed: bool
    """The rater was removed from the queue."""
    catch_rate: CatchRate | None
    """Only once the rater has rated all their items."""
    _items: Callable[[], list[ItemView]] | None = PrivateAttr(default=None)
    _loaded: list[ItemView] | None = PrivateAttr(default=None)

    @property
    def items(self) -> Sequence[ItemView]:
        """The rater's items in their own order (read from the store on first use; ``len`` reads nothing)."""
        return _Items(self)


class _Items(Sequence[ItemView]):
    """A rater view's items: their count known, their text read once, when first indexed or walked."""

    def __init__(self, view: RaterView) -> None:
        self._view = view

    def _all(self) -> list[ItemView]:
        view = self._view
        if view._loaded is None:
            view._loaded = view._items() if view._items is not None else []
        return view._loaded

    def __len__(self) -> int:
        return self._view.total

    def __getitem__(self, k):  # type: ignore[override]
        return self._all()[k]

    def __iter__(self) -> Iterator[ItemView]:
        return iter(self._all())


def _item_view(k: int, item: QueueItem) -> ItemView:
    return ItemView(item_id=item.item_id, position=k, context=item.context, question=item.question,
                    output=item.output, criteria=item.criteria)


def rater_view(
    store: DossierStorage, queue_id: str, *, actor: Actor
) -> RaterView:
    """The signed-in rater's blinded view of their queue.

    Raises:
        PermissionDenied: the identity lacks the ``rater`` role on the queue's dossier.
        ReviewError: unknown queue, or the identity is not one of its raters.
    """
    queue = get_queue(store, queue_id)
    who = actor.identity
    require(who, "rater", "rate outputs", queue.dossier_id)
    rater = rater_of(queue, who)
    reviews = store.reviews
    total = reviews.assigned(queue_id, rater)
    done = reviews.rated_ids(queue_id, rater)
    following = reviews.assigned_items(queue_id, rater, unrated_first=True)
    rate = None
    if not following:  # finished: their catch rate, on their own items and ratings
        mine = reviews.ratings(queue_id, rater)
        own = reviews.assigned_items(queue_id, rater)
        sentinels = {it.item_id for _, it in own if it.sentinel is not None}
        rate = catch_rate(mine, sentinels, queue.rubric, queue.catch_bar)
    view = RaterView(
        queue_id=queue_id,
        rater=rater,
        rubric_kind=queue.rubric.kind,
        criteria=queue.rubric.criteria,
        questions=queue.rubric.questions,
        scale=(queue.rubric.scale_min, queue.rubric.scale_max),
        total=total,
        next_item=_item_view(*following[0]) if following else None,
        done=done,
        closed=is_closed(store, queue),
        removed=rater in removed_raters(store, queue_id),
        catch_rate=rate,
    )
    view._items = lambda: [_item_view(k, it) for k, it in reviews.assigned_items(queue_id, rater)]
    return view


def my_queues(
    store: DossierStorage, *, actor: Actor
) -> list[ReviewQueue]:
    """Queues the identity is a rater of (newest first)."""
    who = actor.identity
    if who is None:
        return []
    return [q for q in store.reviews.list_queues() if who.subject in q.raters or who.name in q.raters]


def _check_writable(store: DossierStorage, queue: ReviewQueue, rater: str) -> None:
    if is_closed(store, queue):
        raise ReviewError(f"queue {queue.queue_id} is closed: its ratings are frozen")
    if rater in removed_raters(store, queue.queue_id):
        raise ReviewError(
            f"{rater} was removed from queue {queue.queue_id}: their ratings are kept, no new ones"
        )


def record_rating(
    store: DossierStorage,
    queue_id: str,
    item_id: str,
    scores: dict[str, Any] | None = None,
    *,
    skipped: str = "",
    seconds: float | None = None,
    actor: Actor,
) -> bool:
    """Store the signed-in rater's rating (or skip with a reason) of one of their items, once.

    Returns True when stored now, False when this rater had already rated the item (a reload or a second
    tab: nothing is counted twice; the first rating stands as given).

    Raises:
        PermissionDenied: no ``rater`` role. ReviewError: not their item, outside the rubric, no reason
            for a skip, a closed queue or a removed rater.
    """
    queue = get_queue(store, queue_id)
    who, auth = actor.identity, actor.identity_label
    require(who, "rater", "rate outputs", queue.dossier_id)
    rater = rater_of(queue, who)
    if not store.reviews.is_assigned(queue_id, rater, item_id):  # one row, not the rater's order
        raise ReviewError(f"item {item_id!r} is not one of {rater}'s items in queue {queue_id}")
    _check_writable(store, queue, rater)
    scores = dict(scores or {})
    if skipped:
        if len(skipped.strip()) < 3:
            raise ReviewError("say why the item is skipped (at least 3 characters)")
        scores = {}
    elif (problem := queue.rubric.problem(scores, _item_criteria(store, queue, item_id))) is not None:
        raise ReviewError(f"item {item_id}: {problem}")
    rating = Rating(
        queue_id=queue_id,
        item_id=item_id,
        rater=rater,
        scores=scores,
        skipped=skipped.strip(),
        seconds=seconds,
        recorded_by=who.name,
        recorded_auth=auth,
        via="app",
        rated_at=datetime.now(UTC),
    )
    added = store.reviews.add_ratings([rating]) == 1
    settle(store, queue)
    return added


def _item_criteria(store: DossierStorage, queue: ReviewQueue, item_id: str) -> tuple[str, ...]:
    """A criteria queue's item criteria (one row read); nothing for the other rubrics."""
    if queue.rubric.kind != "criteria":
        return ()
    item = store.reviews.item(queue.queue_id, item_id)
    return item.criteria if item is not None else ()


def audit_verdicts(store: DossierStorage, queue_id: str) -> dict[str, str]:
    """A closed audit queue's verdicts per instance (for a production queue: per feed row key).

    Real outputs only; where two raters gave different verdicts the worse one stands (``material`` over
    ``minor`` over ``correct``). An instance in the result was ``audited``.

    Raises:
        ReviewError: unknown or open queue, or a queue on the jury rubric.
    """
    queue = get_queue(store, queue_id)
    if not is_closed(store, queue) or queue.rubric.kind != "audit":
        raise ReviewError(f"queue {queue_id} is not a closed audit-verdict queue")
    frame = clinician_frame(queue, store.reviews.items(queue_id), store.reviews.ratings(queue_id))
    out: dict[str, str] = {}
    for row in frame.itertuples():
        out[row.instance_id] = max(
            out.get(row.instance_id, "correct"), row.audit_verdict, key=AUDIT_VERDICTS.index
        )
    return out


def flow_verdicts(store: DossierStorage, queue: ReviewQueue) -> int:
    """A closed production queue's verdicts into the monitoring feed's audits, once; rows added.

    Called where a queue can close (an editor's close, the last rating, the last imported sheet);
    nothing happens for an open queue, a run queue or a jury-rubric queue.
    """
    if queue.source != "production" or queue.rubric.kind != "audit" or queue.candidate is None:
        return 0
    if queue.dossier_id is None or not is_closed(store, queue):
        return 0
    verdicts = audit_verdicts(store, queue.queue_id)
    return store.monitoring.add_audit_verdicts(
        queue.dossier_id, queue.candidate, queue.queue_id, verdicts, datetime.now(UTC)
    )


def settle(store: DossierStorage, queue: ReviewQueue) -> None:
    """What a queue leaves once it closes: a production queue's verdicts beside the feed, a jury-rubric
    queue's agreement (kept, so pages read it). Called where a queue can close; nothing for an open one."""
    flow_verdicts(store, queue)
    if queue.rubric.kind == "jury" and is_closed(store, queue):
        queue_agreement(store, queue)


def close_queue(
    store: DossierStorage,
    queue_id: str,
    *,
    actor: Actor,
    note: str = "",
) -> bool:
    """Close the queue (freeze its ratings); False when it was already closed by an editor."""
    queue = get_queue(store, queue_id)
    who, auth = actor.identity, actor.identity_label
    require(who, "editor", "close a review queue", queue.dossier_id)
    if any(e.kind == "closed" for e in store.reviews.events(queue_id)):
        return False
    store.reviews.add_event(
        queue_id, QueueEvent(kind="closed", by=actor.name, auth=auth, at=datetime.now(UTC), note=note)
    )
    store.audit(actor.name, "review queue closed", queue.dossier_id, {"queue_id": queue_id},
                auth=auth or None)
    settle(store, queue)
    return True


def remove_rater(
    store: DossierStorage,
    queue_id: str,
    rater: str,
    *,
    actor: Actor,
    note: str = "",
) -> None:
    """Remove a rater from the queue: their ratings are kept and flagged, they rate no more."""
    queue = get_queue(store, queue_id)
    who, auth = actor.identity, actor.identity_label
    require(who, "editor", "remove a rater from a review queue", queue.dossier_id)
    if rater not in queue.raters:
        raise ReviewError(f"{rater!r} is not a rater of queue {queue_id}")
    if is_closed(store, queue):
        raise ReviewError(f"queue {queue_id} is closed: it is frozen")
    store.reviews.add_event(
        queue_id,
        QueueEvent(kind="rater_removed", rater=rater, by=actor.name, auth=auth, at=datetime.now(UTC),
                   note=note),
    )


def rater_flags(ratings: list[Rating]) -> list[str]:
    """Rubber-stamping flags of one rater's ratings (``governance.review.measures``)."""
    return rubber_stamp_flags(ratings)
