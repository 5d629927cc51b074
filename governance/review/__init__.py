"""Review queues: the sample, its strata, the double-rated share, sentinels (planted
errors made by documented perturbations), each rater's blinded order, catch rates with their Wilson
intervals, rubber-stamping flags, the inputs of clinician agreement, and the sample-size guidance.

Arrow *Review queues -> clinician ratings* of the path. Pure modules: ``rubric`` (the jury rubric or
the audit verdict), ``sampling``, ``sentinels``, ``measures``, ``sample_size``; the records are
``records``, the queues' tables ``store``. Creating a queue, recording a rating, importing a sheet,
closing a queue and its status take the store: the ``operations`` (``create``, ``queues``,
``sheets``, ``status``).
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "create_queue": "governance.review.operations.create",
    "create_queue_from_feed": "governance.review.operations.create",
    "create_queue_from_grading": "governance.review.operations.create",
    "ReviewError": "governance.review.operations.queues",
    "close_queue": "governance.review.operations.queues",
    "my_queues": "governance.review.operations.queues",
    "rater_view": "governance.review.operations.queues",
    "record_rating": "governance.review.operations.queues",
    "remove_rater": "governance.review.operations.queues",
    "export_csv": "governance.review.operations.sheets",
    "import_sheet": "governance.review.operations.sheets",
    "sheet_csv": "governance.review.operations.sheets",
    "closed_queues": "governance.review.operations.status",
    "grading_agreement": "governance.review.operations.criteria",
    "grading_setting": "governance.review.operations.grading_record",
    "record_grading_agreement": "governance.review.operations.grading_record",
    "queue_citation": "governance.review.operations.status",
    "queue_ratings": "governance.review.operations.status",
    "queue_status": "governance.review.operations.status",
    "queue_status_for": "governance.review.operations.status",
    "RaterProgress": "governance.review.operations.status",
    "sees_unblinded": "governance.review.operations.status",
    "AUDIT_VERDICTS": "governance.review.records",
    "CRITERION_VERDICTS": "governance.review.records",
    "queue_warnings": "governance.review.sample_size",
    "sentinels_for_bar": "governance.review.sample_size",
    "size_guidance": "governance.review.sample_size",
    "read_sentinel_file": "governance.review.sentinels",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "AUDIT_VERDICTS", "CRITERION_VERDICTS", "RaterProgress", "ReviewError", "close_queue", "closed_queues",
    "create_queue", "create_queue_from_feed", "create_queue_from_grading", "export_csv",
    "grading_agreement", "grading_setting", "import_sheet", "my_queues", "queue_citation", "queue_ratings",
    "queue_status", "queue_status_for", "queue_warnings", "rater_view", "read_sentinel_file",
    "record_grading_agreement", "record_rating", "remove_rater", "sees_unblinded", "sentinels_for_bar",
    "sheet_csv",
    "size_guidance",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
