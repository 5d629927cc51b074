"""Simulated run lengths of the monitoring CUSUMs beside their Markov-chain and integral-equation values.

Why: the monitoring page promises a committee "one false alarm per ARL0 outputs" and "a doubling of
the correction rate is detected in about D outputs". Both come from computed run lengths
(``evaluator.statistics.cusum``); this script simulates the charts themselves (real weights, seeded)
and prints, per design, the limit chosen from the target, the simulated in-control mean run length
with its standard error beside the target (it must be within 10%), and the detection delay for
rate shifts x1.5, x2 and x3 by Markov chain and by simulation. The last table does the same for the
two-sided standardized CUSUM (k = 0.5) on normal data, mean shifts of 0.5, 1 and 2 sd.

Usage: python bench/monitoring_cusum.py [--reps 20000] [--quick]
(``--quick``, for ``make bench-smoke``: 1,000 in-control and 300 shifted runs per row.)
Exits 1 when a simulated in-control mean run length is more than 10% from its target.
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


def main(argv: list[str] | None = None) -> int:
    """Print the tables; exit 1 if an in-control simulation misses its target by more than 10%."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, help="in-control runs per design (default 20,000; --quick 1,000)")
    parser.add_argument("--quick", action="store_true", help="a small workload (make bench-smoke)")
    args = parser.parse_args(argv)
    reps = args.reps or (1000 if args.quick else 20000)
    shifted_reps = max(300, reps // 4)
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
