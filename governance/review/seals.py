"""What a review queue's seal finds: a rating, item or event changed, added or removed behind the product.

Why here: the review store seals each queue in the transaction of every write (``ReviewStore.seal_state``:
a short hash per item, rating and event); this compares the seal with what is stored now and says it in
the committee's words ("queue rq-…: rating of rater B on item 7 altered"). ``queue_seal_check`` is the
record check ``verify`` runs for a dossier's queues (registered in ``governance/__init__.py``);
``queue_seal_breaks`` is what ``review status`` refuses on.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from governance.dossier.chain import ChainBreak

_EVENT_WORDS = {"closed": "close event", "rater_removed": "rater-removal event"}


def _utc(t: Any) -> Any:
    return t.replace(tzinfo=UTC) if t is not None and t.tzinfo is None else t


def _rating(key: str) -> str:
    item, _, rater = key.partition("|")
    return f"rating of rater {rater} on item {item}"


def queue_seal_breaks(
    store: Any, queue_id: str, created_at: Any = None
) -> tuple[list[ChainBreak], list[str]]:
    """What no longer matches the queue's seal (breaks), or a note that the queue predates sealing."""
    label = f"queue {queue_id}"
    state, problem = store.reviews.seal(queue_id)
    if problem:
        return [ChainBreak(kind="seal", problem=f"{label}: {problem}")], []
    began = store.reviews.sealing_began()
    if state is None:
        if created_at is not None and began is not None and _utc(created_at) < _utc(began) \
                and not _created_after(store, queue_id, began):
            return [], [f"{label}: not sealed (created before sealing)"]
        return [
            ChainBreak(kind="seal", problem=f"{label}: its seal is missing (removed outside MedAssure)")
        ], []
    now = store.reviews.seal_state(queue_id)
    found: list[str] = []
    if now["queue"] is None:
        found.append("the queue itself was removed")
    elif now["queue"] != state["queue"]:
        found.append("its settings (raters, model, rubric) were altered")
    kinds = (("items", lambda k: f"item {k}"), ("ratings", _rating), ("events", lambda k: f"event {k}"))
    for part, name in kinds:
        sealed, stored = state.get(part, {}), now[part]
        for key in sorted(set(sealed) | set(stored)):
            if key not in stored:
                found.append(f"{name(key)} removed")
            elif key not in sealed:
                found.append(f"{name(key)} added outside MedAssure")
            elif stored[key] != sealed[key]:
                found.append(f"{name(key)} altered")
    if now["assignments"] != state.get("assignments"):
        found.append("raters' item orders altered")
    return [ChainBreak(kind="seal", problem=f"{label}: {what}") for what in found], []


def _created_after(store: Any, queue_id: str, began: Any) -> bool:
    """Whether the dossier's chained audit log records the queue's creation at or after sealing began.

    The queue row's own ``created_at`` can be edited with the seal deleted, and the first queue of a new
    store is stamped a few milliseconds before its store creates the seal table: either read as "created
    before sealing", which let a deleted seal pass ``verify``. The audit log is covered by the chain.
    """
    queue = store.reviews.get(queue_id)
    dossier_id = getattr(queue, "dossier_id", None)
    if dossier_id is None or not hasattr(store, "audit_log"):
        return False
    return any(
        e.action == "review queue created" and e.detail.get("queue_id") == queue_id
        and _utc(e.at) >= _utc(began)
        for e in store.audit_log(dossier_id)
    )


def queue_seal_check(store: Any, dossier_id: str, content: dict) -> tuple[list[ChainBreak], list[str]]:
    """The record check ``verify`` runs: every queue of the dossier (and any sealed or logged one since
    removed)."""
    breaks: list[ChainBreak] = []
    notes: list[str] = []
    queues = {q.queue_id: q for q in store.reviews.list_queues(dossier_id)}
    gone = [
        q
        for q in store.reviews.sealed_queues()
        if q not in queues
        and store.reviews.get(q) is None
        and (store.reviews.seal(q)[0] or {}).get("dossier") == dossier_id
    ]
    # A queue removed together with its seal leaves its creation in the chained audit log
    began = store.reviews.sealing_began()
    logged = {
        e.detail.get("queue_id")
        for e in (store.audit_log(dossier_id) if began is not None and hasattr(store, "audit_log") else [])
        if e.action == "review queue created" and _utc(e.at) >= _utc(began)
    }
    gone += sorted(q for q in logged - set(queues) - set(gone) if isinstance(q, str))
    for queue_id in sorted([*queues, *gone]):
        queue = queues.get(queue_id)
        found, old = queue_seal_breaks(store, queue_id, queue.created_at if queue else None)
        breaks, notes = [*breaks, *found], [*notes, *old]
    return breaks, notes
