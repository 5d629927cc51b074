"""Simulated one-sided error of the subgroup ratio intervals at the disparity window's lower edge.

Why: the disparity verdict passes a group whose ratio interval lies inside [0.80, 1.25] and fails
one whose interval lies outside, so each end of a 95% interval should miss a true ratio of exactly
0.80 at most 2.5% of the time. This prints, for the Katz log interval (0.5 added to every count
when a cell is empty) and for MOVER-Wilson
(``evaluator.statistics.subgroups.mover_ratio_interval``), how often
the upper end falls below 0.80 (a false fail) and the lower end rises above it (a false pass), with
the reference group's true rate p2, the group's p1 = 0.8 × p2, and group sizes n1 (group), n2
(reference). Seeded: the same figures on every run.

Usage: python bench/subgroup_ratio_coverage.py [--sims 20000] [--quick]
(``--quick``, for ``make bench-smoke``: 1,000 draws per setting, too few to read the 2.5% edge from.)
"""

from __future__ import annotations

import argparse

import numpy as np

from evaluator.statistics.subgroups import katz_ratio_interval, mover_ratio_interval

SETTINGS = [(0.97, 12, 24), (0.90, 12, 24), (0.70, 12, 24), (0.99, 30, 60), (0.95, 50, 100), (0.80, 200, 400)]


def katz_any_zero_cell(a: int, n1: int, c: int, n2: int):
    """Katz with 0.5 added to all four cells when any is empty (else 100% vs 100% gives a point)."""
    if 0 in (a, c, n1 - a, n2 - c):
        return katz_ratio_interval(a + 0.5, n1 + 1, c + 0.5, n2 + 1)
    return katz_ratio_interval(a, n1, c, n2)


def error_rates(method, p2: float, n1: int, n2: int, sims: int, seed: int = 1) -> tuple[float, float]:
    """(P(upper < 0.8), P(lower > 0.8)) over ``sims`` draws with a true ratio of 0.8."""
    rng = np.random.default_rng(seed)
    a_draws, c_draws = rng.binomial(n1, 0.8 * p2, sims), rng.binomial(n2, p2, sims)
    low = high = 0
    for a, c in zip(a_draws.tolist(), c_draws.tolist(), strict=True):
        if c == 0:
            continue
        d = method(a, n1, c, n2)
        low += d.upper < 0.8
        high += d.lower > 0.8
    return low / sims, high / sims


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, help="draws per setting (default 20,000; --quick 1,000)")
    parser.add_argument("--quick", action="store_true", help="a small workload (make bench-smoke)")
    args = parser.parse_args(argv)
    sims = args.sims or (1000 if args.quick else 20000)
    header = f"{'p2':>5} {'n1':>4} {'n2':>4}  {'method':<13} {'upper<0.8':>9} {'lower>0.8':>9}"
    print(f"{header}   (nominal 0.025 each)")
    for p2, n1, n2 in SETTINGS:
        for name, method in (("katz", katz_any_zero_cell), ("mover-wilson", mover_ratio_interval)):
            lo, hi = error_rates(method, p2, n1, n2, sims)
            print(f"{p2:>5} {n1:>4} {n2:>4}  {name:<13} {lo:>9.3f} {hi:>9.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
