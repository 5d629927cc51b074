"""How far the LLM jury agrees with clinicians: the number that decides whether jury scores count.

Why a record on the dossier rather than a computation here: agreement is measured elsewhere (the
jury work computes an ICC of jury against clinician ratings on a sample the hospital rated, or a
committee copies a published figure) and the committee must be able to see exactly which figure
its judge-agreement rule read, with its interval, sample and source. The acceptance rule treats
it like any other estimate: pass when the interval's lower bound reaches the bar, and only when
the figure is a single-measure ICC (``gate_problem``): an average-of-k ICC such as MedHELM's
ICC(3,k) credits the jury with the reliability of averaging two series (2r/(1+r) for two
z-scored series), so it is kept for comparison and never gated. ICCs are stored unclipped.
"""

from __future__ import annotations

import re

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator


class JudgeAgreementSetting(BaseModel):
    """A measured agreement between the LLM jury and clinicians, with its interval."""

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


def covers(setting: JudgeAgreementSetting, benchmark: str) -> bool:
    """Whether the agreement was measured on (or declared for) this benchmark.

    Example:
        >>> s = JudgeAgreementSetting(estimate=0.6, source="pilot", benchmarks=("MedDialog",))
        >>> covers(s, "MedDialog"), covers(s, "MedicationQA")
        (True, False)
    """
    return not setting.benchmarks or benchmark in setting.benchmarks


_SINGLE = re.compile(r"^ICC\((A|C|1|2|3),1\)(-?Z)?$|^ICC[123](-?Z)?$")


def gate_problem(setting: JudgeAgreementSetting) -> str:
    """Why the judge-agreement rule cannot gate on this figure ("" when it can: a single-measure ICC).

    Example:
        >>> gate_problem(JudgeAgreementSetting(estimate=0.5, source="pilot"))
        ''
        >>> gate_problem(JudgeAgreementSetting(statistic="ICC3k-z", estimate=0.5, source="pilot"))[:30]
        'is an average-of-k ICC, which '
    """
    name = setting.statistic.upper().replace(" ", "")
    if _SINGLE.match(name):
        return ""
    if name.startswith("ICC") and "K" in name[3:8]:
        return ("is an average-of-k ICC, which credits the jury with the reliability of averaging raters; "
                "the rule needs a single-measure ICC (ICC(A,1) or ICC(C,1)), so record one")
    return "is not a single-measure ICC (ICC(A,1) or ICC(C,1)), which the rule needs; record one"
