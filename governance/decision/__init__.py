"""The decision: the committee's own decision beside the computed recommendation, sign-offs bound to
a version hash, the readiness checklist, the human-review and monitoring plan, and the side-by-side
comparison of candidates the committee decides between.

Arrow Assessment -> Decision of the path. What the Decision page renders from the store, and
recording a decision with its frozen evidence plan, take the store: they are this package's
``operations`` (``decide``, ``standing``, ``view``).
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "assessment_payload": "governance.decision.committee",
    "change_rule": "governance.decision.committee",
    "confirm_decision": "governance.decision.committee",
    "delete_rule": "governance.decision.committee",
    "derive_plan": "governance.decision.committee",
    "edit_plan": "governance.decision.committee",
    "set_error_control": "governance.decision.committee",
    "sign": "governance.decision.committee",
    "compare_candidates": "governance.decision.comparison",
    "decision_memo": "governance.decision.memo",
    "decide": "governance.decision.operations.decide",
    "changes_since_decision": "governance.decision.operations.standing",
    "decision_view": "governance.decision.operations.view",
    "needs_override": "governance.decision.readiness",
    "DECISION_OUTCOMES": "governance.decision.records",
    "MonitoredMetric": "governance.decision.records",
    "OUTCOME_LABELS": "governance.decision.records",
    "Trigger": "governance.decision.records",
    "DecisionError": "governance.decision.signoff",
    "SignOffStatus": "governance.decision.signoff",
    "signoff_status": "governance.decision.signoff",
    "signoffs_voided_by": "governance.decision.signoff",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "DECISION_OUTCOMES", "DecisionError", "MonitoredMetric", "OUTCOME_LABELS", "SignOffStatus", "Trigger",
    "assessment_payload", "change_rule", "changes_since_decision", "compare_candidates",
    "confirm_decision", "decide", "decision_memo", "decision_view", "delete_rule", "derive_plan",
    "edit_plan", "needs_override", "set_error_control", "sign", "signoff_status",
    "signoffs_voided_by",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
