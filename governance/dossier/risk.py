"""Risk tier from the consequences of an error and the human oversight around it.

The rule is deliberately simple so a committee can check it by hand:

* start from the severity of an uncaught wrong output: negligible 0, minor 1, moderate 2,
  serious 3, critical 4;
* add the decision role: informs +0, augments +1, replaces +2 (the more the output stands in
  for a human decision, the less a person weighs it before it acts);
* add the oversight: every output reviewed −1, sampled review +0, no review +1;
* tier by total: ≤1 low, 2–3 moderate, 4–5 high, ≥6 critical;
* floors: serious severity is never below moderate, critical severity never below high, and
  a model that replaces a human decision with no review is never below high.

Every step is reported back as a reason, so the page and the PDF show the working.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from governance.dossier.intended_use import IntendedUse

RiskTier = Literal["low", "moderate", "high", "critical"]
TIERS: tuple[RiskTier, ...] = ("low", "moderate", "high", "critical")

SEVERITY_POINTS = {"negligible": 0, "minor": 1, "moderate": 2, "serious": 3, "critical": 4}
ROLE_POINTS = {"informs": 0, "augments": 1, "replaces": 2}
OVERSIGHT_POINTS = {"every_output": -1, "sampled": 0, "none": 1}


class RiskAssessment(BaseModel):
    """A risk tier with the reasoning that produced it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tier: RiskTier
    """low / moderate / high / critical."""
    points: int
    """Severity + role + oversight points before floors."""
    reasons: tuple[str, ...]
    """Each step of the rule, in words."""


def _tier_for(points: int) -> RiskTier:
    if points <= 1:
        return "low"
    if points <= 3:
        return "moderate"
    if points <= 5:
        return "high"
    return "critical"


def assess_risk(use: IntendedUse) -> RiskAssessment:
    """Derive the risk tier of an intended use.

    Example:
        >>> from governance.dossier.intended_use import example_intended_use
        >>> assess_risk(example_intended_use()).tier
        'moderate'
    """
    sev = SEVERITY_POINTS[use.error_severity]
    role = ROLE_POINTS[use.decision_role]
    over = OVERSIGHT_POINTS[use.human_oversight]
    points = sev + role + over
    reasons = [
        f"Severity of an uncaught error is {use.error_severity}: {sev} points.",
        f"The output {use.decision_role} a human decision: {role:+d}.",
        f"Human oversight is '{use.human_oversight.replace('_', ' ')}': {over:+d}.",
    ]
    tier = _tier_for(points)
    reasons.append(f"{points} points give tier {tier} (≤1 low, 2–3 moderate, 4–5 high, ≥6 critical).")
    floors: list[tuple[bool, RiskTier, str]] = [
        (use.error_severity == "serious", "moderate", "serious severity is never below moderate"),
        (use.error_severity == "critical", "high", "critical severity is never below high"),
        (
            use.decision_role == "replaces" and use.human_oversight == "none",
            "high",
            "replacing a human decision without review is never below high",
        ),
    ]
    for applies, floor, why in floors:
        if applies and TIERS.index(tier) < TIERS.index(floor):
            tier = floor
            reasons.append(f"Raised to {floor}: {why}.")
    return RiskAssessment(tier=tier, points=points, reasons=tuple(reasons))
