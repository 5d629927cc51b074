"""Statistics a committee can defend: intervals, HELM's win rate, normalized means, tie groups.

Why these and no others: MedHELM ranks models by HELM's mean win rate and summarises categories
by plain means of normalized scores, so both are reproduced exactly (and tested against the
published figures). A rank alone hides uncertainty, so every score that can get an interval gets
one (Wilson for a published proportion with known n, a seeded percentile bootstrap for
per-instance scores) and models whose intervals overlap are reported as tied, not ordered.

All functions are pure: plain numbers or DataFrames in, plain numbers or DataFrames out.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import NamedTuple

import numpy as np
import pandas as pd

JURY_SCALE = "1-5"


def wilson_interval(successes: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    ``successes`` may be fractional (``score * n`` from a published, rounded proportion).

    Example:
        >>> tuple(round(x, 4) for x in wilson_interval(8, 10))
        (0.4902, 0.9433)
    """
    if n <= 0:
        raise ValueError("n must be positive")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, n]; got {successes} of {n}")
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def normalize_score(score: float, scale: str) -> float:
    """Put a score on 0-1 the way MedHELM does: jury 1-5 → (x − 1)/4, 0-1 unchanged.

    Example:
        >>> normalize_score(4.0, "1-5")
        0.75
    """
    return (score - 1.0) / 4.0 if scale == JURY_SCALE else float(score)


def _column_win_rates(values: pd.Series, lower_is_better: bool) -> pd.Series:
    """HELM's per-column win rate: (strictly worse + (tied − 1)/2) / (models − 1)."""
    v = -values if lower_is_better else values
    worse = v.apply(lambda x: int((v < x).sum()))
    tied = v.apply(lambda x: int((v == x).sum()))
    return (worse + (tied - 1) / 2) / (len(v) - 1)


def mean_win_rate(scores: pd.DataFrame) -> pd.DataFrame:
    """HELM's mean win rate (``summarize.py`` ``compute_aggregate_row_win_rates``).

    Args:
        scores: long frame with columns ``model``, ``benchmark``, ``score``, ``lower_is_better``.
            One column per benchmark; a column whose direction is missing or that has fewer than
            two models is skipped. A model's mean is over the columns where it has a score.

    Returns:
        Columns ``model``, ``mean_win_rate``, ``n_columns``, sorted best first.

    Example:
        >>> df = pd.DataFrame({"model": ["a", "b", "c"], "benchmark": "x",
        ...                    "score": [0.9, 0.5, 0.5], "lower_is_better": False})
        >>> mean_win_rate(df).set_index("model")["mean_win_rate"].to_dict()
        {'a': 1.0, 'b': 0.25, 'c': 0.25}
    """
    missing = {"model", "benchmark", "score", "lower_is_better"} - set(scores.columns)
    if missing:
        raise ValueError(f"scores is missing columns {sorted(missing)}")
    if scores.duplicated(["model", "benchmark"]).any():
        raise ValueError("more than one score for a (model, benchmark) pair")
    per_column = []
    for bench, col in scores.dropna(subset=["score"]).groupby("benchmark", sort=True):
        directions = col["lower_is_better"].dropna().unique()
        if len(directions) == 0 or len(col) < 2:
            continue
        if len(directions) > 1:
            raise ValueError(f"benchmark {bench!r} has conflicting lower_is_better values")
        rates = _column_win_rates(col["score"].astype(float), bool(directions[0]))
        per_column.append(pd.DataFrame({"model": col["model"], "win_rate": rates}))
    if not per_column:
        return pd.DataFrame({"model": [], "mean_win_rate": [], "n_columns": []})
    rates = pd.concat(per_column)
    out = rates.groupby("model")["win_rate"].agg(mean_win_rate="mean", n_columns="count").reset_index()
    return out.sort_values(["mean_win_rate", "model"], ascending=[False, True], ignore_index=True)


def group_means(scores: pd.DataFrame, level: str = "category") -> pd.DataFrame:
    """Plain mean of normalized benchmark scores per model and taxonomy group (MedHELM's heatmap).

    Args:
        scores: columns ``model``, ``score``, ``scale`` and the grouping column ``level``
            (``category`` or ``subcategory``).

    Returns:
        Columns ``model``, ``level``, ``mean_normalized``, ``n_benchmarks``.

    Example:
        >>> df = pd.DataFrame({"model": "a", "category": "C", "score": [5.0, 0.5],
        ...                    "scale": ["1-5", "0-1"]})
        >>> group_means(df).loc[0, "mean_normalized"]
        np.float64(0.75)
    """
    if level not in ("category", "subcategory"):
        raise ValueError("level must be 'category' or 'subcategory'")
    norm = [normalize_score(s, sc) for s, sc in zip(scores["score"], scores["scale"], strict=True)]
    df = scores.assign(normalized=norm)
    out = df.groupby(["model", level])["normalized"].agg(mean_normalized="mean", n_benchmarks="count")
    return out.reset_index()


class BootstrapResult(NamedTuple):
    """A mean with its percentile-bootstrap interval."""

    estimate: float
    lower: float
    upper: float


def bootstrap_mean(values, n_resamples: int = 2000, level: float = 0.95, seed: int = 0,
                   chunk: int = 250) -> BootstrapResult:
    """Seeded percentile bootstrap of the mean of per-instance scores.

    The same ``values`` and ``seed`` always give the same interval. Resamples are drawn in
    chunks so memory stays at ``chunk × n`` indices whatever ``n_resamples`` is.

    Example:
        >>> r = bootstrap_mean([0, 1, 1, 1, 0, 1, 1, 0, 1, 1], seed=1)
        >>> r.estimate, r.lower <= 0.7 <= r.upper
        (0.7, True)
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        raise ValueError("cannot bootstrap an empty sample")
    if np.isnan(x).any():
        raise ValueError("values contain NaN; drop unscored instances first and report them")
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        idx = rng.integers(0, x.size, size=(size, x.size))
        means[start:start + size] = x[idx].mean(axis=1)
    alpha = (1 - level) / 2
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    return BootstrapResult(float(x.mean()), float(lo), float(hi))


def tie_groups(results: pd.DataFrame, higher_is_better: bool = True) -> list[list[str]]:
    """Group models whose intervals overlap, instead of ranking them strictly.

    Rule (chain from the top): sort by estimate, best first. The best model not yet placed leads
    a new group; each following model joins the group if its interval overlaps the *leader's*
    interval (closed intervals, touching counts as overlap), else it leads the next group. Groups
    are therefore contiguous in rank order and a group never holds two models whose intervals
    both miss the leader's. A model without an interval (``lower``/``upper`` NaN) is treated as
    the point ``[estimate, estimate]``.

    Args:
        results: columns ``model``, ``estimate``, ``lower``, ``upper``.
        higher_is_better: direction of the estimate.

    Returns:
        Groups of model names, best group first, each in rank order.

    Example:
        >>> df = pd.DataFrame({"model": ["a", "b", "c"], "estimate": [0.9, 0.85, 0.5],
        ...                    "lower": [0.8, 0.75, 0.4], "upper": [1.0, 0.95, 0.6]})
        >>> tie_groups(df)
        [['a', 'b'], ['c']]
    """
    df = results.sort_values(["estimate", "model"], ascending=[not higher_is_better, True])
    lower = df["lower"].fillna(df["estimate"])
    upper = df["upper"].fillna(df["estimate"])
    groups: list[list[str]] = []
    lead_lo = lead_hi = math.nan
    for model, lo, hi in zip(df["model"], lower, upper, strict=True):
        if groups and lo <= lead_hi and hi >= lead_lo:
            groups[-1].append(model)
        else:
            groups.append([model])
            lead_lo, lead_hi = lo, hi
    return groups
