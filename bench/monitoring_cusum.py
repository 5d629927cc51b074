"""Simulated run lengths of the monitoring CUSUMs beside their Markov-chain and integral-equation values.

Why: the monitoring page promises a committee "one false alarm per ARL0 outputs" and "a doubling of
the correction rate is detected in about D outputs". Both come from computed run lengths
(``evaluator.statistics.cusum``); this script simulates the charts themselves (real weights, seeded)
and prints, per design, the limit chosen from the target, the simulated in-control mean run length
with its standard error beside the target (it must be within 10%), and the detection delay for
rate shifts x1.5, x2 and x3 by Markov chain and by simulation. The last table does the same for the
two-sided standardized CUSUM (k = 0.5) on normal data, mean shifts of 0.5, 1 and 2 sd.

``--estimation`` prints instead the in-control run-length distribution of the standardized CUSUM
(k = 0.5, h for ARL0 500) when its mean and sd are estimated from a baseline of 7, 14, 30 or 60 iid
normal values (the monitoring's daily mean latency: 14 days by default, at least 7): the plug-in chart
(mean and population sd of the baseline used as if known, the method before December 2026), the
self-starting chart (``evaluator.statistics.self_starting``) and the chart with known parameters; then
the delay to detect a 1-sd shift that starts on the first watched day or after 50 in-control days.
Run lengths are censored at a horizon (the mean is then a lower bound, marked >=).

Usage: python bench/monitoring_cusum.py [--reps 20000] [--quick] [--estimation]
(``--quick``, for ``make bench-smoke``: 1,000 in-control and 300 shifted runs per row.)
Exits 1 when a simulated in-control mean run length is more than 10% from its target (with
``--estimation``: the known-parameter and self-starting charts').
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from evaluator.statistics.cusum import (
    bernoulli_cusum_arl,
    bernoulli_cusum_limit,
    standardized_cusum_arl,
    standardized_cusum_limit,
)
from evaluator.statistics.self_starting import self_starting_scores

DESIGNS = [(0.02, 0.04, 500), (0.05, 0.10, 500), (0.01, 0.02, 1000), (0.10, 0.20, 200)]
"""(p0, p1, target ARL0); the first is the monitoring default (a doubling of a 2% correction rate)."""
SHIFTS = (1.5, 2.0, 3.0)
MEAN_SHIFTS = (0.5, 1.0, 2.0)


def run_lengths(step, reps: int, limit: float, seed: int) -> np.ndarray:
    """Run lengths of ``reps`` charts stepped together; ``step(rng, n)`` draws n increments."""
    rng = np.random.default_rng(seed)
    state, lengths, live, t = np.zeros((2, reps)), np.zeros(reps, dtype=np.int64), np.arange(reps), 0
    while live.size:
        t += 1
        up, down = step(rng, live.size)
        state[0, live] = np.maximum(0.0, state[0, live] + up)
        state[1, live] = np.maximum(0.0, state[1, live] + down)
        done = (state[0, live] >= limit) | (state[1, live] >= limit)
        lengths[live[done]] = t
        live = live[~done]
    return lengths


def bernoulli_step(p: float, p0: float, p1: float):
    w1, w0 = math.log(p1 / p0), math.log((1 - p1) / (1 - p0))
    return lambda rng, n: (np.where(rng.random(n) < p, w1, w0), np.full(n, -np.inf))


def normal_step(mu: float, k: float):
    def step(rng, n):
        z = rng.standard_normal(n) + mu
        return z - k, -z - k
    return step


def mean_se(lengths: np.ndarray) -> tuple[float, float]:
    return float(lengths.mean()), float(lengths.std(ddof=1) / math.sqrt(lengths.size))


BASELINES = (7, 14, 30, 60)
"""Baseline sizes of the estimation table (the latency chart's minimum 7 and default 14 days)."""
METHODS = ("plug-in", "self-starting", "known")


def standardized_scores(method: str, base: np.ndarray, watched: np.ndarray) -> np.ndarray:
    """The values the CUSUM accumulates, per run (rows): today's plug-in, self-starting or known."""
    if method == "known":
        return watched
    if method == "self-starting":
        return self_starting_scores(base, watched)
    mean, sd = base.mean(axis=1, keepdims=True), base.std(axis=1, keepdims=True)  # pstdev, as before
    return (watched - mean) / sd


def cusum_run_lengths(z: np.ndarray, k: float, h: float) -> np.ndarray:
    """First crossing (1-based) of the two-sided CUSUM on each row of z; 0 where none (censored)."""
    up, down = np.zeros(z.shape[0]), np.zeros(z.shape[0])
    lengths = np.zeros(z.shape[0], dtype=np.int64)
    for t in range(z.shape[1]):
        up, down = np.maximum(0.0, up + z[:, t] - k), np.maximum(0.0, down - z[:, t] - k)
        hit = (lengths == 0) & ((up >= h) | (down >= h))
        lengths[hit] = t + 1
    return lengths


def simulate(method: str, m: int, reps: int, horizon: int, h: float, seed: int, shift: float = 0.0,
             start: int = 0, chunk: int = 1000) -> np.ndarray:
    """Run lengths of ``reps`` charts on iid N(0, 1) days (plus ``shift`` from watched day ``start``).

    Counted from the first watched day; 0 = no signal within ``horizon`` days.
    """
    rng, out = np.random.default_rng(seed), []
    for done in range(0, reps, chunk):
        n = min(chunk, reps - done)
        base = rng.standard_normal((n, m))
        watched = rng.standard_normal((n, horizon))
        watched[:, start:] += shift
        out.append(cusum_run_lengths(standardized_scores(method, base, watched), 0.5, h))
    return np.concatenate(out)


def in_control_row(lengths: np.ndarray, horizon: int) -> tuple[str, float, float, float, float]:
    """(mean as text, median, P(signal within 100), P(within 365), share censored)."""
    censored = lengths == 0
    filled = np.where(censored, horizon, lengths)
    mean = f"{'>=' if censored.any() else ''}{filled.mean():.0f}"
    signalled = (~censored)
    return (mean, float(np.median(filled)), float((signalled & (lengths <= 100)).mean()),
            float((signalled & (lengths <= 365)).mean()), float(censored.mean()))


def estimation(reps: int, quick: bool) -> int:
    """The in-control run-length and detection tables of the estimated-parameter charts; misses."""
    k, target = 0.5, 500
    h = standardized_cusum_limit(k, target)
    horizon, misses = (4000 if quick else 8000), 0
    print(f"Two-sided standardized CUSUM, k = {k}, h = {h:.4f} (designed ARL0 {target} with known mean and"
          f" sd), iid N(0, 1) days; {reps:,} seeded runs per row, censored at {horizon:,} days")
    print(f"{'baseline':>8} {'method':>13} {'mean RL':>8} {'median':>7} {'P(<=100)':>8} {'P(<=365)':>8}"
          f" {'censored':>8}")
    rows = [(m, meth) for m in BASELINES for meth in METHODS[:2]] + [(0, "known")]
    for i, (m, method) in enumerate(rows):
        lengths = simulate(method, max(m, 1), reps, horizon, h, seed=400 + i)
        mean, median, p100, p365, cens = in_control_row(lengths, horizon)
        if method != "plug-in" and not mean.startswith(">="):
            misses += abs(float(mean) / target - 1) > 0.10
        print(f"{m if m else '-':>8} {method:>13} {mean:>8} {median:>7.0f} {p100:>8.1%} {p365:>8.1%}"
              f" {cens:>8.1%}")
    n = max(300, reps // 4)
    print(f"\nDelay to detect a 1-sd shift (mean run length from the shift's first day; {n:,} runs;"
          f" 'after 50': runs that signalled before the shift are dropped)")
    print(f"{'baseline':>8} {'method':>13} {'from day 1':>10} {'after 50':>9} {'false before':>12}")
    for i, (m, method) in enumerate([(7, "plug-in"), (7, "self-starting"), (14, "plug-in"),
                                     (14, "self-starting"), (60, "self-starting"), (0, "known")]):
        first = simulate(method, max(m, 3), n, 400, h, seed=500 + i, shift=1.0)
        later = simulate(method, max(m, 3), n, 450, h, seed=600 + i, shift=1.0, start=50)
        kept = later[(later == 0) | (later > 50)]
        after = np.where(kept == 0, 451, kept) - 50
        print(f"{m if m else '-':>8} {method:>13} {np.where(first == 0, 401, first).mean():>10.1f}"
              f" {after.mean():>9.1f} {1 - kept.size / n:>12.1%}")
    print(f"(integral equation, known parameters: {standardized_cusum_arl(k, h, 1.0):.1f})")
    return misses


def main(argv: list[str] | None = None) -> int:
    """Print the tables; exit 1 if an in-control simulation misses its target by more than 10%."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, help="in-control runs per design (default 20,000; --quick 1,000)")
    parser.add_argument("--quick", action="store_true", help="a small workload (make bench-smoke)")
    parser.add_argument("--estimation", action="store_true",
                        help="the standardized CUSUM with its mean and sd estimated from a baseline")
    args = parser.parse_args(argv)
    reps = args.reps or (1000 if args.quick else 20000)
    shifted_reps = max(300, reps // 4)
    if args.estimation:
        started = time.perf_counter()
        misses = estimation(reps, args.quick)
        print(f"\n{time.perf_counter() - started:.1f} s")
        return 1 if misses else 0
    started, misses = time.perf_counter(), 0

    print(f"Bernoulli CUSUM, in control ({reps:,} seeded runs each)")
    print(f"{'p0':>6} {'p1':>6} {'target':>7} {'h':>7} {'chain ARL0':>10} {'simulated':>10} {'+-SE':>6}"
          f" {'vs target':>9}  within 10%")
    limits = {}
    for i, (p0, p1, target) in enumerate(DESIGNS):
        h = limits[p0, p1] = bernoulli_cusum_limit(p0, p1, target)
        mean, se = mean_se(run_lengths(bernoulli_step(p0, p0, p1), reps, h, seed=100 + i))
        off = mean / target - 1
        misses += abs(off) > 0.10
        print(f"{p0:>6} {p1:>6} {target:>7} {h:>7.3f} {bernoulli_cusum_arl(p0, p0, p1, h):>10.1f}"
              f" {mean:>10.1f} {se:>6.1f} {off:>+9.1%}  {'yes' if abs(off) <= 0.10 else 'NO'}")

    print(f"\nBernoulli CUSUM detection delay (zero-state ARL at shift x p0; {shifted_reps:,} runs each)")
    print(f"{'p0':>6} {'p1':>6} {'shift':>5} {'rate':>6} {'chain':>8} {'simulated':>10} {'+-SE':>6}")
    for i, (p0, p1, _) in enumerate(DESIGNS):
        for j, shift in enumerate(SHIFTS):
            rate, h = shift * p0, limits[p0, p1]
            lengths = run_lengths(bernoulli_step(rate, p0, p1), shifted_reps, h, seed=200 + 10 * i + j)
            mean, se = mean_se(lengths)
            print(f"{p0:>6} {p1:>6} {'x' + str(shift):>5} {rate:>6.3f}"
                  f" {bernoulli_cusum_arl(rate, p0, p1, h):>8.1f} {mean:>10.1f} {se:>6.1f}")

    k, target = 0.5, 500
    h = standardized_cusum_limit(k, target)
    print(f"\nTwo-sided standardized CUSUM, k = {k}, target ARL0 {target}: h = {h:.4f}")
    print(f"{'shift (sd)':>10} {'integral eq.':>12} {'simulated':>10} {'+-SE':>6}  runs")
    for j, mu in enumerate((0.0, *MEAN_SHIFTS)):
        n = reps if mu == 0 else shifted_reps
        mean, se = mean_se(run_lengths(normal_step(mu, k), n, h, seed=300 + j))
        if mu == 0:
            misses += abs(mean / target - 1) > 0.10
        print(f"{mu:>10} {standardized_cusum_arl(k, h, mu):>12.1f} {mean:>10.1f} {se:>6.1f}  {n:,}")
    print(f"\n{time.perf_counter() - started:.1f} s")
    return 1 if misses else 0


if __name__ == "__main__":
    raise SystemExit(main())
