"""CUSUM charts for monitoring (issue 28): paths by hand, run lengths against outside answers.

Where the known answers come from:
* the standardized CUSUM's limits and run lengths: R's ``spc`` package (``xcusum.crit``,
  ``xcusum.arl``, ``sided="two"``; Debian ``r-cran-spc``, the engine of FDA's AIM-CU), called
  through ``Rscript`` when it is installed (``make spc-deps``), and the same figures recorded from
  spc 0.6.7 so the check still runs where R is missing;
* the Bernoulli CUSUM's run lengths: an independent dense Markov chain for designs whose weights are
  in an exact integer ratio (Reynolds & Stoumbos 1999's integer-weight chart, where the chain is
  exact), and seeded simulations of the real chart within four Monte-Carlo standard errors. No
  published Bernoulli CUSUM ARL table was found in the reference corpus to cite.
"""

from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pytest
from scipy import optimize

from evaluator.statistics.cusum import (
    bernoulli_cusum_arl,
    bernoulli_cusum_limit,
    bernoulli_cusum_monitor,
    bernoulli_cusum_path,
    detection_delay,
    standardized_cusum_arl,
    standardized_cusum_limit,
    standardized_cusum_path,
)

LN2 = math.log(2)
W0 = math.log(0.96 / 0.98)  # the non-event weight of the default design p0 = 0.02 -> p1 = 0.04


# --- paths, by hand ---------------------------------------------------------------------------

def test_bernoulli_path_adds_the_log_likelihood_ratio_and_restarts_after_a_signal():
    path = bernoulli_cusum_path([False] * 5 + [True] * 5, 0.02, 0.04, 1.523)
    assert path.values[:5] == [0.0] * 5  # non-events at 0 stay at 0
    assert path.values[5:] == pytest.approx([LN2, 2 * LN2, 3 * LN2, LN2, 2 * LN2])
    assert (path.signal_index, path.signals, path.limit) == (7, [7], 1.523)


def test_bernoulli_path_falls_by_the_non_event_weight_and_never_below_zero():
    path = bernoulli_cusum_path([True, False, False] + [False] * 40, 0.02, 0.04, 5.0)
    assert path.values[:3] == pytest.approx([LN2, LN2 + W0, LN2 + 2 * W0])
    steps = math.ceil(LN2 / -W0)  # 34 non-events bring ln 2 back to 0
    assert path.values[steps] == 0.0 and path.values[steps - 1] > 0
    assert path.signal_index is None and path.signals == []


def test_bernoulli_path_signals_on_reaching_the_limit_exactly():
    assert bernoulli_cusum_path([True], 0.25, 0.5, LN2).signal_index == 0


def test_standardized_path_runs_both_sides_and_signals_on_either():
    path = standardized_cusum_path([10, 13, 8, 6, 6, 6], mean=10, sd=2, k=0.5, h=2.0)
    # z = 0, 1.5, -1, -2, -2, -2
    assert path.upper == pytest.approx([0, 1.0, 0, 0, 0, 0])
    assert path.lower == pytest.approx([0, 0, 0.5, 2.0, 1.5, 3.0])
    assert path.values == pytest.approx([0, 1.0, 0.5, 2.0, 1.5, 3.0])
    assert (path.signal_index, path.signals) == (3, [3, 5])  # both sides restart after the signal


def test_standardized_path_defaults_to_the_limit_for_an_arl0_of_500():
    assert standardized_cusum_path([0.0], 0, 1).limit == pytest.approx(5.070703855, abs=1e-6)


@pytest.mark.parametrize("call, fragment", [
    (lambda: bernoulli_cusum_path([True], 0.04, 0.02, 1.0), "0 < p0 < p1 < 1"),
    (lambda: bernoulli_cusum_path([True], 0.02, 0.04, 0), "positive"),
    (lambda: bernoulli_cusum_arl(1.0, 0.02, 0.04, 1.0), "between 0 and 1"),
    (lambda: bernoulli_cusum_limit(0.02, 0.04, 1), "above 1 and at most 1e7"),
    (lambda: standardized_cusum_path([1.0], 0, 0, h=4), "standard deviation"),
    (lambda: standardized_cusum_path([float("nan")], 0, 1, h=4), "value 0 is not a finite number"),
    (lambda: detection_delay("poisson", 4.0), "kind must be"),
    (lambda: bernoulli_cusum_monitor([False], 0.0), "baseline rate above 0"),
    (lambda: bernoulli_cusum_monitor([False], 0.6), "below 1"),
])
def test_bad_input_is_a_one_line_error(call, fragment):
    with pytest.raises(ValueError, match=fragment) as info:
        call()
    assert "\n" not in str(info.value)


# --- the Bernoulli CUSUM's run lengths --------------------------------------------------------

def integer_ratio_design(p0: float, m: int) -> float:
    """The p1 > p0 whose event weight is exactly m times the non-event weight's size."""
    f = lambda p1: math.log(p1 / p0) + m * math.log((1 - p1) / (1 - p0))  # noqa: E731
    return optimize.brentq(f, p0 * (1 + 1e-6), 1 - 1e-9, xtol=1e-15)


def dense_integer_chart_arl(p: float, up: int, top: int) -> float:
    """Zero-state ARL of S -> S + up w.p. p else max(0, S - 1), signal at S >= top: (I - Q) L = 1."""
    q = np.zeros((top, top))
    for i in range(top):
        if i + up < top:
            q[i, i + up] += p
        q[i, max(i - 1, 0)] += 1 - p
    return float(np.linalg.solve(np.eye(top) - q, np.ones(top))[0])


@pytest.mark.parametrize("p0, m, top", [(0.1, 4, 12), (0.05, 9, 40), (0.02, 30, 70)])
def test_bernoulli_arl_equals_the_exact_integer_chart(p0, m, top):
    """With w1 = m |w0| the chart is the integer chart of step +m / -1 in units of |w0|."""
    p1 = integer_ratio_design(p0, m)
    u = -math.log((1 - p1) / (1 - p0))
    h = (top - 0.5) * u  # between grid points: S >= h  <=>  S / u >= top
    for p in (p0, (p0 + p1) / 2, p1, min(3 * p0, 0.9)):
        exact = dense_integer_chart_arl(p, m, top)
        assert bernoulli_cusum_arl(p, p0, p1, h) == pytest.approx(exact, rel=1e-8)


def test_the_first_event_signals_when_the_limit_is_below_its_weight():
    assert bernoulli_cusum_arl(0.02, 0.02, 0.04, 0.5) == pytest.approx(50.0)


def simulated_run_lengths(p: float, p0: float, p1: float, h: float, reps: int, seed: int) -> np.ndarray:
    """Run lengths of ``reps`` independent charts, all stepped at once (independent of the module)."""
    rng = np.random.default_rng(seed)
    w1, w0 = math.log(p1 / p0), math.log((1 - p1) / (1 - p0))
    s, lengths, live, t = np.zeros(reps), np.zeros(reps, dtype=np.int64), np.arange(reps), 0
    while live.size:
        t += 1
        s[live] = np.maximum(0.0, s[live] + np.where(rng.random(live.size) < p, w1, w0))
        done = s[live] >= h
        lengths[live[done]] = t
        live = live[~done]
    return lengths


@pytest.mark.parametrize("p0, p1, h, p", [
    (0.02, 0.04, 1.523, 0.02), (0.02, 0.04, 1.523, 0.04), (0.02, 0.04, 1.523, 0.03),
    (0.1, 0.2, 2.7, 0.1), (0.005, 0.01, 2.0, 0.005),
])
def test_bernoulli_arl_matches_a_seeded_simulation(p0, p1, h, p):
    lengths = simulated_run_lengths(p, p0, p1, h, reps=8000, seed=28)
    standard_error = lengths.std(ddof=1) / math.sqrt(lengths.size)
    assert abs(lengths.mean() - bernoulli_cusum_arl(p, p0, p1, h)) < 4 * standard_error


def test_the_default_design_and_its_limit():
    """p0 = 0.02 -> 0.04 at ARL0 500: the measured figures docs/statistics.md quotes."""
    h = bernoulli_cusum_limit(0.02, 0.04, 500)
    assert h == 1.523
    assert bernoulli_cusum_arl(0.02, 0.02, 0.04, h) == pytest.approx(501.769, abs=1e-3)
    assert bernoulli_cusum_arl(0.02, 0.02, 0.04, h - 0.001) < 500
    assert detection_delay("bernoulli", h, p0=0.02) == pytest.approx(121.667, abs=1e-3)


@pytest.mark.parametrize("p0, p1, target", [(0.05, 0.1, 200), (0.01, 0.02, 1000), (0.2, 0.3, 500)])
def test_the_limit_is_the_smallest_on_its_grid(p0, p1, target):
    h = bernoulli_cusum_limit(p0, p1, target)
    assert bernoulli_cusum_arl(p0, p0, p1, h) >= target > bernoulli_cusum_arl(p0, p0, p1, round(h - 0.001, 3))


def test_a_rare_event_meets_the_target_when_its_first_occurrence_signals():
    """p0 = 0.001: signalling on the first event already gives ARL0 1/p0 = 1,000 >= 500, so the limit
    is the largest grid value below ln 2 (the same chart as any smaller one), not 0.001."""
    h = bernoulli_cusum_limit(0.001, 0.002, 500)
    assert h == 0.693 < LN2
    assert bernoulli_cusum_arl(0.001, 0.001, 0.002, h) == pytest.approx(1000)
    assert bernoulli_cusum_path([False, True], 0.001, 0.002, h).signal_index == 1
    assert bernoulli_cusum_limit(0.001, 0.002, 1500) > LN2  # a stricter target needs a second event


def test_run_length_falls_as_the_rate_rises():
    arls = [bernoulli_cusum_arl(p, 0.02, 0.04, 2.0) for p in (0.01, 0.02, 0.03, 0.04, 0.06)]
    assert arls == sorted(arls, reverse=True)


# --- the standardized CUSUM against R spc ------------------------------------------------------

SPC_CRIT = {(0.5, 500): 5.070703855, (0.5, 370): 4.773833707, (0.25, 500): 8.585058346,
            (1.0, 1000): 3.009354998, (0.5, 100): 3.502037094}
"""xcusum.crit(k, L0, sided="two"), spc 0.6.7 (Debian r-cran-spc 1:0.6.7-1), 10 significant digits."""
SPC_ARL = {(0.5, 4.0, 0.0): 167.6837888, (0.5, 5.0, 1.0): 10.37596992, (0.5, 4.77, 0.5): 35.20816917,
           (0.25, 8.0, 0.0): 368.3938733, (1.0, 3.0, 2.0): 3.749108392, (0.5, 5.0, -1.0): 10.37596992,
           (0.5, 5.07, 1.0): 10.51568823}
"""xcusum.arl(k, h, mu, sided="two"), the same spc version."""
TOLERANCE = 1e-6
"""Relative; the measured differences are below 1e-9 (both use Gauss-Legendre quadrature)."""


@pytest.fixture(scope="module")
def spc():
    """Ask R's spc for every figure above in one Rscript call; skip with the reason when it cannot."""
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript is not installed (make spc-deps installs r-cran-spc): recorded figures only")
    calls = [f'xcusum.crit({k}, {n}, sided="two")' for k, n in SPC_CRIT]
    calls += [f'xcusum.arl({k}, {h}, {mu}, sided="two")' for k, h, mu in SPC_ARL]
    script = "suppressMessages(library(spc)); " + "; ".join(f'cat(sprintf("%.12g\\n", {c}))' for c in calls)
    done = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"Rscript exit {done.returncode}"])[-1]
        pytest.skip(f"R's spc package is not available ({last}); make spc-deps installs r-cran-spc")
    values = [float(v) for v in done.stdout.split()]
    return dict(zip(list(SPC_CRIT) + list(SPC_ARL), values, strict=True))


@pytest.mark.parametrize("k, target", list(SPC_CRIT))
def test_standardized_limit_matches_spc_xcusum_crit(spc, k, target):
    assert standardized_cusum_limit(k, target) == pytest.approx(spc[(k, target)], rel=TOLERANCE)


@pytest.mark.parametrize("k, h, mu", list(SPC_ARL))
def test_standardized_arl_matches_spc_xcusum_arl(spc, k, h, mu):
    assert standardized_cusum_arl(k, h, mu) == pytest.approx(spc[(k, h, mu)], rel=TOLERANCE)


def test_the_recorded_spc_figures_still_hold_without_r():
    for (k, target), h in SPC_CRIT.items():
        assert standardized_cusum_limit(k, target) == pytest.approx(h, rel=TOLERANCE)
    for (k, h, mu), arl in SPC_ARL.items():
        assert standardized_cusum_arl(k, h, mu) == pytest.approx(arl, rel=TOLERANCE)


def test_standardized_detection_delay_is_the_arl_one_sd_away():
    assert detection_delay("standardized", 5.0) == pytest.approx(SPC_ARL[(0.5, 5.0, 1.0)], rel=TOLERANCE)
    assert detection_delay("standardized", 5.0, shift=-1.0) == pytest.approx(10.37596992, rel=TOLERANCE)


# --- the monitor moncore's status code calls ---------------------------------------------------

def test_the_monitor_designs_from_the_baseline_and_runs_the_path():
    m = bernoulli_cusum_monitor([False] * 5 + [True] * 5, 0.02)
    assert (m.p0, m.p1, m.shift, m.limit, m.target_arl0) == (0.02, 0.04, 2.0, 1.523, 500)
    assert m.arl0 == pytest.approx(501.769, abs=1e-3)
    assert m.detection_delay == pytest.approx(bernoulli_cusum_arl(0.04, 0.02, 0.04, 1.523))
    assert m.path.signal_index == 7


def test_the_monitor_follows_the_target_and_the_shift():
    strict = bernoulli_cusum_monitor([], 0.02, target_arl0=2000, shift=3.0)
    assert strict.p1 == pytest.approx(0.06)
    assert strict.arl0 >= 2000 and strict.limit == bernoulli_cusum_limit(0.02, 0.06, 2000)
    assert strict.path.values == [] and strict.path.signal_index is None
