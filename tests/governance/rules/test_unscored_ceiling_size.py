"""The unscored-share ceiling keeps its stated error at the ceiling, as the score and critical rules do.

Issue 38 §1's defect in a sibling gate, found by an independent exact check: the ceiling's verdict judged
the Wilson interval alone, so a share whose true rate sits exactly on the ceiling was failed far more
often than 2.5%: 15.7% at a ceiling of 1% with 17 outputs (1 of 17 unscored: Wilson lower bound 0.0104 >
0.01, a fail), 14.3% at 5% with 3 outputs; 937 of 1,800 cells (ceilings 0.01-0.3 x n 1-300) above 3.0%.
Known answers: the binomial itself (scipy), summed over every count with the product's verdict function.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from evaluator.statistics.estimates import wilson_interval
from governance.rules.small_n import small_n_fail_guard, small_n_guard
from governance.rules.verdict_kinds import unscored_verdict
from tests.governance.policy_fixtures import ev


class Ceiling:
    def __init__(self, threshold: float):
        self.threshold = threshold


def verdict(unscored: int, total: int, ceiling: float) -> dict:
    return unscored_verdict(Ceiling(ceiling), ev(0.9, n=total - unscored, n_unparsed=0, n_unscored=unscored))


def sizes(total: int, ceiling: float) -> tuple[float, float]:
    mass = binom.pmf(np.arange(total + 1), total, ceiling)
    status = np.array([verdict(k, total, ceiling)["status"] for k in range(total + 1)])
    return float(mass[status == "pass"].sum()), float(mass[status == "fail"].sum())


def test_one_of_17_unscored_against_a_one_percent_ceiling_is_no_longer_a_fail():
    assert wilson_interval(1, 17)[0] > 0.01  # the Wilson bound alone failed it
    v = verdict(1, 17, 0.01)
    assert v["status"] == "inconclusive"
    assert "exact Clopper-Pearson interval" in v["reason"] and "false-fail rate is 15.7%" in v["reason"]
    assert binom.sf(0, 17, 0.01) == pytest.approx(0.1571, abs=1e-4)  # P(X >= 1 | 17, 0.01)


def test_a_clear_excess_still_fails_and_a_clean_run_still_passes():
    assert verdict(30, 120, 0.05)["status"] == "fail"
    assert verdict(0, 400, 0.05)["status"] == "pass"


CELLS = [(0.01, 17), (0.05, 3), (0.02, 8), (0.1, 1), (0.2, 1), (0.3, 2), (0.01, 294), (0.05, 101),
         (0.2, 172), (0.1, 60), (0.02, 150), (0.3, 25)]


@pytest.mark.parametrize(("ceiling", "total"), CELLS)
def test_false_passes_and_false_fails_at_the_ceiling_hold_the_stated_size(ceiling, total):
    # the largest rates before the fix (first six) and after it (next three) over n = 1..300, and others
    false_pass, false_fail = sizes(total, ceiling)
    exact_fail = small_n_fail_guard("wilson", 0.0, total, ceiling, "at_most") is not None
    exact_pass = small_n_guard("wilson", 0.0, total, ceiling, "at_most") is not None
    assert false_fail <= (0.025 if exact_fail else 0.030) + 1e-12
    assert false_pass <= (0.025 if exact_pass else 0.030) + 1e-12
