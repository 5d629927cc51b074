"""The statistics' record in a dossier: one subgroup's score within an evidence record (``SubgroupScore``).

Why apart from the subgroup statistics that compute it (``subgroups``): the class is part of the stored
dossier's schema (``evaluator.evidence.record.Evidence.subgroups``), validated on every load of a dossier,
while ``subgroups`` is the math (Wilson and MOVER-Wilson intervals, the bootstrap). Records sit at the
bottom of their package, as in every concept; it stays below ``evaluator.evidence`` so the statistics
never import the evidence they serve.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict, Field, model_validator

from evaluator.storage.record_base import OmitNewDefaults


class SubgroupScore(OmitNewDefaults):
    """The score of one subgroup (e.g. ``sex=F``) within an evidence record, on the record's scale."""

    # added after dossiers were first saved: dumped only when set, so old content hashes still verify
    _omit_at_default: ClassVar[tuple[str, ...]] = ("reference_group", "ratio", "ratio_lower", "ratio_upper",
                                                   "ratio_method")

    model_config = ConfigDict(frozen=True, extra="forbid")

    tag: str = Field(min_length=1)
    """Subgroup dimension, an ``Instance.subgroups`` key such as ``sex`` or ``age_band``."""
    group: str = Field(min_length=1)
    """The group's value for that tag, e.g. ``F`` or ``65+``."""
    score: float | None = None
    """The group's score on the evidence record's own scale; None when suppressed."""
    n: int = Field(ge=0)
    """Instances in the group."""
    ci_lower: float | None = None
    """Lower bound of the group's 95% interval, when one was computed."""
    ci_upper: float | None = None
    """Upper bound of the group's 95% interval, when one was computed."""
    suppressed: bool = False
    """True when the group is too small to report; its score and interval are then withheld."""
    reference_group: str | None = None
    """The tag's reference group the ratio is taken against (``evaluator.statistics.subgroups``), if known."""
    ratio: float | None = None
    """The group's score ÷ the reference group's score (on 0-1), when computed."""
    ratio_lower: float | None = None
    """Lower end of the ratio's 95% interval (Katz or bootstrap, see ``ratio_method``)."""
    ratio_upper: float | None = None
    """Upper end of the ratio's 95% interval."""
    ratio_method: str | None = None
    """How the ratio's interval was computed: ``katz`` or ``bootstrap``."""

    @model_validator(mode="after")
    def _consistent(self):
        if (self.ci_lower is None) != (self.ci_upper is None):
            raise ValueError("give both ci_lower and ci_upper, or neither")
        if not self.suppressed and self.score is None:
            raise ValueError("a subgroup that is not suppressed needs its score")
        return self
