"""The canary's pure logic: which cases to freeze, the baseline's digest, the paired exact test, when due.

Why a frozen set of known-answer cases, compared case by case: a vendor can change the weights behind an
unchanged name and URL, and a canary asks the approved endpoint the same questions again (never the cache).
The comparison is paired: each case is correct or not at baseline and now, so only the discordant cases
carry information. McNemar's exact test is a binomial test of the cases *lost* (right then, wrong now)
among the discordant ones against 1/2; a drop is significant when the one-sided p-value P(X ≥ lost),
X ~ Bin(lost + gained, 1/2), is at most the canary's level. Its power depends on how many cases change,
not on N alone (``detectable_losses``; docs/monitoring.md has the table for the default N).

Which cases: the frozen evidence plan's runs of the approved candidate, answered without error and scored
0 or 1 against a known answer. N is split over the plan's benchmarks in proportion to their eligible cases
(largest remainder, at least one each while N allows), and within a benchmark cases are taken in the order
of a hash of the dossier id and case id: the same dossier freezes the same cases, and nobody picks them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from scipy.stats import binomtest

from governance.monitoring.records import CanaryCase, CanaryRun, CanarySet, CanaryStatus

DEFAULT_CASES = {"low": 30, "moderate": 50, "high": 80, "critical": 100}
"""Cases frozen by default, by risk tier."""
DEFAULT_EVERY_DAYS = 30
"""Days between scheduled runs by default."""
UNREACHABLE_SHARE = 0.5
"""An attempt whose answered share is below this is ``unreachable`` (an outage, not a drift)."""


def eligible(rows: Sequence[Mapping]) -> list[Mapping]:
    """Result rows with a known-answer score: answered without error and scored exactly 0 or 1."""
    return [r for r in rows if r.get("error") is None and r.get("score") in (0.0, 1.0)]


def allocate(n: int, sizes: Mapping[str, int]) -> dict[str, int]:
    """``n`` cases split over strata in proportion to their sizes (largest remainder; at least one each
    while ``n`` allows; never more than a stratum holds).

    Example:
        >>> allocate(10, {"a": 60, "b": 30, "c": 10})
        {'a': 6, 'b': 3, 'c': 1}
        >>> allocate(2, {"a": 60, "b": 30, "c": 10})
        {'a': 1, 'b': 1, 'c': 0}
    """
    keys = [k for k in sizes if sizes[k] > 0]
    total = sum(sizes[k] for k in keys)
    n = max(0, min(n, total))
    out = {k: 0 for k in sizes}
    if n == 0:
        return out
    exact = {k: n * sizes[k] / total for k in keys}
    for k in keys:
        out[k] = int(exact[k])
    for k in sorted(keys, key=lambda k: -(exact[k] - int(exact[k])))[: n - sum(out.values())]:
        out[k] += 1
    for k in keys:  # at least one each while n allows, taken from the largest share
        donor = max(keys, key=lambda j: out[j])
        if out[k] == 0 and n >= len(keys) and out[donor] > 1:
            out[k], out[donor] = 1, out[donor] - 1
    return out


def case_order(seed: str, instance_id: str) -> str:
    """The sort key that orders a dossier's cases (a hash of the dossier and case ids: nobody picks them)."""
    return hashlib.sha256(f"{seed}|{instance_id}".encode()).hexdigest()


def choose_cases(seed: str, strata: Mapping[tuple[str, str], Sequence[Mapping]], n: int) -> list[CanaryCase]:
    """``n`` known-answer cases over the strata ((benchmark, run id) → result rows), in a fixed order."""
    pools = {key: sorted(eligible(rows), key=lambda r: case_order(seed, r["instance_id"]))
             for key, rows in strata.items()}
    counts = allocate(n, {f"{b}\x00{r}": len(p) for (b, r), p in pools.items()})
    out = []
    for (bench, run_id), pool in pools.items():
        for row in pool[: counts[f"{bench}\x00{run_id}"]]:
            out.append(CanaryCase(benchmark=bench, run_id=run_id, instance_id=row["instance_id"],
                                  correct=row["score"] == 1.0))
    return out


def digest(value: object) -> str:
    """SHA-256 of a value's canonical JSON."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def baseline_digest(cases: Sequence[CanaryCase], answers: Mapping[tuple[str, str], str | None]) -> str:
    """The digest of the baseline: each case's run, id, correctness and stored parsed answer."""
    return digest([[c.run_id, c.instance_id, c.correct, answers.get((c.run_id, c.instance_id))]
                   for c in cases])


def drop_p_value(lost: int, gained: int) -> float:
    """One-sided exact McNemar p-value of a drop: P(X ≥ lost) for X ~ Bin(lost + gained, 1/2).

    Example:
        >>> drop_p_value(0, 0), round(drop_p_value(6, 0), 4), round(drop_p_value(8, 2), 4)
        (1.0, 0.0156, 0.0547)
    """
    if lost + gained == 0:
        return 1.0
    return float(binomtest(lost, lost + gained, 0.5, alternative="greater").pvalue)


def detectable_losses(alpha: float = 0.05, max_discordant: int = 40) -> dict[int, int | None]:
    """For each number of discordant cases d, the fewest lost among them that the test calls significant
    (None: none can be, e.g. d < 5 at 5%).

    Example:
        >>> detectable_losses(0.05, 6)
        {1: None, 2: None, 3: None, 4: None, 5: 5, 6: 6}
    """
    out: dict[int, int | None] = {}
    for d in range(1, max_discordant + 1):
        out[d] = next((k for k in range(d + 1) if drop_p_value(k, d - k) <= alpha), None)
    return out


def attempt_status(n: int, total: int, p_value: float, alpha: float, identity_changed: bool) -> CanaryStatus:
    """The outcome of one attempt: unreachable > identity changed > drift > in control."""
    if total == 0 or n < UNREACHABLE_SHARE * total:
        return "unreachable"
    if identity_changed:
        return "identity_changed"
    return "drift" if p_value <= alpha else "in_control"


def latest_set(monitoring: Sequence[object], candidate: str | None = None) -> CanarySet | None:
    """The canary set in force: the latest one recorded (for ``candidate`` when given)."""
    sets = [e for e in monitoring
            if isinstance(e, CanarySet) and (candidate is None or e.candidate == candidate)]
    return sets[-1] if sets else None


def next_due(canary: CanarySet, monitoring: Sequence[object]) -> datetime:
    """When the canary is next due: its last run (or its freezing) plus ``every_days``."""
    runs = [e.at for e in monitoring if isinstance(e, CanaryRun) and e.canary_id == canary.id]
    return max([canary.at, *runs]) + timedelta(days=canary.every_days)


def runs_of(canary: CanarySet, monitoring: Sequence[object]) -> list[CanaryRun]:
    """The recorded runs of ``canary``, newest first."""
    return sorted((e for e in monitoring if isinstance(e, CanaryRun) and e.canary_id == canary.id),
                  key=lambda r: r.at, reverse=True)


def reused_baseline(run: CanaryRun, canary: CanarySet) -> bool:
    """True when a run asked no model: its answers are the baseline's own stored run (the demo's seed)."""
    baseline = {c.run_id for c in canary.cases}
    return all(set(a.run_ids) <= baseline for a in run.attempts)


DAYS_PER_YEAR = 365
"""Runs per year are counted on a 365-day year."""


def canary_cost(tokens: Sequence[tuple[int | None, int | None]], price: tuple[float, float] | None,
                every_days: int) -> tuple[float | None, float, float | None]:
    """What one run and a year of scheduled runs cost: (USD per run, runs per year, USD per year).

    ``tokens`` are the baseline answers' (prompt, completion) tokens, one pair per frozen case; ``price`` is
    the endpoint's USD per 1M (input, output) tokens. The cost is None when the price or any case's tokens
    are unknown (never a silent zero). A confirmation run, asked only after a finding, is not included.

    Example:
        >>> canary_cost([(1000, 200)] * 50, (2.5, 10.0), 30)
        (0.225, 12.17, 2.7375)
    """
    per_year = round(DAYS_PER_YEAR / every_days, 2)
    if price is None or not tokens or any(p is None or c is None for p, c in tokens):
        return None, per_year, None
    run = sum(p * price[0] + c * price[1] for p, c in tokens) / 1e6  # type: ignore[operator]
    return run, per_year, run * DAYS_PER_YEAR / every_days


@dataclass(frozen=True)
class CanaryView:
    """The canary in force as a page shows it: the set, when it is next due, and its runs (newest first)."""

    canary: CanarySet
    next_due: datetime
    runs: list[CanaryRun]
    seeded: list[str]
    """Ids of runs that asked no model (their answers are the baseline's own stored run: the demo's seed)."""

    @property
    def baseline_correct(self) -> int:
        """Frozen cases answered correctly at baseline."""
        return sum(c.correct for c in self.canary.cases)

    @property
    def benchmarks(self) -> dict[str, int]:
        """Frozen cases per benchmark."""
        out: dict[str, int] = {}
        for c in self.canary.cases:
            out[c.benchmark] = out.get(c.benchmark, 0) + 1
        return out


def canary_view(monitoring: Sequence[object]) -> CanaryView | None:
    """The canary in force on a dossier's monitoring record, or None when none was set."""
    canary = latest_set(monitoring)
    if canary is None:
        return None
    runs = runs_of(canary, monitoring)
    return CanaryView(canary=canary, next_due=next_due(canary, monitoring), runs=runs,
                      seeded=[r.id for r in runs if reused_baseline(r, canary)])
