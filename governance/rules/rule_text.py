"""A rule's bar in words: one wording for the Rules page, the PDF and anything else that shows it.

A committee reads the same rule on screen and in the signed dossier, so both must say it the same way.
"""

from __future__ import annotations


def rule_bar(rule) -> str:
    """The rule's number(s) in words.

    Example:
        >>> from governance.rules.policy import MinNRule
        >>> rule_bar(MinNRule(id="n", threshold=100, rationale="enough cases for an interval"))
        'n ≥ 100 instances'
    """
    if rule.kind == "score":
        extra = [f"min n {rule.min_n}"] if rule.min_n else []
        extra += ["point estimates accepted"] if rule.allow_point_estimate else []
        text = (
            f"score {rule.threshold:.2f} (normalized; {1 + 4 * rule.threshold:.2f} on the jury's 1-5 scale; "
            "must be reached)"
        )
        return text + "".join(f"; {x}" for x in extra)
    if rule.kind == "min_n":
        return f"n ≥ {rule.threshold:,} instances"
    if rule.kind == "max_unscored_share":
        return f"unparsed or unscored outputs ≤ {rule.threshold:.0%}"
    if rule.kind == "subgroup_disparity":
        return f"subgroup / overall score within [{rule.ratio_lo:.2f}, {rule.ratio_hi:.2f}]"
    if rule.kind == "judge_agreement":
        return f"judge-clinician agreement (ICC lower bound) ≥ {rule.threshold:.2f}"
    return f"≤ USD {rule.threshold:,.2f} per 1,000 requests"
