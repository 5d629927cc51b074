"""A closed queue's agreement, computed once and kept: clinician–clinician and jury–clinician ICC(A,1).

Why a module of its own and shaped so: the figures depend only on the queue's rows (and, for jury–clinician,
on the run's newest completed jury), which are frozen once the queue closes, yet the Judge validity page
asked for them on every rerun (``queue_status`` twice, through ``queue_citation`` too), recomputing both
ICCs each time. ``queue_agreement`` computes them when the queue closes (``queues.settle``) and keeps them
in the review store under the queue seal's MAC and the jury's id; a later read finds them there, and a
later write of the queue (a close event after the last rating) or a newer jury asks for one fresh
computation. A queue that predates sealing has no MAC to key on: it is computed on each read, as before.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from evaluator.agreement.ratings import RatingsError, most_overlapping_pair, rater_composites, read_ratings
from evaluator.agreement.stats import Estimate, icc21
from governance.dossier.storage import DossierStorage
from governance.judge_validity.operations import assess_judge_validity
from governance.review.measures import clinician_frame
from governance.review.records import QueueItem, Rating, ReviewQueue


def clinician_icc(frame: pd.DataFrame) -> Estimate:
    """ICC(A,1) between the two raters with most double-rated real outputs in common."""
    method = "ICC(2,1) absolute agreement"
    if frame.empty:
        return Estimate(value=None, n=0, method=method, missing_reason="no ratings of real outputs")
    ratings = read_ratings(frame, "queue ratings")
    pair = most_overlapping_pair(ratings)
    if pair is None:
        return Estimate(value=None, n=0, method=method, missing_reason="no output was rated by two raters")
    a, b, _ = pair
    wide = (
        ratings.assign(composite=rater_composites(ratings))
        .pivot_table(index=["dataset", "instance_id"], columns="rater", values="composite")
        .dropna()
    )
    return icc21(wide[a].to_numpy(), wide[b].to_numpy())


def jury_clinician(store: DossierStorage, jury_id: str | None, queue: ReviewQueue,
                   frame: pd.DataFrame) -> dict[str, Any]:
    """Jury–clinician ICC(A,1) on ``jury_id`` (the run's newest completed jury), or why it is missing."""
    if frame.empty:
        return {"jury_id": None, "missing_reason": "no ratings of real outputs"}
    if jury_id is None:
        return {"jury_id": None, "missing_reason": f"no completed stored jury of run {queue.run_id}"}
    try:
        view = assess_judge_validity(store.juries, frame, jury_id=jury_id)
    except RatingsError as exc:
        return {"jury_id": jury_id, "missing_reason": str(exc)}
    est = view.report.pooled.icc21
    return {
        "jury_id": jury_id,
        "estimate": est.value,
        "lower": est.ci_lower,
        "upper": est.ci_upper,
        "n": est.n,
        "missing_reason": est.missing_reason,
    }


def queue_agreement(
    store: DossierStorage,
    queue: ReviewQueue,
    items: dict[str, QueueItem] | None = None,
    ratings: list[Rating] | None = None,
) -> tuple[Estimate, dict[str, Any]]:
    """Clinician–clinician and jury–clinician agreement of a closed jury-rubric queue, computed once.

    Call it on a closed queue only (the caller checks: agreement is blinded while the queue is open).
    ``items`` and ``ratings``, when the caller has read them already, spare a second read.
    """
    reviews = store.reviews
    jury_id = next((j["jury_id"] for j in store.juries.list_juries()
                    if j["run_id"] == queue.run_id and j["status"] == "completed"), None)
    mark = reviews.seal_mark(queue.queue_id)
    basis = f"{mark}|{jury_id or '-'}"
    if mark is not None and (kept := reviews.agreement(queue.queue_id, basis)) is not None:
        return Estimate.model_validate(kept["clinician_clinician"]), kept["jury_clinician"]
    items = reviews.items(queue.queue_id) if items is None else items
    ratings = reviews.ratings(queue.queue_id) if ratings is None else ratings
    frame = clinician_frame(queue, items, ratings)
    cc, jc = clinician_icc(frame), jury_clinician(store, jury_id, queue, frame)
    if mark is not None and not store.read_only:  # a read-only reader shows it; the next writer keeps it
        reviews.add_agreement(queue.queue_id, basis,
                              {"clinician_clinician": cc.model_dump(mode="json"), "jury_clinician": jc})
    return cc, jc
