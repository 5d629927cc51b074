"""Evidence facts a dossier records beside its evidence list: the measured jury-clinician agreement.

Why a record on the dossier rather than a computation: agreement is measured elsewhere (the jury
work computes an ICC of jury against clinician ratings on a sample the hospital rated, or a
committee copies a published figure) and the committee must see exactly which figure its
judge-agreement rule read, with its interval, sample and source. ``governance.evidence.judge_agreement``
holds what is done with it.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import AwareDatetime, ConfigDict, Field, model_validator

from evaluator.storage.record_base import OmitNewDefaults
from governance.dossier.user_text import UserRecord
from governance.review.records import ReviewCitation


class JudgeAgreementSetting(OmitNewDefaults, UserRecord):
    """A measured agreement between the LLM jury and clinicians, with its interval."""

    _omit_at_default: ClassVar[tuple[str, ...]] = ("comparison_icc3k_z", "review_queue")

    model_config = ConfigDict(frozen=True, extra="forbid")

    statistic: str = Field(default="ICC(A,1)", min_length=2)
    """Which agreement statistic; the rule gates only on a single-measure ICC (``ICC(A,1)``, ``ICC(C,1)``)."""
    estimate: float = Field(allow_inf_nan=False)
    """The measured agreement, unclipped (an ICC can fall below −1 on a small sample)."""
    ci_lower: float | None = Field(default=None, allow_inf_nan=False)
    """Lower bound of its 95% interval, when reported (unclipped)."""
    ci_upper: float | None = Field(default=None, allow_inf_nan=False)
    """Upper bound of its 95% interval, when reported (unclipped)."""
    comparison_icc3k_z: float | None = Field(default=None, allow_inf_nan=False)
    """ICC(3,k) on z-scored composites (MedHELM's variant), same sample: for comparison only, never gated."""
    n_instances: int | None = Field(default=None, ge=1)
    """Instances rated by both the jury and clinicians."""
    benchmarks: tuple[str, ...] = ()
    """Benchmarks the agreement was measured on (empty: taken to hold for all jury-scored evidence)."""
    judges: tuple[str, ...] = ()
    """Judge models of the jury."""
    source: str = Field(min_length=3)
    """Where the figure comes from (run id of the agreement study, or a citation)."""
    measured_at: AwareDatetime | None = None
    """When it was measured."""
    entered_by: str = Field(default="", max_length=200)
    """Who put it on the dossier."""
    review_queue: ReviewCitation | None = None
    """The closed review queue whose ratings were the clinician side (raters, n, blinding, catch rates)."""

    @model_validator(mode="after")
    def _interval(self):
        if (self.ci_lower is None) != (self.ci_upper is None):
            raise ValueError("give both ci_lower and ci_upper, or neither")
        if self.ci_lower is not None and not self.ci_lower <= self.estimate <= self.ci_upper:
            raise ValueError("the estimate must lie within its interval")
        return self

    @property
    def has_interval(self) -> bool:
        """Whether a 95% interval is given."""
        return self.ci_lower is not None


class CriterionFigure(OmitNewDefaults, UserRecord):
    """One rubric criterion's grader–clinician agreement as recorded (``judge_validity.criteria``)."""

    _omit_at_default: ClassVar[tuple[str, ...]] = ()

    model_config = ConfigDict(frozen=True, extra="forbid")

    criterion: str
    """The criterion's text."""
    n: int = Field(ge=0)
    """Cases with a verdict from both the grading and the clinicians."""
    kappa: float | None = Field(default=None, allow_inf_nan=False)
    """Cohen's κ (None: too few cases, or no variation on one side)."""
    kappa_lower: float | None = Field(default=None, allow_inf_nan=False)
    """Lower bound of κ's 95% interval."""
    kappa_upper: float | None = Field(default=None, allow_inf_nan=False)
    """Upper bound of κ's 95% interval."""
    share: float | None = Field(default=None, allow_inf_nan=False)
    """Share of cases with the same verdict."""
    share_lower: float | None = Field(default=None, allow_inf_nan=False)
    """Its Wilson 95% lower bound."""
    share_upper: float | None = Field(default=None, allow_inf_nan=False)
    """Its Wilson 95% upper bound."""
    missing_reason: str = ""
    """Why κ is missing."""


class GraderAgreementSetting(OmitNewDefaults, UserRecord):
    """A rubric grading's per-criterion agreement with clinicians, recorded for the judge-agreement rule.

    The rule reads it for the grading's evidence: every criterion's κ lower bound must reach the rule's bar.
    """

    _omit_at_default: ClassVar[tuple[str, ...]] = ("review_queue",)

    model_config = ConfigDict(frozen=True, extra="forbid")

    grading_id: str = Field(min_length=3)
    """The grading measured."""
    benchmark: str = Field(min_length=1)
    """The scenario (``<scenario>_v<version>``) its evidence is attached as."""
    graders: tuple[str, ...] = ()
    """The grader models."""
    criteria: tuple[CriterionFigure, ...] = ()
    """Per criterion."""
    source: str = Field(min_length=3)
    """Where the clinician side came from (the review queue)."""
    measured_at: AwareDatetime | None = None
    """When it was measured."""
    entered_by: str = Field(default="", max_length=200)
    """Who put it on the dossier."""
    review_queue: ReviewCitation | None = None
    """The closed review queue whose ratings were the clinician side."""
