"""The self-starting standardized CUSUM: its transform by hand, its in-control run length by simulation.

Known answers: the t-to-normal transform of a small series from the t distribution's closed-form CDF at
2 degrees of freedom (``F(t) = 1/2 + t / (2 sqrt(2 + t^2))``) and ``statistics.NormalDist``, and from
scipy computed value by value from the definition; the in-control false-alarm probability within 100
and 365 days against the same CUSUM with known mean and sd (run on the raw standard normals), and the
estimation effect it removes against the plug-in chart used before (mean and population sd of the
baseline taken as known).
"""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from scipy import stats

from evaluator.statistics.cusum import standardized_cusum_arl, standardized_cusum_limit
from evaluator.statistics.self_starting import self_starting_cusum_path, self_starting_scores, t_to_normal

H500 = standardized_cusum_limit(0.5, 500)


def _by_definition(baseline, watched, frozen_from=None):
    """U_n value by value: mean and sample sd of every earlier value, T ~ t(n - 2), Phi^-1(F_t(T))."""
    seen, out = list(baseline), []
    for j, x in enumerate(watched):
        prior = seen if frozen_from is None or j <= frozen_from else seen[: len(baseline) + frozen_from]
        n = len(prior) + 1  # x is the n-th value
        t = (x - statistics.fmean(prior)) / statistics.stdev(prior) * math.sqrt((n - 1) / n)
        out.append(stats.norm.ppf(stats.t.cdf(t, n - 2)))
        seen.append(x)
    return out


def test_the_first_score_matches_the_closed_form_t_cdf_at_two_degrees_of_freedom():
    # baseline 1, 2, 3: mean 2, sd 1; x = 4 is the 4th value: T = 2 sqrt(3/4) on t(2)
    t = 2 * math.sqrt(3 / 4)
    expected = statistics.NormalDist().inv_cdf(0.5 + t / (2 * math.sqrt(2 + t * t)))
    assert self_starting_scores([1.0, 2.0, 3.0], [4.0])[0] == pytest.approx(expected, abs=1e-12)
    assert expected == pytest.approx(1.212285, abs=1e-6)


def test_scores_match_the_definition_value_by_value():
    baseline, watched = [10.0, 12.0, 11.0, 13.0], [15.0, 9.0, 12.0, 30.0, 11.5]
    got = self_starting_scores(baseline, watched)
    assert got == pytest.approx(_by_definition(baseline, watched), abs=1e-10)
    frozen = self_starting_scores(baseline, watched, freeze_after=3)  # 30 and later: estimates of the first 7
    assert frozen == pytest.approx(_by_definition(baseline, watched, frozen_from=3), abs=1e-10)
    assert frozen[:4] == pytest.approx(got[:4]) and frozen[4] != pytest.approx(got[4])


def test_rows_are_independent_charts_and_extreme_values_keep_their_tail():
    rng = np.random.default_rng(3)
    base, watched = rng.normal(size=(4, 7)), rng.normal(size=(4, 20))
    both = self_starting_scores(base, watched)
    for r in range(4):
        assert both[r] == pytest.approx(self_starting_scores(base[r], watched[r]), abs=1e-12)
    # Phi^-1(F_t) through the upper tail: no rounding of F_t to 1 (which would give inf)
    assert np.isinf(stats.norm.ppf(stats.t.cdf(1e4, 10)))  # the naive form
    far = float(t_to_normal(1e4, 10))
    assert math.isfinite(far) and far > 10 and float(t_to_normal(-1e4, 10)) == -far


def test_the_path_freezes_its_estimates_at_the_first_signal_and_restarts():
    baseline = [100.0, 102.0, 98.0, 101.0, 99.0, 100.0, 100.0]
    watched = [100.0] * 5 + [120.0] * 6
    path = self_starting_cusum_path(baseline, watched, k=0.5, h=H500)
    first = path.signal_index
    assert first is not None and first >= 5
    scores = _by_definition(baseline, watched, frozen_from=first)
    up = 0.0
    for i in range(first + 1):
        up = max(0.0, up + scores[i] - 0.5)
    assert path.upper[first] == pytest.approx(up) and up >= H500
    assert path.upper[first + 1] == pytest.approx(max(0.0, scores[first + 1] - 0.5))  # restarted at 0


@pytest.mark.parametrize("bad, message", [
    (([1.0, 2.0], [3.0]), "at least 3 baseline values"),
    (([1.0, 1.0, 1.0], [3.0]), "does not vary"),
    (([1.0, 2.0, 3.0], [float("nan")]), "value 0 is not a finite number"),
])
def test_bad_input_is_refused_in_one_line(bad, message):
    with pytest.raises(ValueError, match=message):
        self_starting_scores(*bad)


# --- in-control run length by simulation -----------------------------------------------------

def _first_crossing(z: np.ndarray, k: float = 0.5, h: float = H500) -> np.ndarray:
    """1-based first crossing of the two-sided CUSUM per row; 0 = none within the columns."""
    up, down = np.zeros(len(z)), np.zeros(len(z))
    out = np.zeros(len(z), dtype=np.int64)
    for t in range(z.shape[1]):
        up, down = np.maximum(0.0, up + z[:, t] - k), np.maximum(0.0, down - z[:, t] - k)
        out[(out == 0) & ((up >= h) | (down >= h))] = t + 1
    return out


def _false_alarm_within(days: int, m: int, reps: int, seed: int, method: str) -> float:
    rng = np.random.default_rng(seed)
    base, watched = rng.standard_normal((reps, m)), rng.standard_normal((reps, days))
    if method == "self-starting":
        z = self_starting_scores(base, watched)
    elif method == "plug-in":
        z = (watched - base.mean(axis=1, keepdims=True)) / base.std(axis=1, keepdims=True)
    else:
        z = watched
    return float((_first_crossing(z) > 0).mean())


@pytest.mark.parametrize("m", [7, 14])
def test_in_control_false_alarms_match_the_known_parameter_chart_whatever_the_baseline(m):
    """P(a false alarm within 100 / 365 days), 3,000 runs against 12,000 at known parameters.

    Tolerance 0.035: about four standard errors of the difference (P near 0.18 and 0.52). The plug-in
    chart used before is far outside it (about 0.55 and 0.78 at m = 14; 0.67 and 0.84 at m = 7).
    """
    for days, seed in ((100, 11), (365, 12)):
        known = _false_alarm_within(days, m, 12_000, seed, "known")
        selfstart = _false_alarm_within(days, m, 3_000, seed + 100 * m, "self-starting")
        plugin = _false_alarm_within(days, m, 3_000, seed + 100 * m, "plug-in")
        assert abs(selfstart - known) < 0.035, (days, selfstart, known)
        assert plugin - known > 0.15, (days, plugin, known)
    # the known-parameter reference is the designed chart: its simulated ARL0 is the integral equation's 500
    assert standardized_cusum_arl(0.5, H500) == pytest.approx(500, rel=1e-6)


def test_a_one_sd_shift_after_fifty_in_control_days_is_still_detected_quickly():
    """Delay from the shift's first day, baseline 14, charts that signalled before the shift dropped.

    Known parameters: 10.5 days (integral equation). Self-starting: about 18 (the bench's figure, 18.2);
    asserted below 25 days on 1,500 runs, with nine in ten detected within 40 days.
    """
    rng = np.random.default_rng(21)
    reps, m, start, days = 1_500, 14, 50, 250
    base, watched = rng.standard_normal((reps, m)), rng.standard_normal((reps, days))
    watched[:, start:] += 1.0
    rl = _first_crossing(self_starting_scores(base, watched))
    kept = rl[(rl == 0) | (rl > start)]
    delay = np.where(kept == 0, days + 1, kept) - start
    assert kept.size > 0.85 * reps  # false alarms in the first 50 days: about 8%
    assert delay.mean() < 25 and (delay <= 40).mean() > 0.9
    assert standardized_cusum_arl(0.5, H500, 1.0) == pytest.approx(10.5, abs=0.1)
