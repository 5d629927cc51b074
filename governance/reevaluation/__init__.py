"""Re-evaluation after a model or prompt change: the frozen evidence plan of a decided dossier,
re-running each plan item with only the change applied, the paired comparison, and the addendum
that records what changed and whether the decision would.

The loop back from Decision to Runs.
"""
