"""Typed access to the shipped MedHELM files in ``data/`` (benchmark map, scores, costs).

Why a module of its own: the evidence records, the HELM importer, the CLI and the pages all need
the same facts (which HELM run group is which benchmark, its main metric and split, its scale).
They are described once, in ``data/medhelm_benchmarks.csv`` (rebuilt by
``data/regenerate_published.py``), and read only here. The files are read-only data, so loading
is cached.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict

from evaluator.paths import DATA_DIR

DATA_DIR = DATA_DIR
BENCHMARKS_FILE = DATA_DIR / "medhelm_benchmarks.csv"
PUBLISHED_FILE = DATA_DIR / "medhelm_published.csv"
COSTS_FILE = DATA_DIR / "medhelm_costs.csv"
TOKENS_FILE = DATA_DIR / "medhelm_benchmark_tokens.csv"

MetricKind = Literal["proportion", "jury_mean", "f1_mean"]


class BenchmarkFacts(BaseModel):
    """One MedHELM benchmark as HELM runs and scores it."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    benchmark: str
    """MedHELM display name, e.g. ``MedicationQA``."""
    helm_run_group: str
    """HELM run group (``run_spec.json`` ``groups``), e.g. ``medication_qa``."""
    category: str
    """MedHELM taxonomy category."""
    subcategory: str
    """MedHELM taxonomy subcategory."""
    main_metric: str
    """Name of the headline stat in ``stats.json``, e.g. ``medication_qa_accuracy``."""
    main_split: str
    """Split of the headline stat (``test``; ``valid`` for MedMCQA)."""
    scale: Literal["0-1", "1-5"]
    """Score scale: 0-1, or 1-5 for the LLM jury."""
    lower_is_better: bool
    """Direction of the main metric."""
    metric_kind: MetricKind
    """What the number is: a proportion, a mean jury score or a mean F1; decides the interval."""
    access: Literal["public", "gated", "private"]
    """Whether a hospital can obtain the data."""
    typical_n: int
    """Typical number of evaluated instances."""
    caveat: str = ""
    """What a committee must know when reading this benchmark's score."""


@cache
def benchmark_facts() -> dict[str, BenchmarkFacts]:
    """All 37 benchmarks by name.

    Example:
        >>> benchmark_facts()["MedMCQA"].main_split
        'valid'
    """
    df = pd.read_csv(BENCHMARKS_FILE, dtype=str, keep_default_na=False)
    rows = [BenchmarkFacts.model_validate(r) for r in df.to_dict("records")]
    return {b.benchmark: b for b in rows}


@cache
def facts_by_run_group() -> dict[str, BenchmarkFacts]:
    """The same benchmarks keyed by HELM run group.

    Example:
        >>> facts_by_run_group()["medication_qa"].benchmark
        'MedicationQA'
    """
    return {b.helm_run_group: b for b in benchmark_facts().values()}


def published_scores() -> pd.DataFrame:
    """The 9 × 37 published scores with their benchmark facts (a fresh copy each call).

    Example:
        >>> published_scores().shape[0]
        333
    """
    return _published().copy()


@cache
def _published() -> pd.DataFrame:
    df = pd.read_csv(PUBLISHED_FILE, dtype=str, keep_default_na=False)
    direction = df["lower_is_better"].str.lower().map({"true": True, "false": False})
    return df.assign(score=df["score"].astype(float), n=df["n"].astype(int),
                     typical_n=df["typical_n"].astype(int), lower_is_better=direction.astype(bool))


def published_costs() -> pd.DataFrame:
    """Published cost estimates: budget-based upper bounds at 2025 list prices, not invoices.

    Example:
        >>> set(published_costs()["unit"]) == {"USD", "tokens"}
        True
    """
    return pd.read_csv(COSTS_FILE, keep_default_na=False)


@cache
def _benchmark_tokens() -> pd.DataFrame:
    return pd.read_csv(TOKENS_FILE, keep_default_na=False)


def benchmark_tokens() -> pd.DataFrame:
    """Per model and benchmark: instances, mean prompt tokens and the completion budget per instance.

    Derived by ``data/regenerate_published.py`` from MedHELM's per-benchmark dollar estimates (its
    token counts are published only as totals over 37 benchmarks); the completion side is the
    max-tokens budget, an upper bound. A fresh copy each call.

    Example:
        >>> t = benchmark_tokens()
        >>> row = t[(t.model == "GPT-4o (2024-05-13)") & (t.benchmark == "ProxySender")]
        >>> row["mean_prompt_tokens"].item()
        182.7
    """
    return _benchmark_tokens().copy()
