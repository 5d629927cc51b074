"""The MedHELM taxonomy, read from ``data/taxonomy.json`` (the one source of truth).

Code never spells out a category, subcategory or benchmark: it asks this module. The file is
rebuilt by ``data/sources/build_taxonomy.py``; ids are stable snake_case slugs of the names.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from evaluator.paths import DATA_DIR

DATA_DIR = DATA_DIR
AccessTier = Literal["public", "gated", "private"]


class TaxonomyError(ValueError):
    """An id that the taxonomy does not know."""


class BenchmarkRef(BaseModel):
    """A MedHELM benchmark as the taxonomy links it to a subcategory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """Stable slug, e.g. ``medcalc_bench``."""
    name: str
    """Published name, e.g. ``MedCalc-Bench``."""
    helm_run_group: str
    """HELM run-group key that links HELM output folders to this benchmark."""
    access: AccessTier
    """Whether a hospital can obtain the data: public, gated (credentialed) or private."""
    access_note: str
    """The access statement as the source gives it."""
    main_metric: str
    """HELM's main metric name for the leaderboard."""
    metric_type: str
    """What the main metric measures, in words."""
    scale: str
    """``0-1`` or ``1-5`` (LLM-jury)."""
    typical_instance_count: int
    """Instances MedHELM evaluated (typical; some models differ)."""
    what_it_tests: str
    """The task the benchmark exercises."""
    source: str
    """Where these facts come from."""


class Task(BaseModel):
    """A task under a subcategory: verified MedHELM task or a committee's local one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """Task name."""
    verified: bool = True
    """True when a cited source confirms the name as a MedHELM task."""
    source: str = ""
    """Citation for a verified task."""


class Subcategory(BaseModel):
    """One of MedHELM's 22 subcategories."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """Stable slug of the name."""
    name: str
    """Published name."""
    definition: str
    """Our own one-sentence definition."""
    source: str
    """Where the name comes from."""
    search_terms: tuple[str, ...] = ()
    """Our own words a committee might use for jobs here (for mapping suggestions)."""
    tasks: tuple[Task, ...] = ()
    """Verified task names (few: the 121 names were not available)."""
    benchmarks: tuple[BenchmarkRef, ...] = ()
    """MedHELM benchmarks mapped to this subcategory."""
    category_id: str = ""
    """Id of the parent category (filled on load)."""


class Category(BaseModel):
    """One of MedHELM's 5 categories."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """Stable slug of the name."""
    name: str
    """Published name."""
    definition: str
    """Our own one-sentence definition."""
    source: str
    """Where the name comes from."""
    subcategories: tuple[Subcategory, ...]
    """Its subcategories in published order."""


class Taxonomy(BaseModel):
    """The whole taxonomy with lookups by id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    meta: dict
    """Counts, sources and notes from the data file."""
    categories: tuple[Category, ...]
    """The 5 categories."""

    @property
    def subcategories(self) -> list[Subcategory]:
        """All 22 subcategories in published order."""
        return [s for c in self.categories for s in c.subcategories]

    @property
    def benchmarks(self) -> list[BenchmarkRef]:
        """All 37 benchmarks."""
        return [b for s in self.subcategories for b in s.benchmarks]

    def subcategory(self, sub_id: str) -> Subcategory:
        """The subcategory with this id; a clear error naming the valid ids otherwise.

        Example:
            >>> load_taxonomy().subcategory("planning_treatments").name
            'Planning Treatments'
        """
        for s in self.subcategories:
            if s.id == sub_id:
                return s
        raise TaxonomyError(
            f"unknown subcategory id {sub_id!r}; valid ids: {', '.join(s.id for s in self.subcategories)}"
        )

    def category_of(self, sub_id: str) -> Category:
        """The category that holds a subcategory."""
        sub = self.subcategory(sub_id)
        return next(c for c in self.categories if c.id == sub.category_id)

    def benchmark(self, key: str) -> BenchmarkRef:
        """A benchmark by id, published name or HELM run group."""
        for b in self.benchmarks:
            if key in (b.id, b.name, b.helm_run_group):
                return b
        raise TaxonomyError(f"unknown benchmark {key!r}")

    def subcategory_of_benchmark(self, key: str) -> Subcategory:
        """The subcategory a benchmark is mapped to."""
        bench = self.benchmark(key)
        return next(s for s in self.subcategories if bench in s.benchmarks)


@lru_cache(maxsize=4)
def load_taxonomy(path: Path | None = None) -> Taxonomy:
    """Load and validate the taxonomy file (cached; the file is read-only data).

    Example:
        >>> tax = load_taxonomy()
        >>> len(tax.categories), len(tax.subcategories), len(tax.benchmarks)
        (5, 22, 37)
    """
    raw = json.loads((path or DATA_DIR / "taxonomy.json").read_text(encoding="utf-8"))
    for cat in raw["categories"]:
        for sub in cat["subcategories"]:
            sub["category_id"] = cat["id"]
    return Taxonomy.model_validate(raw)
