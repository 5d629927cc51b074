"""The parts of HELM's run-folder files that MedAssure reads, and HELM's stat arithmetic.

Why separate from ``helm.py``: this module is the only place that knows HELM's JSON layout
(``run_spec.json``, ``stats.json``, ``per_instance_stats.json``, ``scenario_state.json``, as
written by crfm-helm's ``runner.py``; see MEDHELM_FACTS.md §7). The models pick the fields we use
and ignore the rest (``extra="ignore"``): HELM's format is external and gains fields between
releases, and a new field must not break an import. A missing or malformed file raises
``HelmFileError`` naming the file and the reason; so does a NaN or infinite number (Python's
``json`` reads and writes them as bare ``NaN``/``Infinity``), which would otherwise flow into a
score, an interval and a JSON export. Completions (token log-probabilities, which can be −∞ and
which MedAssure never reads) are not checked.

HELM aggregates per-instance stats per train trial (merge the instances' ``sum``/``count``, take
the mean), then averages those trial means; ``recompute_means`` repeats that exactly.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from evaluator.inputs.capped_json import JsonRefused, parse_json

T = TypeVar("T")
_LOOSE = ConfigDict(extra="ignore", frozen=True)
UNCHECKED_KEYS = frozenset({"completions", "tokens"})


class HelmFileError(ValueError):
    """One HELM file is missing or malformed."""

    def __init__(self, path: Path | str, reason: str):
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class StatName(BaseModel):
    """HELM ``MetricName``: stat name, split and optional perturbation."""

    model_config = _LOOSE
    name: str
    """Stat name, e.g. ``exact_match`` or ``medication_qa_accuracy``."""
    split: str | None = None
    """Split the stat was computed on (``test``, ``valid``)."""
    sub_split: str | None = None
    """Sub-split, rarely used."""
    perturbation: dict[str, Any] | None = None
    """Perturbation description; None for the unperturbed stat."""


class HelmStat(BaseModel):
    """HELM ``Stat``: count, sum and summary of one metric."""

    model_config = _LOOSE
    name: StatName
    """What the stat measures."""
    count: int = Field(ge=0)
    """Number of values merged into it."""
    sum: float
    """Sum of the values."""
    min: float | None = None
    """Smallest value (absent when count is 0)."""
    max: float | None = None
    """Largest value (absent when count is 0)."""
    mean: float | None = None
    """Mean (absent when count is 0)."""
    stddev: float | None = None
    """Standard deviation (absent when count is 0)."""

    @property
    def key(self) -> tuple[str, str | None, str | None, str | None]:
        """(name, split, sub_split, perturbation as JSON) identifying the stat within a run."""
        pert = json.dumps(self.name.perturbation, sort_keys=True) if self.name.perturbation else None
        return (self.name.name, self.name.split, self.name.sub_split, pert)


class PerInstanceStats(BaseModel):
    """One instance × train trial of ``per_instance_stats.json``."""

    model_config = _LOOSE
    instance_id: str
    """HELM instance id."""
    train_trial_index: int = 0
    """Which train trial (few-shot sample) this is."""
    perturbation: dict[str, Any] | None = None
    """Perturbation of the instance; None for the original."""
    stats: list[HelmStat]
    """The instance's stats."""


class AdapterSpec(BaseModel):
    """The fields of HELM's ``AdapterSpec`` we use."""

    model_config = _LOOSE
    model: str
    """Model name, e.g. ``openai/gpt-4o-2024-05-13``."""
    model_deployment: str | None = None
    """Deployment used to reach it."""
    max_tokens: int | None = None
    """Completion budget per request."""
    num_train_trials: int = 1
    """Number of few-shot samples."""


class RunSpec(BaseModel):
    """The fields of ``run_spec.json`` we use."""

    model_config = _LOOSE
    name: str
    """Run name, e.g. ``medication_qa:model=...``."""
    adapter_spec: AdapterSpec
    """How prompts were built and sent."""
    groups: list[str] = []
    """Run groups linking the run to the schema (the benchmark)."""


class _Text(BaseModel):
    model_config = _LOOSE
    text: str = ""


class _Reference(BaseModel):
    model_config = _LOOSE
    output: _Text
    tags: list[str] = []


class _Instance(BaseModel):
    model_config = _LOOSE
    id: str | None = None
    input: _Text
    references: list[_Reference] = []
    split: str | None = None
    perturbation: dict[str, Any] | None = None


class _Request(BaseModel):
    model_config = _LOOSE
    prompt: str = ""


class _Result(BaseModel):
    model_config = _LOOSE
    success: bool
    completions: list[_Text] = []
    error: str | None = None
    request_datetime: int | None = None


class RequestState(BaseModel):
    """One request of ``scenario_state.json``: instance, prompt, completions."""

    model_config = _LOOSE
    instance: _Instance
    """The instance with its references."""
    train_trial_index: int = 0
    """Which train trial."""
    request: _Request
    """What was sent."""
    result: _Result | None = None
    """What came back (None if the request was never made)."""


class ScenarioState(BaseModel):
    """``scenario_state.json``: every request of the run."""

    model_config = _LOOSE
    request_states: list[RequestState]
    """All requests, in HELM's order."""


def read_helm_json(path: Path, shape: type[T] | Any) -> T:
    """Parse one HELM file into ``shape`` or raise ``HelmFileError`` saying what is wrong.

    Example:
        >>> read_helm_json(Path("/nonexistent/stats.json"), list[HelmStat])
        Traceback (most recent call last):
        ...
        evaluator.importers.helm_format.HelmFileError: /nonexistent/stats.json: file is missing
    """
    if not path.is_file():
        raise HelmFileError(path, "file is missing")
    try:
        raw = parse_json(path.read_text(encoding="utf-8"))
    except JsonRefused as exc:
        raise HelmFileError(path, str(exc)) from None
    except UnicodeDecodeError as exc:
        raise HelmFileError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise HelmFileError(path, f"not valid JSON: {exc.msg} at {where}") from None
    bad = non_finite(raw)
    if bad:
        raise HelmFileError(path, f"non-finite number {bad[1]} in field {bad[0]}: refused rather than "
                                  "imported as a score")
    try:
        return TypeAdapter(shape).validate_python(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}" for e in exc.errors()[:3]
        )
        more = f" (+{exc.error_count() - 3} more)" if exc.error_count() > 3 else ""
        raise HelmFileError(path, f"unexpected structure: {problems}{more}") from None


def non_finite(raw: Any, where: str = "") -> tuple[str, str] | None:
    """The first NaN or ±infinity in parsed JSON, as (dotted field path, value), or None.

    The path names list positions and keys, with the instance id or stat name of a list item
    that has one, so a reader can find the field in the file.

    Example:
        >>> stats = [{"name": {"name": "em"}, "mean": 0.5}, {"name": {"name": "jury"}, "mean": float("nan")}]
        >>> non_finite(stats)
        ('1[jury].mean', 'NaN')
    """
    if isinstance(raw, float) and not math.isfinite(raw):
        return where or "(top level)", "NaN" if math.isnan(raw) else ("Infinity" if raw > 0 else "-Infinity")
    items = raw.items() if isinstance(raw, dict) else enumerate(raw) if isinstance(raw, list) else ()
    for key, value in items:
        if key in UNCHECKED_KEYS:
            continue
        step = f"{key}{_label(value)}" if isinstance(raw, list) else str(key)
        found = non_finite(value, f"{where}.{step}" if where else step)
        if found:
            return found
    return None


def _label(item: Any) -> str:
    """``[stat name]`` or ``[instance id]`` of a list item, when it has one."""
    if isinstance(item, dict):
        name = item.get("name")
        if isinstance(name, dict) and isinstance(name.get("name"), str):
            return f"[{name['name']}]"
        if isinstance(item.get("instance_id"), str):
            return f"[{item['instance_id']}]"
    return ""


def recompute_means(per_instance: list[PerInstanceStats]) -> dict[tuple, float]:
    """Run-level means from per-instance stats, with HELM's arithmetic (unperturbed stats only).

    Per train trial the instances' stats are merged (sums and counts added in file order) and the
    trial mean taken; the run mean is the mean of the trial means. Stats HELM derives after
    aggregation (e.g. perplexity) have no per-instance values and are absent from the result.

    Example:
        >>> s = lambda v: {"name": {"name": "em", "split": "test"}, "count": 1, "sum": v}
        >>> rows = [PerInstanceStats(instance_id=i, train_trial_index=t, stats=[s(v)])
        ...         for i, t, v in [("a", 0, 1), ("b", 0, 0), ("a", 1, 1), ("b", 1, 1)]]
        >>> recompute_means(rows)
        {('em', 'test', None, None): 0.75}
    """
    trials: dict[tuple, dict[int, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0]))
    for row in per_instance:
        if row.perturbation is not None:
            continue
        for stat in row.stats:
            if stat.count == 0 or stat.name.perturbation is not None:
                continue
            acc = trials[stat.key][row.train_trial_index]
            acc[0] += stat.sum
            acc[1] += stat.count
    means = {}
    for key, by_trial in trials.items():
        total = 0.0
        for _, (s, c) in sorted(by_trial.items()):
            total += s / c
        means[key] = total / len(by_trial)
    return means
