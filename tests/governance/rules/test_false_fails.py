"""Issue 38 §1: a model whose true rate sits on the bar is not failed more often than the verdict says.

Known answers come from the binomial itself (scipy.stats.binom), summed over every count k = 0..n with
the product's own verdict function (``score_verdict`` on the Wilson interval a local run reports), as
the issue measured them: before the fix 0 of 1 against 0.80 failed (Wilson upper bound 0.793), which a
model with a true rate of 0.80 does 20% of the time.
"""

from __future__ import annotations

import pytest
from scipy.stats import binom

from evaluator.statistics.estimates import wilson_interval
from governance.rules.policy import ScoreRule
from governance.rules.score_verdict import score_verdict
from governance.rules.small_n import (
    exact_test_size,
    false_fail_size,
    small_n_fail_guard,
)
from tests.governance.policy_fixtures import WILSON, ev

WHY = "a committee's reason for this bar"


def rule(bar: float, min_n: int = 0) -> ScoreRule:
    return ScoreRule(id="score.x", threshold=bar, min_n=min_n, rationale=WHY)


def verdict(k: int, n: int, bar: float, min_n: int = 0) -> dict:
    lo, hi = wilson_interval(k, n)
    return score_verdict(rule(bar, min_n), ev(k / n, lo, hi, n=n, method=WILSON))


def test_zero_of_one_against_080_is_no_longer_a_fail():
    # Before: fail, "upper bound 0.793 < threshold 0.800 (one-sided error 2.5%)". P(X <= 0 | 1, 0.8) = 0.2.
    v = verdict(0, 1, 0.80, min_n=100)
    assert v["status"] == "inconclusive"
    v = verdict(0, 1, 0.80)  # no minimum n: the exact test is what stops the fail
    assert v["status"] == "inconclusive"
    assert "exact binomial test decides: one-sided p 0.2000 > 0.025, not a fail" in v["reason"]
    assert "false-fail rate is 20.0%" in v["reason"]


def test_one_of_120_against_080_still_fails_and_names_its_test():
    v = verdict(1, 120, 0.80, min_n=200)
    assert v["status"] == "fail"
    # the score test decides at n=120, bar 0.80: fails x <= 96 - 1.96 * sqrt(120 * 0.16) = 87.4,
    # so its false-fail size is P(X <= 87 | 120, 0.8) = 2.96%
    assert false_fail_size(120, 0.80) == pytest.approx(binom.cdf(87, 120, 0.8))
    assert ("upper bound 0.046 < threshold 0.800 (score test; its false-fail rate at the bar is 2.96%"
            in v["reason"])


def test_a_fail_the_exact_test_decides_states_its_p_and_error():
    # 0 of 3 against 0.95: P(X <= 0 | 3, 0.95) = 0.05**3 = 0.000125; the exact test fails x <= 1, whose mass
    # P(X <= 1 | 3, 0.95) = 0.00725 (printed 0.73%) is its false-fail rate at this n (STACK_NOTES:
    # P(X <= 2) = 0.1426 is the score test's).
    v = verdict(0, 3, 0.95)
    assert v["status"] == "fail"
    assert "exact binomial test, one-sided p 0.0001 ≤ 0.025" in v["reason"]
    assert "false-fail rate is 14.3%" in v["reason"] and "at the bar is 0.73% at this n" in v["reason"]
    assert exact_test_size(3, 0.95, "at_most") == pytest.approx(binom.cdf(1, 3, 0.95))


def _sizes(n: int, bar: float) -> tuple[float, float]:
    """False-pass and false-fail rates of the verdict at a true rate equal to the bar, exact."""
    statuses = [verdict(k, n, bar)["status"] for k in range(n + 1)]
    mass = binom.pmf(range(n + 1), n, bar)
    return (float(sum(m for m, s in zip(mass, statuses, strict=True) if s == "pass")),
            float(sum(m for m, s in zip(mass, statuses, strict=True) if s == "fail")))


CELLS = [(0.8, 1), (0.8, 3), (0.95, 3), (0.9, 5), (0.95, 10), (0.8, 20),
         (0.8, 100), (0.9, 100), (0.5, 64), (0.95, 87), (0.9, 128), (0.8, 172)]


@pytest.mark.parametrize(("bar", "n"), CELLS)
def test_false_fails_at_the_bar_hold_the_stated_size(bar, n):
    # The issue's cells (20.0% at 0.80/n=1, 10.4% at 0.80/n=3, 14.3% at 0.95/n=3, 3.4-4.0% at n=100) and the
    # largest false fails the bench finds over n = 1..200 (0.5/64, 0.95/87, 0.9/128, 0.8/172).
    false_pass, false_fail = _sizes(n, bar)
    exact_decides = small_n_fail_guard("wilson", 0.0, n, bar) is not None
    assert false_fail <= (0.025 if exact_decides else 0.030) + 1e-12
    assert false_pass <= 0.030 + 1e-12
    below = [wilson_interval(k, n)[1] < bar for k in range(n + 1)]
    before = float(binom.pmf(range(n + 1), n, bar)[below].sum())
    assert before == pytest.approx(false_fail_size(n, bar))  # the Wilson bound alone, as the issue measured


def test_the_issue_figures_for_the_wilson_bound_alone():
    assert false_fail_size(1, 0.80) == pytest.approx(0.200)
    assert false_fail_size(3, 0.95) == pytest.approx(binom.cdf(2, 3, 0.95))  # 0.1426
    assert round(false_fail_size(3, 0.80), 3) == 0.104
    assert 0.034 <= false_fail_size(100, 0.80) <= 0.040 and 0.034 <= false_fail_size(100, 0.90) <= 0.040
