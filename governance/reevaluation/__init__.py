"""Re-evaluation after a model or prompt change: how verdicts and subgroups compare
before and after, and whether the change would alter the committee's decision.

The loop back from Decision to Runs. Freezing the evidence plan, re-running each plan item and
saving the addendum take the store, so they are this package's ``operations`` (``rerun``,
``addendum``, ``job``); the frozen plan is ``governance.evidence.operations.plan``.
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "added_addenda": "governance.reevaluation.operations.addendum",
    "current_plan": "governance.reevaluation.operations.addendum",
    "reevaluate_and_wait": "governance.reevaluation.operations.job",
    "start_reevaluation": "governance.reevaluation.operations.job",
    "ReevaluationError": "governance.reevaluation.operations.rerun",
    "read_prompt_bytes": "governance.reevaluation.operations.rerun",
    "read_prompt_file": "governance.reevaluation.operations.rerun",
    "PlanChange": "governance.reevaluation.records",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "PlanChange", "ReevaluationError", "added_addenda", "current_plan", "read_prompt_bytes",
    "read_prompt_file", "reevaluate_and_wait", "start_reevaluation",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
