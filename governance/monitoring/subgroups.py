"""Subgroups by tag, and use outside the approved envelope.

Why the existing suppression and ratios: the same small-group rule as the evidence (a group with fewer
than ``MIN_N`` audited outputs shows no share and no ratio, ``evaluator.statistics.subgroups``) and the
same MOVER-Wilson interval for the ratio of a group's correction share to the largest group's. Use
outside the envelope: a tag value the plan's approved values for that tag do not list, or one the
intended use names as out of scope, is counted and flagged.
"""

from __future__ import annotations

from datetime import datetime

from evaluator.statistics.estimates import wilson_interval
from evaluator.statistics.subgroups import MIN_N, mover_ratio_interval
from governance.monitoring.feed_records import TagCount


def subgroup_rows(tags: list[TagCount], min_n: int = MIN_N) -> list[dict]:
    """Per tag value: n, audited, and (unless suppressed) the correction share, its interval and the ratio.

    Example:
        >>> from datetime import UTC, datetime
        >>> t = datetime(2026, 1, 1, tzinfo=UTC)
        >>> rows = subgroup_rows([
        ...     TagCount(tag="site", value="a", n=100, audited=40, audit_material=4, first_seen=t),
        ...     TagCount(tag="site", value="b", n=9, audited=5, audit_material=1, first_seen=t)])
        >>> rows[0]["share"], rows[1]["suppressed"], rows[1]["share"]
        (0.1, True, None)
    """
    out = []
    by_tag: dict[str, list[TagCount]] = {}
    for t in tags:
        by_tag.setdefault(t.tag, []).append(t)
    for tag, groups in by_tag.items():
        shown = [g for g in groups if g.audited >= min_n]
        ref = max(shown, key=lambda g: (g.audited, g.value)) if shown else None
        for g in groups:
            row: dict = {
                "tag": tag,
                "value": g.value,
                "n": g.n,
                "audited": g.audited,
                "suppressed": g.audited < min_n,
                "share": None,
                "interval": None,
                "ratio": None,
                "ratio_interval": None,
                "reference": ref.value if ref else None,
            }
            if not row["suppressed"]:
                row["share"] = g.audit_material / g.audited
                row["interval"] = wilson_interval(g.audit_material, g.audited)
                if ref is not None and ref is not g and ref.audit_material > 0:
                    d = mover_ratio_interval(g.audit_material, g.audited, ref.audit_material, ref.audited)
                    row["ratio"], row["ratio_interval"] = d.ratio, (d.lower, d.upper)
            out.append(row)
    return out


def out_of_envelope(
    tags: list[TagCount], approved: dict[str, list[str]], out_of_scope: list[str]
) -> list[tuple[str, str, int, datetime, str]]:
    """(tag, value, rows, first seen, why) for each tag value outside the approved envelope.

    Example:
        >>> from datetime import UTC, datetime
        >>> t = datetime(2026, 1, 1, tzinfo=UTC)
        >>> found = out_of_envelope([TagCount(tag="dept", value="ED", n=5, audited=0, audit_material=0,
        ...                                   first_seen=t)], {"dept": ["primary care"]}, [])
        >>> [(f[0], f[1], f[4]) for f in found]
        [('dept', 'ED', 'the plan approves dept = primary care only')]
    """
    scoped = {s.strip().lower() for s in out_of_scope if s.strip()}
    allowed = {k: {v.strip().lower() for v in vs} for k, vs in approved.items()}
    out = []
    for t in tags:
        value = t.value.strip().lower()
        if t.tag in allowed and value not in allowed[t.tag]:
            out.append(
                (
                    t.tag,
                    t.value,
                    t.n,
                    t.first_seen,
                    f"the plan approves {t.tag} = {', '.join(approved[t.tag])} only",
                )
            )
        elif value in scoped:
            out.append((t.tag, t.value, t.n, t.first_seen, "the intended use names it out of scope"))
    return out
