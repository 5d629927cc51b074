"""Subgroup disparity: is any group's score too far from the overall score?

Why ratios to the overall score: a committee's question is "does this model serve some patients
worse than it serves patients in general", and a ratio window such as [0.80, 1.25] reads the same
on every benchmark. Scores are compared on MedHELM's normalized 0-1 scale.

Uncertainty: the overall score rests on all cases and its interval is much narrower than a
group's, so a group's ratio interval is taken as [group lower, group upper] ÷ overall estimate.
Per subgroup tag (``sex``, ``age_band``, ...), the verdict *fails* when any group's ratio
interval lies wholly outside the window, *passes* when every reported group's interval lies
wholly inside it, and is *inconclusive* otherwise. Suppressed groups (too small to report) are
listed in the reason, never silently dropped. Further cases for a straddling group scale its
interval as 1/√n and assume new cases arrive in today's group proportions.
"""

from __future__ import annotations

import math

from evaluator.evidence import Evidence, SubgroupScore
from evaluator.stats import normalize_score
from governance.rules.verdict_math import fmt, scaled_total_n


def _ratio_interval(g: SubgroupScore, overall: float, scale: str) -> tuple[float, float | None, float | None]:
    est = normalize_score(g.score, scale) / overall
    if g.ci_lower is None:
        return est, None, None
    return est, normalize_score(g.ci_lower, scale) / overall, normalize_score(g.ci_upper, scale) / overall


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
    """Further cases (all groups) until the group's interval clears every window edge it straddles."""
    a, b = (round(x, 12) for x in window)
    lo_r, hi_r = round(lo, 12), round(hi, 12)
    straddled = [edge for edge, hit in ((a, lo_r < a <= hi_r), (b, lo_r <= b < hi_r)) if hit]
    needed = []
    for edge in straddled:
        total_n = scaled_total_n(ratio, lo, hi, edge, g_n)
        if total_n is None:
            return None
        needed.append(total_n)
    if not needed or g_n <= 0:
        return None
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
    overall = e.normalized_score
    if overall <= 0:
        return [base | dict(status="inconclusive",
                            reason=f"{e.benchmark}: overall score is 0, ratios undefined.")]
    tags: dict[str, list[SubgroupScore]] = {}
    for g in e.subgroups:
        tags.setdefault(g.tag, []).append(g)
    out = []
    total = e.n or sum(g.n for g in e.subgroups)
    for tag, groups in tags.items():
        shown = [g for g in groups if not g.suppressed]
        hidden = [g.group for g in groups if g.suppressed]
        note = f" Suppressed (too small to report): {', '.join(hidden)}." if hidden else ""
        if not shown:
            out.append(base | dict(status="inconclusive",
                                   reason=f"{e.benchmark}, {tag}: every group suppressed.{note}"))
            continue
        places, worst, more, parts, no_ci = [], None, [], [], []
        for g in shown:
            est, lo, hi = _ratio_interval(g, overall, e.scale)
            if lo is None:
                no_ci.append(g.group)
                lo = hi = est
                place = _place(lo, hi, window) if rule.allow_point_estimate else "straddles"
            else:
                place = _place(lo, hi, window)
                if place == "straddles":
                    more.append(_more_cases(est, lo, hi, window, g.n, total))
            places.append(place)
            parts.append(f"{g.group} {fmt(est, 2)} ({fmt(lo, 2)}–{fmt(hi, 2)}, n={g.n})")
            if worst is None or abs(math.log(max(est, 1e-9))) > abs(math.log(max(worst[0], 1e-9))):
                worst = (est, lo, hi)
        status = ("fail" if "outside" in places
                  else "pass" if all(p == "inside" for p in places) else "inconclusive")
        extra = ""
        if no_ci and not rule.allow_point_estimate:
            extra = (f" No interval for {', '.join(no_ci)}, and point estimates are not accepted "
                     "for this rule.")
        known = [m for m in more if m is not None]
        if status == "inconclusive" and known:
            extra += f" About {max(known):,} more cases (in today's group mix) would likely settle it."
        out.append(base | dict(
            status=status, estimate=worst[0], ci_lower=worst[1], ci_upper=worst[2],
            further_cases=max(known) if status == "inconclusive" and known else None,
            further_cases_method="group interval narrowing as 1/√n, cases arriving in today's group mix"
            if status == "inconclusive" and known else None,
            point_estimate_only=bool(no_ci),
            reason=(f"{e.benchmark}, {tag}: ratio to overall {fmt(overall)} per group: {'; '.join(parts)}; "
                    f"window {fmt(rule.ratio_lo, 2)}–{fmt(rule.ratio_hi, 2)}.{extra}{note}")))
    return out
