"""A rule's bar in words: one wording for the Rules page, the PDF and anything else that shows it.

A committee reads the same rule on screen and in the signed dossier, so both must say it the same way.
"""

from __future__ import annotations

from governance.evidence.select import subcategory_name
from governance.rules.kinds import rule_kind


def rule_bar(rule) -> str:
    """The rule's number(s) in words.

    Example:
        >>> from governance.rules.policy import MinNRule
        >>> rule_bar(MinNRule(id="n", threshold=100, rationale="enough cases for an interval"))
        'n ≥ 100 instances'
    """
    return rule_kind(rule.kind).bar(rule)


def _bar_number(kind: str, threshold: float | None) -> str:
    if threshold is None or kind == "subgroup_disparity":  # a window, named by the bar's wording
        return ""
    if kind == "min_n":
        return f" {threshold:,.0f}"
    if kind == "max_cost_per_1k":
        return f" USD {threshold:,.2f}"
    if kind == "max_unscored_share":
        return f" {threshold:.0%}"
    if kind == "critical_criterion":
        return f" ≤ {threshold:.1%} of cases missing"
    return f" {threshold:.2f}"


def rule_label(rule) -> str:
    """A rule's name in words, for pages and the PDF (its id stays the key in the dossier and the CLI).

    Example:
        >>> from governance.rules.policy import MinNRule, ScoreRule
        >>> rule_label(ScoreRule(id="score.x", benchmark="MedCalc-Bench", threshold=0.95, rationale="r" * 10))
        'Score bar 0.95 on MedCalc-Bench'
        >>> rule_label(MinNRule(id="min_n", threshold=100, rationale="enough cases"))
        'Minimum n 100'
    """
    kind = rule_kind(rule.kind).label
    if rule.kind == "critical_criterion":
        kind += f" {rule.tag}"
    text = kind[:1].upper() + kind[1:] + _bar_number(rule.kind, getattr(rule, "threshold", None))
    if getattr(rule, "subcategory", None):
        text += f" for {subcategory_name(rule.subcategory)}"
    if getattr(rule, "benchmark", None):
        text += f" on {rule.benchmark}"
    return text


def verdict_label(verdict) -> str:
    """Which rule a verdict is, in words: "score bar 0.95 on PrivacyDetection", "minimum n 100 on MedDialog".

    Example:
        >>> from governance.rules.verdicts import Verdict
        >>> verdict_label(Verdict(rule_id="score.x", kind="score", model="m", benchmark="B", threshold=0.7,
        ...                       status="fail", reason="low."))
        'score bar 0.70 on B'
    """
    text = rule_kind(verdict.kind).label
    if verdict.kind == "critical_criterion" and verdict.metric:  # "<tag> miss rate"
        text += " " + verdict.metric.removesuffix(" miss rate")
    text += _bar_number(verdict.kind, verdict.threshold)
    return text + (f" on {verdict.benchmark}" if verdict.benchmark else "")
