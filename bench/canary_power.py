"""How large a drop can the canary see? Exact power of its paired test for the frozen N.

Prints figures (docs/monitoring.md quotes them); not a test. A canary of N cases has C = round(N × p0)
cases right at baseline and W = N - C wrong. After a vendor change each right case is lost with
probability l and each wrong case gained with probability g, independently, so the accuracy falls by
Δ = p0 × l - (1 - p0) × g. The lost L ~ Bin(C, l) and gained G ~ Bin(W, g); one attempt flags a drift when
the one-sided exact McNemar p-value P(X ≥ L), X ~ Bin(L + G, 1/2), is at most α
(``governance.monitoring.canary.drop_p_value``). The power is summed exactly over (L, G). A signal needs
the confirmation run to flag it too; for a lasting change the two runs are independent, so the chance of
a signal is the power squared.

Usage: .venv/bin/python bench/canary_power.py [--quick] [--alpha 0.05] [--p0 0.9]
(``--quick``, for ``make bench-smoke``: N = 50 only.)
"""

from __future__ import annotations

import argparse

from scipy.stats import binom

from governance.monitoring.canary import detectable_losses, drop_p_value


def power(n: int, p0: float, drop: float, churn: float, alpha: float) -> float:
    """P(one attempt flags a drift): accuracy falls by ``drop``, wrong cases are regained at ``churn``."""
    right = round(n * p0)
    wrong = n - right
    lose = (drop + (1 - p0) * churn) / p0 if right else 0.0
    if not 0 <= lose <= 1:
        return float("nan")
    total = 0.0
    for lost in range(right + 1):
        p_lost = binom.pmf(lost, right, lose)
        if p_lost < 1e-15:
            continue
        for gained in range(wrong + 1):
            if drop_p_value(lost, gained) <= alpha:
                total += p_lost * binom.pmf(gained, wrong, churn)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--p0", type=float, default=0.9)
    args = parser.parse_args()
    sizes = [50] if args.quick else [30, 50, 80, 100]
    drops = [0.0, 0.05, 0.10, 0.15, 0.20]
    table = detectable_losses(args.alpha, 12)
    print(f"fewest losses flagged at alpha {args.alpha} by discordant count d: "
          + ", ".join(f"d={d}: {k}" for d, k in table.items()))
    for churn in (0.0, 0.2):
        print(f"\nbaseline accuracy {args.p0:.0%}, wrong cases regained at {churn:.0%}; one attempt's power "
              "(signal = power squared)")
        print("N    " + "  ".join(f"drop {d:>4.0%}" for d in drops))
        for n in sizes:
            cells = [power(n, args.p0, d, churn, args.alpha) for d in drops]
            print(f"{n:<4} " + "  ".join(f"{c:>9.3f}" for c in cells))


if __name__ == "__main__":
    main()
