"""Review queues that scale (issue 34 item 6): a rating reseals its own row only, ``is_closed`` counts in SQL,
and a closed queue's agreement is computed once, when it closes, not on every read of its status.

Before: every rating re-digested every item and rating of the queue into its seal (which also made rows
changed behind the product's back look sealed again at the next rating), ``is_closed`` parsed every
rating's JSON twice per rating, and ``queue_status`` recomputed both ICCs on each call (the Judge validity
page calls it twice per rerun). Timings are in ``bench/review_queue_scale.py``, not here.
"""

from __future__ import annotations

import pytest

from governance.identity import Actor
from governance.review.operations import agreement
from governance.review.operations.agreement import clinician_icc as real_icc
from governance.review.operations.create import create_queue
from governance.review.operations.queues import (
    close_queue,
    is_closed,
    rater_view,
    record_rating,
    remove_rater,
)
from governance.review.operations.status import queue_citation, queue_ratings, queue_status
from governance.review.seals import queue_seal_breaks
from tests.governance.review_fixtures import judge_run, review_run

GOOD = {"accuracy": 4, "completeness": 4, "clarity": 5}


@pytest.fixture
def run(store, llm_server, tmp_path):
    return review_run(store, llm_server, tmp_path)


@pytest.fixture
def queue(store, run):
    run_id, path = run
    return create_queue(store, run_id, 10, ["dr.a", "dr.b"], double=0.5, sentinels=2, seed=7,
                        dataset_path=str(path), actor=Actor.named("editor"))


def rate(store, queue, rater, k=None):
    """Rate the first ``k`` (all) of ``rater``'s items; the composite varies with the position."""
    for n, it in enumerate(rater_view(store, queue.queue_id, actor=Actor.named(rater)).items[:k]):
        scores = {c: 1 + (n + len(rater)) % 5 for c in GOOD}
        record_rating(store, queue.queue_id, it.item_id, scores, actor=Actor.named(rater))


@pytest.fixture
def icc_calls(monkeypatch):
    calls = []
    real = agreement.clinician_icc

    def counted(frame):
        calls.append(len(frame))
        return real(frame)

    monkeypatch.setattr(agreement, "clinician_icc", counted)
    return calls


def test_a_closed_queues_agreement_is_computed_once_when_it_closes(store, queue, icc_calls, llm_server, run):
    judge_run(store, llm_server, *run)
    rate(store, queue, "dr.a")
    rate(store, queue, "dr.b")  # the last rating closes the queue: agreement computed then, once
    assert is_closed(store, queue) and len(icc_calls) == 1
    first = queue_status(store, queue.queue_id)
    for _ in range(3):  # the Judge validity page's reads, rerun three times
        queue_ratings(store, queue.queue_id)
        queue_citation(store, queue.queue_id)
        again = queue_status(store, queue.queue_id)
    assert len(icc_calls) == 1 and again == first
    # the kept figures are those a fresh computation gives
    assert first.clinician_clinician == real_icc(queue_ratings(store, queue.queue_id))
    assert first.clinician_clinician.n >= 2 and first.clinician_clinician.value is not None
    assert first.jury_clinician["jury_id"] and first.jury_clinician["n"] >= 1
    # an editor's close is a write of the queue: one fresh computation, kept again
    assert close_queue(store, queue.queue_id, actor=Actor.named("editor"))
    assert len(icc_calls) == 2
    assert queue_status(store, queue.queue_id) == first and len(icc_calls) == 2


def test_kept_agreement_altered_in_the_table_is_recomputed_not_shown(store, queue, icc_calls):
    rate(store, queue, "dr.a")
    rate(store, queue, "dr.b")
    first = queue_status(store, queue.queue_id)
    store.cursor().execute("UPDATE review_agreements SET content = replace(content, '\"n\":', '\"n\":9')")
    assert queue_status(store, queue.queue_id) == first and len(icc_calls) == 2


def test_an_open_queue_computes_no_agreement(store, queue, icc_calls):
    rate(store, queue, "dr.a")
    rate(store, queue, "dr.b", 3)
    status = queue_status(store, queue.queue_id)
    assert not status.closed and status.clinician_clinician is None and icc_calls == []


def test_a_queue_closes_when_every_remaining_rater_is_done(store, queue):
    rate(store, queue, "dr.a")
    assert not is_closed(store, queue)
    remove_rater(store, queue.queue_id, "dr.b", actor=Actor.named("editor"))
    assert is_closed(store, queue)


def test_a_rating_reseals_its_row_only_so_an_earlier_edit_stays_found(store, queue):
    rate(store, queue, "dr.a", 2)
    store.cursor().execute(
        "UPDATE review_ratings SET content = replace(content, '\"accuracy\":', '\"accuracy\":5,\"x\":') "
        "WHERE rater = 'dr.a' AND item_id = (SELECT min(item_id) FROM review_ratings WHERE rater = 'dr.a')")
    rate(store, queue, "dr.b", 2)  # a later write through the product must not seal the edited row
    breaks, _ = queue_seal_breaks(store, queue.queue_id, queue.created_at)
    assert [b.problem.split(": ", 1)[1] for b in breaks] == [
        f"rating of rater dr.a on item {_edited(store, queue)} altered"]


def _edited(store, queue):
    return min(r.item_id for r in store.reviews.ratings(queue.queue_id, "dr.a"))


def _core(store, queue):
    return store.cursor().execute("SELECT state FROM record_seals WHERE subject = ?",
                                  [f"queue:{queue.queue_id}"]).fetchone()[0]


def test_a_rating_adds_its_own_seal_row_and_leaves_the_queues_state_alone(store, queue):
    """Sealed per rating: the queue's state (every item's digest) is not rewritten by a rating; the ratings
    the seal holds are exactly what digesting every stored row gives."""
    before = _core(store, queue)
    rate(store, queue, "dr.a", 3)
    assert _core(store, queue) == before and '"ratings"' not in before
    close_queue(store, queue.queue_id, actor=Actor.named("editor"))
    sealed, problem = store.reviews.seal(queue.queue_id)
    assert problem is None and sealed["form"] == 2
    assert {k: v for k, v in sealed.items() if k != "form"} == store.reviews.seal_state(queue.queue_id)
    assert len(sealed["ratings"]) == 3 and list(sealed["events"]) == ["1"]


def test_a_rating_removed_with_its_seal_row_is_named(store, queue):
    rate(store, queue, "dr.a", 3)
    second = store.reviews.rated_ids(queue.queue_id, "dr.a")[1]
    con = store.cursor()
    con.execute("DELETE FROM review_ratings WHERE item_id = ? AND rater = 'dr.a'", [second])
    con.execute("DELETE FROM record_seals WHERE subject = ?", [f"queue-rating:{queue.queue_id}:2"])
    breaks, _ = queue_seal_breaks(store, queue.queue_id, queue.created_at)
    assert [b.problem.split(": ", 1)[1] for b in breaks] == [f"rating of rater dr.a on item {second} removed"]


def test_a_queue_sealed_in_the_first_form_still_verifies_and_takes_ratings(store, queue):
    """A queue sealed before per-rating seals (one state holding every rating's digest, no head) verifies,
    takes new ratings into that same state, and still names an edited rating."""
    from datetime import UTC, datetime

    from governance.dossier.store_seals import write_seal

    rate(store, queue, "dr.a", 2)
    con = store.cursor()
    con.execute("DELETE FROM record_seals WHERE starts_with(subject, 'queue-rating')")
    write_seal(con, f"queue:{queue.queue_id}", store.reviews.seal_state(queue.queue_id), datetime.now(UTC))
    assert queue_seal_breaks(store, queue.queue_id, queue.created_at) == ([], [])
    rate(store, queue, "dr.b", 3)
    assert queue_seal_breaks(store, queue.queue_id, queue.created_at) == ([], [])
    assert '"form"' not in _core(store, queue) and len(store.reviews.seal(queue.queue_id)[0]["ratings"]) == 5
    con.execute("UPDATE review_ratings SET content = replace(content, '\"recorded_by\":\"dr.b\"', "
                "'\"recorded_by\":\"x\"') WHERE rater = 'dr.b'")
    breaks, _ = queue_seal_breaks(store, queue.queue_id, queue.created_at)
    assert len(breaks) == 3 and all("rating of rater dr.b" in b.problem and "altered" in b.problem
                                    for b in breaks)


def test_the_rater_view_reads_only_the_next_items_text(store, queue, monkeypatch):
    """The page shows the next item and counts: the view parses one item, not the queue's 12 (nor the
    rater's 9); ``items`` still walks them all, read once on first use."""
    from governance.review.records import QueueItem

    rate(store, queue, "dr.a", 2)
    parsed = []
    real = QueueItem.model_validate_json.__func__

    def counted(cls, text, **kw):
        parsed.append(1)
        return real(cls, text, **kw)

    monkeypatch.setattr(QueueItem, "model_validate_json", classmethod(counted))
    view = rater_view(store, queue.queue_id, actor=Actor.named("dr.a"))
    assert len(parsed) == 1
    assert (len(view.items), len(view.done), len(parsed)) == (view.total, 2, 1)  # len reads nothing
    walked = list(view.items)
    assert len(parsed) == 1 + view.total and list(view.items) == walked and len(parsed) == 1 + view.total
    assert [it.position for it in walked] == list(range(1, view.total + 1))
    assert [it.item_id for it in walked[:2]] == view.done and view.next_item == walked[2]
