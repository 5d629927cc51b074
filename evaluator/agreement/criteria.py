"""Per-criterion agreement between a rubric grader and clinicians: Cohen's κ and the share agreeing.

Why per criterion, as HealthBench's meta-evaluation does with physicians: a grader can be right on
"states the follow-up" and wrong on "states the medication change", and a pooled figure would hide
the criterion a committee cares about. Each criterion's verdicts are binary (met / not met), so:

- **Share agreeing** is a proportion: the cases where grader and clinician gave the same verdict,
  with a Wilson interval.
- **Cohen's κ** (unweighted, two labels) corrects that share for the agreement chance alone gives,
  with the large-sample interval of Fleiss, Cohen and Everitt (1969), the one statsmodels'
  ``cohens_kappa`` reports (written out here, checked against it by a test), bounds clipped to
  [−1, 1]. κ needs variation on both sides: a criterion every response met, by both, has a share
  agreeing of 1 and no κ (the reason says so), which is the well-known κ paradox, not a failure.

A pair with no readable verdict on either side (an unreadable grader reply, an unrated case) is left
out. Fewer than ``MIN_N`` pairs give no figure, as for the jury's agreement statistics.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from evaluator.agreement.stats import LEVEL_Z, MIN_N, Estimate
from evaluator.statistics.estimates import wilson_interval

Pair = tuple[bool | None, bool | None]
KAPPA_METHOD = ("Cohen's κ, two labels; 95% interval from the large-sample variance of Fleiss, Cohen and "
                "Everitt (1969), clipped to [−1, 1]")
SHARE_METHOD = "share of cases with the same verdict; Wilson score interval, 95%"


class CriterionAgreement(BaseModel):
    """One criterion: how often the grader and the clinicians agreed on whether it was met."""

    criterion: str
    """The criterion's text."""
    n: int
    """Cases with a verdict from both."""
    share_agreeing: Estimate
    """Share of those cases with the same verdict, with a Wilson interval."""
    kappa: Estimate
    """Cohen's κ with its interval, or the reason there is none."""


def _pairs(pairs: Sequence[Pair]) -> list[tuple[bool, bool]]:
    return [(bool(a), bool(b)) for a, b in pairs if a is not None and b is not None]


def share_agreeing(pairs: Sequence[Pair]) -> Estimate:
    """Share of pairs with the same verdict, Wilson interval (no figure under ``MIN_N`` pairs).

    Example:
        >>> share_agreeing([(True, True)] * 8 + [(True, False)] * 2).value
        0.8
    """
    kept = _pairs(pairs)
    n = len(kept)
    if n < MIN_N:
        return Estimate(value=None, n=n, method=SHARE_METHOD,
                        missing_reason=f"only {n} case(s); needs {MIN_N}")
    same = sum(a == b for a, b in kept)
    lo, hi = wilson_interval(same, n)
    return Estimate(value=same / n, ci_lower=lo, ci_upper=hi, n=n, method=SHARE_METHOD)


def binary_kappa(pairs: Sequence[Pair]) -> Estimate:
    """Cohen's κ of two binary raters with the Fleiss-Cohen-Everitt interval (see the module docstring).

    Example:
        >>> k = binary_kappa([(True, True)] * 20 + [(False, False)] * 15 + [(True, False)] * 5)
        >>> round(k.value, 4)  # observed 0.875, chance 0.625 × 0.5 + 0.375 × 0.5 = 0.5
        0.75
    """
    kept = _pairs(pairs)
    n = len(kept)
    if n < MIN_N:
        return Estimate(value=None, n=n, method=KAPPA_METHOD,
                        missing_reason=f"only {n} case(s); needs {MIN_N}")
    for name, side in (("grader's", [a for a, _ in kept]), ("clinicians'", [b for _, b in kept])):
        if len(set(side)) == 1:
            return Estimate(value=None, n=n, method=KAPPA_METHOD, missing_reason=(
                f"the {name} verdicts have no variation (all {'met' if side[0] else 'not met'}): κ is "
                "undefined; read the share agreeing"))
    p = [[sum((a, b) == (i, j) for a, b in kept) / n for j in (True, False)] for i in (True, False)]
    row = [sum(p[i]) for i in range(2)]  # the grader's marginals
    col = [p[0][j] + p[1][j] for j in range(2)]  # the clinicians'
    observed = p[0][0] + p[1][1]
    expected = row[0] * col[0] + row[1] * col[1]
    kappa = (observed - expected) / (1 - expected)
    term_a = sum(p[i][i] * (1 - (row[i] + col[i]) * (1 - kappa)) ** 2 for i in range(2))
    off = [(0, 1), (1, 0)]
    term_b = (1 - kappa) ** 2 * sum(p[i][j] * (col[i] + row[j]) ** 2 for i, j in off)
    term_c = (kappa - expected * (1 - kappa)) ** 2
    se = math.sqrt(max(term_a + term_b - term_c, 0.0) / ((1 - expected) ** 2 * n))
    lo, hi = max(kappa - LEVEL_Z * se, -1.0), min(kappa + LEVEL_Z * se, 1.0)
    return Estimate(value=kappa, ci_lower=lo, ci_upper=hi, n=n, method=KAPPA_METHOD)


def criterion_agreement(verdicts: Mapping[str, Sequence[Pair]]) -> list[CriterionAgreement]:
    """Per criterion (key: its text), the grader's verdicts against the clinicians', in the order given.

    Each value lists (grader's verdict, clinicians' verdict) per case; None where one is missing.
    """
    return [CriterionAgreement(criterion=c, n=len(_pairs(p)), share_agreeing=share_agreeing(p),
                               kappa=binary_kappa(p)) for c, p in verdicts.items()]
