"""Monitoring after go-live: the approved model watched in production against the
committee's own bars, and the ladder (in control < review < pause < suspend) that can reopen the decision.

Arrow Decision -> Monitoring -> re-evaluation of the path. Every function here is a function of a
dossier and the feed's aggregates (``models.FeedAggregates``, summed in SQL by the store): the approved
identity and its check (``identity``), monthly rates against the plan's bars (``rates``), CUSUM drift
(``drift``), whether human review works (``review``), subgroups and use outside the envelope
(``subgroups``), the plan with its defaults by tier (``plan``), and the ladder that turns findings into
signals with owners and deadlines (``ladder``), composed in ``status``. Its records are ``records``
and ``feed_records``, the feed's tables and import SQL ``store`` and ``store_feed_import``; importing a
feed, recording events and acknowledging or resolving signals take the store, so they are its
operations (``operations.feed``, ``operations.events``, ``operations.sources``), as is gathering what a
month's report prints (``operations.month``, over ``month``).
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "due_canaries": "governance.monitoring.operations.canary",
    "preview_canary": "governance.monitoring.operations.canary",
    "canary_view": "governance.monitoring.canary",
    "run_canary": "governance.monitoring.operations.canary",
    "set_canary": "governance.monitoring.operations.canary",
    "acknowledge_signal": "governance.monitoring.operations.events",
    "record_event": "governance.monitoring.operations.events",
    "record_go_live": "governance.monitoring.operations.events",
    "resolve_signal": "governance.monitoring.operations.events",
    "MonitoringError": "governance.monitoring.operations.feed",
    "FeedSealBroken": "governance.monitoring.operations.feed",
    "MonthError": "governance.monitoring.month",
    "monitoring_month": "governance.monitoring.operations.month",
    "dossier_monitoring": "governance.monitoring.operations.feed",
    "export_blinded_feed": "governance.monitoring.operations.feed",
    "import_feed": "governance.monitoring.operations.feed",
    "monitoring_status": "governance.monitoring.operations.feed",
    "known_candidates": "governance.monitoring.identity",
    "MONITORING_WORDS": "governance.monitoring.operations.feed",
    "SEAL_BROKEN": "governance.monitoring.operations.feed",
    "monitoring_state": "governance.monitoring.operations.feed",
    "SEVERITIES": "governance.monitoring.records",
    "safety_register": "governance.monitoring.register",
    "FeedError": "governance.monitoring.store_feed_import",
    "feed_template": "governance.monitoring.template",
    "PracticeError": "governance.monitoring.practice",
    "make_practice_copy": "governance.monitoring.operations.practice",
    "discard_practice_copy": "governance.monitoring.operations.practice",
    "write_practice_feed": "governance.monitoring.operations.practice",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "FeedError", "FeedSealBroken", "MONITORING_WORDS", "MonitoringError", "MonthError", "PracticeError",
    "SEAL_BROKEN", "SEVERITIES",
    "acknowledge_signal", "canary_view", "discard_practice_copy", "dossier_monitoring", "due_canaries",
    "export_blinded_feed", "feed_template", "import_feed", "known_candidates", "make_practice_copy",
    "monitoring_month", "monitoring_state", "monitoring_status", "preview_canary", "record_event",
    "record_go_live", "resolve_signal", "run_canary", "safety_register", "set_canary", "write_practice_feed",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
