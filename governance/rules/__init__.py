"""Acceptance rules and what they conclude: the per-risk-tier policy, verdicts (pass / fail /
inconclusive from an interval and a bar), the arithmetic behind a verdict (p-values, the family
correction, cases at a stated power), which verdicts are pre-registered, subgroup verdicts, the
wording of a rule's bar, and the recommendation the verdicts support.

Arrow Evidence -> Assessment of the path.
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "critical_rule": "governance.rules.critical_criterion",
    "rule_kind": "governance.rules.kinds",
    "headline": "governance.rules.outcome_text",
    "outcome_lines": "governance.rules.outcome_text",
    "load_defaults": "governance.rules.policy",
    "AcceptancePolicy": "governance.rules.records",
    "PolicyError": "governance.rules.records",
    "ScoreRule": "governance.rules.records",
    "rule_bar": "governance.rules.rule_text",
    "rule_label": "governance.rules.rule_text",
    "verdict_label": "governance.rules.rule_text",
    "score_rule": "governance.rules.score_rules",
    "tier_min_n": "governance.rules.score_rules",
    "unknown_benchmark": "governance.rules.score_rules",
    "Verdict": "governance.rules.verdicts",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "AcceptancePolicy", "PolicyError", "ScoreRule", "Verdict", "critical_rule", "headline", "load_defaults",
    "outcome_lines", "rule_bar", "rule_kind", "rule_label", "score_rule", "tier_min_n", "unknown_benchmark",
    "verdict_label",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
