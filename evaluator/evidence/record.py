"""Evidence: one score with its n, its uncertainty and where it came from.

Why this shape: a committee must be able to defend every number in a dossier, so a score never
travels alone. Each ``Evidence`` says which model, benchmark and metric it is about, on how many
instances, with a 95% interval and the method used, or, where no interval can honestly be
computed, an empty interval and the reason. ``provenance`` tells a published MedHELM figure from
an imported HELM run and from a run made here. Published, imported and local evidence share this
one record, so pages, acceptance rules and reports handle them alike.

A run measures several metrics, but only its benchmark's main metric is evidence a rule judges:
the others travel as ``role="context"`` records, shown beside the main one and never compared
with a score bar or averaged with other scores. ``role`` is left out of the serialized record
when it is ``main`` (the default), so dossiers saved before the field existed keep their hashes.

A record's per-group scores (``SubgroupScore``) are defined in the statistics' records
(``evaluator.statistics.records``), below this module and beside the subgroup statistics that compute
them (``evaluator.statistics.subgroups``); the class is the same and
``evaluator.evidence.record.SubgroupScore`` still names it.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Literal

import pandas as pd
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_serializer, model_validator

from evaluator.evidence.medhelm import published_scores
from evaluator.statistics.estimates import normalize_score, wilson_interval
from evaluator.statistics.records import SubgroupScore

Provenance = Literal["published", "helm-import", "local-run", "inspect-import"]
Role = Literal["main", "context"]
NO_CI_REASONS = {
    "jury_mean": "published mean LLM-jury score (1-5): MedHELM publishes no per-instance scores or "
                 "spread, so no interval can be computed from the aggregate",
    "f1_mean": "published mean F1 over instances: not a binomial proportion and MedHELM publishes no "
               "per-instance values, so no interval can be computed from the aggregate",
}
WILSON_METHOD = ("Wilson score interval, 95%; successes = published proportion × n "
                 "(the proportion is published to 3 decimals)")


class CriterionMisses(BaseModel):
    """How many graded cases missed the criteria carrying one rubric tag (a critical-criterion rule reads it).

    A case *misses* the tag when a criterion carrying it with positive points is not met, or a criterion
    carrying it with negative points (a harm) is met: either way the response fails what the tag names.
    A case whose tagged criteria have no readable verdict and no miss among the readable ones is
    *undetermined*: not counted in ``n``, never counted as a pass.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int = Field(ge=0)
    """Cases whose rubric carries the tag and whose tagged criteria all have a verdict (or one misses)."""
    missed: int = Field(ge=0)
    """Of those, the cases that miss the tag."""
    undetermined: int = Field(default=0, ge=0)
    """Cases carrying the tag left out of ``n``: no readable verdict on a tagged criterion and no miss."""


class Evidence(BaseModel):
    """A score for (model, benchmark, metric) with n, interval and provenance.

    Example:
        >>> e = published_evidence(["MedCalc-Bench"], ["DeepSeek R1"])[0]
        >>> e.provenance, e.has_interval, e.ci_lower < e.score < e.ci_upper
        ('published', True, True)
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    """Stable id derived from provenance, source, model, benchmark, metric and run id."""
    model: str = Field(min_length=1)
    """Model as named by the source (e.g. ``GPT-4o (2024-05-13)``, ``openai/gpt-4o``)."""
    benchmark: str = Field(min_length=1)
    """Benchmark name (MedHELM display name, a local scenario id, or ``unmapped``)."""
    metric: str = Field(min_length=1)
    """Metric name as the source gives it (e.g. ``EM``, ``medication_qa_accuracy``)."""
    score: float
    """The score on its own scale."""
    scale: str = "0-1"
    """Scale of ``score``: ``0-1``, or ``1-5`` for the LLM jury."""
    normalized_score: float
    """Score on 0-1 as MedHELM normalizes it (jury: (x − 1)/4); filled in when omitted."""
    higher_is_better: bool = True
    """Direction of the metric."""
    n: int | None = Field(default=None, ge=0)
    """Number of instances the score is over, when known."""
    ci_lower: float | None = None
    """Lower bound of the 95% interval on the score's own scale; None when none can be given."""
    ci_upper: float | None = None
    """Upper bound of the 95% interval on the score's own scale; None when none can be given."""
    ci_method: str | None = None
    """How the interval was computed (e.g. Wilson, percentile bootstrap with seed and resamples)."""
    ci_missing_reason: str | None = None
    """Why there is no interval, when there is none."""
    provenance: Provenance
    """Where the score comes from."""
    source: str = Field(min_length=1)
    """Citation: ``repo:path@commit`` for published figures, run folder for imports, run id for local."""
    date: AwareDatetime
    """When the evidence was produced (source commit date, run time)."""
    run_id: str | None = None
    """Run identifier for imported or local runs."""
    n_unparsed: int | None = Field(default=None, ge=0)
    """Model answers that could not be parsed (counted wrong), when the source tells."""
    n_unscored: int | None = Field(default=None, ge=0)
    """Instances without a score (e.g. judge reply unparseable), when the source tells."""
    category: str | None = None
    """MedHELM category of the benchmark, when it maps to one."""
    subcategory: str | None = None
    """MedHELM subcategory of the benchmark, when it maps to one."""
    caveat: str = ""
    """What a reader must know alongside this score."""
    subgroups: list[SubgroupScore] | None = None
    """Per-subgroup scores, when the source reports them (local scenarios with subgroup tags)."""
    role: Role = "main"
    """``main``: the benchmark's main metric, judged by rules; ``context``: a secondary metric of the
    same run, shown beside it and never judged or averaged."""
    endpoint_model: str | None = None
    """The model string a local run called, when the run was made for a chosen candidate and ``model``
    names that candidate (an Azure deployment name or an on-prem alias is an endpoint detail)."""
    candidate_id: str | None = None
    """The dossier candidate (``Candidate.id``) the run was made for; its evidence counts for that
    candidate whatever the model string (``governance.procurement.candidates.candidate_models``)."""
    criterion_misses: dict[str, CriterionMisses] | None = None
    """Rubric gradings: per criterion tag, the cases that missed it (``CriterionMisses``); None otherwise."""

    @model_serializer(mode="wrap")
    def _omit_default_role(self, handler):
        data = handler(self)
        if isinstance(data, dict):  # fields added later are left out at their default: old hashes verify
            if data.get("role") == "main":
                data.pop("role")
            for name in ("endpoint_model", "candidate_id", "criterion_misses"):
                if data.get(name) is None:
                    data.pop(name, None)
        return data

    @model_validator(mode="before")
    @classmethod
    def _fill_normalized(cls, data):
        if isinstance(data, dict) and data.get("normalized_score") is None and "score" in data:
            normalized = normalize_score(float(data["score"]), data.get("scale", "0-1"))
            data = {**data, "normalized_score": normalized}
        return data

    @model_validator(mode="after")
    def _interval_is_complete_or_explained(self):
        bounds = (self.ci_lower is None, self.ci_upper is None)
        if bounds[0] != bounds[1]:
            raise ValueError("give both ci_lower and ci_upper, or neither")
        if bounds[0]:
            if not self.ci_missing_reason:
                raise ValueError("an evidence record without an interval must state ci_missing_reason")
            if self.ci_method:
                raise ValueError("ci_method given but no interval")
        else:
            if not self.ci_method:
                raise ValueError("an interval needs its ci_method")
            if self.ci_lower > self.ci_upper:
                raise ValueError("ci_lower is above ci_upper")
        return self

    @property
    def has_interval(self) -> bool:
        """Whether a 95% interval is given."""
        return self.ci_lower is not None

    @property
    def is_main(self) -> bool:
        """Whether this is a main-metric record (the only kind a rule judges)."""
        return self.role == "main"


def evidence_id(provenance: str, source: str, model: str, benchmark: str, metric: str,
                run_id: str | None = None) -> str:
    """Deterministic id, so the same evidence selected twice is recognised as the same.

    Example:
        >>> evidence_id("published", "src", "m", "b", "EM").startswith("published:")
        True
    """
    key = "\x1f".join([provenance, source, model, benchmark, metric, run_id or ""])
    return f"{provenance}:{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def _published_record(row: dict) -> Evidence:
    interval: dict = {"ci_missing_reason": NO_CI_REASONS.get(row["metric_kind"])}
    if row["metric_kind"] == "proportion" and row["n"] > 0:
        lo, hi = wilson_interval(row["score"] * row["n"], row["n"])
        interval = {"ci_lower": lo, "ci_upper": hi, "ci_method": WILSON_METHOD}
    notes = [row["caveat"]] if row["caveat"] else []
    if row["n_source"] != "costs.csv test_instances for this model":
        notes.append(f"n is the benchmark's typical instance count ({row['n_source']})")
    return Evidence(
        id=evidence_id("published", row["source"], row["model"], row["benchmark"], row["metric"]),
        model=row["model"], benchmark=row["benchmark"], metric=row["metric"], score=row["score"],
        scale=row["scale"], higher_is_better=not row["lower_is_better"], n=row["n"],
        provenance="published", source=row["source"],
        date=datetime.fromisoformat(row["source_date"]).replace(tzinfo=UTC),
        category=row["category"], subcategory=row["subcategory"], caveat="; ".join(notes), **interval,
    )


def published_evidence(benchmarks: list[str] | None = None,
                       models: list[str] | None = None) -> list[Evidence]:
    """MedHELM's published per-benchmark scores as evidence, optionally filtered.

    Proportions get a Wilson interval from the published score and n; jury means and mean F1
    get an empty interval with the reason.

    Args:
        benchmarks: MedHELM benchmark names to keep (None: all 37).
        models: model names as published to keep (None: all 9).

    Raises:
        ValueError: a requested benchmark or model is not in the published results.

    Example:
        >>> ev = published_evidence(["PubMedQA"], ["DeepSeek R1"])
        >>> ev[0].score, ev[0].ci_lower < ev[0].score < ev[0].ci_upper
        (0.743, True)
    """
    df = published_scores()
    for column, wanted in (("benchmark", benchmarks), ("model", models)):
        if wanted is not None:
            unknown = sorted(set(wanted) - set(df[column]))
            if unknown:
                raise ValueError(f"unknown {column}(s) {unknown}; published: {sorted(set(df[column]))}")
            df = df[df[column].isin(wanted)]
    return [_published_record(r) for r in df.to_dict("records")]


def evidence_frame(evidence: list[Evidence]) -> pd.DataFrame:
    """One row per evidence record, columns in field order (empty list → empty frame).

    Example:
        >>> evidence_frame(published_evidence(["MedQA"])).shape
        (9, 27)
    """
    columns = list(Evidence.model_fields)
    return pd.DataFrame([{**e.model_dump(), "role": e.role} for e in evidence], columns=columns)
