"""A queue's status for its editor, and its hand-off to Judge validity and the PDF.

Why here: the status reads the store (ratings, events, stored juries), and the CLI's
``review status`` and the Judge validity page must give the same figures. Blinding rules hold in the
status too: a rater's catch rate appears once that rater has rated all their items; agreement
(clinician-clinician on the double-rated share, jury-clinician against the newest completed stored jury
of the same run) only once the queue is closed. A closed queue's ratings are the clinician ratings
Judge validity uses, with no CSV round trip (``queue_ratings``), and ``queue_citation`` is what the
dossier's judge-agreement record (and the PDF) cites.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from pydantic import BaseModel

from evaluator.agreement.stats import Estimate
from governance.dossier.storage import DossierStorage
from governance.identity.access import PermissionDenied, access_for
from governance.identity.actor import Actor
from governance.judge_validity.criteria import GraderValidity
from governance.review.measures import CatchRate, catch_rate, clinician_frame, rubber_stamp_flags
from governance.review.operations.agreement import queue_agreement
from governance.review.operations.criteria import grading_agreement
from governance.review.operations.queues import (
    BLINDING,
    ReviewError,
    audit_verdicts,  # re-exported, it lives with the verdict flow
    get_queue,
    is_closed,
    removed_raters,
)
from governance.review.records import RaterCatch, ReviewCitation, ReviewQueue
from governance.review.seals import queue_seal_breaks


class RaterStatus(BaseModel):
    """One rater's progress, catch rate (once done) and flags."""

    rater: str
    """The rater."""
    done: int
    """Items rated or skipped."""
    total: int
    """Items assigned."""
    skipped: int
    """Of ``done``, skipped."""
    progress: float
    """``done / total``."""
    finished: bool
    """Every item rated or skipped."""
    catch_rate: CatchRate | None
    """Sentinels caught, with the Wilson interval (``estimate, lower, upper, n``), once finished."""
    flags: list[str]
    """Rubber-stamping flags (and ``removed from the queue`` for a removed rater)."""
    removed: bool
    """Removed from the queue (ratings kept)."""


class QueueStatus(BaseModel):
    """The editor's view of a queue (``medassure review status``)."""

    queue_id: str
    """The queue."""
    run_id: str | None
    """The run rated."""
    benchmark_id: str
    """Its benchmark or scenario."""
    model: str
    """The model (editors only)."""
    dossier_id: str | None
    """The dossier it serves."""
    rubric: str
    """``jury:<rubric id>`` or ``audit``."""
    n_items: int
    """Sampled outputs."""
    n_double: int
    """Rated by two raters."""
    n_sentinels: int
    """Planted errors."""
    closed: bool
    """Closed (every rater done, or by an editor)."""
    catch_bar: float
    """The catch-rate bar."""
    raters: list[RaterStatus]
    """Per rater."""
    clinician_clinician: Estimate | None
    """ICC(A,1) between the two raters with most double-rated items in common (once closed)."""
    jury_clinician: dict[str, Any] | None
    """Jury-clinician ICC(A,1) on the run's newest completed jury (once closed): ``jury_id``, ``estimate``,
    ``lower``, ``upper``, ``n`` or ``missing_reason``."""
    grading_id: str | None = None
    """A criteria queue: the rubric grading whose cases were rated."""
    grader_clinician: GraderValidity | None = None
    """A closed criteria queue: per criterion Cohen's κ and the share agreeing between the grading's verdicts
    and the clinicians' (their majority), with intervals, and the judge-agreement bar's verdict."""


def queue_status(store: DossierStorage, queue_id: str) -> QueueStatus:
    """Progress, catch rates and flags per rater; agreement once closed.

    Raises:
        ReviewError: unknown queue, or its stored rows no longer match its seal.
    """
    queue = get_queue(store, queue_id)
    broken, _ = queue_seal_breaks(store, queue_id, queue.created_at)
    if broken:
        more = f" ({len(broken) - 1} further finding(s))" if len(broken) > 1 else ""
        raise ReviewError(f"the stored rows of queue {queue_id} no longer match its seal, so no status is "
                          f"computed from them: {broken[0].problem}{more}. `medassure verify "
                          f"{queue.dossier_id or 'DOSSIER'}` names every change")
    items = store.reviews.items(queue_id)
    ratings = store.reviews.ratings(queue_id)
    gone = removed_raters(store, queue_id)
    sentinels = {i for i, it in items.items() if it.sentinel is not None}
    rows = []
    for rater in queue.raters:
        order = store.reviews.order(queue_id, rater)
        mine = [r for r in ratings if r.rater == rater]
        done = {r.item_id for r in mine} & set(order)
        finished = bool(order) and len(done) == len(order)
        flags = rubber_stamp_flags(mine) + (["removed from the queue; ratings kept"] if rater in gone else [])
        rows.append(
            RaterStatus(
                rater=rater,
                done=len(done),
                total=len(order),
                skipped=sum(bool(r.skipped) for r in mine),
                progress=len(done) / len(order) if order else 0.0,
                finished=finished,
                catch_rate=catch_rate(mine, sentinels, queue.rubric, queue.catch_bar) if finished else None,
                flags=flags,
                removed=rater in gone,
            )
        )
    closed = is_closed(store, queue)
    cc = jc = None
    if closed and queue.rubric.kind == "jury":  # computed once, at close (``queue_agreement``)
        cc, jc = queue_agreement(store, queue, items, ratings)
    gc = grading_agreement(store, queue_id) if closed and queue.rubric.kind == "criteria" else None
    return QueueStatus(
        queue_id=queue_id,
        run_id=queue.run_id,
        benchmark_id=queue.benchmark_id,
        model=queue.model,
        dossier_id=queue.dossier_id,
        rubric=f"{queue.rubric.kind}:{queue.rubric.rubric_id}" if queue.rubric.kind != "audit" else "audit",
        n_items=queue.n_items,
        n_double=queue.n_double,
        n_sentinels=queue.n_sentinels,
        closed=closed,
        catch_bar=queue.catch_bar,
        raters=rows,
        clinician_clinician=cc,
        jury_clinician=jc,
        grading_id=queue.grading_id,
        grader_clinician=gc,
    )


class RaterProgress(BaseModel):
    """What a rater sees of their queue's status: their own progress, nothing about the model, the run,
    other raters or agreement (``queue_status_for``)."""

    queue_id: str
    """The queue."""
    view: str = "rater"
    """Whose view this is (``rater``)."""
    rater: str
    """The rater."""
    done: int
    """Their items rated or skipped."""
    total: int
    """Their items."""
    skipped: int
    """Of ``done``, skipped."""
    progress: float
    """``done / total``."""
    finished: bool
    """Every one of their items rated or skipped."""
    closed: bool
    """The queue is closed (their ratings are frozen)."""
    removed: bool
    """They were removed from the queue (their ratings kept)."""
    catch_rate: CatchRate | None
    """Their own sentinels caught, once they have rated all their items (as the rating page shows it)."""


def _rater_of(queue: ReviewQueue, actor: Actor) -> str | None:
    """The rater name of ``queue`` that ``actor`` is (by subject or name), None when not one of them."""
    who = actor.identity
    return next((n for n in ((who.subject, who.name) if who else ()) if n in queue.raters), None)


def sees_unblinded(queue: ReviewQueue, actor: Actor) -> bool:
    """Whether ``actor`` may see the queue's model, run, raters and agreement: an editor of its dossier who
    is not one of its raters. A rater gets the blinded view even when they also hold editor (a local desk
    holds every role): what they rate must not be unblinded by the role they hold beside it."""
    return access_for(actor.identity, queue.dossier_id).can_edit and _rater_of(queue, actor) is None


def queue_status_for(store: DossierStorage, queue_id: str, *, actor: Actor) -> QueueStatus | RaterProgress:
    """The queue's status as ``actor`` may see it: their own progress for one of its raters (an editor who
    rates it too included), all of it for any other editor of the queue's dossier, nothing for anyone else.

    Raises:
        PermissionDenied: neither an editor of the queue's dossier nor a rater of the queue.
        ReviewError: unknown queue, or its stored rows no longer match its seal.
    """
    queue = get_queue(store, queue_id)
    access = access_for(actor.identity, queue.dossier_id)
    rater = _rater_of(queue, actor)
    if sees_unblinded(queue, actor):
        return queue_status(store, queue_id)
    if rater is None or not (access.holds("rater") or access.can_edit):
        raise PermissionDenied(f"{actor.name} is neither an editor of {queue.dossier_id or 'the dossier'} "
                               f"nor a rater of queue {queue_id}: nothing of it is shown")
    mine = next(r for r in queue_status(store, queue_id).raters if r.rater == rater)
    return RaterProgress(queue_id=queue_id, rater=rater, done=mine.done, total=mine.total,
                         skipped=mine.skipped, progress=mine.progress, finished=mine.finished,
                         closed=is_closed(store, queue), removed=mine.removed, catch_rate=mine.catch_rate)


def closed_queues(
    store: DossierStorage, dossier_id: str | None = None, kind: str = "jury"
) -> list[ReviewQueue]:
    """Closed queues on the jury rubric (what Judge validity can use; ``kind="criteria"``: those rating a
    rubric grading's criteria): the dossier's and unassigned ones."""
    return [
        q
        for q in store.reviews.list_queues()
        if q.rubric.kind == kind and q.dossier_id in (None, dossier_id) and is_closed(store, q)
    ]


def queue_ratings(store: DossierStorage, queue_id: str) -> pd.DataFrame:
    """A closed jury-rubric queue's ratings of real outputs, as Judge validity's clinician ratings.

    Raises:
        ReviewError: unknown or open queue, or a queue on the audit verdict.
    """
    queue = get_queue(store, queue_id)
    if not is_closed(store, queue):
        raise ReviewError(f"queue {queue_id} is still open: agreement is shown once it closes")
    if queue.rubric.kind != "jury":
        raise ReviewError(f"queue {queue_id} rated audit verdicts, not the jury's criteria")
    return clinician_frame(queue, store.reviews.items(queue_id), store.reviews.ratings(queue_id))


def queue_citation(store: DossierStorage, queue_id: str) -> ReviewCitation:
    """What the dossier and the PDF cite of a closed queue."""
    queue = get_queue(store, queue_id)
    status = queue_status(store, queue_id)
    closed_at = next((e.at for e in store.reviews.events(queue_id) if e.kind == "closed"), None)
    if closed_at is None:
        stamps = [r.rated_at for r in store.reviews.ratings(queue_id)]
        closed_at = max(stamps) if stamps else None
    catch = tuple(
        RaterCatch(
            rater=r.rater,
            caught=r.catch_rate.caught,
            n=r.catch_rate.n,
            lower=r.catch_rate.lower,
            upper=r.catch_rate.upper,
        )
        for r in status.raters
        if r.catch_rate and r.catch_rate.n
    )
    return ReviewCitation(
        queue_id=queue_id,
        run_id=queue.run_id,
        raters=queue.raters,
        n_items=queue.n_items,
        n_double=queue.n_double,
        n_sentinels=queue.n_sentinels,
        blinding=BLINDING,
        catch=catch,
        catch_bar=queue.catch_bar,
        closed_at=closed_at,
    )


__all__ = [
    "QueueStatus",
    "RaterProgress",
    "RaterStatus",
    "audit_verdicts",
    "closed_queues",
    "queue_citation",
    "queue_ratings",
    "queue_status",
    "queue_status_for",
]
