"""What a rubric grading reports: per criterion, per case, per tag, and overall (HealthBench's rule).

The JSON of ``medassure grade`` is ``GradingResult.model_dump``: ``grading_id``, ``run_id``, ``n`` (cases
scored), ``score`` (the clipped mean), ``per_case`` (``id``, ``score`` unclipped, ``criteria`` with
``criterion``, ``points``, ``met``) and ``by_tag``, plus the counts of what could not be scored.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CriterionResult(BaseModel):
    """One criterion of one case, as the panel of graders decided it."""

    model_config = ConfigDict(frozen=True)

    criterion: str
    """The criterion's text."""
    points: float
    """Its points (negative for a harm)."""
    tags: list[str] = Field(default_factory=list)
    """Its rubric tags."""
    met: bool | None
    """The panel's verdict; None when no grader gave a readable one."""
    votes: dict[str, bool | None] = Field(default_factory=dict)
    """Each grader's verdict (None: unreadable reply, or the call failed)."""


class CaseResult(BaseModel):
    """One case's score: points met over positive points, not clipped."""

    model_config = ConfigDict(frozen=True)

    id: str
    """The case id (HealthBench's ``prompt_id``)."""
    score: float | None
    """Unclipped score (below 0 when harms outweigh); None when the case could not be scored."""
    criteria: list[CriterionResult]
    """Every criterion with its verdict."""
    tag_scores: dict[str, float] = Field(default_factory=dict)
    """The case's score per rubric tag (tags whose criteria hold positive points)."""
    unscored_reason: str | None = None
    """Why the case has no score (a failed candidate call, a criterion without a readable verdict)."""


class TagScore(BaseModel):
    """A rubric tag over cases: the clipped mean of the cases' tag scores."""

    model_config = ConfigDict(frozen=True)

    score: float
    """Mean over the cases that have the tag, clipped to [0, 1]."""
    n: int
    """Cases with a score for this tag."""
    bootstrap_std: float | None
    """Bootstrap standard deviation of that clipped mean (None under 2 cases)."""


class Unparsed(BaseModel):
    """A grader reply that could not be read (never counted as met)."""

    model_config = ConfigDict(frozen=True)

    id: str
    """Case id."""
    criterion: str
    """The criterion asked about."""
    grader: str
    """The grader model."""
    reason: str
    """Why it could not be read (or why the call failed)."""


class GradingResult(BaseModel):
    """A whole grading of a run, computed once when its verdicts are in, stored, and shown as stored."""

    model_config = ConfigDict(frozen=True)

    grading_id: str
    """``grading-YYYYMMDD-HHMMSS-xxxxxx``."""
    run_id: str
    """The candidate run graded."""
    scenario_id: str | None = None
    """Its local scenario."""
    scenario_version: int | None = None
    """The scenario version the run was made on."""
    candidate_model: str | None = None
    """The model whose responses were graded."""
    graders: list[str]
    """Grader models (one call per criterion each)."""
    status: str
    """``completed``, or why it stopped (``stopped: budget``, ``cancelled``)."""
    n: int
    """Cases scored (in the mean)."""
    n_cases: int
    """Cases in the run."""
    n_unscored: int
    """Cases without a score (``per_case[].unscored_reason`` says why)."""
    score: float | None
    """Mean case score clipped to [0, 1] (HealthBench's overall score); None when no case was scored."""
    mean_unclipped: float | None
    """The same mean before clipping."""
    bootstrap_std: float | None
    """Bootstrap standard deviation of the clipped mean (1,000 resamples, seeded)."""
    per_case: list[CaseResult]
    """Every case with its criteria."""
    by_tag: dict[str, TagScore]
    """Per rubric tag (e.g. ``axis:completeness``)."""
    by_example_tag: dict[str, TagScore] = Field(default_factory=dict)
    """Per case tag (HealthBench's ``example_tags``; a case's tag takes its whole score)."""
    n_calls: int
    """Grader replies read (cases × criteria × graders, failed calls included)."""
    n_unparsed: int
    """Grader replies that could not be read or whose call failed."""
    unparsed: list[Unparsed]
    """Which ones, and why."""
    tie_rule: str
    """How a tie among graders is decided."""
