import math

import pytest

from evaluator.statistics.paired import compare_paired, mcnemar_exact


def test_mcnemar_matches_hand_computed_binomial():
    # 1 vs 5 discordant pairs: p = 2 * P(X <= 1 | n=6, 1/2) = 2 * 7/64
    assert mcnemar_exact(1, 5) == pytest.approx(14 / 64)
    assert mcnemar_exact(5, 1) == pytest.approx(14 / 64)
    assert mcnemar_exact(0, 0) == 1.0


def test_regression_on_a_known_subset_is_listed_exactly():
    before = {f"i{k}": 1.0 for k in range(40)}
    after = dict(before)
    for k in (3, 7, 11, 19, 23, 31, 37, 39):
        after[f"i{k}"] = 0.0
    c = compare_paired(before, after, seed=1)
    assert c.binary and c.n_pairs == 40
    assert set(c.worse) == {f"i{k}" for k in (3, 7, 11, 19, 23, 31, 37, 39)} and c.better == ()
    assert c.mean_delta == pytest.approx(-8 / 40)
    lo, hi = c.delta_ci
    assert lo < -8 / 40 < hi and hi < 0
    assert c.mcnemar_p == pytest.approx(2 / 2**8)


def test_no_change_means_no_flips_and_zero_interval():
    scores = {f"i{k}": float(k % 2) for k in range(20)}
    c = compare_paired(scores, dict(scores))
    assert c.worse == c.better == () and c.mean_delta == 0 and c.delta_ci == (0.0, 0.0)
    assert c.mcnemar_p == 1.0


def test_unpaired_and_missing_are_reported_not_compared():
    c = compare_paired({"a": 1, "b": None, "c": 0.5}, {"a": 0.5, "b": 1, "d": 1})
    assert c.n_pairs == 1 and not c.binary and c.mcnemar_p is None
    assert c.only_before == ("c",) and c.only_after == ("b", "d")
    assert c.delta_ci is None and math.isclose(c.mean_delta, -0.5)


def test_nothing_in_common():
    c = compare_paired({"a": 1}, {"b": 1})
    assert c.n_pairs == 0 and c.mean_delta is None
