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

Production outputs are the other source: ``create_queue_from_feed`` samples the monitoring feed's rows
that carry text (the same sampling, sentinels and orders as a run's, ``_assemble``), on the audit
verdict; once such a queue closes, ``flow_verdicts`` stores its verdicts beside the feed (never editing a
feed row), and the monitoring aggregates count them as audits.
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from pydantic import BaseModel

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import BenchmarkError, get_benchmark
from evaluator.loaders import DatasetError, load_instances
from governance.actions.authorize import AS_NAMED, _AsNamed, acting, require
from governance.actions.juries import run_dataset_path
from governance.dossier.review_records import (
    AUDIT_VERDICTS,
    CATCH_BAR,
    ItemView,
    QueueEvent,
    QueueItem,
    Rating,
    ReviewQueue,
)
from governance.dossier.storage import DossierStorage
from governance.identity.identity import Identity
from governance.review.measures import CatchRate, catch_rate, clinician_frame, rubber_stamp_flags
from governance.review.rubric import AUDIT, rubric_for
from governance.review.sampling import assign, double_count, item_ids, rater_order, stratified_sample
from governance.review.sentinels import make_sentinels

BLINDING = (
    "Raters saw neither the model, nor the jury's or another rater's scores, nor which items were "
    "planted; each had their own random order."
)

_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


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
    pool = {
        i.id: _Output(i.context, i.question, r["response_text"], dict(i.subgroups), r["score"])
        for i, r in answered
    }
    return _assemble(
        store,
        pool,
        n,
        names,
        double=double,
        sentinels=sentinels,
        strata=strata,
        seed=seed,
        written=written,
        source_name=f"run {run_id}",
        fields={
            "run_id": run_id,
            "benchmark_id": run["benchmark_id"],
            "model": run["model"],
            "dossier_id": dossier_id,
            "rubric": chosen_rubric,
            "catch_bar": catch_bar,
        },
        audit_fields={"run_id": run_id},
        by=by,
        auth=auth,
    )


class _Output(NamedTuple):
    context: str
    question: str
    output: str
    subgroups: dict[str, str]
    score: float | None


def _assemble(
    store: DossierStorage,
    pool: dict[str, _Output],
    n: int,
    names: tuple[str, ...],
    *,
    double: float,
    sentinels: int,
    strata: Sequence[str] | None,
    seed: int | None,
    written: Sequence[tuple[str, str]],
    source_name: str,
    fields: dict[str, Any],
    audit_fields: dict[str, Any],
    by: str,
    auth: str,
) -> ReviewQueue:
    """Sample, plant sentinels, assign, order and store a queue over ``pool`` (outputs by instance id)."""
    seed = secrets.randbelow(2**31) if seed is None else seed
    tag_names = (
        tuple(sorted({t for o in pool.values() for t in o.subgroups})) if strata is None else tuple(strata)
    )
    sample = stratified_sample({i: dict(o.subgroups) for i, o in pool.items()}, n, tag_names, seed)
    rest = [i for i in pool if i not in set(sample)]

    def best_first(i: str) -> float:
        return -(pool[i].score if pool[i].score is not None else -1)

    ranked = sorted(rest, key=best_first) + sorted(sample, key=best_first)
    unknown = [i for i, _ in written if i not in pool]
    if unknown:
        raise ReviewError(f"written sentinel for unknown instance {unknown[0]!r} of {source_name}")
    made = [(i, "editor", text, "written by the editor") for i, text in written if text.strip()]
    made += make_sentinels([(i, pool[i].output) for i in ranked], sentinels - len(made))
    if len(made) < sentinels:
        raise ReviewError(
            f"only {len(made)} of {sentinels} sentinels could be made from {source_name}'s outputs "
            "(no number, negation or warning to change): write the others"
        )
    n_double = double_count(n, double, len(names))
    rng = random.Random(f"queue:{seed}")
    double_ids = set(rng.sample(sample, n_double))
    drafts = [(i, None, pool[i].output, "", i in double_ids) for i in sample]
    drafts += [(i, kind, text, note, False) for i, kind, text, note in made]
    rng.shuffle(drafts)
    items = []
    for item_id, (iid, kind, text, note, is_double) in zip(item_ids(len(drafts), seed), drafts, strict=True):
        src = pool[iid]
        items.append(
            QueueItem(
                item_id=item_id,
                instance_id=iid,
                context=src.context,
                question=src.question,
                output=text,
                subgroups=dict(src.subgroups),
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
        raters=names,
        n_items=len(sample),
        n_double=n_double,
        n_sentinels=len(planted),
        seed=seed,
        strata=tag_names,
        created_by=by,
        created_auth=auth,
        created_at=datetime.now(UTC),
        **fields,
    )
    store.reviews.create(queue, items, orders)
    store.audit(
        by,
        "review queue created",
        queue.dossier_id,
        {
            "queue_id": queue.queue_id,
            **audit_fields,
            "n": len(sample),
            "double": n_double,
            "sentinels": len(planted),
            "raters": list(names),
        },
        auth=auth or None,
    )
    return queue


class FeedQueue(NamedTuple):
    """A queue made from the monitoring feed, and the feed rows left out for want of output text."""

    queue: ReviewQueue
    skipped_no_text: int


def create_queue_from_feed(
    store: DossierStorage,
    dossier_id: str,
    n: int,
    raters: Sequence[str],
    *,
    candidate: str | None = None,
    month: str | None = None,
    double: float = 0.0,
    sentinels: int = 0,
    strata: Sequence[str] | None = None,
    seed: int | None = None,
    catch_bar: float = CATCH_BAR,
    by: str,
    identity: Identity | None | _AsNamed = AS_NAMED,
) -> FeedQueue:
    """A blinded audit-verdict queue of ``n`` production outputs of the dossier's monitoring feed.

    Items are the feed rows that carry output text (of ``month`` if given), sampled at random and
    stratified by their tags as run queues are; rows without text cannot be rated and are counted in
    ``skipped_no_text``. The text stays in the store; the queue belongs to the dossier, so only its
    raters see the items. The rubric is the audit verdict; once the queue closes its verdicts count as
    the feed's audits (``monitor status``).

    Raises:
        PermissionDenied: the identity is not an editor of the dossier.
        ReviewError: bad numbers or month, no or an ambiguous candidate, too few rows with text.
        DossierNotFound: unknown dossier.
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
    if month is not None and not _MONTH.fullmatch(month):
        raise ReviewError(f"--month must be YYYY-MM; got {month!r}")
    store.load(dossier_id)
    known = store.monitoring.candidates(dossier_id)
    if not known:
        raise ReviewError(f"dossier {dossier_id} has no monitoring feed (`medassure monitor import` first)")
    if candidate is None:
        if len(known) > 1:
            raise ReviewError(
                f"the feed holds several candidates ({', '.join(known)}): name one (--candidate)"
            )
        candidate = known[0]
    elif candidate not in known:
        raise ReviewError(f"no feed rows of candidate {candidate!r} in dossier {dossier_id}")
    rows, skipped = store.monitoring.review_rows(dossier_id, candidate, month)
    where = f"{candidate}'s feed" + (f" in {month}" if month else "")
    if len(rows) < n:
        raise ReviewError(
            f"{where} has {len(rows)} outputs with text ({skipped} without text cannot be rated); "
            f"--n {n} asks for more"
        )
    pool = {k: _Output("", "", text, tags, None) for k, text, tags in rows}
    queue = _assemble(
        store,
        pool,
        n,
        names,
        double=double,
        sentinels=sentinels,
        strata=strata,
        seed=seed,
        written=(),
        source_name=where,
        fields={
            "source": "production",
            "benchmark_id": f"feed:{candidate}",
            "model": candidate,
            "candidate": candidate,
            "month": month,
            "dossier_id": dossier_id,
            "rubric": AUDIT,
            "catch_bar": catch_bar,
        },
        audit_fields={"feed": candidate, "month": month, "skipped_no_text": skipped},
        by=by,
        auth=auth,
    )
    return FeedQueue(queue, skipped)


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
    added = store.reviews.add_ratings([rating]) == 1
    flow_verdicts(store, queue)
    return added


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
    flow_verdicts(store, queue)
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
