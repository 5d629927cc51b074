"""Recording a closed criteria queue's per-criterion agreement on its dossier, citing the queue.

Why apart from ``criteria``: the record cites the queue (``status.queue_citation``), and the status reads
the agreement from ``criteria``; keeping the record here keeps the two free of a circle.
"""

from __future__ import annotations

from datetime import UTC, datetime

from evaluator.grading import load_grading
from governance.dossier.storage import DossierStorage, DossierVersion
from governance.evidence.records import GraderAgreementSetting
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require, update_as
from governance.judge_validity.criteria import grader_setting, record_grader_agreement
from governance.review.operations.criteria import grading_agreement
from governance.review.operations.queues import ReviewError, get_queue
from governance.review.operations.status import queue_citation


def grading_setting(store: DossierStorage, queue_id: str, *, by: str) -> GraderAgreementSetting:
    """The dossier record of a closed criteria queue's per-criterion agreement (cites the queue).

    Raises:
        ReviewError: see ``grading_agreement``.
    """
    view = grading_agreement(store, queue_id)
    result = load_grading(store, view.grading_id)
    return grader_setting(view, benchmark=f"{result.scenario_id}_v{result.scenario_version}", by=by,
                          at=datetime.now(UTC), review_queue=queue_citation(store, queue_id))


def record_grading_agreement(store: DossierStorage, queue_id: str, *, actor: Actor) -> DossierVersion:
    """Record a closed criteria queue's per-criterion agreement on its dossier (replacing the grading's
    earlier record; the same figures again save no new version).

    Raises:
        PermissionDenied: not an editor of the dossier. ReviewError: see ``grading_agreement``, or a queue
            that serves no dossier.
    """
    queue = get_queue(store, queue_id)
    if queue.dossier_id is None:
        raise ReviewError(f"queue {queue_id} serves no dossier: nothing to record it on")
    require(actor.identity, "editor", "record grader agreement", queue.dossier_id)
    setting = grading_setting(store, queue_id, by=actor.name)
    return update_as(store, actor, queue.dossier_id, lambda d: record_grader_agreement(d, setting),
                     action="record grader agreement",
                     note=f"judge validity: grading {setting.grading_id} against queue {queue_id}, per "
                          "criterion")
