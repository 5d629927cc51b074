"""What a dossier records of its decision: the committee's decision, sign-offs, the oversight plan.

Why apart from ``governance.decision``: the dossier stores these values and the decision stage
operates on the dossier (hashes, recording, status), so the record types sit below both and no
import cycle is needed. The operations stay in ``governance.decision.signoff`` and
``governance.decision.oversight``.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import ConfigDict, Field, model_serializer, model_validator

from evaluator.storage.record_base import OmitNewDefaults
from governance.dossier.user_text import UserRecord

Outcome = Literal["approve", "approve_with_conditions", "insufficient_evidence", "reject"]
"""What the tool may recommend (governance.rules.recommendation)."""
DecisionOutcome = Literal["approve", "approve_with_conditions", "reject"]
"""What the committee may decide: insufficient evidence is the tool's word, not a decision."""
DECISION_OUTCOMES: tuple[str, ...] = ("approve", "approve_with_conditions", "reject")


class GapsOverride(UserRecord):
    """The committee's recorded choice to approve while parts of the plan were missing."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    by: str = Field(min_length=1, max_length=200)
    """Who recorded the override (the person recording the decision)."""
    reason: str = Field(min_length=10, max_length=5000)
    """Why the committee approves without those items, in its words."""
    missing: list[str] = Field(min_length=1)
    """The checklist items missing at that moment (``governance.decision.readiness``), by label."""


class DecisionConfirmation(UserRecord):
    """The chair's recorded word that a decision still stands after what it rested on changed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    by: str = Field(min_length=1, max_length=200)
    """Who confirmed it (the chair)."""
    at: datetime
    """When."""
    reason: str = Field(min_length=10, max_length=5000)
    """Why the decision still stands, in the chair's words."""
    changed: list[str] = Field(default_factory=list)
    """What had changed since the decision, by label (e.g. "Intended use", "Evidence")."""
    previous_hash: str
    """The ``decision_basis_hash`` the decision rested on before this confirmation."""
    acknowledged: list[str] = Field(default_factory=list)
    """Review-plan findings read from free text that the chair confirmed do not apply (their check names,
    ``governance.decision.standing``)."""


class CommitteeDecision(UserRecord, OmitNewDefaults):
    """What the committee decided, why, and on what conditions."""

    _omit_at_default: ClassVar[tuple[str, ...]] = ("gaps_override", "confirmations")

    model_config = ConfigDict(frozen=True, extra="forbid")
    item_caps: ClassVar[dict[str, int]] = {"required_roles": 200}  # as SignOff.role

    outcome: DecisionOutcome
    """approve / approve_with_conditions / reject."""
    model: str | None = None
    """The candidate the decision is about (None: the use as a whole)."""
    rationale: str = Field(min_length=10, max_length=20_000)
    """Why, in the committee's words."""
    conditions: list[str] = Field(default_factory=list)
    """Conditions of an approval (at least one for approve_with_conditions)."""
    decided_by: str = Field(min_length=1)
    """Who recorded the decision (chair or secretary)."""
    decided_at: datetime
    """When."""
    recommended: Outcome | None = None
    """What the tool recommended at that moment, for the record."""
    required_roles: list[str] = Field(min_length=1)
    """Roles whose sign-off the decision needs."""
    content_hash: str
    """``decision_basis_hash`` of the dossier the committee decided on (status already ``decided``)."""
    gaps_override: GapsOverride | None = None
    """Set when the committee approved with checklist items missing (None: nothing was missing, or a
    rejection, which needs no override)."""
    confirmations: list[DecisionConfirmation] = []
    """Each time the chair confirmed the decision still stands after its basis changed (oldest first);
    ``content_hash`` is then the basis confirmed last."""

    @model_validator(mode="after")
    def _conditions_fit_outcome(self):
        conditions = [c for c in self.conditions if c.strip()]
        if len(conditions) != len(self.conditions):
            raise ValueError("conditions must not be empty")
        if self.outcome == "approve_with_conditions" and not conditions:
            raise ValueError("approve_with_conditions needs at least one condition")
        if self.outcome != "approve_with_conditions" and conditions:
            raise ValueError(f"{self.outcome} takes no conditions; use approve_with_conditions")
        return self


class SignOff(UserRecord):
    """One person's sign-off, bound to the content they saw."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str = Field(min_length=2, max_length=200)
    """Role signed for, e.g. ``clinical lead``."""
    name: str = Field(min_length=1, max_length=200)
    """Who signed."""
    signed_at: datetime
    """When."""
    signed_hash: str
    """``signable_hash`` of the dossier when signed."""
    version_hash: str | None = None
    """Store version hash of the version the signer was shown."""
    note: str = Field(default="", max_length=5000)
    """Optional remark."""
    subject: str | None = None
    """The signer's stable identifier (``governance.identity``); None on sign-offs made before it."""
    issuer: str | None = None
    """Who vouched for the subject (OIDC issuer, proxy header, ``local``)."""
    auth: str | None = None
    """How the signer was established, in words ("local, unauthenticated", "OIDC login at ...")."""
    signature: str | None = None
    """HMAC-SHA256 under the deployment's key over the other fields (``governance.identity.keys``)."""
    key_id: str | None = None
    """Fingerprint of the key that made ``signature``."""

    @model_serializer(mode="wrap")
    def _omit_unset_identity(self, handler):
        # Sign-offs stored before these fields existed keep their content hash: unset ones are left out.
        data = handler(self)
        for key in ("subject", "issuer", "auth", "signature", "key_id"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    def signed_fields(self) -> dict:
        """What the signature covers: every field but the signature itself."""
        return {"role": self.role, "name": self.name, "signed_at": self.signed_at,
                "signed_hash": self.signed_hash, "version_hash": self.version_hash, "note": self.note,
                "subject": self.subject, "issuer": self.issuer, "auth": self.auth}


TriggerKind = Literal["model_version_change", "prompt_change", "vendor_notice", "schedule", "metric_breach"]


class ReviewRequirements(UserRecord):
    """Who reviews outputs, how many are audited, and with what qualification."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    review_before_release: bool
    """Every output is reviewed by a qualified person before it reaches a chart or a patient."""
    reviewer: str = Field(min_length=3)
    """Who reviews (or uses) each output."""
    qualification: str = Field(min_length=3)
    """What the reviewer must be and know."""
    qa_sample_rate: float = Field(ge=0, le=1)
    """Share of released outputs audited after the fact."""
    qa_reviewer: str = Field(min_length=3)
    """Who audits the sample."""
    stratify_audit_by_subgroup: bool = False
    """Draw the audit sample equally from each subgroup."""
    clinician_rated_audit: bool = False
    """Audit ratings by clinicians rather than by the LLM jury."""


class Trigger(UserRecord):
    """An event that starts a re-evaluation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: TriggerKind
    """What kind of event."""
    description: str = Field(min_length=3)
    """The event in words."""


FeedMetric = Literal["material_correction_share", "discarded_share", "error_rate", "cost_per_1k",
                     "latency_p95_ms"]
"""What a production feed can measure (``governance.monitoring``); a plan metric names one, or none."""


class MonitoredMetric(UserRecord, OmitNewDefaults):
    """A number watched after go-live and the value that raises the alarm."""

    _omit_at_default: ClassVar[tuple[str, ...]] = ("feed_metric",)

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=3)
    """What is measured."""
    threshold: float
    """The alarm value."""
    direction: Literal["at_least", "at_most"]
    """The metric must stay at least / at most the threshold."""
    source: str = ""
    """The rule (in words) or default the threshold comes from."""
    feed_metric: FeedMetric | None = None
    """What the production feed measures for it (None: read from the name, or not measurable from a feed)."""


class MonitoringPlan(UserRecord, OmitNewDefaults):
    """When to re-evaluate, what to watch, and who is responsible.

    The fields after ``owner`` came with production monitoring (``governance.monitoring``); plans saved
    before them read with the defaults below and keep their hashes (``OmitNewDefaults``).
    """

    _omit_at_default: ClassVar[tuple[str, ...]] = (
        "target_arl0", "review_seconds_floor", "sentinel_catch_bar", "review_deadline_hours",
        "pause_deadline_hours", "suspend_deadline_hours", "approved_prompt_version", "model_aliases",
        "approved_tags", "baseline_rate", "baseline_start", "baseline_end", "retirement_notice_days")

    model_config = ConfigDict(frozen=True, extra="forbid")

    triggers: list[Trigger] = Field(min_length=1)
    """Events that start a re-evaluation."""
    schedule_months: int = Field(ge=1, le=60)
    """Months between scheduled re-evaluations."""
    metrics: list[MonitoredMetric] = Field(default_factory=list)
    """Metrics and thresholds to watch."""
    owner: str = Field(min_length=1)
    """Person or body responsible for the monitoring."""
    target_arl0: int = Field(default=500, ge=20, le=1_000_000)
    """Target in-control average run length of the CUSUM: outputs per false alarm."""
    review_seconds_floor: float | None = Field(default=None, ge=0, le=3600)
    """Median review time (seconds) below which review looks like rubber-stamping (None: the default)."""
    sentinel_catch_bar: float = Field(default=0.9, ge=0, le=1)
    """Share of planted faulty outputs reviewers must catch."""
    review_deadline_hours: float = Field(default=48, ge=0, le=24 * 90)
    """Hours to respond to a review signal."""
    pause_deadline_hours: float = Field(default=4, ge=0, le=24 * 90)
    """Hours to respond to a pause."""
    suspend_deadline_hours: float = Field(default=0, ge=0, le=24 * 90)
    """Hours to respond to a suspension (0: at once)."""
    approved_prompt_version: str | None = Field(default=None, max_length=200)
    """The prompt version approved at the decision or go-live (None: not recorded, not checked)."""
    model_aliases: list[str] = Field(default=[])
    """Served model names the committee accepts as the approved model (besides the decided run's)."""
    approved_tags: dict[str, list[str]] = Field(default={})
    """Subgroup tag → the values the intended use covers; other values are use outside the envelope."""
    baseline_rate: float | None = Field(default=None, gt=0, lt=1)
    """In-control material-correction rate the committee set (None: a baseline window, else the default)."""
    baseline_start: datetime | None = None
    """Start of the baseline window the committee marked at go-live."""
    baseline_end: datetime | None = None
    """End of that window."""
    retirement_notice_days: int = Field(default=90, ge=0, le=3650)
    """Days before the vendor's retirement date of the approved snapshot at which a review is raised."""


class OversightPlan(UserRecord):
    """Review requirements and monitoring plan, with the reasons and who last edited them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    review: ReviewRequirements
    """Human review."""
    monitoring: MonitoringPlan
    """Monitoring."""
    reasons: list[str] = Field(default_factory=list)
    """How the plan was derived, step by step."""
    derived_from: str = ""
    """Defaults file and tier the plan started from."""
    edited_by: str | None = None
    """Who last edited it by hand (None: as derived)."""
    edited_at: datetime | None = None
    """When."""


OUTCOME_LABELS = {"approve": "Approve", "approve_with_conditions": "Approve with conditions",
                  "insufficient_evidence": "Insufficient evidence", "reject": "Reject"}
