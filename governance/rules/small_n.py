"""The small-n guard: where a verdict's usual test passes too often at the bar, a conservative test decides.

Why: a pass is promised to be wrong at most 2.5% of the time when the true score sits exactly on
the bar (the test's *size*). The usual tests keep that promise only approximately, and at small n
they break it badly: the Wilson score test passes 1 of 1 correct at a bar of 0.20 with p = 0.023,
although a model whose true rate is 0.20 does that 20% of the time; a BCa interval on 2 jury
scores is [min, max] and passed a 0.85 bar 11.5% of the time in simulation. So, per verdict:

* **Proportions with a Wilson interval**: the size of the one-sided score test at this n and this
  bar is computed exactly (the binomial mass of every count the test passes, ``score_test_size``).
  When it exceeds 2.5% by more than 0.5 percentage points (``SIZE_SLACK``), the exact binomial
  test (the Clopper-Pearson tail, size never above 2.5%) decides instead. The size oscillates with
  n (discreteness), so one cut-off n would be wrong at some bars; ``docs/statistics.md`` prints
  the size per n and bar and the largest n where the guard still applies.
* **Means (BCa, t or bootstrap intervals)** below ``MEAN_MIN_N`` instances: the simulated size of
  those intervals exceeds 3.0% there (``bench/interval_coverage.py``, size section), so the test
  is Hoeffding's bound for scores bounded in [0, 1] (normalized), p = exp(−2n·d²) with d the
  distance of the mean past the bar. It assumes only independent cases and the bounded scale,
  and is conservative: at small n it rarely passes anything, which is the point.
* **Clopper-Pearson intervals** need no guard: the exact test's size never exceeds 2.5%.

The same holds for a *fail* (``small_n_fail_guard``): a fail is promised to be wrong at most 2.5% of
the time when the true score sits exactly on the bar, and the Wilson bound broke that at small n
(0 of 1 against a bar of 0.80 failed, although a model whose true rate is 0.80 does that 20% of the
time). Its size is the score test's in the other direction (``false_fail_size``), and the same
per-bar switch applies: above 3.0% the exact binomial test (the lower tail, P(X ≤ x)) decides the
fail. Means keep their interval's fail (Hoeffding only guards passes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

ALPHA = 0.025
SIZE_SLACK = 0.005
"""How far above 2.5% a test's size may be before the conservative test takes over."""
MEAN_MIN_N = 300
"""Below this n the simulated size of BCa / t intervals on jury-like means exceeded 3.0%."""
_Z = NormalDist().inv_cdf(1 - ALPHA)


def score_test_size(n: int, bar: float, direction: str = "at_least") -> float:
    """Exact chance that the one-sided score test passes when the true rate equals the bar.

    Example:
        >>> round(score_test_size(1, 0.20), 3)  # 1 of 1 passes at p = 0.023
        0.2
        >>> score_test_size(300, 0.7) < 0.03
        True
    """
    from scipy.stats import binom

    if n <= 0 or not 0 < bar < 1:
        return 0.0
    p0 = bar if direction == "at_least" else 1 - bar
    cut = n * p0 + _Z * math.sqrt(n * p0 * (1 - p0))  # the test passes at counts x >= cut
    x_min = math.ceil(round(cut, 9))
    if x_min > n:
        return 0.0
    return float(binom.sf(x_min - 1, n, p0))


def exact_binomial_p(estimate: float, n: int, bar: float, direction: str = "at_least") -> float:
    """One-sided exact binomial p-value of "the true rate misses the bar" (the Clopper-Pearson tail).

    Example:
        >>> round(exact_binomial_p(1.0, 1, 0.20), 3)
        0.2
    """
    from scipy.stats import binom

    x = round(estimate * n)
    if direction == "at_least":
        return float(binom.sf(x - 1, n, bar))
    return float(binom.cdf(x, n, bar))


def hoeffding_p(estimate: float, n: int, bar: float, direction: str = "at_least") -> float:
    """Hoeffding's one-sided p-value for a mean of n independent scores in [0, 1].

    Example:
        >>> round(hoeffding_p(1.0, 2, 0.85), 3)  # two perfect cases against 0.85: far from a pass
        0.914
    """
    d = (estimate - bar) if direction == "at_least" else (bar - estimate)
    if n <= 0 or d <= 0:
        return 1.0
    return math.exp(-2 * n * d * d)


def other_side(direction: str) -> str:
    """The direction of a fail for a rule of ``direction`` (a fail of an at-least rule is an at-most test)."""
    return "at_most" if direction == "at_least" else "at_least"


def false_fail_size(n: int, bar: float, direction: str = "at_least") -> float:
    """Exact chance that the score test (the Wilson bound) fails a rule when the true rate equals the bar.

    Example:
        >>> round(false_fail_size(1, 0.80), 3)  # 0 of 1 has a Wilson upper bound of 0.793
        0.2
        >>> round(false_fail_size(3, 0.95), 4)  # 0, 1 or 2 of 3: P(X <= 2 | 3, 0.95)
        0.1426
    """
    return score_test_size(n, bar, other_side(direction))


def exact_test_size(n: int, bar: float, direction: str = "at_least") -> float:
    """Exact chance that the exact binomial test at 2.5% rejects toward ``direction`` at the bar.

    ``direction`` "at_least" is the size of a pass of an at-least rule (P(X >= x_min)); "at_most" is
    the size of a fail of it (P(X <= x_max)). Never above 2.5%.

    Example:
        >>> exact_test_size(1, 0.80, "at_most")  # 0 of 1 has p = 0.2: nothing is rejected
        0.0
        >>> round(exact_test_size(20, 0.80, "at_most"), 5)  # fails at x <= 11: P(X <= 11 | 20, 0.8)
        0.00998
    """
    import numpy as np
    from scipy.stats import binom

    if n <= 0 or not 0 < bar < 1:
        return 0.0
    xs = np.arange(n + 1)
    if direction == "at_least":
        tails = binom.sf(xs - 1, n, bar)
        hit = tails[tails <= ALPHA + 1e-9]
        return float(hit.max()) if hit.size else 0.0
    tails = binom.cdf(xs, n, bar)
    hit = tails[tails <= ALPHA + 1e-9]
    return float(hit.max()) if hit.size else 0.0


@dataclass(frozen=True)
class Guard:
    """The conservative test that replaces the usual one for a verdict, and why."""

    p: float
    """Its one-sided p-value."""
    test: str
    """Its name."""
    why: str
    """Why the usual test was not trusted here, in words."""


def small_n_guard(kind: str, estimate: float, n: int | None, bar: float,
                  direction: str = "at_least") -> Guard | None:
    """The conservative test for a score verdict at small n, or None when the usual test holds its size.

    ``kind`` is ``verdict_math.interval_kind``: "wilson", "exact" or "other" (BCa, t, bootstrap).

    Example:
        >>> g = small_n_guard("wilson", 1.0, 1, 0.20)
        >>> g.test, round(g.p, 3)
        ('exact binomial test', 0.2)
        >>> small_n_guard("wilson", 0.72, 300, 0.70) is None
        True
    """
    if n is None or n <= 0 or direction not in ("at_least", "at_most"):
        return None
    if kind == "wilson":
        size = score_test_size(n, bar, direction)
        if size <= ALPHA + SIZE_SLACK:
            return None
        return Guard(exact_binomial_p(estimate, n, bar, direction), "exact binomial test",
                     f"at n={n} and bar {bar:.3f} the score test's false-pass rate is {size:.1%}, above "
                     f"{ALPHA:.1%} + {SIZE_SLACK:.1%}")
    if kind == "other" and n < MEAN_MIN_N:
        return Guard(hoeffding_p(estimate, n, bar, direction), "Hoeffding bound (scores in [0, 1])",
                     f"below n={MEAN_MIN_N} the simulated false-pass rate of a bootstrap or t interval at "
                     f"the bar exceeds {ALPHA + SIZE_SLACK:.1%}")
    return None


def small_n_fail_guard(kind: str, estimate: float, n: int | None, bar: float,
                       direction: str = "at_least") -> Guard | None:
    """The exact test that decides a fail where the score test fails too often at the bar, else None.

    Only Wilson intervals are guarded: a Clopper-Pearson bound is exact already, and a mean's fail
    stays with its interval. ``Guard.p`` is the exact one-sided p-value of "the true rate reaches the
    bar" (P(X ≤ x | n, bar) for an at-least rule); a fail needs it ≤ 2.5%.

    Example:
        >>> g = small_n_fail_guard("wilson", 0.0, 1, 0.80)
        >>> g.test, round(g.p, 3)
        ('exact binomial test', 0.2)
        >>> small_n_fail_guard("wilson", 1 / 120, 120, 0.80) is None  # the score test holds its size
        True
    """
    if kind != "wilson" or n is None or n <= 0 or direction not in ("at_least", "at_most"):
        return None
    size = false_fail_size(n, bar, direction)
    if size <= ALPHA + SIZE_SLACK:
        return None
    return Guard(exact_binomial_p(estimate, n, bar, other_side(direction)), "exact binomial test",
                 f"at n={n} and bar {bar:.3f} the score test's false-fail rate is {size:.1%}, above "
                 f"{ALPHA:.1%} + {SIZE_SLACK:.1%}")


def share_interval(events: int, n: int, ceiling: float) -> tuple[float, float, str]:
    """(lower, upper, method) of a share of ``events`` in ``n`` judged against a ceiling (an at-most gate).

    Wilson's interval, or the exact Clopper-Pearson one where the per-bar switch fires for the side the
    Wilson interval falls on: the CP upper bound is at or below the ceiling exactly when the exact test
    passes, and its lower bound above it exactly when the exact test fails, so the interval shown is the
    one that decided. The critical-criterion rule and the unscored-share ceiling both judge this way.

    Example:
        >>> lo, hi, how = share_interval(1, 17, 0.01)  # Wilson lower 0.0104 > 0.01 fails 15.7% at the bar
        >>> round(lo, 4), how[:35]
        (0.0015, 'exact Clopper-Pearson interval, 95%')
        >>> share_interval(8, 400, 0.05)[2]
        'Wilson score interval, 95%'
    """
    from evaluator.statistics.estimates import clopper_pearson_interval, wilson_interval
    from governance.rules.verdict_math import compare

    share = events / n
    lo, hi = wilson_interval(events, n)
    side = compare(lo, hi, ceiling, "at_most")
    guard = (small_n_guard("wilson", share, n, ceiling, "at_most") if side == "pass"
             else small_n_fail_guard("wilson", share, n, ceiling, "at_most") if side == "fail" else None)
    if guard is None:
        return lo, hi, "Wilson score interval, 95%"
    lo, hi = clopper_pearson_interval(events, n)
    return lo, hi, f"exact Clopper-Pearson interval, 95% ({guard.why})"
