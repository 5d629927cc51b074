"""Human review and monitoring: what people must do around the model, derived from risk and verdicts.

Why derived and then editable: a committee should not start from a blank page, and it should see
why each requirement is there. ``derive_oversight`` starts from the tier's defaults in
``data/policies/oversight.yaml`` and adjusts them for what the verdicts left open (inconclusive
rules double the audit sample; a failed rule forces review of every output; unsettled subgroup
results stratify the audit; unsettled judge agreement moves audit ratings to clinicians), writing
each step into ``reasons``. The committee edits the result and the dossier stores the agreed plan
(with who edited it), so the report shows what was agreed, not what the tool suggested.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from evaluator.paths import DATA_DIR
from governance.decision.records import (
    MonitoredMetric,
    MonitoringPlan,
    OversightPlan,
    ReviewRequirements,
    Trigger,
)
from governance.dossier.labels import benchmark_label
from governance.evidence.select import subcategory_name
from governance.rules.rule_text import rule_label

POLICY_DIR = DATA_DIR / "policies"


class TierOversight(BaseModel):
    """One tier's defaults in ``oversight.yaml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    review_before_release: bool
    """Whether every output is reviewed before release."""
    reviewer: str
    """Who reviews."""
    qualification: str
    """Reviewer qualification."""
    qa_sample_rate: float = Field(ge=0, le=1)
    """Audit share."""
    qa_reviewer: str
    """Who audits."""
    max_correction_rate: float = Field(ge=0, le=1)
    """Alarm level for the share of audited outputs needing a material correction."""
    schedule_months: int = Field(ge=1)
    """Months between scheduled re-evaluations."""
    rationale: str = Field(min_length=20)
    """Why these numbers."""


class OversightDefaults(BaseModel):
    """``data/policies/oversight.yaml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int
    """File format version."""
    tiers: dict[Literal["low", "moderate", "high", "critical"], TierOversight]
    """Defaults per risk tier."""
    adjustments: dict[str, float | str]
    """How open verdicts change the defaults, with the rationale of each change."""
    triggers: list[Trigger]
    """Re-evaluation triggers every plan starts with."""


@cache
def load_oversight_defaults(path: Path = POLICY_DIR / "oversight.yaml") -> OversightDefaults:
    """The shipped review and monitoring defaults (validated)."""
    return OversightDefaults.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def _metrics(rules: Iterable, max_correction: float) -> list[MonitoredMetric]:
    out = [MonitoredMetric(name="share of audited outputs needing a material correction",
                           threshold=max_correction, direction="at_most",
                           source="the default plan's largest acceptable correction rate")]
    for r in rules:
        # in words: a benchmark's title, a subcategory's taxonomy name, never their ids (issue 36 item 10)
        target = (benchmark_label(r.benchmark) if r.benchmark
                  else subcategory_name(r.subcategory) if r.subcategory else "all mapped benchmarks")
        if r.kind == "score":
            out.append(MonitoredMetric(name=f"normalized score on {target} (re-run of the evidence plan)",
                                       threshold=r.threshold, direction="at_least", source=rule_label(r)))
        elif r.kind == "max_unscored_share":
            out.append(MonitoredMetric(name="share of unparsed or unscored outputs", threshold=r.threshold,
                                       direction="at_most", source=rule_label(r)))
        elif r.kind == "critical_criterion":
            out.append(MonitoredMetric(name=f"share of cases missing the criteria tagged {r.tag} (a sample "
                                            "of outputs graded against the scenario's rubric)",
                                       threshold=r.threshold, direction="at_most", source=rule_label(r)))
        elif r.kind == "max_cost_per_1k":
            out.append(MonitoredMetric(name="USD per 1,000 requests (billing)", threshold=r.threshold,
                                       direction="at_most", source=rule_label(r)))
    return out


def derive_oversight(tier: str, human_oversight: str, verdicts: Iterable, rules: Iterable, owner: str,
                     model: str | None = None) -> OversightPlan:
    """Review requirements and monitoring plan from tier defaults, adjusted for open verdicts.

    Args:
        tier: risk tier of the dossier.
        human_oversight: the intended use's stated oversight (``every_output`` keeps that promise).
        verdicts: the assessment's verdicts (``status``, ``kind``, ``model`` are read).
        rules: the acceptance rules (monitored thresholds come from them).
        owner: who owns the monitoring (usually the dossier owner).
        model: consider only this candidate's verdicts (None: all candidates).

    Example:
        >>> plan = derive_oversight("moderate", "every_output", [], [], owner="Primary care AI committee")
        >>> plan.review.review_before_release, plan.review.qa_sample_rate, plan.monitoring.schedule_months
        (True, 0.05, 6)
    """
    d = load_oversight_defaults()
    t = d.tiers[tier]  # type: ignore[index]
    adj = d.adjustments
    mine = [v for v in verdicts if model is None or v.model in (model, None)]
    open_kinds = {v.kind for v in mine if v.status in ("inconclusive", "fail")}
    reasons = [f"Tier {tier}: {t.rationale.strip()}"]
    review_first = t.review_before_release
    if human_oversight == "every_output" and not review_first:
        review_first = True
        reasons.append("The intended use says every output is reviewed: the plan keeps that promise.")
    rate = t.qa_sample_rate
    if any(v.status == "inconclusive" for v in mine):
        rate = min(1.0, rate * float(adj["inconclusive_qa_multiplier"]))
        reasons.append(f"{adj['inconclusive_rationale']} (audit rate {t.qa_sample_rate:.0%} → {rate:.0%})")
    if any(v.status == "fail" for v in mine):
        review_first = True
        reasons.append(str(adj["fail_rationale"]))
    stratify = "subgroup_disparity" in open_kinds
    if stratify:
        reasons.append(str(adj["subgroup_rationale"]))
    clinician_rated = "judge_agreement" in open_kinds
    if clinician_rated:
        reasons.append(str(adj["agreement_rationale"]))
    review = ReviewRequirements(review_before_release=review_first, reviewer=t.reviewer,
                                qualification=t.qualification, qa_sample_rate=round(rate, 4),
                                qa_reviewer=t.qa_reviewer, stratify_audit_by_subgroup=stratify,
                                clinician_rated_audit=clinician_rated)
    monitoring = MonitoringPlan(triggers=list(d.triggers), schedule_months=t.schedule_months,
                                metrics=_metrics(rules, t.max_correction_rate), owner=owner)
    return OversightPlan(review=review, monitoring=monitoring, reasons=reasons,
                         derived_from=f"the default review and monitoring plan for risk tier {tier}"
                         + (f", verdicts for {model}" if model else ""))


def edit_oversight(plan: OversightPlan, review: ReviewRequirements, monitoring: MonitoringPlan, by: str,
                   at: datetime) -> OversightPlan:
    """The plan with the committee's edits, recording who edited it and when.

    Example:
        >>> from datetime import UTC, datetime
        >>> p = derive_oversight("low", "sampled", [], [], owner="me")
        >>> r = p.review.model_copy(update={"qa_sample_rate": 0.1})
        >>> edit_oversight(p, r, p.monitoring, by="dr.lee", at=datetime.now(UTC)).review.qa_sample_rate
        0.1
    """
    if not by.strip():
        raise ValueError("say who edits the plan")
    if review == plan.review and monitoring == plan.monitoring:
        return plan
    return plan.model_copy(update={"review": review, "monitoring": monitoring, "edited_by": by.strip(),
                                   "edited_at": at})
