"""The arithmetic behind a verdict: comparing an interval with a bar, and how many cases would settle it.

Comparison (DESIGN.md, "Verdicts respect uncertainty"): for a bar that the score must reach
(higher is better) a rule *passes* when every value in the 95% interval reaches it (lower bound
≥ bar, so an interval touching the bar from above passes), *fails* when no value in the interval
reaches it (upper bound < bar; touching from below is therefore still inconclusive), and is
*inconclusive* otherwise. For a lower-is-better score or a ceiling (unscored share, cost) the
mirror image holds: pass when upper ≤ bar, fail when lower > bar. Values are compared after
rounding to 12 decimals, so 0.75 computed as (4 − 1) / 4 equals a bar of 0.75.

Further cases ("how many more would likely settle it"): we assume the point estimate stays where
it is and ask for the smallest total n at which the interval around it would no longer contain
the bar.

* Wilson intervals (proportions): search n with ``wilson_interval(p̂ · n, n)``.
* Any other interval (bootstrap, ICC, subgroup ratios): widths shrink as 1/√n, so
  n_total = n · (reach / |estimate − bar|)², where *reach* is the distance from the estimate to
  the interval end on the bar's side (bootstrap and ICC intervals are often lopsided, so the
  half-width would understate it).

Both are expectations, not guarantees: the estimate will move as cases arrive, and about half the
time the needed number is larger. When the estimate sits exactly on the bar, no number of cases
settles it and we say so.
"""

from __future__ import annotations

import math
from typing import Literal

from evaluator.stats import wilson_interval
from governance.dossier.rules_records import Status

Direction = Literal["at_least", "at_most", "within"]
WILSON_CASES = ("smallest n at which the Wilson 95% interval around the current estimate excludes the "
                "threshold, if the estimate holds")
SCALED_CASES = ("n at which the interval, narrowing as 1/√n from its current width, would exclude the "
                "threshold, if the estimate holds")
N_CAP = 10_000_000


def _r(x: float) -> float:
    return round(x, 12)


def compare(lo: float, hi: float, threshold: float, direction: Direction) -> Status:
    """Verdict of an interval [lo, hi] against a bar.

    Example:
        >>> compare(0.75, 0.9, 0.75, "at_least"), compare(0.6, 0.75, 0.75, "at_least")
        ('pass', 'inconclusive')
        >>> compare(0.01, 0.04, 0.05, "at_most"), compare(0.06, 0.09, 0.05, "at_most")
        ('pass', 'fail')
    """
    lo, hi, t = _r(lo), _r(hi), _r(threshold)
    if direction == "at_least":
        return "pass" if lo >= t else "fail" if hi < t else "inconclusive"
    if direction == "at_most":
        return "pass" if hi <= t else "fail" if lo > t else "inconclusive"
    raise ValueError(f"compare() takes at_least or at_most, not {direction!r}")


def wilson_total_n(p: float, threshold: float, n_now: int) -> int | None:
    """Smallest total n > n_now whose Wilson interval around ``p`` excludes ``threshold``.

    Example:
        >>> wilson_total_n(0.72, 0.70, 300)
        2017
    """
    if _r(p) == _r(threshold):
        return None

    def settled(n: int) -> bool:
        lo, hi = wilson_interval(p * n, n)
        return lo > threshold if p > threshold else hi < threshold

    lo_n, hi_n = n_now, max(n_now + 1, 2)
    while not settled(hi_n):
        lo_n, hi_n = hi_n, hi_n * 2
        if hi_n > N_CAP:
            return None
    while hi_n - lo_n > 1:
        mid = (lo_n + hi_n) // 2
        lo_n, hi_n = (lo_n, mid) if settled(mid) else (mid, hi_n)
    return hi_n


def scaled_total_n(estimate: float, lo: float, hi: float, threshold: float, n_now: int) -> int | None:
    """Total n at which an interval shrinking as 1/√n would exclude the bar.

    Example:
        >>> scaled_total_n(0.8, 0.7, 0.9, 0.75, 100)
        400
        >>> scaled_total_n(0.8, 0.6, 0.85, 0.75, 100)  # lopsided: the lower end decides
        1600
    """
    distance = abs(estimate - threshold)
    reach = estimate - lo if estimate > threshold else hi - estimate
    if _r(distance) == 0 or n_now <= 0:
        return None
    return max(n_now + 1, math.ceil(n_now * (reach / distance) ** 2))


def further_cases(estimate: float, lo: float, hi: float, threshold: float, n: int | None,
                  wilson: bool) -> tuple[int | None, str]:
    """Further cases likely to settle an inconclusive verdict, and the method in words.

    Example:
        >>> further_cases(0.8, 0.7, 0.9, 0.75, 100, wilson=False)[0]
        300
    """
    if n is None:
        return None, "n is unknown, so the cases needed cannot be estimated"
    if _r(estimate) == _r(threshold):
        return None, ("the estimate sits on the threshold: no number of cases settles it unless the "
                      "estimate moves")
    total = (wilson_total_n(estimate, threshold, n) if wilson
             else scaled_total_n(estimate, lo, hi, threshold, n))
    if total is None:
        return None, f"more than {N_CAP:,} cases would be needed"
    return total - n, WILSON_CASES if wilson else SCALED_CASES


def fmt(x: float | None, digits: int = 3) -> str:
    """A number for a reason sentence (``n/a`` for None)."""
    return "n/a" if x is None else f"{x:.{digits}f}"


def interval_text(estimate: float, lo: float | None, hi: float | None, n: int | None) -> str:
    """``0.772 (95% CI 0.745–0.797, n=1000)``."""
    ci = f"95% CI {fmt(lo)}–{fmt(hi)}" if lo is not None else "no interval"
    return f"{fmt(estimate)} ({ci}, n={n if n is not None else 'unknown'})"
