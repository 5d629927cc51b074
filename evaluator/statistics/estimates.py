"""Statistics a committee can defend: intervals, HELM's win rate, normalized means, tie groups.

Why these and no others: MedHELM ranks models by HELM's mean win rate and summarises categories
by plain means of normalized scores, so both are reproduced exactly (and tested against the
published figures). A rank alone hides uncertainty, so every score that can get an interval gets
one fitted to the kind of score (``interval_for``): Wilson for proportions (published with known
n, or 0/1 per-instance scores), a seeded BCa bootstrap for bounded or skewed means (ROUGE,
BERTScore, 1-5 jury means) with a t interval when BCa cannot be computed, and no interval, with
the reason, when there is no spread to estimate one from. Models whose intervals overlap are
reported as tied, not ordered. ``bench/interval_coverage.py`` measures each method's coverage.

All functions are pure: plain numbers or DataFrames in, plain numbers or DataFrames out.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Literal, NamedTuple

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
    # At 0 of n (n of n) the bound is exactly 0 (1); the subtraction leaves float error (1.4e-17 at
    # 0/20) that would print as a number. Bounds within 1e-12 of an end are that end.
    lower = 0.0 if successes == 0 or centre - half < 1e-12 else centre - half
    upper = 1.0 if successes == n or centre + half > 1 - 1e-12 else centre + half
    return lower, upper


def clopper_pearson_interval(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval for a binomial proportion: conservative, never below level.

    Example:
        >>> tuple(round(x, 4) for x in clopper_pearson_interval(9, 12))
        (0.4281, 0.9451)
    """
    from scipy.stats import beta

    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n and n > 0; got {successes} of {n}")
    alpha = 1 - level
    lo = 0.0 if successes == 0 else float(beta.ppf(alpha / 2, successes, n - successes + 1))
    hi = 1.0 if successes == n else float(beta.ppf(1 - alpha / 2, successes + 1, n - successes))
    return lo, hi


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


SMALL_N = 30
"""Below this many values the interval's coverage is only approximate, and the method text says so."""
ScoreKind = Literal["proportion", "mean", "auto"]


class Interval(NamedTuple):
    """A mean with its 95% interval and how it was computed, or why there is none."""

    estimate: float
    lower: float | None
    upper: float | None
    method: str | None
    """How the interval was computed (None when there is none)."""
    missing_reason: str | None
    """Why there is no interval (None when there is one)."""
    kind: str
    """``proportion`` or ``mean``: the kind the interval was fitted to."""


def _small_n(n: int) -> str:
    return f"; n = {n} < {SMALL_N}, so coverage is approximate" if n < SMALL_N else ""


def t_interval(values, level: float = 0.95) -> tuple[float, float]:
    """Student-t interval for a mean (assumes the sample mean is roughly normal).

    Example:
        >>> tuple(round(x, 3) for x in t_interval([1, 2, 3, 4, 5]))
        (1.037, 4.963)
    """
    from scipy.stats import t

    x = np.asarray(values, dtype=float)
    if x.size < 2:
        raise ValueError("a t interval needs at least 2 values")
    half = float(t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return float(x.mean()) - half, float(x.mean()) + half


def bca_interval(values, level: float = 0.95, seed: int = 0, n_resamples: int = 2000) -> tuple[float, float]:
    """Seeded BCa bootstrap interval of a mean (``scipy.stats.bootstrap``); NaN bounds when degenerate.

    Memory stays near 2 million floats whatever n (resamples and the jackknife are batched).

    Example:
        >>> lo, hi = bca_interval([1, 2, 2, 3, 5, 5, 5, 4, 4, 5])
        >>> lo < 3.6 < hi
        True
    """
    import warnings

    from scipy.stats import bootstrap

    x = np.asarray(values, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a degenerate sample gives NaN bounds, handled by the caller
        res = bootstrap((x,), np.mean, vectorized=True, axis=-1, method="BCa", confidence_level=level,
                        n_resamples=n_resamples, batch=max(1, 2_000_000 // max(x.size, 1)),
                        random_state=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def interval_for(values, kind: ScoreKind = "auto", *, level: float = 0.95, seed: int = 0,
                 n_resamples: int = 2000) -> Interval:
    """The mean of per-instance scores with the interval that fits their kind.

    * ``proportion`` (every value 0 or 1: accuracy, exact match): Wilson score interval. It never
      collapses to a point for n > 0 (20 of 20 gives [0.839, 1]).
    * ``mean`` (ROUGE, BERTScore, 1-5 jury means): seeded BCa bootstrap; a t interval when BCa
      cannot be computed; no interval when every value is equal or there is only one, because
      a sample without spread says nothing about the spread of the mean.
    * ``auto``: ``proportion`` when every value is 0 or 1, else ``mean``. The mean of 0/1 values
      is a proportion whatever the metric is called; pass ``mean`` for a scale whose values could
      all happen to be 0 or 1 (a 1-5 jury).

    Below n = 30 the method text says that coverage is approximate
    (``bench/interval_coverage.py`` prints the simulated figures).

    Example:
        >>> r = interval_for([1] * 20)
        >>> r.kind, round(r.lower, 3), r.upper
        ('proportion', 0.839, 1.0)
        >>> interval_for([4, 4, 4], kind="mean").missing_reason
        'no spread: all 3 values equal 4, so an interval cannot be estimated'
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        raise ValueError("no values: drop unscored instances and report them, but keep at least one")
    if np.isnan(x).any():
        raise ValueError("values contain NaN; drop unscored instances first and report them")
    binary = bool(np.isin(x, (0.0, 1.0)).all())
    if kind == "auto":
        kind = "proportion" if binary else "mean"
    n, est = int(x.size), float(x.mean())
    pct = f"{level:.0%}"
    if kind == "proportion":
        if not binary:
            raise ValueError("a proportion needs every value to be 0 or 1")
        k = int(x.sum())
        lo, hi = wilson_interval(k, n, level)
        return Interval(est, lo, hi, f"Wilson score interval, {pct}, on {k} of {n} correct (a proportion)"
                        f"{_small_n(n)}", None, "proportion")
    if kind != "mean":
        raise ValueError(f"kind must be 'proportion', 'mean' or 'auto', not {kind!r}")
    if n == 1:
        return Interval(est, None, None, None, "only one scored instance: no spread to estimate an interval "
                        "from", "mean")
    if float(x.min()) == float(x.max()):
        return Interval(est, None, None, None, f"no spread: all {n} values equal {x[0]:g}, so an interval "
                        "cannot be estimated", "mean")
    lo, hi = bca_interval(x, level, seed, n_resamples)
    if math.isfinite(lo) and math.isfinite(hi) and lo <= est <= hi:
        return Interval(est, lo, hi, f"BCa bootstrap, {pct}, {n_resamples} resamples, seed {seed}, over {n} "
                        f"instances{_small_n(n)}", None, "mean")
    lo, hi = t_interval(x, level)
    return Interval(est, lo, hi, f"t interval, {pct}, over {n} instances (BCa could not be computed; "
                    f"assumes the mean is roughly normal){_small_n(n)}", None, "mean")
