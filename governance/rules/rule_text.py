"""A rule's bar in words: one wording for the Rules page, the PDF and anything else that shows it.

A committee reads the same rule on screen and in the signed dossier, so both must say it the same way.
"""

from __future__ import annotations

from governance.rules.kinds import rule_kind


def rule_bar(rule) -> str:
    """The rule's number(s) in words.

    Example:
        >>> from governance.rules.policy import MinNRule
        >>> rule_bar(MinNRule(id="n", threshold=100, rationale="enough cases for an interval"))
        'n ≥ 100 instances'
    """
    return rule_kind(rule.kind).bar(rule)
