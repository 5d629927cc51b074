"""What the committee is deciding about: the intended use of a model.

Field names line up with CHAI's *UsesAndDirections* (intended use and workflow, primary
intended users, targeted patient population, cautioned out-of-scope settings) and HTI-1's
purpose and out-of-scope attributes, so exports fill those forms without re-asking.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import ConfigDict, Field, field_validator

from evaluator.storage.record_base import OmitNewDefaults
from governance.dossier.user_text import UserRecord

DecisionRole = Literal["informs", "augments", "replaces"]
Severity = Literal["negligible", "minor", "moderate", "serious", "critical"]
Oversight = Literal["every_output", "sampled", "none"]
PhiExposure = Literal["none", "deidentified", "identifiable"]

TEXT_MAX = 200_000  # a pasted policy document of 100 KB must fit; beyond that is a mistake

DECISION_ROLE_LABELS = {
    "informs": "Informs: the output is one input among others to a human decision",
    "augments": "Augments: the output drafts or proposes what a human then approves",
    "replaces": "Replaces: the output takes effect without a human decision",
}
SEVERITY_LABELS = {
    "negligible": "Negligible: an error costs a little time",
    "minor": "Minor: an error is a nuisance, easily caught, no harm",
    "moderate": "Moderate: an error could mislead care or a patient if uncaught; reversible harm",
    "serious": "Serious: an error could cause significant harm to a patient",
    "critical": "Critical: an error could cause death or permanent harm",
}
OVERSIGHT_LABELS = {
    "every_output": "Every output is reviewed by a qualified person before it takes effect",
    "sampled": "A sample of outputs is reviewed (quality assurance)",
    "none": "No human review before the output takes effect",
}
PHI_LABELS = {
    "none": "No patient data reaches the model",
    "deidentified": "De-identified patient data only",
    "identifiable": "Identifiable patient data (PHI)",
}


class IntendedUse(OmitNewDefaults, UserRecord):
    """The use a committee is asked to approve, in the committee's own words.

    Example:
        >>> use = IntendedUse(
        ...     purpose="Answer nurses' drug-dosing questions on the wards; a pharmacist checks each answer.",
        ...     intended_users=["registered nurses"], care_setting="Adult inpatient wards",
        ...     patient_population="Adults (18+)", decision_role="informs", error_severity="serious",
        ...     human_oversight="every_output", phi_exposure="deidentified")
        >>> use.text_for_mapping().splitlines()[1]
        'Users: registered nurses'
    """

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    _omit_at_default: ClassVar[tuple[str, ...]] = ("lower_tier_reason",)

    purpose: str = Field(min_length=10, max_length=TEXT_MAX)
    """What the model does, for whom and why (the intended use statement)."""
    workflow: str = Field(default="", max_length=TEXT_MAX)
    """Where in the workflow the output appears and what happens to it next."""
    intended_users: list[str] = Field(min_length=1)
    """Who uses the output (e.g. nurses, physicians, schedulers)."""
    care_setting: str = Field(min_length=2, max_length=TEXT_MAX)
    """Where it is used (e.g. outpatient primary care, inpatient wards)."""
    patient_population: str = Field(min_length=2, max_length=TEXT_MAX)
    """Whose care or data is involved (e.g. adults 18+, paediatrics)."""
    decision_role: DecisionRole
    """Whether the output informs, augments or replaces a human decision."""
    out_of_scope_uses: list[str] = Field(default_factory=list, title="Out-of-scope uses")
    """Uses the committee explicitly does not approve."""
    error_severity: Severity
    """How bad the consequence of a wrong output can be if nobody catches it."""
    human_oversight: Oversight
    """Human review before the output takes effect."""
    phi_exposure: PhiExposure
    """What patient data the model would see."""
    expected_monthly_volume: int = Field(default=0, ge=0, le=1_000_000_000)
    """Expected requests per month, for cost projection."""
    candidate_models: list[str] = Field(default_factory=list, title="Models under consideration")
    """Models or vendor products under consideration (litellm names or product names)."""
    lower_tier_reason: str = Field(default="", max_length=5_000, title="Why this use is not tier high")
    """The committee's recorded reason why a use whose error could cause serious harm is below tier high."""

    @field_validator("intended_users", "out_of_scope_uses", "candidate_models")
    @classmethod
    def _no_blank_items(cls, items: list[str]) -> list[str]:
        cleaned = [i.strip() for i in items if i and i.strip()]
        if len(cleaned) != len(items):
            raise ValueError("list items must not be empty")
        return cleaned

    def text_for_mapping(self) -> str:
        """The free text that describes the job, for taxonomy suggestions."""
        parts = [self.purpose, self.workflow, "Users: " + ", ".join(self.intended_users), self.care_setting]
        return "\n".join(p for p in parts if p)


def example_intended_use() -> IntendedUse:
    """A complete, valid intended use to start from (``medassure dossier example``).

    Example:
        >>> example_intended_use().decision_role
        'augments'
    """
    return IntendedUse(
        purpose=(
            "Draft replies to non-urgent patient portal messages about medications, test results "
            "and appointments, for a clinician to review, edit and send."
        ),
        workflow=(
            "Messages arrive in the clinic in-basket; the model drafts a reply; a nurse or physician "
            "reviews and edits every draft before it is sent. Urgent messages are routed by the "
            "existing triage rules and never drafted."
        ),
        intended_users=["registered nurses", "primary care physicians"],
        care_setting="Outpatient primary care clinics",
        patient_population="Adult primary care patients (18+) using the patient portal",
        decision_role="augments",
        out_of_scope_uses=[
            "Urgent or emergency messages",
            "Sending replies without clinician review",
            "Paediatric patients",
        ],
        error_severity="moderate",
        human_oversight="every_output",
        phi_exposure="identifiable",
        expected_monthly_volume=40_000,
        candidate_models=["gpt-4o", "claude-3-7-sonnet", "llama-3.3-70b"],
    )
