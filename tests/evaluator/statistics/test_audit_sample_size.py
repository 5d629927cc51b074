"""Audits a month to detect the bar being crossed (issue 28): known answers from scipy's binomial.

The reference below searches n and the critical count one by one with ``scipy.stats.binom`` (no
vectorising, no inverse functions), and ``scipy.stats.binomtest`` confirms the test it implies.
"""

from __future__ import annotations

import pytest
from scipy import stats

from evaluator.statistics.cusum import audit_sample_size


def critical_count(n: int, bar: float, alpha: float) -> int:
    """Smallest c with P(X >= c | n, bar) <= alpha, counted up from 0."""
    c = 0
    while stats.binom.sf(c - 1, n, bar) > alpha:
        c += 1
    return c


def reference_sample_size(bar: float, shifted: float, power: float, alpha: float) -> int:
    n = 1
    while stats.binom.sf(critical_count(n, bar, alpha) - 1, n, shifted) < power:
        n += 1
    return n


def test_a_case_by_hand():
    """bar 0.1, true rate 0.9: one audit cannot reject (P(X >= 1) = 0.1 > 0.05); two audits reject
    at X = 2 (P = 0.01) with power 0.9^2 = 0.81 >= 0.8."""
    assert audit_sample_size(0.1, 0.9) == 2


@pytest.mark.parametrize("bar, shifted, power, alpha", [
    (0.05, 0.15, 0.8, 0.05), (0.05, 0.10, 0.8, 0.05), (0.02, 0.05, 0.8, 0.05), (0.10, 0.20, 0.9, 0.025),
])
def test_matches_a_one_by_one_search_with_scipy(bar, shifted, power, alpha):
    n = audit_sample_size(bar, shifted, power, alpha)
    assert n == reference_sample_size(bar, shifted, power, alpha)
    c = critical_count(n, bar, alpha)
    assert stats.binomtest(c, n, bar, alternative="greater").pvalue <= alpha
    assert stats.binomtest(c - 1, n, bar, alternative="greater").pvalue > alpha
    assert stats.binom.sf(c - 1, n, shifted) >= power
    assert stats.binom.sf(critical_count(n - 1, bar, alpha) - 1, n - 1, shifted) < power


def test_known_figures():
    """The figures docs/statistics.md quotes (bar 0.05 at 80% power, one-sided alpha 0.05)."""
    assert [audit_sample_size(0.05, r) for r in (0.10, 0.15, 0.20)] == [169, 52, 27]
    assert [reference_sample_size(0.05, r, 0.8, 0.05) for r in (0.10, 0.15, 0.20)] == [169, 52, 27]


@pytest.mark.parametrize("args", [
    (0.1, 0.05), (0.0, 0.1), (0.05, 1.0), (0.05, 0.1, 1.0), (0.05, 0.1, 0.8, 0),
])
def test_bad_input_is_a_one_line_error(args):
    with pytest.raises(ValueError, match="need 0 < bar < shifted rate < 1") as info:
        audit_sample_size(*args)
    assert "\n" not in str(info.value)
