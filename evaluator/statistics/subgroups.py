"""Per-subgroup results: does the model work as well for every group the hospital serves?

Why this shape: a committee reads one table per tag (age band, sex, language, payer): each
group's score with its 95% interval, and the ratio of that score to a *reference group* (the
largest by default, as seismometer's fairness audit does; or one the committee chooses). A point
ratio outside [0.8, 1.25], the "four-fifths rule" and its reciprocal, is flagged.

This is the one disparity definition of MedAssure: the scenario page, the disparity verdicts
(``governance.rules.subgroup_verdicts``) and the PDF all read the ratio and its interval computed
here. The reference is another group, never the overall score (which contains the group itself).
The ratio's 95% interval is:

* **MOVER-Wilson** for a ratio of two proportions (every score 0 or 1): Donner & Zou's method of
  variance estimates recovery built from each group's Wilson interval (the interval the app shows
  for each group). The textbook **Katz log interval**, log RR ± 1.96 · sqrt(1/a − 1/n1 + 1/c − 1/n2),
  is kept (``katz_ratio_interval``) but not used for verdicts: at the group sizes of a local
  scenario it is too narrow near 100% correct (true ratio 0.80, 12 vs 24 cases, reference 97%:
  its lower end clears 0.80 7.7% of the time instead of 2.5%, MOVER-Wilson's 0.8%; 50 vs 100 at
  95%: 5.1% against 1.8%; ``bench/subgroup_ratio_coverage.py``), and at 24/24 vs 6/12 it rests on
  one group's variance only;
* **seeded percentile bootstrap** for a ratio of means (any other score): group and reference
  resampled independently, 2,000 times, seed 0; resamples whose reference mean is 0 are dropped.

Scores on MedHELM's 1-5 jury scale are put on 0-1 first, so a ratio means the same on every
benchmark.

Small groups are suppressed: a group with fewer than ``MIN_N`` scored cases is listed as
"suppressed (n < 10)" and neither its score, its interval nor its ratio is shown anywhere.
``MIN_N = 10`` because (1) at n = 10 a Wilson 95% interval around 0.5 already spans 0.24-0.76,
so a smaller group's ratio is mostly noise, and (2) it matches common small-cell suppression
practice (CMS's cell-size policy suppresses counts of 1-10; set ``min_n=11`` for exactly that
rule). Intervals: Wilson for 0/1 scores, a seeded percentile bootstrap otherwise.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict

from evaluator.benchmarks.instance import Instance
from evaluator.statistics.estimates import bootstrap_mean, normalize_score, wilson_interval
from evaluator.statistics.records import SubgroupScore

MIN_N = 10
RATIO_WINDOW = (0.8, 1.25)
BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED = 2000, 0
Z95 = 1.959963984540054


class Disparity(NamedTuple):
    """A group's score ÷ its reference group's score, with a 95% interval and its method."""

    ratio: float
    lower: float
    upper: float
    method: str


def katz_ratio_interval(a: float, n1: float, c: float, n2: float) -> Disparity:
    """Katz log interval for (a/n1) ÷ (c/n2); 0.5 added to counts (1 to n) when a or c is 0.

    Kept for comparison; verdicts use ``mover_ratio_interval`` (see the module docstring).

    Example:
        >>> [round(x, 3) for x in katz_ratio_interval(6, 12, 24, 24)[:3]]
        [0.5, 0.284, 0.88]
    """
    if not (0 <= a <= n1 and 0 <= c <= n2 and n1 > 0 and n2 > 0):
        raise ValueError("counts must satisfy 0 <= a <= n1, 0 <= c <= n2, n > 0")
    method = "katz"
    if a == 0 or c == 0:
        a, n1, c, n2, method = a + 0.5, n1 + 1, c + 0.5, n2 + 1, "katz (0.5 added to zero counts)"
    ratio = (a / n1) / (c / n2)
    se = math.sqrt(max(0.0, 1 / a - 1 / n1 + 1 / c - 1 / n2))
    return Disparity(ratio, ratio * math.exp(-Z95 * se), ratio * math.exp(Z95 * se), method)


def mover_ratio_interval(a: int, n1: int, c: int, n2: int) -> Disparity:
    """MOVER-Wilson interval for (a/n1) ÷ (c/n2) (Donner & Zou 2012); needs c > 0.

    Example:
        >>> [round(x, 3) for x in mover_ratio_interval(6, 12, 24, 24)[:3]]
        [0.5, 0.254, 0.768]
    """
    if not (0 <= a <= n1 and 0 < c <= n2):
        raise ValueError("counts must satisfy 0 <= a <= n1 and 0 < c <= n2")
    p1, p2 = a / n1, c / n2
    l1, u1 = wilson_interval(a, n1)
    l2, u2 = wilson_interval(c, n2)
    lower = (p1 * p2 - math.sqrt(max(0.0, (p1 * p2) ** 2 - l1 * u2 * (2 * p1 - l1) * (2 * p2 - u2)))) / (
        u2 * (2 * p2 - u2))
    upper = (p1 * p2 + math.sqrt(max(0.0, (p1 * p2) ** 2 - u1 * l2 * (2 * p1 - u1) * (2 * p2 - l2)))) / (
        l2 * (2 * p2 - l2))
    return Disparity(p1 / p2, lower, upper, "mover-wilson")


def bootstrap_ratio_interval(group: Sequence[float], reference: Sequence[float],
                             n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> Disparity:
    """Seeded percentile bootstrap of mean(group) ÷ mean(reference), both resampled.

    Example:
        >>> d = bootstrap_ratio_interval([0.2, 0.4, 0.6] * 4, [0.5, 0.7, 0.9] * 4)
        >>> round(d.ratio, 3), d.lower < d.ratio < d.upper
        (0.571, True)
    """
    g, r = np.asarray(group, dtype=float), np.asarray(reference, dtype=float)
    ratio = float(g.mean() / r.mean())
    rng = np.random.default_rng(seed)
    gm = g[rng.integers(0, len(g), (n_resamples, len(g)))].mean(axis=1)
    rm = r[rng.integers(0, len(r), (n_resamples, len(r)))].mean(axis=1)
    keep = rm > 0
    ratios = gm[keep] / rm[keep]
    lo, hi = np.percentile(ratios, [2.5, 97.5])
    return Disparity(ratio, float(lo), float(hi), "bootstrap")


def disparity(group: Sequence[float], reference: Sequence[float]) -> Disparity | None:
    """The ratio of a group to its reference with its interval (None when the reference scores 0).

    MOVER-Wilson when every score of both is 0 or 1, else the bootstrap (see the module docstring).

    Example:
        >>> disparity([1.0] * 18 + [0.0] * 6, [1.0] * 6 + [0.0] * 6).method
        'mover-wilson'
    """
    if not group or not reference or sum(reference) <= 0:
        return None
    if all(v in (0, 1) for v in (*group, *reference)):
        return mover_ratio_interval(int(sum(group)), len(group), int(sum(reference)), len(reference))
    return bootstrap_ratio_interval(group, reference)


class SubgroupRow(BaseModel):
    """One group of one tag; score fields are None when the group is suppressed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tag: str
    """Tag name, e.g. ``age_band``."""
    group: str
    """The group's value, e.g. ``65+``."""
    n: int
    """Scored cases in the group (kept for the record; not displayed when suppressed)."""
    suppressed: bool
    """True when n < min_n: score, interval and ratio are withheld."""
    score: float | None = None
    """Mean score of the group."""
    ci_lower: float | None = None
    """Lower end of the 95% interval."""
    ci_upper: float | None = None
    """Upper end of the 95% interval."""
    ci_method: str | None = None
    """``wilson`` or ``bootstrap``."""
    ratio: float | None = None
    """Score ÷ the reference group's score; None for the suppressed or when the reference scores 0."""
    ratio_lower: float | None = None
    """Lower end of the ratio's 95% interval (None for the reference itself)."""
    ratio_upper: float | None = None
    """Upper end of the ratio's 95% interval."""
    ratio_method: str | None = None
    """``mover-wilson`` (ratio of proportions) or ``bootstrap`` (ratio of means)."""
    is_reference: bool = False
    """True for the tag's reference group."""
    flagged: bool = False
    """True when the ratio lies outside the window."""


class SubgroupTable(BaseModel):
    """Subgroup results of one run, every tag, with the settings that produced them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rows: list[SubgroupRow]
    """Rows grouped by tag (tags sorted), groups largest first."""
    references: dict[str, str | None]
    """Tag → its reference group (None when every group of the tag is suppressed)."""
    min_n: int
    """Groups with fewer scored cases are suppressed."""
    window: tuple[float, float]
    """Ratios outside this closed range are flagged."""
    notes: list[str]
    """Plain-language notes (e.g. a requested reference group that was too small)."""

    def json_rows(self) -> list[dict[str, object]]:
        """Rows as typed values for a program (the CLI's JSON): a suppressed group withholds n and scores.

        Example:
            >>> t = subgroup_table([Instance(id="1", subgroups={"sex": "F"})], {"1": 1.0})
            >>> t.json_rows()[0]["n"], t.json_rows()[0]["suppressed"]
            (None, True)
        """
        out = []
        for r in self.rows:
            shown = not r.suppressed
            out.append(
                {
                    "tag": r.tag,
                    "group": r.group,
                    "suppressed": r.suppressed,
                    "n": r.n if shown else None,
                    "estimate": r.score if shown else None,
                    "lower": r.ci_lower if shown else None,
                    "upper": r.ci_upper if shown else None,
                    "method": r.ci_method if shown else None,
                    "reference": r.is_reference,
                    "ratio": r.ratio if shown and not r.is_reference else None,
                    "ratio_lower": r.ratio_lower if shown and not r.is_reference else None,
                    "ratio_upper": r.ratio_upper if shown and not r.is_reference else None,
                    "ratio_method": r.ratio_method if shown and not r.is_reference else None,
                    "flagged": r.flagged,
                }
            )
        return out

    def display_rows(self) -> list[dict[str, object]]:
        """Rows as shown to people: suppressed groups say so and show nothing else.

        Example:
            >>> t = subgroup_table([Instance(id="1", subgroups={"sex": "F"})], {"1": 1.0})
            >>> t.display_rows()[0]["score"]
            'suppressed (n < 10)'
        """
        out = []
        for r in self.rows:
            if r.suppressed:
                hidden = f"suppressed (n < {self.min_n})"
                out.append(
                    {
                        "tag": r.tag,
                        "group": r.group,
                        "n": hidden,
                        "score": hidden,
                        "95% interval": "",
                        "ratio to reference": "",
                        "ratio 95% interval": "",
                        "flag": "",
                    }
                )
                continue
            ratio = "reference" if r.is_reference else ("n/a" if r.ratio is None else f"{r.ratio:.2f}")
            ratio_ci = ("" if r.is_reference or r.ratio_lower is None
                        else f"{r.ratio_lower:.2f}–{r.ratio_upper:.2f} ({r.ratio_method})")
            out.append(
                {
                    "tag": r.tag,
                    "group": r.group,
                    "n": str(r.n),
                    "score": f"{r.score:.3f}",
                    "95% interval": f"{r.ci_lower:.3f}–{r.ci_upper:.3f} ({r.ci_method})",
                    "ratio to reference": ratio,
                    "ratio 95% interval": ratio_ci,
                    "flag": f"outside {self.window[0]}–{self.window[1]}" if r.flagged else "",
                }
            )
        return out

    def to_subgroup_scores(self) -> list[SubgroupScore]:
        """The rows as ``Evidence.subgroups`` (suppressed groups keep their n, never a score)."""
        return [
            SubgroupScore(
                tag=r.tag,
                group=r.group,
                n=r.n,
                suppressed=r.suppressed,
                score=None if r.suppressed else r.score,
                ci_lower=None if r.suppressed else r.ci_lower,
                ci_upper=None if r.suppressed else r.ci_upper,
                reference_group=self.references.get(r.tag),
                ratio=None if r.suppressed else r.ratio,
                ratio_lower=None if r.suppressed else r.ratio_lower,
                ratio_upper=None if r.suppressed else r.ratio_upper,
                ratio_method=None if r.suppressed else r.ratio_method,
            )
            for r in self.rows
        ]


def group_interval(values: Sequence[float]) -> tuple[float, float, float, str]:
    """(mean, lower, upper, method): Wilson when every value is 0 or 1, else seeded bootstrap.

    Example:
        >>> [round(x, 3) if isinstance(x, float) else x for x in group_interval([1, 1, 0, 1])]
        [0.75, 0.301, 0.954, 'wilson']
    """
    n = len(values)
    mean = sum(values) / n
    if all(v in (0, 1) for v in values):
        lo, hi = wilson_interval(sum(values), n)
        return mean, lo, hi, "wilson"
    if n == 1:
        return mean, mean, mean, "bootstrap"
    r = bootstrap_mean(list(values), n_resamples=BOOTSTRAP_RESAMPLES, seed=BOOTSTRAP_SEED)
    return mean, r.lower, r.upper, "bootstrap"


def _tag_rows(
    tag: str,
    groups: dict[str, list[float]],
    min_n: int,
    reference: str | None,
    window: tuple[float, float],
    notes: list[str],
    scale: str = "0-1",
) -> tuple[list[SubgroupRow], str | None]:
    order = sorted(groups, key=lambda g: (-len(groups[g]), g))
    shown = [g for g in order if len(groups[g]) >= min_n]
    if reference is not None and reference not in shown:
        why = "has no scored cases" if reference not in groups else f"is suppressed (n < {min_n})"
        notes.append(f"{tag}: requested reference group {reference!r} {why}; the largest group is used.")
        reference = None
    ref = reference or (shown[0] if shown else None)
    stats = {g: group_interval(groups[g]) for g in shown}
    unit = {g: [normalize_score(v, scale) for v in groups[g]] for g in shown}
    if ref is not None and sum(unit[ref]) <= 0:
        notes.append(f"{tag}: reference group {ref!r} scores 0, so ratios are undefined.")
    rows = []
    for g in order:
        if g not in stats:
            rows.append(SubgroupRow(tag=tag, group=g, n=len(groups[g]), suppressed=True))
            continue
        mean, lo, hi, method = stats[g]
        d = disparity(unit[g], unit[ref]) if ref is not None and g != ref else None
        ratio = 1.0 if g == ref and sum(unit[g]) > 0 else (d.ratio if d else None)
        rows.append(
            SubgroupRow(
                tag=tag,
                group=g,
                n=len(groups[g]),
                suppressed=False,
                score=mean,
                ci_lower=lo,
                ci_upper=hi,
                ci_method=method,
                ratio=ratio,
                ratio_lower=d.lower if d else None,
                ratio_upper=d.upper if d else None,
                ratio_method=d.method if d else None,
                is_reference=g == ref,
                flagged=ratio is not None and not (window[0] <= round(ratio, 12) <= window[1]),
            )
        )
    if not shown:
        notes.append(f"{tag}: every group has fewer than {min_n} scored cases; nothing can be shown.")
    return rows, ref


def subgroup_table(
    instances: Sequence[Instance],
    scores: Mapping[str, float | None],
    *,
    min_n: int = MIN_N,
    reference_groups: Mapping[str, str] | None = None,
    window: tuple[float, float] = RATIO_WINDOW,
    scale: str = "0-1",
) -> SubgroupTable:
    """Per-tag, per-group results of one run.

    Args:
        instances: the cases with their ``subgroups`` tags.
        scores: instance id → score; missing or None (errored, unscored) cases are left out.
        min_n: groups with fewer scored cases are suppressed.
        reference_groups: tag → reference group; the largest shown group for tags not named.
        window: point ratios outside this range are flagged.
        scale: the scores' scale; ``1-5`` jury scores are put on 0-1 before ratios are taken.

    Example:
        >>> cases = [Instance(id=str(i), subgroups={"sex": "F" if i < 20 else "M"}) for i in range(32)]
        >>> t = subgroup_table(cases, {str(i): float(i < 20 or i % 2) for i in range(32)})
        >>> [(r.group, round(r.ratio, 2), r.flagged) for r in t.rows]
        [('F', 1.0, False), ('M', 0.5, True)]
    """
    if min_n < 1:
        raise ValueError("min_n must be at least 1")
    by_tag: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for inst in instances:
        value = scores.get(inst.id)
        if value is None:
            continue
        for tag, group in inst.subgroups.items():
            by_tag[tag][group].append(float(value))
    rows: list[SubgroupRow] = []
    refs: dict[str, str | None] = {}
    notes: list[str] = []
    for tag in sorted(by_tag):
        tag_rows, refs[tag] = _tag_rows(
            tag, by_tag[tag], min_n, (reference_groups or {}).get(tag), window, notes, scale
        )
        rows += tag_rows
    return SubgroupTable(rows=rows, references=refs, min_n=min_n, window=window, notes=notes)
