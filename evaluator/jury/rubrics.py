"""Jury rubrics as data: ``data/rubrics/<id>.yaml`` → frozen ``Rubric``.

Why data: the criteria and the question that guides each one are what a committee reviews
when it asks "what did the judges look at?", so they live in a file a clinician can read and
edit, once per benchmark, like the benchmark specs. The model is frozen and forbids unknown keys
so a typo fails when the rubric is loaded, not after a paid jury run. The default rubric
(accuracy, completeness, clarity, 1-5) follows MedHELM's jury; the wording is our own.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evaluator.paths import DATA_DIR

RUBRIC_DIR = DATA_DIR / "rubrics"
DEFAULT_RUBRIC = "default"


class RubricError(ValueError):
    """A rubric file that is invalid, or a rubric id that does not exist."""


class Criterion(BaseModel):
    """One thing a judge scores."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    """Key of the criterion in the judge's JSON reply, e.g. ``accuracy``."""
    question: str = Field(min_length=10)
    """The question that guides the judge's score for this criterion."""


class Rubric(BaseModel):
    """What the jury is asked: role, criteria with guiding questions, and the scale."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    """Stable id; equals the YAML file name."""
    title: str = Field(min_length=1)
    """Human-readable name."""
    role: str = Field(min_length=10)
    """The judge's role, first line of the judge prompt."""
    task_label: str = "task"
    """What the task input is called in the prompt (e.g. ``doctor-patient dialogue``)."""
    scale_min: int = 1
    """Lowest score a judge may give."""
    scale_max: int = 5
    """Highest score a judge may give."""
    anchors: dict[int, str] = Field(default_factory=dict)
    """Meaning of scale points (e.g. ``1: very poor``); shown to the judges."""
    criteria: tuple[Criterion, ...] = Field(min_length=1)
    """Criteria in prompt order; the instance score averages over judges × criteria."""

    @model_validator(mode="after")
    def _consistent(self) -> Rubric:
        if self.scale_min >= self.scale_max:
            raise ValueError("scale_min must be below scale_max")
        names = [c.name for c in self.criteria]
        if len(set(names)) != len(names):
            raise ValueError(f"criterion names must be unique; got {names}")
        outside = [k for k in self.anchors if not self.scale_min <= k <= self.scale_max]
        if outside:
            raise ValueError(f"anchors {outside} lie outside the scale {self.scale_min}-{self.scale_max}")
        return self

    @property
    def criterion_names(self) -> tuple[str, ...]:
        """Criterion keys in prompt order."""
        return tuple(c.name for c in self.criteria)

    @property
    def scale(self) -> str:
        """The scale as text, e.g. ``1-5``."""
        return f"{self.scale_min}-{self.scale_max}"

    def content_hash(self) -> str:
        """SHA-256 of the rubric's canonical JSON (recorded with every jury run)."""
        doc = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(doc.encode()).hexdigest()


def parse_rubric(path: Path) -> Rubric:
    """Read and check one rubric file.

    Raises:
        RubricError: naming the file and what is wrong with it.

    Example:
        >>> parse_rubric(RUBRIC_DIR / "default.yaml").criterion_names
        ('accuracy', 'completeness', 'clarity')
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise RubricError(f"{path}: expected a mapping of fields")
        rubric = Rubric.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'file'}: {e['msg']}" for e in exc.errors())
        raise RubricError(f"{path}: {problems}") from None
    except yaml.YAMLError as exc:
        raise RubricError(f"{path}: not valid YAML ({exc})") from None
    if rubric.id != path.stem:
        raise RubricError(f"{path}: id {rubric.id!r} must equal the file name {path.stem!r}")
    return rubric


@lru_cache(maxsize=8)
def _load_dir(directory: str) -> tuple[Rubric, ...]:
    return tuple(parse_rubric(p) for p in sorted(Path(directory).glob("*.yaml")))


def load_rubrics(directory: Path | str | None = None) -> dict[str, Rubric]:
    """All rubrics of a directory (default ``data/rubrics``), by id.

    Example:
        >>> "default" in load_rubrics()
        True
    """
    return {r.id: r for r in _load_dir(str(Path(directory or RUBRIC_DIR).resolve()))}


def get_rubric(rubric_id: str = DEFAULT_RUBRIC, directory: Path | str | None = None) -> Rubric:
    """The rubric ``rubric_id``; an unknown id lists the known ones.

    Example:
        >>> get_rubric("aci_bench").scale
        '1-5'
    """
    rubrics = load_rubrics(directory)
    if rubric_id not in rubrics:
        raise RubricError(f"unknown rubric {rubric_id!r}; known rubrics: {', '.join(sorted(rubrics))}")
    return rubrics[rubric_id]
