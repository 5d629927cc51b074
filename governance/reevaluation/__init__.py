"""Re-evaluation after a model or prompt change, the pure side: how verdicts and subgroups compare
before and after, and whether the change would alter the committee's decision.

The loop back from Decision to Runs. Freezing the evidence plan, re-running each plan item and
saving the addendum take the store, so they are this package's ``operations`` (``rerun``,
``addendum``, ``job``); the frozen plan is ``governance.evidence.operations.plan``.
"""
