"""Per-subgroup results: does the model work as well for every group the hospital serves?

Why this shape: a committee reads one table per tag (age band, sex, language, payer): each
group's score with its 95% interval, and the ratio of that score to a *reference group* (the
largest by default, as seismometer's fairness audit does; selectable). A ratio outside
[0.8, 1.25], the "four-fifths rule" and its reciprocal, is flagged. The ratio is a point
estimate and is shown beside the intervals, not instead of them.

Small groups are suppressed: a group with fewer than ``MIN_N`` scored cases is listed as
"suppressed (n < 10)" and neither its score, its interval nor its ratio is shown anywhere.
``MIN_N = 10`` because (1) at n = 10 a Wilson 95% interval around 0.5 already spans 0.24-0.76,
so a smaller group's ratio is mostly noise, and (2) it matches common small-cell suppression
practice (CMS's cell-size policy suppresses counts of 1-10; set ``min_n=11`` for exactly that
rule). Intervals: Wilson for 0/1 scores, a seeded percentile bootstrap otherwise.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from evaluator.evidence import SubgroupScore
from evaluator.instance import Instance
from evaluator.stats import bootstrap_mean, wilson_interval

MIN_N = 10
RATIO_WINDOW = (0.8, 1.25)
BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED = 2000, 0


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
                        "flag": "",
                    }
                )
                continue
            ratio = "reference" if r.is_reference else ("n/a" if r.ratio is None else f"{r.ratio:.2f}")
            out.append(
                {
                    "tag": r.tag,
                    "group": r.group,
                    "n": str(r.n),
                    "score": f"{r.score:.3f}",
                    "95% interval": f"{r.ci_lower:.3f}–{r.ci_upper:.3f} ({r.ci_method})",
                    "ratio to reference": ratio,
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
) -> tuple[list[SubgroupRow], str | None]:
    order = sorted(groups, key=lambda g: (-len(groups[g]), g))
    shown = [g for g in order if len(groups[g]) >= min_n]
    if reference is not None and reference not in shown:
        why = "has no scored cases" if reference not in groups else f"is suppressed (n < {min_n})"
        notes.append(f"{tag}: requested reference group {reference!r} {why}; the largest group is used.")
        reference = None
    ref = reference or (shown[0] if shown else None)
    stats = {g: group_interval(groups[g]) for g in shown}
    ref_score = stats[ref][0] if ref else None
    if ref is not None and not ref_score:
        notes.append(f"{tag}: reference group {ref!r} scores 0, so ratios are undefined.")
    rows = []
    for g in order:
        if g not in stats:
            rows.append(SubgroupRow(tag=tag, group=g, n=len(groups[g]), suppressed=True))
            continue
        mean, lo, hi, method = stats[g]
        ratio = mean / ref_score if ref_score else None
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
) -> SubgroupTable:
    """Per-tag, per-group results of one run.

    Args:
        instances: the cases with their ``subgroups`` tags.
        scores: instance id → score; missing or None (errored, unscored) cases are left out.
        min_n: groups with fewer scored cases are suppressed.
        reference_groups: tag → reference group; the largest shown group for tags not named.
        window: ratios outside this range are flagged.

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
            tag, by_tag[tag], min_n, (reference_groups or {}).get(tag), window, notes
        )
        rows += tag_rows
    return SubgroupTable(rows=rows, references=refs, min_n=min_n, window=window, notes=notes)
