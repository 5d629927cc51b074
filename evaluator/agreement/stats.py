"""Agreement statistics between two series of ratings over the same instances, each with a 95% interval.

Why these and computed so: they are the ones MedHELM reported for its jury against clinicians
(som-shahlab/medhelm ``src/medhelm/open-ended-evals/4_calculate_icc.py``), so a committee can set
its own figures beside the published ones, plus the single-measure ICC that MedAssure gates on.
ICCs come from pingouin (F-based intervals), Spearman's ρ from scipy (Fisher-z interval, as
MedHELM), quadratic-weighted κ from scikit-learn (seeded percentile bootstrap), none re-derived here.

Deliberate details:

- ICC(A,1) (pingouin "ICC2", two-way random, absolute agreement, single rater) on the raw
  composites is the figure the judge-agreement rule reads: a jury score stands in for one
  clinician's rating against an absolute score bar, so a jury that is systematically kinder or
  harsher than the clinicians must lower the figure, and a single-measure ICC does not borrow the
  reliability gained by averaging two series.
- "ICC(3,k) z" z-scores each series first and averages the two raters (MedHELM's headline
  variant). For two z-scored series it equals 2r/(1+r) with r their Pearson correlation (r = 0.31
  shows as 0.47), so it is reported beside MedHELM's published figure for comparison only.
- ICCs are never clipped: ICC(C,k) with two raters can fall below −1 and ICC(A,1) slightly below
  −1 on small samples; their F-based intervals can leave [−1, 1] too. The estimator's figure is
  shown as it is.
- κ rounds composites half to even (2.5 → 2, 3.5 → 4) before labelling, as MedHELM's script does
  (pandas' ``round``, like Python's): κ is a comparison with the authors' figure, so it follows their
  arithmetic. Half up (2.5 → 3), used before, gave a different κ wherever composites end in .5 (issue
  38: ten human composites do; 0.096 half up vs 0.178 half to even on the aci_bench + medi_qa subset,
  0.060 vs 0.109 pooled, as the issue measured on the released ratings).

Every function returns an ``Estimate``; where a figure cannot be computed honestly (too few
instances, a series with no variation) it carries the reason instead of a number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

MIN_N = 5
LEVEL_Z = 1.959963984540054
KAPPA_LABELS = [1, 2, 3, 4, 5]


class Estimate(BaseModel):
    """One agreement figure with its 95% interval, n and method, or the reason it is missing."""

    value: float | None
    """The estimate; None when it cannot be computed."""
    ci_lower: float | None = None
    """Lower bound of the 95% interval."""
    ci_upper: float | None = None
    """Upper bound of the 95% interval."""
    n: int
    """Instances it rests on."""
    method: str
    """How it was computed (library, variant, interval method)."""
    missing_reason: str | None = None
    """Why there is no value or no interval."""


def _clean(a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"series differ in length: {x.size} and {y.size}")
    keep = ~(np.isnan(x) | np.isnan(y))
    return x[keep], y[keep]


def _refuse(n: int, method: str, x: np.ndarray, y: np.ndarray, min_n: int = MIN_N) -> Estimate | None:
    if n < min_n:
        return Estimate(value=None, n=n, method=method, missing_reason=f"only {n} instance(s); needs {min_n}")
    for name, s in (("first", x), ("second", y)):
        if np.ptp(s) == 0:
            return Estimate(
                value=None,
                n=n,
                method=method,
                missing_reason=f"the {name} series has no variation (every value {s[0]:g})",
            )
    return None


def zscore(x: np.ndarray) -> np.ndarray:
    """Standardise with the sample SD (ddof=1), as pandas' ``std`` in MedHELM's script.

    Example:
        >>> zscore(np.array([1.0, 2.0, 3.0])).tolist()
        [-1.0, 0.0, 1.0]
    """
    return (x - x.mean()) / x.std(ddof=1)


def _pingouin_icc(x: np.ndarray, y: np.ndarray, kind: str) -> tuple[float, float, float]:
    import pandas as pd
    import pingouin

    n = x.size
    long = pd.DataFrame(
        {"target": np.tile(np.arange(n), 2), "rater": ["a"] * n + ["b"] * n, "score": np.concatenate([x, y])}
    )
    try:  # full-precision intervals; pingouin rounds CI95 to 2 decimals by default
        from pingouin.config import _no_rounding
    except ImportError:  # pragma: no cover - older pingouin
        from contextlib import nullcontext as _no_rounding
    with _no_rounding(), np.errstate(divide="ignore", invalid="ignore"):
        table = pingouin.intraclass_corr(long, targets="target", raters="rater", ratings="score")
    names = {"C,k": ("ICC(C,k)", "ICC3k"), "A,1": ("ICC(A,1)", "ICC2"), "C,1": ("ICC(C,1)", "ICC3")}[kind]
    row = table[table["Type"].isin(names)].iloc[0]
    ci = row["CI95"] if "CI95" in row.index else row["CI95%"]
    return float(row["ICC"]), float(ci[0]), float(ci[1])


def icc3k_z(a: Sequence[float], b: Sequence[float]) -> Estimate:
    """ICC(3,k) consistency of two series, each z-scored across instances first (MedHELM's "ICC3k-z").

    Example:
        >>> icc3k_z([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]).value
        1.0
    """
    method = "pingouin ICC(3,k) consistency on z-scored series; F-based 95% interval"
    x, y = _clean(a, b)
    refused = _refuse(x.size, method, x, y)
    if refused:
        return refused
    value, lo, hi = _pingouin_icc(zscore(x), zscore(y), "C,k")
    return Estimate(value=value, ci_lower=lo, ci_upper=hi, n=x.size, method=method)


def _single_icc(a: Sequence[float], b: Sequence[float], kind: str, method: str) -> Estimate:
    x, y = _clean(a, b)
    refused = _refuse(x.size, method, x, y)
    if refused:
        return refused
    value, lo, hi = _pingouin_icc(x, y, kind)
    return Estimate(value=value, ci_lower=lo, ci_upper=hi, n=x.size, method=method)


def icc21(a: Sequence[float], b: Sequence[float]) -> Estimate:
    """ICC(A,1), i.e. ICC(2,1): absolute agreement of one rater, on the series' own scale (the gated figure).

    A constant shift between the series lowers it, as it should when a jury score is read against
    an absolute bar; see the module docstring for why this is the statistic the rule reads.

    Example:
        >>> round(icc21([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]).value, 6)
        1.0
    """
    return _single_icc(a, b, "A,1", "pingouin ICC(2,1) absolute agreement, single rater, on raw composites; "
                       "F-based 95% interval")


def icc31(a: Sequence[float], b: Sequence[float]) -> Estimate:
    """ICC(C,1), i.e. ICC(3,1): consistency of one rater on raw composites (a constant shift is ignored).

    Shown beside ICC(A,1): the gap between the two is the part of the disagreement that is a
    systematic offset between jury and clinicians.

    Example:
        >>> round(icc31([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]).value, 6)
        1.0
    """
    return _single_icc(a, b, "C,1", "pingouin ICC(3,1) consistency, single rater, on raw composites; "
                       "F-based 95% interval")


def spearman(a: Sequence[float], b: Sequence[float]) -> Estimate:
    """Spearman's ρ (scipy) with a Fisher-z 95% interval (SE 1/√(n − 3)).

    Example:
        >>> round(spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 9]).value, 9)
        1.0
    """
    from scipy.stats import spearmanr

    method = "scipy spearmanr; Fisher-z 95% interval, SE 1/sqrt(n-3)"
    x, y = _clean(a, b)
    refused = _refuse(x.size, method, x, y)
    if refused:
        return refused
    rho = float(spearmanr(x, y).statistic)
    half = LEVEL_Z / math.sqrt(x.size - 3)
    z = math.atanh(min(max(rho, -0.999999999), 0.999999999))
    return Estimate(
        value=rho, ci_lower=math.tanh(z - half), ci_upper=math.tanh(z + half), n=x.size, method=method
    )


def round_half_even(x: np.ndarray) -> np.ndarray:
    """Composites to whole scale points as MedHELM's script rounds them (half to even), clipped to 1-5.

    Example:
        >>> round_half_even(np.array([2.5, 3.5, 3.49, 4.6, 0.2])).tolist()
        [2, 4, 3, 5, 1]
    """
    return np.clip(np.round(x), 1, 5).astype(int)


def bootstrap_weighted_kappa(hx: np.ndarray, hy: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Quadratic-weighted κ of many resamples at once (rows of ``idx``), same formula as scikit-learn.

    scikit-learn's ``cohen_kappa_score`` validates its input on every call (~15 ms here), which
    makes a 1,000-resample bootstrap take tens of seconds per dataset; this computes the same
    κ = 1 − Σ w·O / Σ w·E for all resamples in one pass. A test checks it against scikit-learn.

    Example:
        >>> x = np.array([1, 2, 3, 4, 5])
        >>> bootstrap_weighted_kappa(x, x, np.arange(5)[None, :]).tolist()
        [1.0]
    """
    k = len(KAPPA_LABELS)
    cells = (hx[idx] - 1) * k + (hy[idx] - 1)
    observed = np.stack([np.bincount(row, minlength=k * k) for row in cells]).reshape(-1, k, k).astype(float)
    expected = observed.sum(axis=2)[:, :, None] * observed.sum(axis=1)[:, None, :] / idx.shape[1]
    grid = np.arange(k)
    weights = (grid[:, None] - grid[None, :]) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - (weights * observed).sum(axis=(1, 2)) / (weights * expected).sum(axis=(1, 2))


def kappa_w(a: Sequence[float], b: Sequence[float], *, n_boot: int = 1000, seed: int = 0) -> Estimate:
    """Quadratic-weighted Cohen's κ (scikit-learn) on rounded 1-5 composites, seeded percentile bootstrap.

    Example:
        >>> kappa_w([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]).value
        1.0
    """
    from sklearn.metrics import cohen_kappa_score

    method = (
        f"scikit-learn cohen_kappa_score(weights='quadratic') on composites rounded half to even "
        f"(as MedHELM's script); "
        f"{n_boot} bootstrap resamples, seed {seed}"
    )
    x, y = _clean(a, b)
    refused = _refuse(x.size, method, x, y)
    if refused:
        return refused
    hx, hy = round_half_even(x), round_half_even(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(cohen_kappa_score(hx, hy, weights="quadratic", labels=KAPPA_LABELS))
    rng = np.random.default_rng(seed)
    boots = bootstrap_weighted_kappa(hx, hy, rng.integers(0, x.size, size=(n_boot, x.size)))
    boots = boots[~np.isnan(boots)]
    if math.isnan(value):
        return Estimate(
            value=None,
            n=x.size,
            method=method,
            missing_reason="κ undefined: rounded labels agree by chance alone (a single label on one side)",
        )
    if boots.size < n_boot // 2:
        return Estimate(
            value=value,
            n=x.size,
            method=method,
            missing_reason="too few bootstrap resamples had a defined κ for an interval",
        )
    lo, hi = np.quantile(boots, [0.025, 0.975])
    return Estimate(value=value, ci_lower=float(lo), ci_upper=float(hi), n=x.size, method=method)


def icc3k_interval_width(n: int, icc: float, k: int = 2, *, single: bool = False) -> float:
    """Expected width of the 95% interval of ICC(3,k) (or ICC(3,1) when ``single``) on ``n`` instances.

    Uses pingouin's F-based interval with the observed F set to its value at that ICC
    (ICC(3,k): F = 1 / (1 − ICC); ICC(3,1): F = (1 + (k − 1)·ICC) / (1 − ICC)); a planning
    figure, not a guarantee. For the gated ICC(A,1) it is a lower bound on the width: absolute
    agreement adds the raters' offset to the uncertainty.

    Example:
        >>> round(icc3k_interval_width(50, 0.5), 2), round(icc3k_interval_width(50, 0.5, single=True), 2)
        (0.6, 0.42)
    """
    from scipy.stats import f as f_dist

    if n < 3 or not -1 < icc < 1:
        raise ValueError("needs n >= 3 and -1 < icc < 1")
    df1, df2 = n - 1, (n - 1) * (k - 1)
    big_f = (1 + (k - 1) * icc) / (1 - icc) if single else 1 / (1 - icc)
    f_lo, f_hi = big_f / f_dist.ppf(0.975, df1, df2), big_f * f_dist.ppf(0.975, df2, df1)
    if single:
        return float((f_hi - 1) / (f_hi + k - 1) - (f_lo - 1) / (f_lo + k - 1))
    return float((1 - 1 / f_hi) - (1 - 1 / f_lo))


def sample_size_for_width(width: float, icc: float, k: int = 2, n_max: int = 100_000, *,
                          single: bool = False) -> int | None:
    """Fewest instances for an ICC(3,k) (``single``: ICC(3,1)) 95% interval no wider than ``width``.

    None when more than ``n_max`` would be needed.

    Example:
        >>> n = sample_size_for_width(0.3, 0.5)
        >>> icc3k_interval_width(n, 0.5) <= 0.3 < icc3k_interval_width(n - 1, 0.5)
        True
    """
    if width <= 0:
        raise ValueError("width must be positive")
    lo, hi = 3, 3
    while icc3k_interval_width(hi, icc, k, single=single) > width:
        lo, hi = hi, hi * 2
        if hi > n_max:
            return None
    while lo < hi:  # width falls as n grows: binary search for the first n that fits
        mid = (lo + hi) // 2
        if icc3k_interval_width(mid, icc, k, single=single) <= width:
            hi = mid
        else:
            lo = mid + 1
    return lo
