"""The intended use: who uses the model, where, in which workflow, and what an uncaught error costs
(``records``), the risk tier it implies (``risk``), and merging a form's edits into the stored record
(``form_merge``). The first arrow of the path; every later concept reads it.
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "apply_merge": "governance.intended_use.form_merge",
    "form_values": "governance.intended_use.form_merge",
    "plan_merge": "governance.intended_use.form_merge",
    "DECISION_ROLE_LABELS": "governance.intended_use.records",
    "OVERSIGHT_LABELS": "governance.intended_use.records",
    "PHI_LABELS": "governance.intended_use.records",
    "SEVERITY_LABELS": "governance.intended_use.records",
    "TIER_INPUTS": "governance.intended_use.risk",
    "assess_risk": "governance.intended_use.risk",
    "high_floor_applies": "governance.intended_use.risk",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "DECISION_ROLE_LABELS", "OVERSIGHT_LABELS", "PHI_LABELS", "SEVERITY_LABELS", "TIER_INPUTS",
    "apply_merge", "assess_risk", "form_values", "high_floor_applies", "plan_merge",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
