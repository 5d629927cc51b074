"""How many outputs a queue needs: for ICC(A,1) to ±0.1, and for the audit share's error rate.

ICC: Bonett (2002, *Statistics in Medicine* 21:1331-1335), the approximate n for a 95% interval of width
``w`` around an expected ICC ρ with ``k`` raters per item:

    n = 1 + 8 z² (1 − ρ)² (1 + (k − 1) ρ)² / (k (k − 1) w²)

Bonett derived it for the one-way ICC; for the two-way absolute-agreement ICC(A,1) that the
judge-agreement rule gates on it is a floor (a rater offset widens the interval), which the guidance
says. ``±0.1`` is ``w = 0.2``. With ρ = 0.5, k = 2: 1 + 8 · 3.8415 · 0.25 · 2.25 / (2 · 0.04) = 217.1,
so 218.

Audit share: outputs to audit so that an error rate near ``p`` is estimated to ± ``d``, and how many
production outputs that takes at an audit share of one in ``every``. The figure is an exact search, not
a formula: the smallest n at which the 95% interval the product reports on that rate (Wilson, as the
review measures and the monthly monitoring rates print it), at the expected count round(p·n), is at most
``d`` on either side on average (half its width). Wald's n = z² p (1 − p) / d² said 203 for 5% ± 3%, but
the Wilson interval at 10/203 is [2.7%, 8.8%] (half width 3.07%); the search gives 208. The exact
Clopper-Pearson interval needs more (239; 856 for 2% ± 1%, 499 for 1% ± 1%), and the guidance says so.
Discreteness makes the half width a sawtooth in n: the smallest n is returned, and a few larger n can miss
the margin again (Clopper-Pearson at 2% ± 1%: 875-878).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Literal

from pydantic import BaseModel

from evaluator.statistics.estimates import clopper_pearson_interval, wilson_interval
from governance.review.records import CATCH_BAR
from governance.review.sampling import double_count

Z95 = NormalDist().inv_cdf(0.975)


def icc_sample_size(expected: float, half_width: float = 0.1, raters: int = 2) -> int:
    """Bonett's n for an ICC 95% interval of ± ``half_width`` at ``expected`` with ``raters`` per item.

    Example:
        >>> icc_sample_size(0.5), icc_sample_size(0.7), icc_sample_size(0.5, raters=3)
        (218, 101, 130)
    """
    if raters < 2 or not 0 < half_width < 1 or not -1 < expected < 1:
        raise ValueError("needs raters >= 2, 0 < half_width < 1 and -1 < expected < 1")
    w = 2 * half_width
    k = raters
    n = 1 + 8 * Z95**2 * (1 - expected) ** 2 * (1 + (k - 1) * expected) ** 2 / (k * (k - 1) * w**2)
    return math.ceil(n - 1e-9)


AuditInterval = Literal["wilson", "clopper-pearson"]
INTERVAL_NAMES = {"wilson": "Wilson", "clopper-pearson": "exact Clopper-Pearson"}
_N_CAP = 1_000_000


def audit_sample_size(expected_rate: float, half_width: float, interval: AuditInterval = "wilson") -> int:
    """Smallest n whose 95% ``interval`` at round(``expected_rate`` · n) events is ± ``half_width`` or less.

    "±" is half the interval's width; ``interval`` "wilson" is what the product reports on an audited
    rate (see the module docstring).

    Example:
        >>> audit_sample_size(0.05, 0.03), audit_sample_size(0.05, 0.03, "clopper-pearson")
        (208, 239)
    """
    if not 0 < expected_rate < 1 or not 0 < half_width < 1:
        raise ValueError("needs 0 < expected_rate < 1 and 0 < half_width < 1")
    bounds = wilson_interval if interval == "wilson" else clopper_pearson_interval
    for n in range(1, _N_CAP + 1):
        lo, hi = bounds(round(expected_rate * n), n)
        if (hi - lo) / 2 <= half_width + 1e-12:
            return n
    raise ValueError(f"more than {_N_CAP:,} audits would be needed for ±{half_width} at {expected_rate}")


class SizeGuidance(BaseModel):
    """The two figures a queue's size is chosen by, in words too."""

    icc_n: int
    """Outputs rated by two clinicians for ICC(A,1) to ± ``half_width``."""
    expected_icc: float
    """The ICC assumed."""
    half_width: float
    """The half width asked for."""
    audit_n: int
    """Outputs to audit for the error rate's reported (Wilson) interval to be ± ``audit_half_width``."""
    audit_n_exact: int
    """The same for an exact Clopper-Pearson interval (larger: it is conservative)."""
    expected_error_rate: float
    """The error rate assumed."""
    audit_half_width: float
    """Its half width."""
    audit_every: int
    """The audit share: one output in this many."""
    production_outputs: int
    """Production outputs that yield ``audit_n`` audits at that share."""
    text: str
    """The guidance in two sentences."""


def size_guidance(
    expected_icc: float = 0.5,
    half_width: float = 0.1,
    expected_error_rate: float = 0.05,
    audit_half_width: float = 0.03,
    audit_every: int = 20,
) -> SizeGuidance:
    """Both figures with their wording.

    Example:
        >>> g = size_guidance()
        >>> g.icc_n, g.audit_n, g.audit_n_exact, g.production_outputs
        (218, 208, 239, 4160)
    """
    icc_n = icc_sample_size(expected_icc, half_width)
    audit_n = audit_sample_size(expected_error_rate, audit_half_width)
    audit_n_exact = audit_sample_size(expected_error_rate, audit_half_width, "clopper-pearson")
    text = (
        f"About {icc_n} outputs rated by two clinicians estimate ICC(A,1) to ±{half_width:.2f} if agreement "
        f"is near {expected_icc:.2f} (Bonett 2002; a floor for absolute agreement). Auditing {audit_n} "
        f"outputs estimates an error rate near {expected_error_rate:.0%} to ±{audit_half_width:.0%} "
        f"(half the width of the 95% Wilson interval the reports print; an exact Clopper-Pearson interval "
        f"needs {audit_n_exact}): at one audit in {audit_every}, that is {audit_n * audit_every:,} "
        "production outputs."
    )
    return SizeGuidance(
        icc_n=icc_n,
        expected_icc=expected_icc,
        half_width=half_width,
        audit_n=audit_n,
        audit_n_exact=audit_n_exact,
        expected_error_rate=expected_error_rate,
        audit_half_width=audit_half_width,
        audit_every=audit_every,
        production_outputs=audit_n * audit_every,
        text=text,
    )


def sentinels_for_bar(bar: float = CATCH_BAR) -> int:
    """Fewest sentinels at which a rater who catches every one has a Wilson lower bound at or above ``bar``.

    With all caught the Wilson lower bound is n / (n + z²), so n ≥ bar · z² / (1 − bar): 34.6 at 0.9.

    Example:
        >>> sentinels_for_bar(0.9), sentinels_for_bar(0.8)
        (35, 16)
    """
    if not 0 < bar < 1:
        raise ValueError("needs 0 < bar < 1")
    for n in range(1, _N_CAP + 1):
        if wilson_interval(n, n)[0] >= bar - 1e-12:
            return n
    raise ValueError(f"no n up to {_N_CAP:,} reaches {bar}")


def queue_warnings(n: int, double: float, sentinels: int, n_raters: int, *, bar: float = CATCH_BAR,
                   guidance: SizeGuidance | None = None) -> list[str]:
    """What a queue of these numbers cannot measure, in words, before it is made (the page and the CLI).

    Example:
        >>> [w.split(":")[0] for w in queue_warnings(20, 0.0, 0, 2)]
        ['No sentinels', 'No output is rated twice']
    """
    guidance = guidance or size_guidance()
    out = []
    needed = sentinels_for_bar(bar)
    if sentinels == 0:
        out.append("No sentinels: no rater's catch rate can be measured, so nothing shows that the raters "
                   "catch planted errors.")
    elif sentinels < needed:
        low = wilson_interval(sentinels, sentinels)[0]
        out.append(f"{sentinels} sentinel(s): a rater who catches every one has a 95% lower bound of "
                   f"{low:.2f}, below the {bar:.0%} bar; {needed} are needed for a perfect rater to clear "
                   "it.")
    twice = double_count(n, double, n_raters)
    if twice == 0:
        out.append("No output is rated twice: " + ("a single rater gives " if n_raters < 2 else "")
                   + "no clinician-clinician agreement (set a double-rated share and two raters or more).")
    elif twice < guidance.icc_n:
        out.append(f"{twice} output(s) rated twice: about {guidance.icc_n} estimate ICC(A,1) to "
                   f"±{guidance.half_width:.2f}, so the agreement's interval will be wide.")
    return out
