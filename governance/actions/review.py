"""Review queues at the front desk: create one from a run, rate, skip, close, remove a rater.

Why here and shaped so: every operation here takes the store, so the rating page, the ``medassure review``
commands and the demo call these same functions, and each write passes the one authorization check
(``authorize.require``): an *editor* creates, imports, exports and closes a queue; a *rater* rates, and
only the items of their own queue (the signed-in identity's subject or name must be one of the
queue's raters). The pure parts (sample, sentinels, orders, catch rates) are ``governance.review``;
sheets (the offline path) are ``governance.actions.review_sheets``.

Blinding is enforced here, not in the page: ``rater_view`` returns ``ItemView``s (no model, no score,
no other rating, no sentinel flag), the rater's catch rate only once they have rated all their
items, and ``queue_status`` gives agreement only once the queue is closed (every rater done, or
``close_queue``). A closed queue is frozen; a removed rater keeps their ratings, flagged.

Production outputs (the monitoring feed, ``moncore``) are a later source: ``create_queue_from_outputs``
takes items already in hand, so the feed needs only to hand over (instance id, context, question, output).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import BenchmarkError, get_benchmark
from evaluator.loaders import DatasetError, load_instances
from governance.actions.authorize import AS_NAMED, _AsNamed, acting, require
from governance.actions.juries import run_dataset_path
from governance.dossier.review_records import (
    CATCH_BAR,
    ItemView,
    QueueEvent,
    QueueItem,
    Rating,
    ReviewQueue,
)
from governance.dossier.storage import DossierStorage
from governance.identity.identity import Identity
from governance.review.measures import CatchRate, catch_rate, rubber_stamp_flags
from governance.review.rubric import rubric_for
from governance.review.sampling import assign, double_count, item_ids, rater_order, stratified_sample
from governance.review.sentinels import make_sentinels

BLINDING = (
    "Raters saw neither the model, nor the jury's or another rater's scores, nor which items were "
    "planted; each had their own random order."
)


class ReviewError(ValueError):
    """A review operation refused as asked, with a one-line message; nothing was stored."""


def _auth(identity: Identity | None | _AsNamed, by: str) -> tuple[Identity | None, str]:
    who = acting(identity, by)
    return who, (who.auth_label if who is not None else "")


def run_outputs(
    store: DossierStorage, run_id: str, dataset_path: str | None = None
) -> tuple[dict[str, Any], list[tuple[Instance, dict]]]:
    """A completed run and its answered instances with their result rows.

    Raises:
        ReviewError: unknown or unfinished run, or its cases cannot be read.
    """
    with store.for_thread() as db:
        run = db.runs.get_run(run_id)
        if run is None:
            raise ReviewError(f"no stored run {run_id!r} (`medassure run` prints the run_id of each run)")
        if run["status"] != "completed":
            raise ReviewError(f"run {run_id} is {run['status']}: finish it before rating its outputs")
        results = {r["instance_id"]: r for r in db.runs.results(run_id)}
        scenario = db.scenarios.version_of_run(run_id)
        instances = db.scenarios.instances(scenario.scenario_id, scenario.version) if scenario else None
    if instances is None:
        try:
            spec = get_benchmark(run["benchmark_id"])
            instances = load_instances(spec, dataset_path or run_dataset_path(store, run["run_key"]))
        except (BenchmarkError, DatasetError) as exc:
            raise ReviewError(
                f"run {run_id}: its cases cannot be read ({exc}); give the dataset file"
            ) from None
    answered = [
        (i, results[i.id])
        for i in instances
        if i.id in results
        and results[i.id]["error"] is None
        and (results[i.id]["response_text"] or "").strip()
    ]
    return run, answered


def _clean_raters(raters: Sequence[str]) -> tuple[str, ...]:
    names = tuple(r.strip() for r in raters if r.strip())
    if not names:
        raise ReviewError("name at least one rater (--raters A,B)")
    if len(set(names)) != len(names):
        raise ReviewError(f"a rater is named twice: {', '.join(names)}")
    bad = [r for r in names if len(r) > 200 or any(c in r for c in ",\n\r\t")]
    if bad:
        raise ReviewError(
            f"rater name not usable: {bad[0]!r} (no commas or line breaks, at most 200 characters)"
        )
    return names


def create_queue(
    store: DossierStorage,
    run_id: str,
    n: int,
    raters: Sequence[str],
    *,
    double: float = 0.0,
    sentinels: int = 0,
    rubric: str | None = None,
    strata: Sequence[str] | None = None,
    seed: int | None = None,
    dossier_id: str | None = None,
    written: Sequence[tuple[str, str]] = (),
    dataset_path: str | None = None,
    catch_bar: float = CATCH_BAR,
    by: str,
    identity: Identity | None | _AsNamed = AS_NAMED,
) -> ReviewQueue:
    """Create a blinded queue of ``n`` outputs of a completed run, with ``sentinels`` planted errors.

    ``written`` are editor-written sentinels ``(instance_id, faulty output)``; the rest are made by the
    documented perturbations from correct answers (outputs outside the sample first, best scored first).

    Raises:
        PermissionDenied: the identity is not an editor.
        ReviewError: bad numbers, unknown run, too few outputs, or too few sentinels could be made.
    """
    who, auth = _auth(identity, by)
    require(who, "editor", "create a review queue", dossier_id)
    names = _clean_raters(raters)
    if n < 1:
        raise ReviewError("--n must be at least 1")
    if not 0 <= double <= 1:
        raise ReviewError(f"--double must lie between 0 and 1; got {double}")
    if sentinels < 0:
        raise ReviewError("--sentinels cannot be negative")
    if dossier_id is not None:
        store.load(dossier_id)  # DossierNotFound before anything is drawn
    run, answered = run_outputs(store, run_id, dataset_path)
    if len(answered) < n:
        raise ReviewError(f"run {run_id} has {len(answered)} answered outputs; --n {n} asks for more")
    try:
        free_text = all(i.answer_type == "free_text" for i, _ in answered)
        chosen_rubric = rubric_for(run["benchmark_id"], rubric, free_text=free_text)
    except ValueError as exc:
        raise ReviewError(str(exc)) from None
    seed = secrets.randbelow(2**31) if seed is None else seed
    by_id = {i.id: (i, r) for i, r in answered}
    tag_names = (
        tuple(sorted({t for i, _ in answered for t in i.subgroups})) if strata is None else tuple(strata)
    )
    sample = stratified_sample({i.id: dict(i.subgroups) for i, _ in answered}, n, tag_names, seed)
    rest = [i for i in by_id if i not in set(sample)]
    ranked = sorted(rest, key=lambda i: -(by_id[i][1]["score"] if by_id[i][1]["score"] is not None else -1))
    ranked += sorted(
        sample, key=lambda i: -(by_id[i][1]["score"] if by_id[i][1]["score"] is not None else -1)
    )
    unknown = [i for i, _ in written if i not in by_id]
    if unknown:
        raise ReviewError(f"written sentinel for unknown instance {unknown[0]!r} of run {run_id}")
    made = [(i, "editor", text, "written by the editor") for i, text in written if text.strip()]
    made += make_sentinels([(i, by_id[i][1]["response_text"]) for i in ranked], sentinels - len(made))
    if len(made) < sentinels:
        raise ReviewError(
            f"only {len(made)} of {sentinels} sentinels could be made from run {run_id}'s answers "
            "(no number, negation or warning to change): write the others"
        )
    n_double = double_count(n, double, len(names))
    rng = random.Random(f"queue:{seed}")
    double_ids = set(rng.sample(sample, n_double))
    drafts = [(i, None, by_id[i][1]["response_text"], "", i in double_ids) for i in sample]
    drafts += [(i, kind, text, note, False) for i, kind, text, note in made]
    rng.shuffle(drafts)
    items = []
    for item_id, (iid, kind, text, note, is_double) in zip(item_ids(len(drafts), seed), drafts, strict=True):
        inst = by_id[iid][0]
        items.append(
            QueueItem(
                item_id=item_id,
                instance_id=iid,
                context=inst.context,
                question=inst.question,
                output=text,
                subgroups=dict(inst.subgroups),
                sentinel=kind,
                sentinel_note=note,
                double=is_double,
            )
        )
    real = [it.item_id for it in items if it.sentinel is None]
    doubles = [it.item_id for it in items if it.double]
    planted = [it.item_id for it in items if it.sentinel is not None]
    given = assign(real, doubles, planted, names, seed)
    orders = {r: rater_order(given[r], r, seed) for r in names}
    queue = ReviewQueue(
        queue_id=f"rq-{secrets.token_hex(5)}",
        run_id=run_id,
        benchmark_id=run["benchmark_id"],
        model=run["model"],
        dossier_id=dossier_id,
        rubric=chosen_rubric,
        raters=names,
        n_items=n,
        n_double=n_double,
        n_sentinels=len(planted),
        seed=seed,
        strata=tag_names,
        catch_bar=catch_bar,
        created_by=by,
        created_auth=auth,
        created_at=datetime.now(UTC),
    )
    store.reviews.create(queue, items, orders)
    store.audit(
        by,
        "review queue created",
        dossier_id,
        {
            "queue_id": queue.queue_id,
            "run_id": run_id,
            "n": n,
            "double": n_double,
            "sentinels": len(planted),
            "raters": list(names),
        },
        auth=auth or None,
    )
    return queue


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
    if any(e.kind == "closed" for e in store.reviews.events(queue.queue_id)):
        return True
    gone = removed_raters(store, queue.queue_id)
    done = {(r.rater, r.item_id) for r in store.reviews.ratings(queue.queue_id)}
    active = [r for r in queue.raters if r not in gone]
    return bool(active) and all(
        (r, i) in done for r in active for i in store.reviews.order(queue.queue_id, r)
    )


def rater_of(queue: ReviewQueue, who: Identity | None) -> str:
    """The queue rater the identity is (its subject or its name); ``ReviewError`` when it is none."""
    if who is None:
        raise ReviewError("Nobody is signed in: sign in to rate.")
    for name in (who.subject, who.name):
        if name in queue.raters:
            return name
    raise ReviewError(f"{who.name} is not a rater of queue {queue.queue_id}: raters see only their own queue")


class RaterView(BaseModel):
    """What the rating page shows one rater: their items (blinded), progress, their catch rate once done."""

    queue_id: str
    """The queue."""
    rater: str
    """Whose view."""
    rubric_kind: str
    """``jury`` or ``audit``."""
    criteria: tuple[str, ...]
    """What to answer."""
    questions: dict[str, str]
    """Guiding question per criterion."""
    scale: tuple[int, int]
    """The jury scale."""
    items: list[ItemView]
    """The rater's items in their own order."""
    done: list[str]
    """Item ids rated or skipped."""
    closed: bool
    """The queue is closed (frozen)."""
    removed: bool
    """The rater was removed from the queue."""
    catch_rate: CatchRate | None
    """Only once the rater has rated all their items."""

    @property
    def next_item(self) -> ItemView | None:
        """The first item not yet rated or skipped."""
        return next((it for it in self.items if it.item_id not in set(self.done)), None)


def rater_view(
    store: DossierStorage, queue_id: str, *, by: str, identity: Identity | None | _AsNamed = AS_NAMED
) -> RaterView:
    """The signed-in rater's blinded view of their queue.

    Raises:
        PermissionDenied: the identity lacks the ``rater`` role on the queue's dossier.
        ReviewError: unknown queue, or the identity is not one of its raters.
    """
    queue = get_queue(store, queue_id)
    who, _ = _auth(identity, by)
    require(who, "rater", "rate outputs", queue.dossier_id)
    rater = rater_of(queue, who)
    items = store.reviews.items(queue_id)
    order = store.reviews.order(queue_id, rater)
    mine = store.reviews.ratings(queue_id, rater)
    done = [r.item_id for r in mine]
    views = [
        ItemView(
            item_id=i,
            position=k,
            context=items[i].context,
            question=items[i].question,
            output=items[i].output,
        )
        for k, i in enumerate(order, 1)
    ]
    finished = set(order) <= set(done)
    sentinels = {i for i, it in items.items() if it.sentinel is not None}
    rate = catch_rate(mine, sentinels, queue.rubric, queue.catch_bar) if finished else None
    return RaterView(
        queue_id=queue_id,
        rater=rater,
        rubric_kind=queue.rubric.kind,
        criteria=queue.rubric.criteria,
        questions=queue.rubric.questions,
        scale=(queue.rubric.scale_min, queue.rubric.scale_max),
        items=views,
        done=done,
        closed=is_closed(store, queue),
        removed=rater in removed_raters(store, queue_id),
        catch_rate=rate,
    )


def my_queues(
    store: DossierStorage, *, by: str, identity: Identity | None | _AsNamed = AS_NAMED
) -> list[ReviewQueue]:
    """Queues the identity is a rater of (newest first)."""
    who, _ = _auth(identity, by)
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
    by: str,
    identity: Identity | None | _AsNamed = AS_NAMED,
) -> bool:
    """Store the signed-in rater's rating (or skip with a reason) of one of their items, once.

    Returns True when stored now, False when this rater had already rated the item (a reload or a second
    tab: nothing is counted twice; the first rating stands as given).

    Raises:
        PermissionDenied: no ``rater`` role. ReviewError: not their item, outside the rubric, no reason
            for a skip, a closed queue or a removed rater.
    """
    queue = get_queue(store, queue_id)
    who, auth = _auth(identity, by)
    require(who, "rater", "rate outputs", queue.dossier_id)
    rater = rater_of(queue, who)
    if item_id not in store.reviews.order(queue_id, rater):
        raise ReviewError(f"item {item_id!r} is not one of {rater}'s items in queue {queue_id}")
    _check_writable(store, queue, rater)
    scores = dict(scores or {})
    if skipped:
        if len(skipped.strip()) < 3:
            raise ReviewError("say why the item is skipped (at least 3 characters)")
        scores = {}
    elif (problem := queue.rubric.problem(scores)) is not None:
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
    return store.reviews.add_ratings([rating]) == 1


def close_queue(
    store: DossierStorage,
    queue_id: str,
    *,
    by: str,
    note: str = "",
    identity: Identity | None | _AsNamed = AS_NAMED,
) -> bool:
    """Close the queue (freeze its ratings); False when it was already closed by an editor."""
    queue = get_queue(store, queue_id)
    who, auth = _auth(identity, by)
    require(who, "editor", "close a review queue", queue.dossier_id)
    if any(e.kind == "closed" for e in store.reviews.events(queue_id)):
        return False
    store.reviews.add_event(
        queue_id, QueueEvent(kind="closed", by=by, auth=auth, at=datetime.now(UTC), note=note)
    )
    store.audit(by, "review queue closed", queue.dossier_id, {"queue_id": queue_id}, auth=auth or None)
    return True


def remove_rater(
    store: DossierStorage,
    queue_id: str,
    rater: str,
    *,
    by: str,
    note: str = "",
    identity: Identity | None | _AsNamed = AS_NAMED,
) -> None:
    """Remove a rater from the queue: their ratings are kept and flagged, they rate no more."""
    queue = get_queue(store, queue_id)
    who, auth = _auth(identity, by)
    require(who, "editor", "remove a rater from a review queue", queue.dossier_id)
    if rater not in queue.raters:
        raise ReviewError(f"{rater!r} is not a rater of queue {queue_id}")
    if is_closed(store, queue):
        raise ReviewError(f"queue {queue_id} is closed: it is frozen")
    store.reviews.add_event(
        queue_id,
        QueueEvent(kind="rater_removed", rater=rater, by=by, auth=auth, at=datetime.now(UTC), note=note),
    )


def rater_flags(ratings: list[Rating]) -> list[str]:
    """Rubber-stamping flags of one rater's ratings (``governance.review.measures``)."""
    return rubber_stamp_flags(ratings)
