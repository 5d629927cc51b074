"""Re-evaluation after a model or prompt change, the pure side: how verdicts and subgroups compare
before and after, and whether the change would alter the committee's decision.

The loop back from Decision to Runs. Freezing the evidence plan, re-running each plan item and
saving the addendum take the store, so they are at the front desk (``governance.actions``:
``evidence_plan``, ``rerun``, ``reevaluate``, ``reevaluation``).
"""
