"""The arithmetic behind a verdict: interval against bar, p-value, family correction, cases to settle it.

Comparison (DESIGN.md, "Verdicts respect uncertainty"): for a bar that the score must reach
(higher is better) a rule *passes* when every value in the 95% interval reaches it (lower bound
≥ bar, so an interval touching the bar from above passes), *fails* when no value in the interval
reaches it (upper bound < bar; touching from below is therefore still inconclusive), and is
*inconclusive* otherwise. For a lower-is-better score or a ceiling (unscored share, cost) the
mirror image holds: pass when upper ≤ bar, fail when lower > bar. Values are compared after
rounding to 12 decimals, so 0.75 computed as (4 − 1) / 4 equals a bar of 0.75.

P-values (``one_sided_p``): the one-sided test of H0 "true score ≤ bar" for an at-least rule
(H0 "true score ≥ bar" for an at-most rule), at ``ALPHA`` = 0.025, the tail the 95% interval
leaves on each side, so that unadjusted the test and the interval agree:

* Wilson intervals (proportions): the score test, z = (p̂ − p0) / √(p0(1 − p0)/n) with p0 = bar.
  The Wilson bound is exactly the p0 at which this z equals 1.96, so p ≤ 0.025 ⇔ bound clears.
* Clopper–Pearson intervals: the exact binomial tail P(X ≥ x | n, p0), equally matched.
* Any other interval (t, bootstrap, ICC): a normal test whose standard error is recovered from
  the half of the interval on the bar's side, SE = |estimate − bound| / 1.96 (lopsided
  bootstrap intervals keep their lopsidedness); again p ≤ 0.025 ⇔ bound clears.

The family (``adjust``): a pass needs the *adjusted* p ≤ ALPHA, Holm's step-down (default) or
Bonferroni, over every score verdict of the dossier that carries a test. That keeps the chance
of even one false pass among them at or below 2.5%. Holm: sort the m p-values, multiply the
i-th smallest by (m − i + 1), carry the running maximum, cap at 1.

Further cases (``further_cases``): the n at which a one-sided z-test at level ``alpha`` has the
stated ``power`` (80% by default) to show a pass *if the true value equals today's estimate*:

* proportions: n = ((z₁₋α √(p0 q0) + z_power √(p1 q1)) / (p1 − p0))², p0 = bar, p1 = estimate
  (normal approximation to the score test);
* other intervals: n = ((z₁₋α + z_power) · s / |p1 − p0|)², with the per-case spread
  s = SE · √n recovered from the interval as above.

At 50% power (z_power = 0) the first formula is the old "interval just excludes the bar"
figure, a coin flip. When the estimate sits on the bar or on its wrong side, no number of
further cases is expected to give a pass, and we say so instead of giving a number.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Literal

from evaluator.statistics.estimates import wilson_interval
from governance.rules.records import Multiplicity, Status

Direction = Literal["at_least", "at_most", "within"]
ALPHA = 0.025
"""One-sided error rate of a verdict: the tail a two-sided 95% interval leaves on each side."""
POWER = 0.8
"""Default chance of a pass that the further-cases figure aims for."""
Z95 = NormalDist().inv_cdf(0.975)
TOL = 1e-9
"""Slack when comparing a p-value with alpha, so float noise at an exactly touching bound is no miss."""
N_CAP = 10_000_000
MULTIPLICITY_WORDS = {"holm": "Holm's step-down correction", "bonferroni": "Bonferroni's correction"}


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


def interval_kind(ci_method: str | None) -> Literal["wilson", "exact", "other"]:
    """Which test matches an interval method (see the module docstring)."""
    text = (ci_method or "").lower()
    if "wilson" in text:
        return "wilson"
    if "clopper" in text or "exact binomial" in text:
        return "exact"
    return "other"


def one_sided_p(estimate: float, lo: float, hi: float, threshold: float, direction: Direction,
                n: int | None, kind: str = "other") -> float:
    """One-sided p-value of H0 "the true value misses the bar" (see the module docstring).

    Example:
        >>> round(one_sided_p(0.72, 0.667, 0.768, 0.70, "at_least", 300, "wilson"), 4)
        0.2248
    """
    sign = 1.0 if direction == "at_least" else -1.0
    if kind in ("wilson", "exact") and n:
        p0 = threshold
        if p0 <= 0 or p0 >= 1:
            passes = (estimate > p0) if direction == "at_least" else (estimate < p0)
            return 0.0 if passes else 1.0
        if kind == "exact":
            from scipy.stats import binom

            x = round(estimate * n)
            return float(binom.sf(x - 1, n, p0) if direction == "at_least" else binom.cdf(x, n, p0))
        z = sign * (estimate - p0) / math.sqrt(p0 * (1 - p0) / n)
        return 1 - NormalDist().cdf(z)
    bound = lo if direction == "at_least" else hi
    se = abs(estimate - bound) / Z95
    if se == 0:
        return 0.0 if sign * (estimate - threshold) > 0 or _r(estimate) == _r(threshold) else 1.0
    return 1 - NormalDist().cdf(sign * (estimate - threshold) / se)


def adjust(p_values: list[float], method: Multiplicity = "holm") -> list[float]:
    """Family-adjusted p-values, in the order given.

    Example:
        >>> [round(p, 3) for p in adjust([0.01, 0.04, 0.03, 0.005])]
        [0.03, 0.06, 0.06, 0.02]
    """
    m = len(p_values)
    if method == "bonferroni":
        return [min(1.0, p * m) for p in p_values]
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def power_total_n(p0: float, p1: float, alpha: float = ALPHA, power: float = POWER,
                  spread: float | None = None) -> int | None:
    """Total n at which a one-sided z-test at ``alpha`` shows p1 beats p0 with probability ``power``.

    ``spread`` None: proportions (score test, normal approximation); else the per-case standard
    deviation of a mean. None when p1 does not beat p0 in either direction.

    Example:
        >>> power_total_n(0.70, 0.72)  # ProxySender: 300 now, so 3,771 more
        4071
        >>> power_total_n(0.70, 0.72, power=0.5)  # a coin flip
        2017
    """
    delta = abs(p1 - p0)
    if _r(delta) == 0:
        return None
    za, zb = NormalDist().inv_cdf(1 - alpha), NormalDist().inv_cdf(power)
    if spread is None:
        root = (za * math.sqrt(p0 * (1 - p0)) + zb * math.sqrt(p1 * (1 - p1))) / delta
    else:
        root = (za + zb) * spread / delta
    n = root * root
    return None if n > N_CAP else math.ceil(n - 1e-9)


def wilson_total_n(p: float, threshold: float, n_now: int) -> int | None:
    """Smallest total n > n_now whose Wilson interval around ``p`` excludes ``threshold`` (50% power).

    Kept to show what the old figure meant: with the estimate unchanged, the interval just
    clears the bar, which a fresh sample does only about half the time.

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
    """Total n at which an interval shrinking as 1/√n would exclude the bar (50% power).

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


def further_cases(estimate: float, lo: float, hi: float, threshold: float, n: int | None, wilson: bool,
                  direction: Direction = "at_least", alpha: float = ALPHA,
                  power: float = POWER) -> tuple[int | None, str]:
    """Further cases that give a pass with probability ``power`` if the true value equals the estimate.

    Returns the number (None when there is none) and a sentence saying how, or why not.

    Example:
        >>> further_cases(0.72, 0.667, 0.768, 0.70, 300, wilson=True)[0]
        3771
    """
    if n is None or n <= 0:
        return None, "n is unknown, so the cases needed cannot be estimated"
    passes_side = estimate > threshold if direction == "at_least" else estimate < threshold
    if _r(estimate) == _r(threshold) or not passes_side:
        where = "sits on" if _r(estimate) == _r(threshold) else (
            "is below" if direction == "at_least" else "is above")
        return None, (f"the estimate {fmt(estimate)} {where} the bar {fmt(threshold)}: no number of further "
                      "cases is expected to reach a pass")
    if wilson:
        total, what = power_total_n(threshold, estimate, alpha, power), "rate"
        how = "score test, normal approximation"
    else:
        reach = abs(estimate - (lo if direction == "at_least" else hi))
        total = power_total_n(threshold, estimate, alpha, power, spread=reach / Z95 * math.sqrt(n))
        what, how = "value", "normal test, spread from today's interval"
    if total is None:
        return None, f"more than {N_CAP:,} cases would be needed"
    more = max(1, total - n)
    pct = f"{power:.0%}"
    article = "an" if pct.startswith(("8", "11", "18")) else "a"
    return more, (f"{more:,} more cases would give {article} {pct} chance of a pass if the true {what} "
                  f"equals today's estimate ({fmt(estimate)}); one-sided test at level {alpha:.4g}, {how}")


def fmt(x: float | None, digits: int = 3) -> str:
    """A number for a reason sentence (``n/a`` for None)."""
    return "n/a" if x is None else f"{x:.{digits}f}"


def interval_text(estimate: float, lo: float | None, hi: float | None, n: int | None) -> str:
    """``0.772 (95% CI 0.745–0.797, n=1000)``."""
    ci = f"95% CI {fmt(lo)}–{fmt(hi)}" if lo is not None else "no interval"
    return f"{fmt(estimate)} ({ci}, n={n if n is not None else 'unknown'})"
