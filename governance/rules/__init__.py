"""Acceptance rules and what they conclude: the per-risk-tier policy, verdicts (pass / fail /
inconclusive from an interval and a bar), the arithmetic behind a verdict (p-values, the family
correction, cases at a stated power), which verdicts are pre-registered, subgroup verdicts, the
wording of a rule's bar, and the recommendation the verdicts support.

Arrow Evidence -> Assessment of the path.
"""
