"""The unit of evaluation: one case of a benchmark or local scenario.

Every loader (official dataset formats, the generic JSONL/CSV format, the built-in calculator
benchmark, a hospital's local scenario) produces these, and the runner, the metrics and the
jury consume only these, so a new source of cases never touches scoring code.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

AnswerType = Literal["choice", "exact", "numeric_range", "free_text"]
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""The letters of a ``choice`` item's options, in order (``Instance.choices``, ``Instance.reference``)."""


class RubricCriterion(BaseModel):
    """One rubric criterion of a free-text case, as HealthBench writes it (``{criterion, points, tags}``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    criterion: str = Field(min_length=1)
    """What a grader checks in the response, e.g. "States that the metformin dose was halved"."""
    points: float
    """Points when met; negative for a harm (met means the response does the harmful thing)."""
    tags: tuple[str, ...] = ()
    """Rubric tags such as ``axis:completeness`` or ``critical:medication_change``."""

    def __str__(self) -> str:
        return f"[{self.points:g}] {self.criterion}"


class Instance(BaseModel):
    """One case: what the model sees and what counts as right."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    """Stable identifier within its benchmark; used for caching, resuming and paired comparison."""
    context: str = ""
    """Patient note, article, transcript or other material the question is about."""
    question: str = ""
    """What is asked of the model."""
    choices: tuple[str, ...] = ()
    """Answer options for ``choice`` items, in display order (lettered A, B, C, ...)."""
    reference: str = ""
    """The correct answer: option letter for ``choice``, text for ``exact``/``free_text``,
    the ground-truth value for ``numeric_range``."""
    answer_type: AnswerType = "exact"
    """How a response is judged against the reference."""
    lower: float | None = None
    """Inclusive lower limit of the accepted range (``numeric_range`` only)."""
    upper: float | None = None
    """Inclusive upper limit of the accepted range (``numeric_range`` only)."""
    subgroups: dict[str, str] = Field(default_factory=dict)
    """Tags such as ``{"age_band": "65+", "sex": "F"}`` for subgroup analysis."""
    meta: dict[str, str] = Field(default_factory=dict)
    """Source-specific extras (calculator name, dataset split, ...), never used for scoring."""
    rubric: tuple[RubricCriterion, ...] = ()
    """Criteria a grader checks the response against (free-text rubric cases; empty otherwise)."""

    @model_serializer(mode="wrap")
    def _without_empty_rubric(self, handler: SerializerFunctionWrapHandler) -> dict:
        # A case without a rubric dumps as before the field existed, so stored scenario hashes,
        # run keys and dataset hashes of every existing case stay the same.
        data = handler(self)
        if not self.rubric:
            data.pop("rubric", None)
        return data
