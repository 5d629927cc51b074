"""The acceptance rules a dossier holds: rule kinds, the lock (pre-registration) and the change log.

Why apart from ``governance.rules.policy``: a ``Dossier`` stores its ``AcceptancePolicy``, and the
stages above the dossier edit and judge it. Keeping the record types here, below every stage, lets
the dossier import them without an import cycle; the operations (lock, set, remove, defaults) stay
in ``governance.rules.policy``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field, model_validator

from evaluator.evidence.record import Provenance
from evaluator.storage.record_base import OmitNewDefaults
from governance.dossier.user_text import UserRecord

RuleKind = Literal["score", "min_n", "max_unscored_share", "subgroup_disparity", "judge_agreement",
                   "max_cost_per_1k", "critical_criterion"]


RULE_ID = r"^[a-z0-9][a-z0-9_.-]{0,79}$"
Multiplicity = Literal["holm", "bonferroni"]
"""How the family of score verdicts is corrected (``governance.rules.family``)."""


class PolicyError(ValueError):
    """A policy edit that is not allowed, with a message for the user."""


class _RuleBase(UserRecord):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=RULE_ID)
    """Stable id, unique within the policy, e.g. ``score.patient_provider_messaging``."""
    benchmark: str | None = None
    """Only evidence on this benchmark (name as the evidence gives it); None: any benchmark."""
    subcategory: str | None = None
    """Only evidence in this taxonomy subcategory (id or name); None: any subcategory."""
    metric: str | None = None
    """Only evidence with this metric name; None: any metric."""
    provenance: tuple[Provenance, ...] = ()
    """Only evidence of these provenances; empty: any."""
    rationale: str = Field(min_length=10, max_length=5000)
    """Why the committee chose this number, in its own words."""


class ScoreRule(_RuleBase):
    """Each matching benchmark score must be at least as good as the threshold."""

    kind: Literal["score"] = "score"
    """Rule kind."""
    threshold: float = Field(ge=0, le=1)
    """Bar on the normalized 0-1 scale; "at least" when higher is better, "at most" otherwise."""
    min_n: int = Field(default=0, ge=0)
    """Evidence on fewer instances is inconclusive, whatever its interval."""
    allow_point_estimate: bool = False
    """Committee accepts evidence without an interval (e.g. published jury means) for this rule."""


class MinNRule(_RuleBase):
    """Each matching evidence record must rest on at least ``threshold`` instances."""

    kind: Literal["min_n"] = "min_n"
    """Rule kind."""
    threshold: int = Field(ge=1)
    """Minimum number of instances."""


class UnscoredShareRule(_RuleBase):
    """Share of outputs that were unparsed or unscored must stay at or below the threshold."""

    kind: Literal["max_unscored_share"] = "max_unscored_share"
    """Rule kind."""
    threshold: float = Field(ge=0, le=1)
    """Maximum share, 0-1, of (unparsed + unscored) / (scored + unscored) instances."""


class SubgroupDisparityRule(OmitNewDefaults, _RuleBase):
    """Every subgroup's score divided by the overall score must lie within [ratio_lo, ratio_hi]."""

    _omit_at_default: ClassVar[tuple[str, ...]] = ("suppressed",)

    kind: Literal["subgroup_disparity"] = "subgroup_disparity"
    """Rule kind."""
    ratio_lo: float = Field(gt=0, le=1)
    """Lowest acceptable subgroup/overall ratio (e.g. 0.8)."""
    ratio_hi: float = Field(ge=1)
    """Highest acceptable subgroup/overall ratio (e.g. 1.25)."""
    allow_point_estimate: bool = False
    """Committee accepts subgroup scores without an interval for this rule."""
    suppressed: Literal["condition", "insufficient_evidence"] = "condition"
    """What a group too small to report means: a named condition of an approval (default), or, where
    the committee requires every group it serves to be tested, insufficient evidence."""


class JudgeAgreementRule(_RuleBase):
    """Measured judge-clinician agreement (ICC) must reach the threshold for jury-scored evidence."""

    kind: Literal["judge_agreement"] = "judge_agreement"
    """Rule kind."""
    threshold: float = Field(ge=-1, le=1)
    """Minimum ICC that the interval's lower bound must reach."""
    allow_point_estimate: bool = False
    """Committee accepts an agreement figure without an interval for this rule."""


class CostRule(_RuleBase):
    """Projected cost per 1,000 requests must not exceed the threshold."""

    kind: Literal["max_cost_per_1k"] = "max_cost_per_1k"
    """Rule kind."""
    threshold: float = Field(ge=0)
    """Maximum USD per 1,000 requests."""


class CriticalCriterionRule(_RuleBase):
    """At most ``threshold`` of the graded cases may miss the rubric criteria carrying ``tag``.

    Read from rubric gradings (``Evidence.criterion_misses``): a case misses the tag when a tagged
    criterion with positive points is not met or a tagged harm (negative points) is met.
    """

    kind: Literal["critical_criterion"] = "critical_criterion"
    """Rule kind."""
    tag: str = Field(min_length=1, max_length=200)
    """The rubric criterion tag, e.g. ``medication_change``."""
    threshold: float = Field(gt=0, lt=1)
    """Largest acceptable share of cases missing the tag, in (0, 1): the interval's upper bound must reach
    it (at 0 no interval ever could, so the rule could only fail or stay open)."""
    min_n: int = Field(default=0, ge=0)
    """Fewer cases carrying the tag make the verdict inconclusive (never a pass; a fail needs no minimum)."""


Rule = Annotated[ScoreRule | MinNRule | UnscoredShareRule | SubgroupDisparityRule | JudgeAgreementRule
                 | CostRule | CriticalCriterionRule, Field(discriminator="kind")]


class PolicyLock(OmitNewDefaults, UserRecord):
    """The pre-registration of a rule set."""

    _omit_at_default: ClassVar[tuple[str, ...]] = ("error_control",)

    model_config = ConfigDict(frozen=True, extra="forbid")

    locked_at: datetime
    """When the rules were locked (timezone-aware)."""
    locked_by: str = Field(min_length=1)
    """Who locked them."""
    rules_hash: str
    """SHA-256 of the rule set as locked (``rules_hash``)."""
    evidence_ids_at_lock: tuple[str, ...] = ()
    """Evidence already attached when the rules were locked (not pre-registered for it)."""
    note: str = ""
    """Optional note, e.g. the meeting that agreed the rules."""
    error_control: str | None = None
    """Error control locked with the rules (``error_control_text``); None: locked before it was recorded."""


class RuleChange(OmitNewDefaults, UserRecord):
    """One change to a locked rule set: what, who, when, why."""

    _omit_at_default: ClassVar[tuple[str, ...]] = ("evidence_ids_at_change",)

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_id: str
    """Id of the rule added, changed or removed."""
    old: Rule | None
    """The rule before (None: added)."""
    new: Rule | None
    """The rule after (None: removed)."""
    by: str = Field(min_length=1)
    """Who changed it."""
    at: datetime
    """When."""
    why: str = Field(min_length=5)
    """The committee's reason."""
    hash_before: str
    """Rule-set hash before the change."""
    hash_after: str
    """Rule-set hash after the change."""
    evidence_ids_at_change: tuple[str, ...] | None = None
    """Evidence attached when the change was made (None: not recorded, so none counts as after it)."""


class AcceptancePolicy(OmitNewDefaults, UserRecord):
    """A dossier's acceptance rules with their lock and change log."""

    _omit_at_default: ClassVar[tuple[str, ...]] = ("multiplicity", "power")

    model_config = ConfigDict(frozen=True, extra="forbid")

    rules: list[Rule] = Field(default_factory=list)
    """The rules now in force."""
    derived_from: str = ""
    """Where the rules started, e.g. ``data/policies/default.yaml, tier moderate``."""
    tier: Literal["low", "moderate", "high", "critical"] | None = None
    """Risk tier the defaults were taken for (a later change of tier calls for a review of the rules)."""
    lock: PolicyLock | None = None
    """The pre-registration, once locked."""
    changes: list[RuleChange] = Field(default_factory=list)
    """Changes made after the lock, oldest first."""
    multiplicity: Multiplicity = "holm"
    """How the family of score verdicts is corrected: Holm's step-down (default) or Bonferroni."""
    power: float = Field(default=0.8, ge=0.5, le=0.99)
    """Chance of a pass that a further-cases figure aims for, if the true value equals the estimate."""

    @model_validator(mode="after")
    def _unique_ids(self):
        ids = [r.id for r in self.rules]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"rule ids must be unique; repeated: {dup}")
        return self

    def rule(self, rule_id: str) -> Rule:
        """The rule of this id (PolicyError when there is none)."""
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise PolicyError(f"no rule {rule_id!r}; rules: {[r.id for r in self.rules]}")


Status = Literal["pass", "fail", "inconclusive", "not_applicable"]
