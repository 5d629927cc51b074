"""Gaps between the job and the evidence: activities the intended use names that nothing on offer tests.

Why a vocabulary in ``data/activities.yaml`` and not a similarity threshold: the taxonomy mapping ranks
*subcategories*, so a use whose key activity no benchmark measures (weight-based paediatric dosing: its
nearest subcategory holds MedCalc-Bench, which never gives a mg/kg dose) still gets a confident-looking
list. Naming the gap needs to know what each benchmark measures; that is data with sources, checked by a
test against the taxonomy, and the rule is the same for every activity:

* an activity is *named* when one of its terms occurs in the intended use's purpose or workflow;
* it is *covered* when one of the benchmarks that test it is mapped to an accepted subcategory or
  attached as evidence, or a local scenario named for it is attached (its evidence's benchmark name
  holds the activity's name, a term, or its template's title);
* otherwise it is a gap: *untested* when no benchmark on offer tests it (with the closest one and why it
  is not the same, and a local-scenario template when one exists), *not mapped* when one does but the
  dossier has not mapped or attached it. An activity done in free text (a discharge summary, a reply to
  a patient) also offers its rubric template, by name, for grading its cases criterion by criterion.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from evaluator.paths import DATA_DIR
from evaluator.scenarios.template import ACTIVITY_TEMPLATES
from governance.dossier.record import Dossier
from governance.evidence.attach import mapped_benchmarks


class Activity(BaseModel):
    """One clinical activity an intended use may name, and what tests it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """Stable id."""
    name: str
    """In words, lower case, to sit inside a sentence."""
    terms: tuple[str, ...] = Field(min_length=1)
    """Lower-case substrings that name the activity in an intended use."""
    tested_by: tuple[str, ...] = ()
    """Benchmarks (taxonomy names) that test it; empty when none on offer does."""
    closest: str = ""
    """When none does: what comes nearest and why it is not the same."""
    template: str | None = None
    """A local-scenario starting file for it (``ACTIVITY_TEMPLATES`` key)."""
    rubric_template: str | None = None
    """The rubric template for grading its free-text cases, by its stable name in words (e.g. "rubric
    template for discharge summaries"); the templates themselves ship under ``data/``."""


class ActivityGap(BaseModel):
    """An activity the intended use names that the dossier's evidence does not test."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    activity: Activity
    """The activity."""
    kind: Literal["untested", "not_mapped"]
    """Nothing on offer tests it, or a benchmark does but is neither mapped nor attached."""
    named_by: tuple[str, ...]
    """The terms found in the intended use."""

    @property
    def template_title(self) -> str | None:
        """The offered local-scenario template's title, when there is one."""
        t = self.activity.template
        return ACTIVITY_TEMPLATES[t][0] if t else None

    @property
    def sentence(self) -> str:
        """The gap in one sentence, for the page and the report."""
        named = ", ".join(f"“{t}”" for t in self.named_by)
        if self.kind == "not_mapped":
            return (f"The intended use names {self.activity.name} ({named}); "
                    f"{' and '.join(self.activity.tested_by)} tests it but is not in the accepted mapping or "
                    "the attached evidence." + self._rubric_offer)
        text = (f"Nothing on offer tests {self.activity.name}, which the intended use names ({named})"
                + (f": {self.activity.closest}." if self.activity.closest else "."))
        if self.template_title:
            text += (" Build a local scenario from your own cases: the Local scenarios page offers a "
                     f"template (“{self.template_title}”) with answer types and subgroup tags filled in.")
        else:
            text += " Build a local scenario from your own cases for it."
        return text + self._rubric_offer

    @property
    def _rubric_offer(self) -> str:
        """The rubric template offered for grading the activity's free-text cases, when there is one."""
        name = self.activity.rubric_template
        if not name:
            return ""
        return (f" Grade its free-text cases against the {name}, one criterion at a time (what a "
                "clinician checks: e.g. that a medication change or the follow-up is stated and nothing is "
                "invented), or score them with an LLM jury or with clinician ratings in a review queue.")


class _Vocabulary(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    activities: tuple[Activity, ...]


@lru_cache(maxsize=1)
def load_activities() -> tuple[Activity, ...]:
    """The shipped activity vocabulary (``data/activities.yaml``)."""
    raw = yaml.safe_load((DATA_DIR / "activities.yaml").read_text(encoding="utf-8"))
    return _Vocabulary.model_validate(raw).activities


def _local_names(dossier: Dossier) -> list[str]:
    return [e.benchmark.lower() for e in dossier.evidence if e.provenance == "local-run"]


def _covered_locally(activity: Activity, local: list[str]) -> bool:
    marks = [activity.name, *activity.terms]
    if activity.template:
        marks.append(ACTIVITY_TEMPLATES[activity.template][0].lower())
    return any(m in name for name in local for m in marks)


def activity_gaps(dossier: Dossier, activities: tuple[Activity, ...] | None = None) -> list[ActivityGap]:
    """The activities the intended use names that neither a mapped benchmark nor attached evidence tests.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> use = example_intended_use().model_copy(update={
        ...     "purpose": "Propose weight-based paediatric doses (mg/kg) and renal dose adjustments by "
        ...                "creatinine clearance; a pharmacist verifies every dose.",
        ...     "workflow": "Doses are proposed on the ward round; a pharmacist checks each one."})
        >>> d = Dossier(title="Paediatric dosing", owner="me", intended_use=use)
        >>> [(g.activity.id, g.kind) for g in activity_gaps(d)]
        [('weight_based_dose', 'untested'), ('renal_adjustment', 'untested')]
    """
    use = dossier.intended_use
    text = f"{use.purpose}\n{use.workflow}".lower()
    offered = {b.name for b in mapped_benchmarks(dossier)} | {e.benchmark for e in dossier.evidence}
    local = _local_names(dossier)
    gaps = []
    for activity in activities if activities is not None else load_activities():
        named = tuple(t for t in activity.terms if t in text)
        if not named:
            continue
        if set(activity.tested_by) & offered or _covered_locally(activity, local):
            continue
        kind = "not_mapped" if activity.tested_by else "untested"
        gaps.append(ActivityGap(activity=activity, kind=kind, named_by=named))
    return gaps
