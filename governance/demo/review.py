"""Demo step: a small closed review queue of synthetic portal replies, rated by two demo clinicians.

Why synthetic and offline: the demo must show what a committee gets from a review queue (two raters,
a double-rated share, planted errors and each rater's catch rate; the Rate outputs page and Judge
validity list it) without real clinicians and without calling a model. Ten invented portal messages and
the replies a model might draft are stored as an offline run of a free-text scenario (not attached to
the dossier, so its evidence is unchanged), a queue of 8 with 6 double-rated and 2 sentinels is drawn
from it by the real operations, and the two demo clinicians rate by a seeded rule: replies get 4 or 5,
demo_clinician_a catches both planted errors, demo_clinician_b one of them. Every name says demo.
"""

from __future__ import annotations

import csv
import io

from evaluator.scenarios import preview_import, record_offline_run
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.identity.actor import Actor
from governance.identity.identity import demo_identity
from governance.review.operations.create import create_queue
from governance.review.operations.queues import close_queue, rater_view, record_rating
from governance.scenarios.operations.local import import_for_dossier

DEMO_AUTHOR = "demo"
DEMO_MODEL = "GPT-4o (2024-05-13)"
RATERS = ("demo_clinician_a", "demo_clinician_b")
SEED = 26
REPLIES = [
    (
        "Can I take ibuprofen with my lisinopril?",
        "Take no more than 400 mg of ibuprofen at a time and do not use "
        "it for more than 3 days. Avoid it if you have kidney problems.",
    ),
    (
        "How long should I keep taking amoxicillin?",
        "Take 500 mg three times a day for all 7 days, even if you feel better. Call us if a rash appears.",
    ),
    (
        "My sugar was 3.1 this morning, what do I do?",
        "Eat 15 g of fast sugar now and check again in 15 minutes. Call 911 if you feel confused or faint.",
    ),
    (
        "Can I stop my statin before my trip?",
        "Do not stop atorvastatin without talking to us. Keep taking 20 mg each evening while you travel.",
    ),
    (
        "When should I take levothyroxine?",
        "Take 50 mcg on an empty stomach, 30 minutes before breakfast. Do not take it with iron or calcium.",
    ),
    (
        "Is it fine to double my metformin if I missed a dose?",
        "Do not double the dose. Take the next 500 mg dose at the usual time.",
    ),
    (
        "How often can I use my salbutamol inhaler?",
        "Use 2 puffs every 4 hours as needed. Seek care today if you need it more than 4 times a day.",
    ),
    (
        "Can my child have paracetamol for a fever?",
        "Give 15 mg per kg every 6 hours, at most 4 doses a day. Call "
        "us if the fever lasts more than 3 days.",
    ),
    (
        "Should I take my warfarin tonight after a nosebleed?",
        "Take your usual 5 mg tonight. Go to urgent care if the bleeding does not stop within 20 minutes.",
    ),
    ("How do I store my insulin pens?", "Keep unopened pens in the fridge at 2 to 8 C. Do not freeze them."),
]


def demo_replies_csv() -> bytes:
    """The synthetic messages as a free-text scenario upload (invented text, no identifiers)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "question", "reference", "answer_type"])
    for k, (question, reply) in enumerate(REPLIES, 1):
        writer.writerow([f"reply-{k:02d}", question, reply, "free_text"])
    return out.getvalue().encode()


def _score(rater: str, item_id: str, sentinel: bool, k: int) -> dict[str, int]:
    if sentinel:
        catch = rater == RATERS[0] or k == 0
        return {"accuracy": 1 if catch else 4, "completeness": 3, "clarity": 4}
    good = 4 + (k + len(item_id) + (rater == RATERS[1])) % 2
    return {"accuracy": good, "completeness": 4 + (k % 2), "clarity": 5 - (k % 2) * (rater == RATERS[0])}


def record_demo_review_queue(store: DossierStorage, dossier: Dossier) -> Dossier:
    """Store the synthetic run, draw the queue, rate it as the two demo clinicians and close it.

    The dossier is returned unchanged: a queue is stored beside it, not in it (Judge validity cites it
    when its ratings are recorded).
    """
    preview = preview_import("portal_replies_demo.csv", demo_replies_csv())
    version = import_for_dossier(
        store,
        preview,
        name="Portal replies (demo review queue)",
        actor=Actor.named(DEMO_AUTHOR),
        subcategory_ids=["patient_provider_messaging"],
    )
    answers = {f"reply-{k:02d}": reply for k, (_, reply) in enumerate(REPLIES, 1)}
    run_id = record_offline_run(
        store, version, DEMO_MODEL, answers, endpoint_name="demo data (no model called)"
    )
    editor = Actor.of(demo_identity("demo_editor"))
    queue = create_queue(
        store,
        run_id,
        8,
        RATERS,
        double=0.75,
        sentinels=2,
        seed=SEED,
        dossier_id=dossier.id,
        actor=editor,
    )
    items = store.reviews.items(queue.queue_id)
    sentinel_order = sorted(i for i, it in items.items() if it.sentinel)
    for rater in RATERS:
        who = Actor.of(demo_identity(rater))
        for k, item in enumerate(rater_view(store, queue.queue_id, actor=who).items):
            is_sentinel = items[item.item_id].sentinel is not None
            n = sentinel_order.index(item.item_id) if is_sentinel else k
            record_rating(
                store,
                queue.queue_id,
                item.item_id,
                _score(rater, item.item_id, is_sentinel, n),
                seconds=35.0 + 7 * (k % 4),
                actor=who,
            )
    close_queue(store, queue.queue_id, actor=editor, note="DEMO DATA: synthetic ratings")
    return dossier
