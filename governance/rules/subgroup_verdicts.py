"""Subgroup disparity: is any group's score too far from its reference group's?

Why a reference group and not the overall score: the overall score contains the group itself (a
large group pulls it towards its own score) and its uncertainty was ignored, so the old ratio to
the overall understated gaps. The verdict now uses the one disparity definition of
``evaluator.statistics.subgroups``: each group ÷ its tag's reference group (the largest by default, or the one
the committee chose on the scenario page), with a MOVER-Wilson interval for a ratio of proportions
or a seeded bootstrap interval for a ratio of means. Both travel on the evidence record
(``SubgroupScore.ratio_lower`` / ``ratio_upper``), so page, verdict and PDF show the same numbers.

A record made before that definition (or imported) carries only group scores; then the reference
is the largest reported group and, for a share of correct outputs whose group scores are whole
counts, the MOVER-Wilson interval is computed here from those counts; otherwise the ratio is a point
estimate without an interval and says so.

Per subgroup tag (``sex``, ``age_band``, ...), the verdict *fails* when any group's ratio interval
lies wholly outside the window, *passes* when every compared group's interval lies wholly inside
it, and is *inconclusive* otherwise. Suppressed groups (too small to report) are listed in the
reason and in ``suppressed_groups``, never silently dropped: the recommendation names each one
as a condition, since a pass on the other groups says nothing about them. Further cases for a
straddling group assume the log-ratio interval narrows as 1/√n with new cases arriving in today's
group mix, and that the ratio stays at today's estimate (so they settle it about half the time, not
reliably).
"""

from __future__ import annotations

import math

from evaluator.evidence.record import Evidence, SubgroupScore
from evaluator.statistics.estimates import normalize_score
from evaluator.statistics.subgroups import mover_ratio_interval
from governance.evidence.select import is_share
from governance.rules.verdict_math import fmt, scaled_total_n


def _reference(groups: list[SubgroupScore]) -> SubgroupScore:
    named = {g.reference_group for g in groups if g.reference_group}
    for g in groups:
        if g.group in named:
            return g
    return sorted(groups, key=lambda g: (-g.n, g.group))[0]


def _counts(g: SubgroupScore) -> int | None:
    k = g.score * g.n
    return round(k) if abs(k - round(k)) < 1e-6 else None


def _ratio(g: SubgroupScore, ref: SubgroupScore, e: Evidence) -> tuple[float | None, float | None,
                                                                       float | None, str | None]:
    """(ratio, lower, upper, method) of ``g`` to ``ref``; interval ends None when none is known."""
    if g.ratio is not None and g.ratio_lower is not None and g.reference_group == ref.group:
        return g.ratio, g.ratio_lower, g.ratio_upper, g.ratio_method
    ref_score = normalize_score(ref.score, e.scale)
    if ref_score <= 0:
        return None, None, None, None
    est = normalize_score(g.score, e.scale) / ref_score
    a, c = _counts(g), _counts(ref)
    if is_share(e) and a is not None and c is not None and c > 0:
        d = mover_ratio_interval(a, g.n, c, ref.n)
        return d.ratio, d.lower, d.upper, d.method
    return est, None, None, None


def _place(lo: float, hi: float, window: tuple[float, float]) -> str:
    a, b = window
    lo, hi = round(lo, 12), round(hi, 12)
    if lo >= a and hi <= b:
        return "inside"
    if hi < a or lo > b:
        return "outside"
    return "straddles"


def _more_cases(ratio: float, lo: float, hi: float, window: tuple[float, float], g_n: int,
                total: int) -> int | None:
    """Further cases (all groups) until the log-ratio interval clears every window edge it straddles."""
    a, b = (round(x, 12) for x in window)
    lo_r, hi_r = round(lo, 12), round(hi, 12)
    straddled = [edge for edge, hit in ((a, lo_r < a <= hi_r), (b, lo_r <= b < hi_r)) if hit]
    if not straddled or g_n <= 0 or min(ratio, lo, *straddled) <= 0:
        return None
    needed = []
    for edge in straddled:
        total_n = scaled_total_n(math.log(ratio), math.log(lo), math.log(hi), math.log(edge), g_n)
        if total_n is None:
            return None
        needed.append(total_n)
    return max(1, math.ceil((max(needed) - g_n) * total / g_n))


def subgroup_verdicts(rule, e: Evidence) -> list[dict]:
    """One verdict dict per subgroup tag of one evidence record.

    Example:
        >>> from datetime import UTC, datetime
        >>> g = [SubgroupScore(tag="sex", group="F", score=0.8, n=200, ci_lower=0.74, ci_upper=0.85),
        ...      SubgroupScore(tag="sex", group="M", score=0.4, n=200, ci_lower=0.33, ci_upper=0.47)]
        >>> e = Evidence(id="x", model="m", benchmark="b", metric="acc", score=0.6, n=400, ci_lower=0.55,
        ...              ci_upper=0.65, ci_method="bootstrap", provenance="local-run", source="r",
        ...              date=datetime.now(UTC), subgroups=g)
        >>> class R: ratio_lo, ratio_hi, allow_point_estimate = 0.8, 1.25, False
        >>> subgroup_verdicts(R, e)[0]["status"]
        'fail'
    """
    window = (rule.ratio_lo, rule.ratio_hi)
    base = dict(threshold=rule.ratio_lo, threshold_upper=rule.ratio_hi, direction="within", n=e.n)
    if e.subgroups is None:
        return [base | dict(status="inconclusive", reason=f"{e.benchmark}: no subgroup results reported.")]
    tags: dict[str, list[SubgroupScore]] = {}
    for g in e.subgroups:
        tags.setdefault(g.tag, []).append(g)
    out = []
    total = e.n or sum(g.n for g in e.subgroups)
    for tag, groups in tags.items():
        shown = [g for g in groups if not g.suppressed]
        hidden = [g.group for g in groups if g.suppressed]
        note = f" Suppressed (too small to report): {', '.join(hidden)}." if hidden else ""
        named = [f"{tag}={g}" for g in hidden]
        if len(shown) < 2:
            why = "every group suppressed" if not shown else "only one group reported, nothing to compare"
            out.append(base | dict(status="inconclusive", suppressed_groups=named,
                                   reason=f"{e.benchmark}, {tag}: {why}.{note}"))
            continue
        ref = _reference(shown)
        head = (f"{e.benchmark}, {tag}: ratio to reference group {ref.group} "
                f"({fmt(normalize_score(ref.score, e.scale))}, n={ref.n})")
        if normalize_score(ref.score, e.scale) <= 0:
            out.append(base | dict(status="inconclusive", suppressed_groups=named,
                                   reason=f"{head}: the reference scores 0, so ratios are undefined.{note}"))
            continue
        places, worst, more, parts, no_ci = [], None, [], [], []
        for g in shown:
            if g is ref:
                continue
            est, lo, hi, method = _ratio(g, ref, e)
            if lo is None:
                no_ci.append(g.group)
                lo = hi = est
                place = _place(lo, hi, window) if rule.allow_point_estimate else "straddles"
                parts.append(f"{g.group} {fmt(est, 2)} (no interval, n={g.n})")
            else:
                place = _place(lo, hi, window)
                if place == "straddles":
                    more.append(_more_cases(est, lo, hi, window, g.n, total))
                parts.append(f"{g.group} {fmt(est, 2)} ({fmt(lo, 2)}–{fmt(hi, 2)} {method}, n={g.n})")
            places.append(place)
            if worst is None or abs(math.log(max(est, 1e-9))) > abs(math.log(max(worst[0], 1e-9))):
                worst = (est, lo, hi, f"{tag} {g.group} against {ref.group}")
        status = ("fail" if "outside" in places
                  else "pass" if all(p == "inside" for p in places) else "inconclusive")
        extra = ""
        if no_ci and not rule.allow_point_estimate:
            extra = (f" No interval for {', '.join(no_ci)}, and point estimates are not accepted "
                     "for this rule.")
        known = [m for m in more if m is not None]
        settle = status == "inconclusive" and bool(known)
        if settle:
            extra += (f" About {max(known):,} more cases (in today's group mix) would clear the window if "
                      "the ratio stays at today's estimate (about an even chance).")
        out.append(base | dict(
            status=status, estimate=worst[0], ci_lower=worst[1], ci_upper=worst[2], group_compared=worst[3],
            further_cases=max(known) if settle else None,
            further_cases_method="log-ratio interval narrowing as 1/√n, cases arriving in today's group mix, "
                                 "ratio unchanged (about 50% power)" if settle else None,
            point_estimate_only=bool(no_ci), suppressed_groups=named,
            reason=(f"{head}: {'; '.join(parts)}; window {fmt(rule.ratio_lo, 2)}–{fmt(rule.ratio_hi, 2)}."
                    f"{extra}{note}")))
    return out
