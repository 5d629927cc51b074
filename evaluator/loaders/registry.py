"""One registry of dataset loaders, and the single entry point ``load_instances``.

A loader turns one file in one official format into ``Instance`` objects; a benchmark YAML names
its loader, so adding a format never touches the runner or the metrics. The registry is a dict
filled by a decorator (HELM's ``run_spec_function`` pattern): registering a name twice is an
error, and an unknown name lists the known ones. Every problem with a user's file becomes a
``DatasetError`` naming the file, the row and the reason, because the person reading it is a
committee member who uploaded a spreadsheet, not a developer reading a traceback.
"""

from __future__ import annotations

import csv
import inspect
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from evaluator.benchmarks.instance import Instance

LoaderFn = Callable[..., Iterable[Instance]]


class DatasetSource(Protocol):
    """What ``load_instances`` reads from a benchmark spec (``evaluator.benchmarks.specs.BenchmarkSpec``).

    A protocol rather than the spec class itself, so that the loaders sit below the benchmark
    registry, which checks its loader names against them.
    """

    id: str
    loader: str
    loader_args: dict[str, Any]
    dataset_path: str | None


class DatasetError(ValueError):
    """A dataset file that cannot be read, with the file, row and reason."""

    def __init__(self, path: Path | str | None, reason: str, row: int | str | None = None):
        self.path, self.reason, self.row = path, reason, row
        where = str(path) if path else "dataset"
        if row is not None:
            where += f", row {row}"
        super().__init__(f"{where}: {reason}")


@dataclass(frozen=True)
class Loader:
    """A registered loader: its function, whether it reads a file, and the format it expects."""

    name: str
    fn: LoaderFn
    needs_file: bool
    file_format: str

    def arg_names(self) -> set[str]:
        """Keyword arguments a benchmark's ``loader_args`` may set."""
        params = inspect.signature(self.fn).parameters
        return {n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}


LOADERS: dict[str, Loader] = {}


def register_loader(
    name: str, *, file_format: str, needs_file: bool = True
) -> Callable[[LoaderFn], LoaderFn]:
    """Register ``fn(path, *, **loader_args)`` under ``name``.

    Example:
        >>> @register_loader("doc_example", file_format="none", needs_file=False)
        ... def _example(path, *, n: int = 1):
        ...     return [Instance(id=str(i)) for i in range(n)]
        >>> sorted(LOADERS.pop("doc_example").arg_names())
        ['n']
    """

    def wrap(fn: LoaderFn) -> LoaderFn:
        if name in LOADERS:
            raise ValueError(f"loader {name!r} is registered twice")
        LOADERS[name] = Loader(name, fn, needs_file, file_format)
        return fn

    return wrap


def get_loader(name: str) -> Loader:
    """The loader called ``name``; an unknown name lists the known ones.

    Example:
        >>> get_loader("generic").needs_file
        True
    """
    try:
        return LOADERS[name]
    except KeyError:
        raise KeyError(f"unknown loader {name!r}; known loaders: {', '.join(sorted(LOADERS))}") from None


def make_instance(path: Path | None, row: int | str, **fields: Any) -> Instance:
    """Build an Instance, turning a validation failure into a DatasetError for that row.

    Example:
        >>> make_instance(None, 3, id="a", question="q").question
        'q'
    """
    try:
        return Instance(**fields)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise DatasetError(path, problems, row) from None


def text_meta(values: Mapping[str, Any]) -> dict[str, str]:
    """Meta values as strings (JSON for lists, dicts and numbers); None and empty values dropped.

    Example:
        >>> text_meta({"year": 2016, "tags": ["a"], "x": None, "name": "b"})
        {'year': '2016', 'tags': '["a"]', 'name': 'b'}
    """
    out = {}
    for key, value in values.items():
        if value is None or value == "":
            continue
        out[str(key)] = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return out


def load_instances(
    spec: DatasetSource, path: str | Path | None = None, limit: int | None = None
) -> list[Instance]:
    """Load a benchmark's instances from ``path`` (or the spec's ``dataset_path``).

    Args:
        spec: the benchmark; its ``loader`` and ``loader_args`` decide how the file is read.
        path: a user-given file; overrides ``spec.dataset_path``.
        limit: keep only the first ``limit`` instances (file order).

    Returns:
        The instances, with unique ids.

    Raises:
        DatasetError: no file where one is needed, a missing file, a bad row, duplicate ids,
            or no instances at all.

    Example:
        >>> from evaluator.benchmarks.specs import get_benchmark
        >>> len(load_instances(get_benchmark("calc_builtin"), limit=3))
        3
    """
    loader = get_loader(spec.loader)
    source = path if path is not None else spec.dataset_path
    file: Path | None = None
    if loader.needs_file:
        if not source:
            raise DatasetError(
                None,
                f"benchmark {spec.id!r} needs a dataset file ({loader.file_format}); "
                "give its path (--dataset-file) or upload it",
            )
        file = Path(source).expanduser()
        if not file.is_file():
            raise DatasetError(file, "file not found")
    if limit is not None and limit < 0:
        raise DatasetError(file, f"limit must be >= 0, got {limit}")
    instances: list[Instance] = []
    seen: set[str] = set()
    try:
        for instance in loader.fn(file, **spec.loader_args):
            if limit is not None and len(instances) >= limit:
                break
            if instance.id in seen:
                raise DatasetError(file, f"duplicate id {instance.id!r}", len(instances) + 1)
            seen.add(instance.id)
            instances.append(instance)
    except (UnicodeDecodeError, json.JSONDecodeError, csv.Error) as exc:
        raise DatasetError(file, f"cannot be read as {loader.file_format}: {exc}") from None
    if not instances and limit != 0:
        raise DatasetError(file, "contains no instances")
    return instances
