"""Risk tier from the consequences of an error and the human oversight around it.

The rule is deliberately simple so a committee can check it by hand:

* start from the severity of an uncaught wrong output: negligible 0, minor 1, moderate 2,
  serious 3, critical 4;
* add the decision role: informs +0, augments +1, replaces +2 (the more the output stands in
  for a human decision, the less a person weighs it before it acts);
* add the oversight: every output reviewed −1, sampled review +0, no review +1;
* tier by total: ≤1 low, 2–3 moderate, 4–5 high, ≥6 critical;
* floors: a use whose uncaught error can cause serious harm (severity serious or critical) is never
  below high, because oversight alone must not talk such a use down to moderate bars; the committee
  may record why a *serious* use is not (``IntendedUse.lower_tier_reason``), and then the old floor,
  moderate, applies; critical severity is never below high, whatever is recorded; a model that
  replaces a human decision with no review is never below high.

The tier is driven by three inputs only (severity, decision role, oversight) plus that recorded
reason; patient data exposure does not change it (it decides the PHI gate). ``TIER_INPUTS`` names them
for the page.

Every step is reported back as a reason, so the page and the PDF show the working.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from governance.intended_use.records import (
    DECISION_ROLE_LABELS,
    OVERSIGHT_LABELS,
    SEVERITY_LABELS,
    IntendedUse,
)

RiskTier = Literal["low", "moderate", "high", "critical"]
TIERS: tuple[RiskTier, ...] = ("low", "moderate", "high", "critical")

SEVERITY_POINTS = {"negligible": 0, "minor": 1, "moderate": 2, "serious": 3, "critical": 4}
ROLE_POINTS = {"informs": 0, "augments": 1, "replaces": 2}
OVERSIGHT_POINTS = {"every_output": -1, "sampled": 0, "none": 1}
TIER_INPUTS: tuple[str, ...] = ("error_severity", "decision_role", "human_oversight", "lower_tier_reason")
"""The intended-use fields the tier is computed from, in the order the rule uses them."""
SERIOUS_HARM: frozenset[str] = frozenset({"serious", "critical"})
"""Severities whose uncaught error can cause serious harm: tier high at least."""


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
        >>> from governance.intended_use.records import example_intended_use
        >>> assess_risk(example_intended_use()).tier
        'moderate'
    """
    sev = SEVERITY_POINTS[use.error_severity]
    role = ROLE_POINTS[use.decision_role]
    over = OVERSIGHT_POINTS[use.human_oversight]
    points = sev + role + over
    reasons = [
        f"Severity of an uncaught error: {_short(SEVERITY_LABELS, use.error_severity)}: {sev} points.",
        f"Decision role: {_short(DECISION_ROLE_LABELS, use.decision_role)}: {role:+d}.",
        f"Human oversight: {OVERSIGHT_LABELS[use.human_oversight].lower()}: {over:+d}.",
    ]
    tier = _tier_for(points)
    reasons.append(f"{points} points give tier {tier} (≤1 low, 2–3 moderate, 4–5 high, ≥6 critical).")
    waived = use.error_severity == "serious" and bool(use.lower_tier_reason)
    floors: list[tuple[bool, RiskTier, str]] = [
        (use.error_severity in SERIOUS_HARM and not waived, "high",
         "an uncaught error can cause serious harm, so the use is never below high unless the committee "
         "records why not"),
        (waived, "moderate", "serious severity is never below moderate"),
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
    if waived:
        reasons.append("Not raised to high: the committee recorded why (see the intended use).")
    return RiskAssessment(tier=tier, points=points, reasons=tuple(reasons))


def high_floor_applies(use: IntendedUse) -> bool:
    """Whether the serious-harm floor lifts this use to high (so a recorded reason would change the tier).

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> use = example_intended_use().model_copy(update={"error_severity": "serious"})
        >>> high_floor_applies(use), high_floor_applies(use.model_copy(update={"lower_tier_reason": "x"}))
        (True, False)
    """
    if use.error_severity != "serious" or use.lower_tier_reason:
        return False
    points = SEVERITY_POINTS["serious"] + ROLE_POINTS[use.decision_role]
    points += OVERSIGHT_POINTS[use.human_oversight]
    return TIERS.index(_tier_for(points)) < TIERS.index("high")


def _short(labels: dict[str, str], key: str) -> str:
    """The label's lead word (``Serious``), lower case, for a sentence."""
    return labels[key].split(":", 1)[0].lower()
