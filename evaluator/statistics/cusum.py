"""CUSUM charts for monitoring an approved model in production, with their run lengths and limits.

Why this shape: a committee sets a false-alarm budget (a target in-control average run length,
ARL0, e.g. one false alarm per 500 outputs), not a decision limit, so every chart here comes with
the function that turns the target into its limit and the function that says how fast it detects a
shift (the detection delay). All are pure functions of numbers; the monitoring stage decides what a
signal means.

* **Bernoulli CUSUM** (Reynolds & Stoumbos 1999) on 0/1 outcomes (a material correction or not):
  the log-likelihood ratio of a rate shift p0 -> p1, ``w = ln(p1/p0)`` on an event and
  ``ln((1-p1)/(1-p0))`` otherwise, ``S_t = max(0, S_{t-1} + w_t)``, a signal when ``S_t >= h``.
  Its ARL comes from a Markov chain (Brook & Evans 1972) with no discretisation: since the last
  restart at 0 the statistic is ``n1 * w1 + n0 * w0`` for whole counts n1 (events) and n0, so
  the chain's states are those pairs with a value in (0, h), a sparse system with two transitions
  per state. Only excursions of more than L events are cut, once by signalling and once by
  restarting (bounds from below and above, as the CUSUM is monotone in its state), with L doubled
  until the bounds agree to a relative 1e-9: exact to that tolerance, unlike the integer-scaled
  weights of Reynolds & Stoumbos 1999, which round ``w1 / w0`` to a ratio of integers.
  The ARL is a step function of ``h``, so the limit is the smallest ``h`` on a 0.001 grid whose
  ARL0 reaches the target, and the ARL it achieves is reported beside it (``CusumMonitor.arl0``).
* **Two-sided standardized CUSUM** on a continuous metric (judge score, latency) with a known
  in-control mean and sd: ``U_t = max(0, U_{t-1} + z_t - k)``, ``L_t = max(0, L_{t-1} - z_t - k)``,
  a signal when either reaches ``h``. Its ARL for normal data is the one-sided integral equation
  solved by Gauss-Legendre Nystrom quadrature (r = 60 nodes) combined as ``1/ARL = 1/ARL+ + 1/ARL-``
  (Lucas & Crosier 1982), matching R ``spc``'s ``xcusum.arl(k, h, mu, sided="two")`` and
  ``xcusum.crit`` (tests/evaluator/statistics/test_cusum.py gives the measured differences).

Conventions: run lengths count observations, the first one included; all ARLs are zero-state (the
chart starts at 0 when the shift starts, as spc's ``xcusum.arl`` does). A path restarts at 0 after
each signal, so a chart can show every alarm, and ``signal_index`` is the first (0-based).
Assumptions: outcomes are independent given the rate (no autocorrelation, no batching); the
standardized chart assumes approximately normal data with the stated mean and sd.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, sparse, stats
from scipy.sparse.linalg import spsolve
from threadpoolctl import ThreadpoolController

_BLAS = ThreadpoolController()
"""The chains here are small (60 to a few thousand states): one BLAS thread solves them in milliseconds,
while the default thread pool on a loaded 2-core machine took 47 s for one ARL (measured in the demo's
seeding). Every public computation below runs with one BLAS thread."""


def _one_blas_thread(fn):
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        with _BLAS.limit(limits=1, user_api="blas"):
            return fn(*args, **kwargs)
    return wrapped

MAX_STATES = 1_000_000
"""Largest Bernoulli chain solved (the default design, p0 = 0.02 -> 0.04 at ARL0 500, needs about 1,000)."""
H_GRID = 0.001
"""The Bernoulli limit is the smallest multiple of this whose in-control ARL reaches the target."""
NODES = 60
"""Gauss-Legendre nodes for the standardized CUSUM's integral equation."""


@dataclass(frozen=True)
class CusumPath:
    """The statistic after each observation, the decision limit and where it first signalled.

    Example:
        >>> bernoulli_cusum_path([True, True, False], 0.1, 0.2, 1.0).signal_index
        1
    """

    values: list[float]
    """The chart statistic after each observation (two-sided: the larger of upper and lower)."""
    limit: float
    """The decision limit h."""
    signal_index: int | None
    """0-based index of the first observation at which the statistic reached the limit, else None."""
    signals: list[int] = field(default_factory=list)
    """Every signalling index (the path restarts at 0 after each)."""
    upper: list[float] | None = None
    """Two-sided standardized chart only: the upper statistic (a rise)."""
    lower: list[float] | None = None
    """Two-sided standardized chart only: the lower statistic (a fall)."""


@dataclass(frozen=True)
class CusumMonitor:
    """A Bernoulli CUSUM design chosen from a baseline rate, and its path over the outcomes.

    Example:
        >>> m = bernoulli_cusum_monitor([False] * 10, 0.02)
        >>> (m.p1, m.path.signal_index, m.arl0 >= 500)
        (0.04, None, True)
    """

    baseline_rate: float
    """The in-control rate p0 the chart was designed for."""
    p0: float
    """In-control rate (the baseline)."""
    p1: float
    """The out-of-control rate the chart is tuned to detect (``shift`` x p0)."""
    shift: float
    """p1 / p0."""
    limit: float
    """The decision limit h (log-likelihood units)."""
    target_arl0: float
    """The committee's target: outputs per false alarm."""
    arl0: float
    """The in-control ARL the limit achieves (at least the target; the ARL is a step function of h)."""
    detection_delay: float
    """Expected outputs to a signal once the rate is p1 (zero-state ARL at p1)."""
    path: CusumPath
    """The chart over the outcomes."""


def _check_rates(p0: float, p1: float) -> None:
    if not (0 < p0 < p1 < 1):
        raise ValueError(f"the rates must satisfy 0 < p0 < p1 < 1 (got p0={p0}, p1={p1})")


def _weights(p0: float, p1: float) -> tuple[float, float]:
    _check_rates(p0, p1)
    return math.log(p1 / p0), math.log((1 - p1) / (1 - p0))


def _run_path(increments: Sequence[float], h: float) -> tuple[list[float], list[int]]:
    values, signals, s = [], [], 0.0
    for i, w in enumerate(increments):
        s = max(0.0, s + w)
        values.append(s)
        if s >= h:
            signals.append(i)
            s = 0.0
    return values, signals


def bernoulli_cusum_path(outcomes: Sequence[bool], p0: float, p1: float, h: float) -> CusumPath:
    """Bernoulli CUSUM of the log-likelihood ratio for a rate shift p0 -> p1 over 0/1 outcomes.

    ``S_t = max(0, S_{t-1} + w_t)`` with ``w_t = ln(p1/p0)`` when outcome t is an event, else
    ``ln((1-p1)/(1-p0))``; a signal when ``S_t >= h``, after which the path restarts at 0. The
    value recorded at a signal is the one that reached ``h``.

    Example:
        >>> path = bernoulli_cusum_path([False, True, True], p0=0.1, p1=0.2, h=1.2)
        >>> [round(v, 3) for v in path.values], path.signal_index
        ([0.0, 0.693, 1.386], 2)
    """
    if h <= 0:
        raise ValueError(f"the limit h must be positive (got {h})")
    w1, w0 = _weights(p0, p1)
    values, signals = _run_path([w1 if bool(x) else w0 for x in outcomes], h)
    return CusumPath(values, h, signals[0] if signals else None, signals)


@_one_blas_thread
def bernoulli_cusum_arl(p: float, p0: float, p1: float, h: float) -> float:
    """Average run length of the Bernoulli CUSUM (p0 -> p1, limit h) when the true rate is p.

    Zero-state, by the exact Markov chain of the module docstring (relative error below 1e-9).

    Example:
        >>> round(bernoulli_cusum_arl(0.1, 0.1, 0.2, 0.5), 6)  # the first event signals: 1/p
        10.0
    """
    if not 0 < p < 1:
        raise ValueError(f"the true rate p must be between 0 and 1 (got {p})")
    if h <= 0:
        raise ValueError(f"the limit h must be positive (got {h})")
    w1, w0 = _weights(p0, p1)
    return _bernoulli_arl(p, w1, w0, h)


def _layered_chain(p: float, w1: float, u: float, h: float, layers: int, reset: bool) -> float:
    """Zero-state ARL of the chart whose excursions are cut after ``layers`` events.

    A state is (n1, j): n1 events and j non-events since the last restart at 0, value
    ``n1 * w1 - j * u`` in (0, h); index 0 is the restart itself. An event moves to (n1 + 1, j) or
    signals, a non-event to (n1, j + 1) or back to 0. At the last layer an event either signals
    (``reset=False``) or restarts at 0 (``reset=True``).
    """
    n1 = np.arange(1, layers + 1)
    lo = np.maximum(0, np.floor((n1 * w1 - h) / u).astype(np.int64) + 1)  # v < h
    hi = np.ceil(n1 * w1 / u).astype(np.int64) - 1  # v > 0
    sizes = np.maximum(hi - lo + 1, 0)
    size = 1 + int(sizes.sum())
    if size > MAX_STATES:
        raise ValueError(f"this design needs more than {MAX_STATES:,} chain states: "
                         "raise p0 or lower the target")
    offset = np.concatenate([[1], 1 + np.cumsum(sizes)[:-1]])
    layer = np.repeat(np.arange(layers), sizes)  # 0-based layer of each state
    j = lo[layer] + np.arange(size - 1) - np.repeat(offset - 1, sizes)
    state = np.arange(1, size)
    rows, cols, probs = [np.array([0])], [np.array([0])], [np.array([1 - p])]  # restart, non-event

    def move(src: np.ndarray, dst: np.ndarray, prob: float) -> None:
        rows.append(src)
        cols.append(dst)
        probs.append(np.full(len(src), prob))

    if w1 < h:
        move(np.array([0]), np.array([1]), p)  # from the restart an event lands on (1, 0)
    fall = j + 1 <= hi[layer]  # a non-event keeps the value above 0, else back to the restart
    move(state, np.where(fall, state + 1, 0), 1 - p)
    nxt = np.minimum(layer + 1, layers - 1)
    climb = (layer + 1 < layers) & (j >= lo[nxt])  # the event leaves the value below h
    move(state[climb], offset[nxt[climb]] + j[climb] - lo[nxt[climb]], p)
    if reset:  # at the last layer, an event that would stay below h restarts instead
        cut = (layer + 1 == layers) & ((layers + 1) * w1 - j * u < h)
        move(state[cut], np.zeros(int(cut.sum()), dtype=np.int64), p)
    rows, cols, probs = np.concatenate(rows), np.concatenate(cols), np.concatenate(probs)
    q = sparse.csc_matrix((probs, (rows, cols)), shape=(size, size))
    return float(spsolve(sparse.identity(size, format="csc") - q, np.ones(size))[0])


def _bernoulli_arl(p: float, w1: float, w0: float, h: float) -> float:
    """Exact ARL of the chart with event weight w1 > 0 and non-event weight w0 < 0.

    Excursions with more than ``layers`` events are cut, once by signalling (a lower bound: a
    signal can only come sooner) and once by restarting at 0 (an upper bound: the CUSUM is
    monotone in its state); ``layers`` doubles until the two agree to a relative 1e-9.
    """
    if w1 >= h:  # the first event signals: a geometric run length
        return 1.0 / p
    layers = math.ceil(h / w1) + 8
    while True:
        low = _layered_chain(p, w1, -w0, h, layers, reset=False)
        high = _layered_chain(p, w1, -w0, h, layers, reset=True)
        if high - low <= 1e-9 * low:
            return (low + high) / 2
        layers *= 2


def bernoulli_cusum_limit(p0: float, p1: float, target_arl0: float = 500) -> float:
    """Smallest limit h (on a 0.001 grid) whose in-control ARL at p0 is at least ``target_arl0``.

    Bisection on the grid: the ARL is non-decreasing in h (a higher limit can only signal later on
    every path), and a step function of it, so the achieved ARL0 may exceed the target a little.
    Every h up to the event weight ``ln(p1/p0)`` gives the same chart (the first event signals,
    ARL0 = 1/p0); when that already meets the target (a rare event, target <= 1/p0) the result is
    the largest such h on the grid, so the limit reads "one event signals" rather than 0.001.
    Results are cached (a pure function of its three numbers).

    Example:
        >>> h = bernoulli_cusum_limit(0.02, 0.04, 500)
        >>> bernoulli_cusum_arl(0.02, 0.02, 0.04, h) >= 500 > bernoulli_cusum_arl(0.02, 0.02, 0.04, h - 0.001)
        True
    """
    _check_rates(p0, p1)
    if not 1 < target_arl0 <= 1e7:
        raise ValueError(f"the target ARL0 must be above 1 and at most 1e7 (got {target_arl0})")
    return _limit(float(p0), float(p1), float(target_arl0))


@functools.lru_cache(maxsize=256)
@_one_blas_thread
def _limit(p0: float, p1: float, target_arl0: float) -> float:
    w1, w0 = _weights(p0, p1)
    lo = max(0, math.ceil(w1 / H_GRID - 1e-9) - 1)  # the largest grid h <= w1: the first event signals
    if lo > 0 and 1 / p0 >= target_arl0:
        return round(lo * H_GRID, 3)
    hi = lo + 1  # grid indices with ARL(lo) < target <= ARL(hi)
    while _bernoulli_arl(p0, w1, w0, hi * H_GRID) < target_arl0:
        lo, hi = hi, hi + 2 * (hi - lo)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _bernoulli_arl(p0, w1, w0, mid * H_GRID) >= target_arl0:
            hi = mid
        else:
            lo = mid
    return round(hi * H_GRID, 3)


def standardized_cusum_path(values: Sequence[float], mean: float, sd: float, k: float = 0.5,
                            h: float | None = None) -> CusumPath:
    """Two-sided CUSUM of standardized values ``z = (x - mean) / sd`` with reference value k.

    ``U_t = max(0, U_{t-1} + z_t - k)`` and ``L_t = max(0, L_{t-1} - z_t - k)``; a signal when
    either reaches ``h`` (default: the limit for an in-control ARL of 500), after which both
    restart at 0. ``values`` holds ``max(U_t, L_t)``; ``upper`` and ``lower`` the two sides.

    Example:
        >>> path = standardized_cusum_path([10, 13, 13], mean=10, sd=1, k=0.5, h=4)
        >>> path.upper, path.signal_index
        ([0.0, 2.5, 5.0], 2)
    """
    if not sd > 0:
        raise ValueError(f"the standard deviation must be positive (got {sd})")
    if h is None:
        h = standardized_cusum_limit(k, 500)
    if h <= 0 or k < 0:
        raise ValueError(f"need h > 0 and k >= 0 (got h={h}, k={k})")
    scores = []
    for i, x in enumerate(values):
        z = (float(x) - mean) / sd
        if not math.isfinite(z):
            raise ValueError(f"value {i} is not a finite number")
        scores.append(z)
    return two_sided_path(scores, k, h)


def two_sided_path(scores: Sequence[float], k: float, h: float) -> CusumPath:
    """The two-sided CUSUM of scores already standardized (``standardized_cusum_path``'s recursion and
    restart; the self-starting chart feeds it its own scores).

    Example:
        >>> two_sided_path([0.0, 3.0, 3.0], k=0.5, h=4).signal_index
        2
    """
    up, down, upper, lower, signals = 0.0, 0.0, [], [], []
    for i, z in enumerate(scores):
        up, down = max(0.0, up + z - k), max(0.0, down - z - k)
        upper.append(up)
        lower.append(down)
        if up >= h or down >= h:
            signals.append(i)
            up = down = 0.0
    return CusumPath([max(u, d) for u, d in zip(upper, lower, strict=True)], h,
                     signals[0] if signals else None, signals, upper, lower)


def _one_sided_arl(k: float, h: float, mu: float) -> float:
    """Upper CUSUM's zero-state ARL for N(mu, 1): Nystrom on Gauss-Legendre nodes plus the atom at 0."""
    x, w = np.polynomial.legendre.leggauss(NODES)
    z = h / 2 * (x + 1)
    w = h / 2 * w
    shift = k - mu
    a = np.empty((NODES + 1, NODES + 1))
    start = np.concatenate([[0.0], z])  # row 0: from the restart at 0; rows 1..: from each node
    a[:, 0] = stats.norm.cdf(shift - start)  # falls to 0
    a[:, 1:] = w * stats.norm.pdf(z[None, :] - start[:, None] + shift)
    return float(np.linalg.solve(np.eye(NODES + 1) - a, np.ones(NODES + 1))[0])


@_one_blas_thread
def standardized_cusum_arl(k: float, h: float, mu: float = 0.0) -> float:
    """Zero-state ARL of the two-sided standardized CUSUM (k, h) for N(mu, 1) data.

    Each side's ARL solves the integral equation ``L(z) = 1 + L(0) Phi(k - mu - z) +
    int_0^h L(y) phi(y - z + k - mu) dy`` by Gauss-Legendre Nystrom quadrature; the two sides
    combine as ``1/ARL = 1/ARL+(mu) + 1/ARL+(-mu)`` (Lucas & Crosier 1982). Matches R spc's
    ``xcusum.arl(k, h, mu, sided="two")``.

    Example:
        >>> round(standardized_cusum_arl(0.5, 4.0), 1)
        167.7
    """
    if h <= 0 or k < 0:
        raise ValueError(f"need h > 0 and k >= 0 (got h={h}, k={k})")
    up, down = _one_sided_arl(k, h, mu), _one_sided_arl(k, h, -mu)
    return 1.0 / (1.0 / up + 1.0 / down)


@_one_blas_thread
def standardized_cusum_limit(k: float = 0.5, target_arl0: float = 500) -> float:
    """The limit h at which the two-sided standardized CUSUM's in-control ARL equals the target.

    Root of ``standardized_cusum_arl(k, h) - target_arl0`` (Brent, to 1e-9), as R spc's
    ``xcusum.crit(k, L0, sided="two")``.

    Example:
        >>> round(standardized_cusum_limit(0.5, 500), 2)
        5.07
    """
    if k < 0 or not 1 < target_arl0 <= 1e7:
        raise ValueError(f"need k >= 0 and a target ARL0 between 1 and 1e7 (got k={k}, {target_arl0})")
    hi = 1.0
    while standardized_cusum_arl(k, hi) < target_arl0:
        hi *= 2
    return float(optimize.brentq(lambda h: standardized_cusum_arl(k, h) - target_arl0, 1e-6, hi, xtol=1e-9))


def detection_delay(kind: str, h: float, *, p0: float | None = None, p1: float | None = None,
                    k: float = 0.5, shift: float | None = None) -> float:
    """Expected run length once the process has shifted: the zero-state ARL at the shifted parameter.

    ``kind="bernoulli"``: the chart (p0 -> p1, default p1 = 2 p0) when the true rate is
    ``shift`` x p0 (default 2, a doubling). ``kind="standardized"``: the two-sided chart (k, h)
    when the mean has moved by ``shift`` sd (default 1). Zero-state: the chart is at 0 when the
    shift starts; a shift arriving after a long quiet stretch finds it near 0 too, since the
    in-control statistic sits at 0 most of the time.

    Example:
        >>> detection_delay("standardized", h=4.0) < detection_delay("standardized", h=5.0)
        True
    """
    if kind == "bernoulli":
        if p0 is None:
            raise ValueError("the Bernoulli detection delay needs p0")
        p1 = 2 * p0 if p1 is None else p1
        rate = (2.0 if shift is None else shift) * p0
        return bernoulli_cusum_arl(rate, p0, p1, h)
    if kind == "standardized":
        return standardized_cusum_arl(k, h, 1.0 if shift is None else shift)
    raise ValueError(f"kind must be 'bernoulli' or 'standardized' (got {kind!r})")


def audit_sample_size(bar: float, shifted_rate: float, power: float = 0.8, alpha: float = 0.05) -> int:
    """Audits needed in one month to show a material-correction rate of ``shifted_rate`` is above ``bar``.

    One-sided exact binomial test of H0: rate <= bar, rejecting when the number of material
    corrections x reaches the smallest c with P(X >= c | bar) <= alpha; returns the smallest n
    whose power P(X >= c | shifted_rate) reaches ``power``. The exact test's power is a sawtooth in
    n, so a few larger n may fall just below ``power`` again.

    Example:
        >>> audit_sample_size(0.05, 0.15)
        52
    """
    if not (0 < bar < shifted_rate < 1 and 0 < power < 1 and 0 < alpha < 1):
        raise ValueError("need 0 < bar < shifted rate < 1 and power and alpha between 0 and 1 "
                         f"(got bar={bar}, shifted rate={shifted_rate}, power={power}, alpha={alpha})")
    start = 1
    while start <= 10_000_000:
        n = np.arange(start, start * 2)
        critical = stats.binom.isf(alpha, n, bar) + 1  # smallest c with P(X >= c | bar) <= alpha
        ok = stats.binom.sf(critical - 1, n, shifted_rate) >= power
        if ok.any():
            return int(n[np.argmax(ok)])
        start *= 2
    raise ValueError(f"more than 10 million audits would be needed to tell {shifted_rate} from {bar}")


def bernoulli_cusum_monitor(outcomes: Sequence[bool], baseline_rate: float, target_arl0: float = 500,
                            shift: float = 2.0) -> CusumMonitor:
    """Design a Bernoulli CUSUM from a baseline rate and run it over chronological 0/1 outcomes.

    p0 = ``baseline_rate``, p1 = ``shift`` x p0, h = ``bernoulli_cusum_limit(p0, p1, target_arl0)``;
    the detection delay is the zero-state ARL at p1. A baseline of 0 cannot be monitored this way
    (the chart would signal on the first event): the caller chooses a floor and says so.

    Example:
        >>> m = bernoulli_cusum_monitor([False] * 5 + [True] * 5, 0.02)
        >>> (m.limit, m.path.signal_index, round(m.detection_delay))
        (1.523, 7, 122)
    """
    p0 = baseline_rate
    if not p0 > 0 or not shift > 1 or not shift * p0 < 1:
        raise ValueError(f"need a baseline rate above 0 and a shift above 1 with shift x rate below 1 "
                         f"(got rate={p0}, shift={shift})")
    p1 = shift * p0
    h = bernoulli_cusum_limit(p0, p1, target_arl0)
    return CusumMonitor(
        baseline_rate=p0, p0=p0, p1=p1, shift=shift, limit=h, target_arl0=target_arl0,
        arl0=bernoulli_cusum_arl(p0, p0, p1, h), detection_delay=bernoulli_cusum_arl(p1, p0, p1, h),
        path=bernoulli_cusum_path(outcomes, p0, p1, h))
