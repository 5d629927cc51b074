"""The dossier: one intended use, its task mapping and (in later steps) its evidence and decision.

A dossier is a plain pydantic value. It is never updated in place in the store: every save
appends a version whose hash is the SHA-256 of the dossier's canonical JSON (sorted keys, no
whitespace), so a sign-off bound to a hash is bound to exactly this content.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from evaluator.evidence.record import Evidence
from evaluator.phi.attestation import DeidentificationAttestation
from governance.decision.records import CommitteeDecision, OversightPlan, SignOff
from governance.dossier.practice import PracticeCopy
from governance.dossier.user_text import UserRecord
from governance.evidence.plan_records import EvidencePlan
from governance.evidence.records import GraderAgreementSetting, JudgeAgreementSetting
from governance.intended_use.records import IntendedUse
from governance.intended_use.risk import RiskAssessment, assess_risk
from governance.mapping.taxonomy import load_taxonomy
from governance.monitoring.records import MonitoringEntry
from governance.procurement.records import Candidate, CostSettings
from governance.reevaluation.records import ReevaluationAddendum
from governance.rules.records import AcceptancePolicy

DossierStatus = Literal["draft", "in_review", "decided", "re_evaluation"]


def utcnow() -> datetime:
    """Timezone-aware now, the only clock the domain uses."""
    return datetime.now(UTC)


def new_dossier_id() -> str:
    """Short, readable, unique dossier id such as ``D-3f9a1c2b``."""
    return "D-" + uuid.uuid4().hex[:8]


class MappingDecision(UserRecord):
    """A reviewer's accept or reject of one subcategory for this intended use."""

    model_config = ConfigDict(extra="forbid")

    subcategory_id: str
    """Taxonomy subcategory id."""
    status: Literal["accepted", "rejected"]
    """What the reviewer decided."""
    score: float | None = None
    """Suggestion score at the time, if it came from a suggestion."""
    by: str
    """Who decided."""
    at: datetime
    """When (timezone-aware)."""
    note: str = ""
    """Optional reason."""


class LocalTask(UserRecord):
    """A task the committee adds under a subcategory; marked local, never MedHELM's."""

    model_config = ConfigDict(extra="forbid")

    subcategory_id: str
    """Subcategory it belongs to."""
    name: str = Field(min_length=3, max_length=300)
    """Task name in the committee's words."""
    description: str = Field(default="", max_length=5000)
    """What the task involves."""
    added_by: str
    """Who added it."""
    added_at: datetime
    """When."""
    local: Literal[True] = True
    """Always true: this task is not part of MedHELM."""


class TaskMapping(BaseModel):
    """How the intended use maps onto the MedHELM taxonomy.

    Example:
        >>> m = TaskMapping().decide("supporting_diagnostic_decisions", "accepted", by="a.analyst")
        >>> m = m.decide("providing_patient_education_resources", "rejected", by="a.analyst")
        >>> m.accepted
        ['supporting_diagnostic_decisions']
    """

    model_config = ConfigDict(extra="forbid")

    decisions: list[MappingDecision] = Field(default_factory=list)
    """Latest decision per subcategory (one entry each)."""
    local_tasks: list[LocalTask] = Field(default_factory=list)
    """The committee's own tasks."""

    @property
    def accepted(self) -> list[str]:
        """Accepted subcategory ids in decision order."""
        return [d.subcategory_id for d in self.decisions if d.status == "accepted"]

    def decide(
        self, subcategory_id: str, status: str, by: str, score: float | None = None, note: str = ""
    ) -> TaskMapping:
        """Return a new mapping with this decision replacing any earlier one for the subcategory.

        Raises:
            TaxonomyError: for an unknown subcategory id.

        Example:
            >>> m = TaskMapping().decide("planning_treatments", "accepted", by="dr.lee")
            >>> m.accepted
            ['planning_treatments']
        """
        load_taxonomy().subcategory(subcategory_id)
        kept = [d for d in self.decisions if d.subcategory_id != subcategory_id]
        decision = MappingDecision(
            subcategory_id=subcategory_id, status=status, score=score, by=by, at=utcnow(), note=note
        )
        return self.model_copy(update={"decisions": [*kept, decision]})

    def add_local_task(self, subcategory_id: str, name: str, by: str, description: str = "") -> TaskMapping:
        """Return a new mapping with a local task added under a known subcategory."""
        load_taxonomy().subcategory(subcategory_id)
        task = LocalTask(
            subcategory_id=subcategory_id, name=name, description=description, added_by=by, added_at=utcnow()
        )
        return self.model_copy(update={"local_tasks": [*self.local_tasks, task]})


class Dossier(UserRecord):
    """Everything a committee records about one intended use.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="Portal replies", owner="dr.lee", intended_use=example_intended_use())
        >>> d.id.startswith("D-"), d.status, d.risk.tier
        (True, 'draft', 'moderate')
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(default_factory=new_dossier_id, pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    """Stable id, e.g. ``D-3f9a1c2b``."""
    title: str = Field(min_length=3, max_length=300)
    """Short name of the intended use."""
    owner: str = Field(min_length=1, max_length=200)
    """Person accountable for the dossier."""
    status: DossierStatus = "draft"
    """Where the dossier is in its path."""
    intended_use: IntendedUse
    """The use under review."""
    mapping: TaskMapping = Field(default_factory=TaskMapping)
    """Taxonomy mapping."""
    evidence: list[Evidence] = Field(default_factory=list)
    """Evidence the committee attached (published, imported HELM runs, local runs)."""
    detached_evidence_ids: list[str] = Field(default_factory=list)
    """Evidence once attached and detached since: seen, so a rule locked later is not pre-registered on it."""
    policy: AcceptancePolicy | None = None
    """Acceptance rules with their lock and change log (governance.rules.policy)."""
    judge_agreement: JudgeAgreementSetting | None = None
    """Measured jury-clinician agreement, read by judge-agreement rules."""
    grader_agreements: list[GraderAgreementSetting] = Field(default_factory=list)
    """Rubric gradings' per-criterion agreement with clinicians (one per grading), read by judge-agreement
    rules for rubric-graded evidence."""
    cost: CostSettings | None = None
    """Token profiles, price overrides and evaluation costs for the cost table."""
    oversight: OversightPlan | None = None
    """The agreed human review and monitoring plan."""
    decision: CommitteeDecision | None = None
    """The committee's decision beside the computed recommendation."""
    signoffs: list[SignOff] = Field(default_factory=list)
    """Sign-offs, each bound to the content it signed (governance.decision.signoff)."""
    evidence_plan: EvidencePlan | None = None
    """What was run for the decision, frozen with it (governance.evidence.operations.plan)."""
    reevaluations: list[ReevaluationAddendum] = Field(default_factory=list)
    """Re-evaluation addenda, oldest first (governance.reevaluation); sign-offs do not bind to them."""
    candidates: list[Candidate] = Field(default_factory=list)
    """Vendor products compared for this use: prices, contracts, attestations (governance.procurement)."""
    deidentification: list[DeidentificationAttestation] = Field(default_factory=list)
    """Recorded statements that a file of cases is de-identified (the PHI gate's way past a false alarm)."""
    monitoring: list[MonitoringEntry] = Field(default_factory=list)
    """After go-live: feed imports, signals, acknowledgements and resolutions, safety events, oldest first
    (``governance.monitoring``); appended, so sign-offs do not bind to them."""
    practice: PracticeCopy | None = None
    """Set only on a practice copy (``governance.dossier.practice``): never the record, never exported.
    None on every real dossier, and then left out of every hash."""

    @property
    def risk(self) -> RiskAssessment:
        """Risk tier derived from the intended use (never stored, always recomputed)."""
        return assess_risk(self.intended_use)

    def canonical_json(self) -> str:
        """Sorted-key, whitespace-free JSON: the text the version hash is taken over.

        Top-level sections still at their defaults are left out, so that a later release adding an
        optional section does not change the hash of content saved before it (stored hashes,
        signed hashes and exported files stay verifiable across upgrades). Nested values are kept
        whole: their ``kind`` discriminators must survive.
        """
        doc = self.model_dump(mode="json")
        for name, field in type(self).model_fields.items():
            if not field.is_required() and getattr(self, name) == field.get_default(
                call_default_factory=True
            ):
                doc.pop(name, None)
        return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def content_hash(self) -> str:
        """SHA-256 hex digest of the canonical JSON."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()
