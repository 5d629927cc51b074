"""Subgroup results of a dossier's evidence, worded for people: per calculator, sex, age band, ...

Why here: the Evidence page and the PDF show the same rows, and both need a tag's stored value
(``creatinine_clearance``, ``65+``) turned into what a reader recognises (the calculator's name). The
built-in calculator benchmark tags each case with its calculator, so a run of it reports accuracy per
calculator; for a dosing use that is the figure that matters, so those rows come first, worst first.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from evaluator.calculators import BY_KEY
from evaluator.evidence.record import Evidence

TAG_LABELS = {"calculator": "Calculator", "sex": "Sex", "age_band": "Age band", "language": "Language"}
"""How a subgroup tag is named to people; other tags are shown with underscores as spaces."""


def tag_label(tag: str) -> str:
    """A subgroup tag as people name it.

    Example:
        >>> tag_label("age_band"), tag_label("ward_type")
        ('Age band', 'Ward type')
    """
    return TAG_LABELS.get(tag) or tag.replace("_", " ").capitalize()


def group_label(tag: str, group: str) -> str:
    """A group's value as people name it (a calculator key becomes the calculator's name).

    Example:
        >>> group_label("calculator", "creatinine_clearance"), group_label("sex", "F")
        ('Creatinine Clearance (Cockcroft-Gault Equation)', 'F')
    """
    if tag == "calculator" and group in BY_KEY:
        return BY_KEY[group].name
    return group


class SubgroupLine(BaseModel):
    """One group's result within one evidence record, ready to show."""

    model_config = ConfigDict(frozen=True)

    evidence_id: str
    """The evidence record."""
    model: str
    """The record's model (candidate) name."""
    benchmark: str
    """The record's benchmark."""
    tag: str
    """Tag as people name it (``Calculator``)."""
    group: str
    """Group as people name it (the calculator's name)."""
    score: float | None
    """The group's score on 0-1 (None when suppressed)."""
    ci_lower: float | None
    """Lower end of its 95% interval."""
    ci_upper: float | None
    """Upper end."""
    n: int
    """Cases in the group."""
    suppressed: bool
    """Too few cases to report a score."""


def subgroup_lines(evidence: Iterable[Evidence], tag: str | None = None) -> list[SubgroupLine]:
    """Every subgroup row of the main-metric evidence (one tag only when ``tag`` is given).

    Calculator rows come first, lowest score first; then the other tags in name order.

    Example:
        >>> subgroup_lines([])
        []
    """
    out = []
    for e in evidence:
        if not e.is_main:
            continue
        for s in e.subgroups or []:
            if tag is not None and s.tag != tag:
                continue
            out.append((s.tag, SubgroupLine(
                evidence_id=e.id, model=e.model, benchmark=e.benchmark, tag=tag_label(s.tag),
                group=group_label(s.tag, s.group), score=None if s.suppressed else s.score,
                ci_lower=s.ci_lower, ci_upper=s.ci_upper, n=s.n, suppressed=s.suppressed)))
    def order(item: tuple[str, SubgroupLine]) -> tuple:
        tag, line = item
        worst_first = line.score if tag == "calculator" and line.score is not None else 0.0
        return tag != "calculator", line.model, line.benchmark, tag, worst_first, line.group

    out.sort(key=order)
    return [line for _, line in out]
