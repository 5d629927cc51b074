"""Simulated coverage of 95% intervals for the kinds of score MedAssure reports.

Why: a verdict passes when an interval's lower bound clears a bar, so an interval that covers
the truth less often than it claims turns into approvals that are not earned. This script draws
samples from known truths and counts how often each method's interval contains the truth:

* proportions (0/1 scores) at n in {10, 30, 100, 1000} and p in {0.5, 0.8, 0.95}: percentile
  bootstrap (what local runs used before), Wilson (what they use now), Clopper-Pearson, BCa and t;
* skewed 1-5 scores (an LLM jury's instance means): percentile bootstrap, BCa, t, and
  ``interval_for`` end to end (BCa, t when BCa fails, no interval when there is no spread).

A sample without an interval (BCa on a sample with no spread; ``interval_for`` on a mean with no
spread) counts as not covering, and the share of such samples is printed. Percentile bootstraps
are drawn exactly and fast: resampling n values from a sample is a multinomial draw of counts.
BCa uses ``evaluator.statistics.estimates.bca_interval`` (scipy, 2,000 resamples) and is slow, so it
gets fewer simulations; every cell prints its simulation count and Monte-Carlo standard error.

Then the *size* of each verdict test: the share of samples that pass when the true value sits
exactly on the bar (a pass is promised to be wrong at most 2.5% of the time there). For 0/1 scores
the size is exact (the binomial mass of every count that passes) for the Wilson score test, the
exact binomial test and the test used (``governance.rules.small_n``); for jury-like 1-5 means it
is simulated for BCa, t, ``interval_for`` and the test used (Hoeffding below its n). The size of a
*fail* at the bar (a fail is promised to be wrong at most 2.5% of the time there too) is printed beside
the false-pass size for 0/1 scores, both from the product's own verdict function
(``governance.rules.score_verdict``, on the Wilson interval a local run reports, no minimum n) summed
exactly over every count k = 0..n.

Run: ``python bench/interval_coverage.py [--sims 2000] [--bca-sims 400] [--bca-sims-large 100]``
(a few minutes on two cores; ``--size-only`` prints only the size tables). ``--quick``
(``make bench-smoke``) runs every cell with 200, 20 and 5 simulations: seconds, and figures too
noisy to read anything from.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator.statistics.estimates import (  # noqa: E402
    bca_interval,
    clopper_pearson_interval,
    interval_for,
    wilson_interval,
)
from governance.rules.small_n import (  # noqa: E402
    MEAN_MIN_N,
    SIZE_SLACK,
    exact_binomial_p,
    false_fail_size,
    score_test_size,
    small_n_fail_guard,
    small_n_guard,
)

NS = (10, 30, 100, 1000)
PS = (0.5, 0.8, 0.95)
LEVEL = 0.95
BOOT = 2000
SKEWED = {
    "skewed 1-5 (mean 4.33)": (0.02, 0.03, 0.10, 0.30, 0.55),
    "very skewed 1-5 (mean 4.72)": (0.01, 0.01, 0.03, 0.15, 0.80),
}


def percentile_cover(values: np.ndarray, probs: np.ndarray, truth: float, n: int, sims: int,
                     rng: np.random.Generator) -> float:
    """Coverage of the percentile bootstrap: each sim's resample means come from multinomial counts."""
    hits = 0
    for _ in range(sims):
        counts = rng.multinomial(n, probs)
        boot = rng.multinomial(n, counts / n, size=BOOT) @ values / n
        lo, hi = np.quantile(boot, [(1 - LEVEL) / 2, 1 - (1 - LEVEL) / 2])
        hits += lo <= truth <= hi
    return hits / sims


def t_cover(values: np.ndarray, probs: np.ndarray, truth: float, n: int, sims: int,
            rng: np.random.Generator) -> float:
    """Coverage of the t interval (a sample with no spread gives a point, which rarely covers)."""
    from scipy.stats import t

    counts = rng.multinomial(n, probs, size=sims)
    mean = counts @ values / n
    var = (counts @ values**2 - n * mean**2) / (n - 1)
    half = t.ppf(0.5 + LEVEL / 2, n - 1) * np.sqrt(np.maximum(var, 0) / n)
    return float(np.mean((mean - half <= truth) & (truth <= mean + half)))


def sample(values: np.ndarray, probs: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.choice(values, size=n, p=probs)


def bca_cover(values, probs, truth, n, sims, rng) -> tuple[float, float]:
    """Coverage of scipy's BCa, and the share of samples where it gives no interval."""
    hits = missing = 0
    for _ in range(sims):
        x = sample(values, probs, n, rng)
        if x.min() == x.max():
            missing += 1
            continue
        lo, hi = bca_interval(x, LEVEL, seed=int(rng.integers(2**31)), n_resamples=BOOT)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            missing += 1
            continue
        hits += lo <= truth <= hi
    return hits / sims, missing / sims


def library_cover(values, probs, truth, n, sims, rng) -> tuple[float, float]:
    """Coverage of ``interval_for(kind="mean")`` end to end, and the share with no interval."""
    hits = missing = 0
    for _ in range(sims):
        r = interval_for(sample(values, probs, n, rng), kind="mean", seed=int(rng.integers(2**31)))
        if r.lower is None:
            missing += 1
            continue
        hits += r.lower <= truth <= r.upper
    return hits / sims, missing / sims


def proportion_cover(interval, p: float, n: int, sims: int, rng: np.random.Generator) -> float:
    """Coverage of a closed-form proportion interval, computed once per possible count."""
    ks = rng.binomial(n, p, size=sims)
    table = {k: interval(int(k), n) for k in np.unique(ks)}
    return float(np.mean([table[k][0] <= p <= table[k][1] for k in ks]))


def cell(name: str, cover: float, sims: int, missing: float | None = None) -> str:
    se = math.sqrt(max(cover * (1 - cover), 1e-12) / sims)
    extra = f"  (no interval {missing:5.1%})" if missing else ""
    return f"    {name:<24} {cover:6.1%}  ± {se:4.1%}  [{sims:>4} sims]{extra}"


SIZE_NS = (1, 2, 5, 10, 20, 30, 50, 100, 200, 300, 1000)
SIZE_BARS = (0.2, 0.5, 0.7, 0.8, 0.9, 0.95)
MEAN_SIZE_NS = (2, 5, 10, 20, 30, 50, 100, 200, 300, 500)


def _exact_size(n: int, bar: float) -> float:
    """Size of the exact binomial test (the Clopper-Pearson tail) at the bar."""
    from scipy.stats import binom

    passing = [x for x in range(n + 1) if exact_binomial_p(x / n, n, bar) <= 0.025]
    return float(binom.sf(passing[0] - 1, n, bar)) if passing else 0.0


def _used_size(n: int, bar: float) -> float:
    """Size of the test a verdict uses: the score test unless the small-n guard replaces it."""
    return _exact_size(n, bar) if small_n_guard("wilson", 1.0, n, bar) else score_test_size(n, bar)


def proportion_size_table() -> None:
    """Exact size of the one-sided tests on 0/1 scores, per n and bar."""
    print("SIZE: PROPORTIONS (exact false-pass rate at a true rate equal to the bar; nominal 2.5%)")
    print(f"  {'n':>5}  " + "  ".join(f"bar {b:<4}" for b in SIZE_BARS) + "   [score test / exact / used]")
    for n in SIZE_NS:
        cells = [f"{score_test_size(n, b):5.1%}/{_exact_size(n, b):4.1%}/{_used_size(n, b):4.1%}"
                 for b in SIZE_BARS]
        print(f"  {n:>5}  " + "  ".join(cells))
    for b in SIZE_BARS:
        over = [n for n in range(1, 1001) if score_test_size(n, b) > 0.025 + SIZE_SLACK]
        where = (f", largest such n {over[-1]}; the exact binomial test decides at those n" if over
                 else "; the score test is used throughout")
        print(f"  bar {b}: score-test size above {0.025 + SIZE_SLACK:.1%} at {len(over)} of n = 1..1000"
              f"{where}")


BOTH_NS = (1, 2, 3, 5, 10, 20, 30, 50, 100, 200)
BOTH_BARS = (0.5, 0.8, 0.9, 0.95)


def verdict_sizes(n: int, bar: float) -> tuple[float, float]:
    """False-pass and false-fail rates of ``score_verdict`` at a true rate equal to the bar, exactly.

    Every count k = 0..n gets the Wilson interval a local run would report and the product's verdict
    (a rule with no minimum n, a family of one); the binomial mass of the counts that pass, and of
    those that fail, is the size in each direction.
    """
    from datetime import UTC, datetime

    from scipy.stats import binom

    from evaluator.evidence.record import Evidence
    from governance.rules.policy import ScoreRule
    from governance.rules.score_verdict import score_verdict

    rule = ScoreRule(id="size", threshold=bar, min_n=0, rationale="size of the verdict at the bar")
    passed = failed = 0.0
    for k in range(n + 1):
        lo, hi = wilson_interval(k, n)
        e = Evidence(id=f"size:{k}/{n}", model="m", benchmark="B", metric="EM", score=k / n, scale="0-1",
                     higher_is_better=True, n=n, provenance="local-run", source="bench",
                     date=datetime(2026, 1, 1, tzinfo=UTC), ci_lower=lo, ci_upper=hi,
                     ci_method="Wilson score interval, 95%")
        status = score_verdict(rule, e)["status"]
        mass = float(binom.pmf(k, n, bar))
        passed += mass if status == "pass" else 0.0
        failed += mass if status == "fail" else 0.0
    return passed, failed


def both_directions_table(max_n: int = 200) -> None:
    """False passes and false fails of the verdict function at the bar, exact, per n and bar."""
    print(f"\nSIZE BOTH WAYS (the product's verdict function on a Wilson interval, exact over k = 0..n at a "
          f"true rate equal to the bar; nominal 2.5% each way, {0.025 + SIZE_SLACK:.1%} where the score "
          "test decides)")
    print(f"  {'n':>5}  " + "  ".join(f"bar {b:<14}" for b in BOTH_BARS) + "   [false pass / false fail "
          "(score-test fail alone)]")
    for n in BOTH_NS:
        cells = []
        for b in BOTH_BARS:
            fp, ff = verdict_sizes(n, b)
            cells.append(f"{fp:4.1%} / {ff:4.1%} ({false_fail_size(n, b):4.1%})")
        print(f"  {n:>5}  " + "  ".join(f"{c:<18}" for c in cells))
    for b in BOTH_BARS:
        sizes = [(n, *verdict_sizes(n, b)) for n in range(1, max_n + 1)]
        exact_n = [n for n, *_ in sizes if small_n_fail_guard("wilson", 0.0, n, b)]
        worst_pass = max(sizes, key=lambda r: r[1])
        worst_fail = max(sizes, key=lambda r: r[2])
        worst_exact = max((r for r in sizes if r[0] in exact_n), key=lambda r: r[2], default=None)
        exact = (f"; where the exact test decides the fail ({len(exact_n)} n), largest false fail "
                 f"{worst_exact[2]:.2%} at n = {worst_exact[0]}" if worst_exact else
                 "; the score test decides every fail")
        print(f"  bar {b}, n = 1..{max_n}: largest false pass {worst_pass[1]:.2%} (n = {worst_pass[0]}), "
              f"largest false fail {worst_fail[2]:.2%} (n = {worst_fail[0]}){exact}")
    for b in SIZE_BARS:
        over = [n for n in range(1, 1001) if false_fail_size(n, b) > 0.025 + SIZE_SLACK]
        where = (f", largest such n {over[-1]}; the exact binomial test decides the fail at those n" if over
                 else "; the score test decides every fail")
        print(f"  bar {b}: score-test false-fail size above {0.025 + SIZE_SLACK:.1%} at {len(over)} of "
              f"n = 1..1000{where}")


def _pass_share(lowers: list[float | None], truth: float) -> float:
    return sum(lo is not None and round(lo, 12) >= round(truth, 12) for lo in lowers) / len(lowers)


def mean_size_table(sims: int, bca_sims: int, rng: np.random.Generator) -> None:
    """Simulated size of the mean tests on jury-like 1-5 scores (bar = the true normalized mean)."""
    from scipy.stats import t

    print(f"\nSIZE: MEANS (simulated false-pass rate at a true mean equal to the bar; nominal 2.5%; "
          f"the test used is Hoeffding below n = {MEAN_MIN_N}, interval_for from it)")
    values = np.arange(1.0, 6.0)
    for label, probs in SKEWED.items():
        probs = np.array(probs)
        bar = (float(probs @ values) - 1) / 4
        print(f"  {label}, bar {bar:.4f} (normalized)")
        for n in MEAN_SIZE_NS:
            counts = rng.multinomial(n, probs, size=sims)
            mean = (counts @ values / n - 1) / 4
            var = (counts @ ((values - 1) / 4) ** 2 - n * mean**2) / (n - 1)
            t_lo = mean - t.ppf(0.975, n - 1) * np.sqrt(np.maximum(var, 0) / n)
            t_size = float(np.mean(np.round(t_lo, 12) >= round(bar, 12)))
            hoeff = [small_n_guard("other", float(m), n, bar) for m in mean]
            hoeff_size = float(np.mean([g is not None and g.p <= 0.025 for g in hoeff]))
            bca_lo, lib_lo = [], []
            for _ in range(bca_sims):
                x = (sample(values, probs, n, rng) - 1) / 4
                seed = int(rng.integers(2**31))
                r = interval_for(x, kind="mean", seed=seed)
                lib_lo.append(r.lower)
                if x.min() == x.max():
                    bca_lo.append(None)
                    continue
                lo, _hi = bca_interval(x, LEVEL, seed=seed, n_resamples=BOOT)
                bca_lo.append(lo if math.isfinite(lo) else None)
            lib = _pass_share(lib_lo, bar)
            used = hoeff_size if n < MEAN_MIN_N else lib
            print(f"    n = {n:>4}: BCa {_pass_share(bca_lo, bar):5.1%} [{bca_sims} sims]  t {t_size:5.1%} "
                  f"[{sims}]  interval_for {lib:5.1%} [{bca_sims}]  Hoeffding {hoeff_size:5.1%} [{sims}]  "
                  f"used {used:5.1%}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", type=int, help="simulations per cell, fast methods (default 2000)")
    parser.add_argument("--bca-sims", type=int, help="BCa simulations per cell, n <= 100 (default 400)")
    parser.add_argument("--bca-sims-large", type=int, help="BCa simulations per cell, n = 1000 (default 100)")
    parser.add_argument("--seed", type=int, default=20260101)
    parser.add_argument("--quick", action="store_true", help="200 / 20 / 5 simulations (make bench-smoke)")
    parser.add_argument("--size-only", action="store_true",
                        help="only the size tables (false passes and false fails at the bar)")
    args = parser.parse_args(argv)
    for name, full, quick in (("sims", 2000, 200), ("bca_sims", 400, 20), ("bca_sims_large", 100, 5)):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    print(f"Coverage of nominal {LEVEL:.0%} intervals (share of simulated samples whose interval contains "
          f"the truth; ± is the Monte-Carlo standard error). Bootstraps use {BOOT} resamples; seed "
          f"{args.seed}.\n")
    proportion_size_table()
    both_directions_table(20 if args.quick else 200)
    mean_size_table(args.sims, args.bca_sims, rng)
    if args.size_only:
        print(f"\n{time.perf_counter() - start:.0f} s wall, {time.process_time():.0f} s CPU")
        return
    binary = np.array([0.0, 1.0])
    print("\nPROPORTIONS (0/1 scores)")
    for p in PS:
        for n in NS:
            probs = np.array([1 - p, p])
            bca_sims = args.bca_sims if n <= 100 else args.bca_sims_large
            bca, bca_missing = bca_cover(binary, probs, p, n, bca_sims, rng)
            print(f"  p = {p}, n = {n}")
            pct = percentile_cover(binary, probs, p, n, args.sims, rng)
            print(cell("percentile bootstrap", pct, args.sims))
            print(cell("Wilson (used)", proportion_cover(wilson_interval, p, n, args.sims, rng), args.sims))
            print(cell("Clopper-Pearson", proportion_cover(clopper_pearson_interval, p, n, args.sims, rng),
                       args.sims))
            print(cell("BCa bootstrap", bca, bca_sims, bca_missing))
            print(cell("t interval", t_cover(binary, probs, p, n, args.sims, rng), args.sims))
    values = np.arange(1.0, 6.0)
    for label, probs in SKEWED.items():
        probs = np.array(probs)
        truth = float(probs @ values)
        print(f"\nMEANS: {label}")
        for n in NS:
            bca_sims = args.bca_sims if n <= 100 else args.bca_sims_large
            bca, bca_missing = bca_cover(values, probs, truth, n, bca_sims, rng)
            lib, lib_missing = library_cover(values, probs, truth, n, bca_sims, rng)
            print(f"  n = {n}")
            print(cell("percentile bootstrap", percentile_cover(values, probs, truth, n, args.sims, rng),
                       args.sims))
            print(cell("BCa bootstrap", bca, bca_sims, bca_missing))
            print(cell("t interval", t_cover(values, probs, truth, n, args.sims, rng), args.sims))
            print(cell("interval_for (used)", lib, bca_sims, lib_missing))
    print(f"\n{time.perf_counter() - start:.0f} s wall, {time.process_time():.0f} s CPU")


if __name__ == "__main__":
    main()
