"""The built-in calculator benchmark as a loader (no file: cases are generated from a seed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from evaluator.benchmarks.instance import Instance
from evaluator.calculators import generate_cases
from evaluator.loaders.registry import register_loader


@register_loader("builtin_calculators", file_format="none (generated from seed and count)", needs_file=False)
def load_builtin_calculators(
    path: Path | None, *, seed: int = 0, count: int = 120, calculators: list[str] | None = None
) -> Iterator[Instance]:
    """Synthetic calculator cases; ``path`` is ignored.

    Example:
        >>> len(list(load_builtin_calculators(None, seed=1, count=4)))
        4
    """
    yield from generate_cases(seed=seed, count=count, calculators=calculators)
