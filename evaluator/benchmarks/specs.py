"""Benchmarks as data: ``data/benchmarks/<id>.yaml`` → frozen ``BenchmarkSpec``, in one registry.

A benchmark is described once, in a YAML file a reviewer can read, and every page, run and report
reads that one description. The spec is frozen and forbids unknown keys so that a typo fails when
the file is loaded, not halfway through a paid run; loader names, loader arguments, metric names
and prompt placeholders are all checked at load time against their registries (the loader and
metric registries are reached by name, ``evaluator.extensions``, since they build on the instance
below them). The fields follow HELM's MedHELM ``BenchmarkConfig`` (name, description, prompt,
dataset, metrics, judges, max tokens). No YAML tricks (includes, tags): ``yaml.safe_load`` of plain
mappings only.

``spec_hash`` identifies a spec's full content (for run provenance); ``prompt_hash`` identifies
only what shapes the model's input (system prompt and template), i.e. the prompt version that a
re-evaluation after a prompt change compares against.
"""

from __future__ import annotations

import hashlib
import json
import re
import string
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from evaluator.benchmarks.instance import LETTERS, AnswerType, Instance
from evaluator.extensions import lookup
from evaluator.paths import DATA_DIR

DEFAULT_DIR = DATA_DIR / "benchmarks"
PLACEHOLDERS = frozenset({"context", "question", "choices"})


class BenchmarkError(ValueError):
    """A benchmark file that is invalid, or a benchmark id that does not exist."""


class JurySettings(BaseModel):
    """How free-text replies are judged by an LLM jury (MedHELM: 3 judges × 3 criteria, 1-5)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judges: tuple[str, ...] = Field(min_length=1)
    """Judge models (endpoint names or litellm model strings); MedHELM uses three vendors."""
    rubric: str = Field(min_length=1)
    """Id of the rubric (judge prompt and criteria) the jury applies."""
    criteria: tuple[str, ...] = ("accuracy", "completeness", "clarity")
    """Criteria each judge scores; the instance score is the mean over judges × criteria."""
    scale_min: int = 1
    """Lowest score a judge can give."""
    scale_max: int = 5
    """Highest score a judge can give."""


class BenchmarkSpec(BaseModel):
    """One benchmark: where its cases come from, how they are asked, and how replies are scored."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    """Stable id; equals the YAML file name."""
    title: str = Field(min_length=1)
    """Human-readable name."""
    description: str = ""
    """What the benchmark tests and where its data comes from."""
    subcategory_ids: tuple[str, ...] = ()
    """MedHELM taxonomy subcategories it provides evidence for (ids of data/taxonomy.json)."""
    medhelm_id: str | None = None
    """Benchmark id in data/taxonomy.json whose published MedHELM scores this reproduces, if any."""
    loader: str
    """Name of the loader in the loader registry."""
    dataset_path: str | None = None
    """Default dataset file; usually None and given by the user per run (upload or path)."""
    dataset_source: str = ""
    """Where a committee obtains the official file, and its licence."""
    loader_args: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments for the loader (checked against its signature)."""
    prompt_template: str = Field(min_length=1)
    """User message, ``str.format`` style with {context}, {question} and {choices}."""
    system_prompt: str = ""
    """System message; empty for none."""
    answer_type: AnswerType
    """Main answer type of the instances (each instance still carries its own)."""
    metrics: tuple[str, ...] = Field(min_length=1)
    """Metric names from the metric registry."""
    main_metric: str = ""
    """The one metric a run's evidence is judged on (one of ``metrics``; empty means the first).
    The others are kept as context: shown, never compared with a score bar or averaged."""
    max_tokens: int = Field(gt=0)
    """Output token budget per request."""
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    """Sampling temperature; 0 as in MedHELM."""
    jury: JurySettings | None = None
    """LLM-jury settings for free-text benchmarks; None when no jury is used."""
    access: Literal["builtin", "public", "gated", "private"]
    """Data access: built in, public download, credentialed (gated) or hospital-private."""

    @field_validator("prompt_template")
    @classmethod
    def _known_placeholders(cls, template: str) -> str:
        try:
            names = {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}
        except ValueError as exc:
            raise ValueError(
                f"prompt_template is not a valid format string ({exc}); write literal braces as {{{{ }}}}"
            ) from exc
        unknown = names - PLACEHOLDERS
        if unknown:
            raise ValueError(
                f"prompt_template uses unknown placeholders {sorted(unknown)}; "
                f"allowed: {sorted(PLACEHOLDERS)}"
            )
        return template

    @model_validator(mode="before")
    @classmethod
    def _default_main_metric(cls, data):
        if isinstance(data, dict) and not data.get("main_metric") and data.get("metrics"):
            data = {**data, "main_metric": list(data["metrics"])[0]}
        return data

    @model_validator(mode="after")
    def _main_metric_is_measured(self):
        if self.main_metric not in self.metrics:
            raise ValueError(f"main_metric {self.main_metric!r} is not one of metrics {list(self.metrics)}")
        return self


def _check_names(spec: BenchmarkSpec) -> None:
    """Loader, loader arguments and metrics must exist in their registries.

    The loader and metric registries sit above the specs (they read ``Instance``), so they are
    reached by the lookups ``evaluator/__init__.py`` registers (``evaluator.extensions``).
    """
    loader = lookup("loader")(spec.loader)
    extra = set(spec.loader_args) - loader.arg_names()
    if extra:
        raise KeyError(
            f"loader {spec.loader!r} takes no argument(s) {sorted(extra)}; "
            f"it takes {sorted(loader.arg_names()) or 'none'}"
        )
    for name in spec.metrics:
        lookup("metric")(name)


def parse_benchmark(path: Path) -> BenchmarkSpec:
    """Read and check one benchmark file.

    Raises:
        BenchmarkError: naming the file and what is wrong with it.

    Example:
        >>> parse_benchmark(DEFAULT_DIR / "calc_builtin.yaml").loader
        'builtin_calculators'
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise BenchmarkError(f"{path}: expected a mapping of fields")
        spec = BenchmarkSpec.model_validate(data)
        if spec.id != path.stem:
            raise BenchmarkError(f"{path}: id {spec.id!r} must equal the file name {path.stem!r}")
        _check_names(spec)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'file'}: {e['msg']}" for e in exc.errors())
        raise BenchmarkError(f"{path}: {problems}") from None
    except KeyError as exc:
        raise BenchmarkError(f"{path}: {exc.args[0]}") from None
    except yaml.YAMLError as exc:
        raise BenchmarkError(f"{path}: not valid YAML ({exc})") from None
    return spec


@lru_cache(maxsize=8)
def _load_dir(directory: str) -> tuple[BenchmarkSpec, ...]:
    return tuple(parse_benchmark(p) for p in sorted(Path(directory).glob("*.yaml")))


def load_benchmarks(dir: Path | str | None = None) -> dict[str, BenchmarkSpec]:
    """All benchmarks of a directory (default ``data/benchmarks``), by id.

    Example:
        >>> "calc_builtin" in load_benchmarks()
        True
    """
    return {s.id: s for s in _load_dir(str(Path(dir or DEFAULT_DIR).resolve()))}


def list_benchmarks(dir: Path | str | None = None) -> list[BenchmarkSpec]:
    """All benchmarks, sorted by id.

    Example:
        >>> [s.id for s in list_benchmarks()][:1]
        ['aci_bench']
    """
    return sorted(load_benchmarks(dir).values(), key=lambda s: s.id)


def get_benchmark(benchmark_id: str, dir: Path | str | None = None) -> BenchmarkSpec:
    """The benchmark ``benchmark_id``; an unknown id lists the known ones.

    Example:
        >>> get_benchmark("pubmedqa").answer_type
        'choice'
    """
    specs = load_benchmarks(dir)
    if benchmark_id not in specs:
        raise BenchmarkError(
            f"unknown benchmark {benchmark_id!r}; known benchmarks: {', '.join(sorted(specs))}"
        )
    return specs[benchmark_id]


def render_choices(choices: tuple[str, ...]) -> str:
    """Options as "A. ...\\nB. ...".

    Example:
        >>> render_choices(("yes", "no"))
        'A. yes\\nB. no'
    """
    return "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(choices))


def render_messages(spec: BenchmarkSpec, instance: Instance) -> list[dict[str, str]]:
    """OpenAI-style chat messages for one instance (blank runs left by empty fields collapsed).

    Example:
        >>> spec = get_benchmark("pubmedqa")
        >>> msgs = render_messages(spec, Instance(id="1", question="Q?", choices=("yes", "no", "maybe")))
        >>> msgs[-1]["role"], "A. yes" in msgs[-1]["content"]
        ('user', True)
    """
    user = spec.prompt_template.format(
        context=instance.context.strip(),
        question=instance.question.strip(),
        choices=render_choices(instance.choices),
    )
    user = re.sub(r"\n{3,}", "\n\n", user).strip()
    messages = [{"role": "system", "content": spec.system_prompt}] if spec.system_prompt else []
    messages.append({"role": "user", "content": user})
    return messages


def _digest(payload: object) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def spec_hash(spec: BenchmarkSpec) -> str:
    """SHA-256 of the whole spec's canonical JSON.

    Example:
        >>> len(spec_hash(get_benchmark("calc_builtin")))
        64
    """
    return _digest(spec.model_dump(mode="json"))


def prompt_hash(spec: BenchmarkSpec) -> str:
    """SHA-256 of what shapes the model input: system prompt and prompt template.

    Example:
        >>> s = get_benchmark("calc_builtin")
        >>> prompt_hash(s) == prompt_hash(s.model_copy(update={"max_tokens": 7}))
        True
    """
    return _digest({"system_prompt": spec.system_prompt, "prompt_template": spec.prompt_template})
