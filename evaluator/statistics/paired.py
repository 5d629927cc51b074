"""Paired comparison of two runs of the same instances (before and after a change).

A vendor's model or prompt change is judged on the *same* cases, so the right statistics are
paired: per-instance deltas, a paired bootstrap interval for the mean difference (resampling
instances, not the two runs independently), and McNemar's exact test for binary outcomes (only
discordant pairs carry information). Instances whose binary outcome flipped are listed, because
a committee wants to read them, not just count them.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from pydantic import BaseModel, ConfigDict
from scipy.stats import binomtest


class PairedComparison(BaseModel):
    """Before/after on the instances both runs scored."""

    model_config = ConfigDict(frozen=True)

    n_pairs: int
    """Instances scored in both runs."""
    mean_before: float | None
    """Mean score before the change."""
    mean_after: float | None
    """Mean score after the change."""
    mean_delta: float | None
    """Mean of (after − before)."""
    delta_ci: tuple[float, float] | None
    """95% paired percentile-bootstrap interval of the mean delta (None with fewer than 2 pairs)."""
    binary: bool
    """True when every score is 0 or 1 (McNemar applies)."""
    worse: tuple[str, ...]
    """Instance ids that went from right (1) to wrong (0), or whose score dropped."""
    better: tuple[str, ...]
    """Instance ids that went from wrong to right, or whose score rose."""
    mcnemar_p: float | None
    """Exact two-sided McNemar p-value over the discordant pairs (binary scores only)."""
    only_before: tuple[str, ...] = ()
    """Ids scored only before (not compared)."""
    only_after: tuple[str, ...] = ()
    """Ids scored only after (not compared)."""


def mcnemar_exact(worse: int, better: int) -> float:
    """Exact two-sided McNemar test: a binomial test of the discordant pairs against 1/2.

    Example:
        >>> round(mcnemar_exact(0, 0), 3), round(mcnemar_exact(6, 0), 4)
        (1.0, 0.0312)
    """
    n = worse + better
    if n == 0:
        return 1.0
    return float(binomtest(worse, n, 0.5, alternative="two-sided").pvalue)


def paired_bootstrap(deltas: np.ndarray, n_resamples: int = 2000, seed: int = 0,
                     level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of per-instance deltas."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(deltas), size=(n_resamples, len(deltas)))
    means = deltas[idx].mean(axis=1)
    alpha = (1 - level) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


def compare_paired(before: Mapping[str, float | None], after: Mapping[str, float | None], *,
                   seed: int = 0, n_resamples: int = 2000) -> PairedComparison:
    """Compare per-instance scores of two runs, keyed by instance id.

    Instances with a missing (None) score on either side are not paired.

    Example:
        >>> c = compare_paired({"a": 1, "b": 1, "c": 0}, {"a": 1, "b": 0, "c": 0})
        >>> c.worse, c.mean_delta
        (('b',), -0.3333333333333333)
    """
    b_ok = {k: float(v) for k, v in before.items() if v is not None}
    a_ok = {k: float(v) for k, v in after.items() if v is not None}
    ids = sorted(set(b_ok) & set(a_ok))
    only_before = tuple(sorted(set(b_ok) - set(a_ok)))
    only_after = tuple(sorted(set(a_ok) - set(b_ok)))
    if not ids:
        return PairedComparison(n_pairs=0, mean_before=None, mean_after=None, mean_delta=None, delta_ci=None,
                                binary=False, worse=(), better=(), mcnemar_p=None, only_before=only_before,
                                only_after=only_after)
    xb = np.array([b_ok[i] for i in ids])
    xa = np.array([a_ok[i] for i in ids])
    deltas = xa - xb
    binary = bool(np.isin(xb, (0.0, 1.0)).all() and np.isin(xa, (0.0, 1.0)).all())
    worse = tuple(i for i, d in zip(ids, deltas, strict=True) if d < 0)
    better = tuple(i for i, d in zip(ids, deltas, strict=True) if d > 0)
    return PairedComparison(
        n_pairs=len(ids), mean_before=float(xb.mean()), mean_after=float(xa.mean()),
        mean_delta=float(deltas.mean()),
        delta_ci=paired_bootstrap(deltas, n_resamples, seed) if len(ids) >= 2 else None,
        binary=binary, worse=worse, better=better,
        mcnemar_p=mcnemar_exact(len(worse), len(better)) if binary else None,
        only_before=only_before, only_after=only_after,
    )
