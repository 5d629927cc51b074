"""A criteria queue's clinician verdicts set against its rubric grading's: judge validity per criterion.

Why here: the clinicians' verdicts are the queue's ratings (this concept's rows), and review stands after
judge validity in the path, so the measurement (``governance.judge_validity.criteria``, pure) is fed from
here; the record the dossier keeps of it (``GraderAgreementSetting``, read by the judge-agreement rule for
the grading's evidence) is made in ``grading_record``, which cites the queue. Agreement is shown once the
queue closes (the ratings are blinded while it is open), as for a jury-rubric queue. The bar is the
judge-agreement rule's threshold on the queue's dossier, else that dossier's tier default; a queue serving
no dossier is measured against the moderate tier's default, and says so. As a jury queue's agreement, the
figures are kept once computed (``review_agreements``) under the queue seal's MAC and the bar, so a page
rerun reads them; a changed bar or a later write of the queue asks for a fresh computation.
"""

from __future__ import annotations

from evaluator.grading import GradingError, load_grading
from governance.dossier.storage import DossierStorage
from governance.judge_validity.criteria import GraderValidity, grader_validity
from governance.judge_validity.operations import minimum_rule
from governance.review.operations.queues import ReviewError, get_queue, is_closed
from governance.review.records import ReviewQueue
from governance.rules.policy import load_defaults

DEFAULT_TIER = "moderate"


def criterion_votes(store: DossierStorage, queue: ReviewQueue) -> dict[tuple[str, int], list[bool]]:
    """Per (case id, criterion index): the verdicts of the clinicians who rated it (no skips or sentinels)."""
    items = store.reviews.items(queue.queue_id)
    votes: dict[tuple[str, int], list[bool]] = {}
    for r in store.reviews.ratings(queue.queue_id):
        item = items.get(r.item_id)
        if item is None or item.sentinel is not None or r.skipped:
            continue
        for key, verdict in r.scores.items():
            votes.setdefault((item.instance_id, int(key) - 1), []).append(verdict == "met")
    return votes


def _bar(store: DossierStorage, queue: ReviewQueue) -> tuple[float, str]:
    if queue.dossier_id is None:
        bar = load_defaults().tiers[DEFAULT_TIER]["judge_agreement"].threshold
        return bar, f"the {DEFAULT_TIER} tier's default judge-agreement bar (the queue serves no dossier)"
    dossier = store.load(queue.dossier_id).dossier
    rule = minimum_rule(dossier)
    if rule is not None:
        return rule.threshold, f"the judge-agreement rule of dossier {dossier.id}"
    tier = dossier.risk.tier
    return (load_defaults().tiers[tier]["judge_agreement"].threshold,
            f"the {tier} tier's default judge-agreement bar (dossier {dossier.id} has no such rule)")


def grading_agreement(store: DossierStorage, queue_id: str) -> GraderValidity:
    """A closed criteria queue's per-criterion agreement with its grading, against the bar.

    Raises:
        ReviewError: unknown, open or not a criteria queue, or its grading is gone.
    """
    queue = get_queue(store, queue_id)
    if queue.rubric.kind != "criteria" or queue.grading_id is None:
        raise ReviewError(f"queue {queue_id} does not rate a rubric grading's criteria")
    if not is_closed(store, queue):
        raise ReviewError(f"queue {queue_id} is still open: agreement is shown once it closes")
    try:
        result = load_grading(store, queue.grading_id)
    except GradingError as exc:
        raise ReviewError(str(exc)) from None
    bar, source = _bar(store, queue)
    reviews = store.reviews
    mark = reviews.seal_mark(queue_id)
    basis = f"{mark}|grading:{queue.grading_id}|bar:{bar!r}|{source}"
    if mark is not None and (kept := reviews.agreement(queue_id, basis)) is not None:
        return GraderValidity.model_validate(kept)
    view = grader_validity(result, criterion_votes(store, queue), queue_id=queue_id, bar=bar,
                           bar_source=source)
    if mark is not None and not store.read_only:  # a read-only reader shows it; the next writer keeps it
        reviews.add_agreement(queue_id, basis, view.model_dump(mode="json"))
    return view
