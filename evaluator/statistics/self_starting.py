"""The self-starting two-sided standardized CUSUM (Hawkins 1987; Hawkins & Olwell 1998, ch. 7).

Why: a standardized CUSUM whose in-control mean and sd are *estimated* from a short baseline (14 daily
means) and then used as if known does not keep its designed in-control run length: with 14 baseline
points and a limit designed for ARL0 = 500, the median in-control run length is a few dozen days and
most charts signal within a year (Jones, Champ & Rigdon 2004; Jensen et al. 2006; measured in
``bench/monitoring_cusum.py --estimation``). The self-starting chart standardises each new observation
by the mean and sample sd of *all earlier* in-control observations (the baseline and every watched one
so far)::

    T_n = (x_n - mean_{n-1}) / s_{n-1} * sqrt((n - 1) / n)   ~ t(n - 2)
    U_n = Phi^-1(F_t(T_n; n - 2))                          ~ N(0, 1)

where n counts the observation among all of them (so the first watched one after a baseline of m has
n = m + 1). For iid normal data the U_n are exactly independent standard normals (Hawkins 1987), so the
CUSUM with the same k and h on U_n has exactly the designed in-control run-length distribution, whatever
the baseline size. After the first signal the estimates stop absorbing new observations (the chart has
signalled; what follows is not in control): later observations are standardised by the frozen mean, sd
and count, and the path restarts at 0 as every CUSUM path here does.

Assumption: independent, normal observations (daily means are close to normal). The price of not knowing
the parameters is a slower response to a shift that starts soon after the baseline, since the shifted
values enter the estimates (``bench/monitoring_cusum.py --estimation`` gives the delay).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from evaluator.statistics.cusum import CusumPath, standardized_cusum_limit, two_sided_path

MIN_BASELINE = 3
"""Fewest baseline values m (the first watched value's t then has m - 1 >= 2 degrees of freedom)."""


def t_to_normal(t: np.ndarray | float, df: np.ndarray | float) -> np.ndarray:
    """Phi^-1(F_t(t; df)), computed on the tail side so large |t| keep their precision.

    Example:
        >>> [round(float(u), 4) for u in t_to_normal(np.array([-2.0, 0.0, 2.0]), 5)]
        [-1.6355, 0.0, 1.6355]
    """
    t = np.asarray(t, dtype=float)
    return np.sign(t) * -stats.norm.ppf(stats.t.sf(np.abs(t), df)) + 0.0  # + 0.0: no -0.0


def self_starting_scores(baseline, watched, freeze_after: int | None = None) -> np.ndarray:
    """U_n for each watched value: standardised by all earlier values, mapped from t(n - 2) to N(0, 1).

    Works along the last axis, so a (runs, m) baseline and a (runs, N) watched array give (runs, N)
    scores at once (the bench and the tests simulate thousands of charts that way). ``freeze_after``:
    the index of the watched value after which the estimates stop updating (the chart's first
    signal); None updates throughout.

    Example:
        >>> [round(float(u), 4) for u in self_starting_scores([1.0, 2.0, 3.0], [4.0, 0.0])]
        [1.2123, -1.3356]
    """
    b, w = np.asarray(baseline, dtype=float), np.asarray(watched, dtype=float)
    m, size = b.shape[-1], w.shape[-1]
    if m < MIN_BASELINE:
        raise ValueError(f"the self-starting CUSUM needs at least {MIN_BASELINE} baseline values (got {m})")
    for what, arr in (("baseline value", b), ("value", w)):
        bad = ~np.isfinite(arr)
        if bad.any():
            raise ValueError(f"{what} {int(np.argwhere(bad)[0][-1])} is not a finite number")
    if not (b.std(axis=-1) > 0).all():
        raise ValueError("the baseline does not vary (standard deviation 0)")
    centre = b.mean(axis=-1, keepdims=True)  # sums of centred values keep their precision
    y = np.concatenate([b, w], axis=-1) - centre
    s1, s2 = np.cumsum(y, axis=-1), np.cumsum(y * y, axis=-1)
    count = np.arange(m, m + size)  # values before watched value j
    at = count - 1 if freeze_after is None else np.minimum(count, m + freeze_after) - 1
    count = at + 1
    mean = s1[..., at] / count
    var = (s2[..., at] - s1[..., at] * mean) / (count - 1)
    t = (w - centre - mean) / np.sqrt(var) * np.sqrt(count / (count + 1))
    return t_to_normal(t, count - 1)


def self_starting_cusum_path(baseline: Sequence[float], watched: Sequence[float], k: float = 0.5,
                             h: float | None = None) -> CusumPath:
    """The two-sided CUSUM (k, h) on the self-starting scores U_n of ``watched`` (module docstring).

    The estimates update until the first signal and are frozen from there on (the signalling value
    is not absorbed). ``h`` defaults to the limit for an in-control ARL of 500. ``values`` holds
    ``max(U_t, L_t)`` of the CUSUM of the scores; ``upper`` and ``lower`` its two sides.

    Example:
        >>> path = self_starting_cusum_path([10.0, 11.0, 9.0, 10.0], [10.0, 14.0, 15.0, 15.0], k=0.5, h=4.0)
        >>> path.signal_index, [round(v, 3) for v in path.upper]
        (3, [0.0, 2.212, 3.521, 4.362])
    """
    if h is None:
        h = standardized_cusum_limit(k, 500)
    if h <= 0 or k < 0:
        raise ValueError(f"need h > 0 and k >= 0 (got h={h}, k={k})")
    path = two_sided_path(self_starting_scores(baseline, watched).tolist(), k, h)
    if path.signal_index is None:
        return path
    # the same scores up to the first signal; after it, the estimates stay as they were there
    frozen = self_starting_scores(baseline, watched, freeze_after=path.signal_index)
    return two_sided_path(frozen.tolist(), k, h)
