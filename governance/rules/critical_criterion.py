"""The critical-criterion rule: "at most X% of cases miss the rubric criteria tagged T".

Why a rule of its own: a committee weighing discharge summaries fears one harm above the rest (an
omitted medication change), and a mean rubric score can hide it: a draft that earns most points
elsewhere still scores well while it drops the change. So the rule counts cases, not points. It reads
a rubric grading's per-tag counts (``Evidence.criterion_misses``, counted once when the grading is
attached): a case *misses* tag T when a criterion carrying T with positive points is not met, or a
criterion carrying T with negative points (a harm, "invents a dose change") is met. Both are the
failure the tag names, and both are what HealthBench's rule counts against a response; a criterion of
0 points is ignored, and a case whose tagged criteria have no readable verdict is *undetermined*: left
out of n and named, never counted as a pass.

The miss rate is a proportion, so its interval is Wilson's. Where the score test's error at this n
and bar is too high, the per-bar switch the score rules use (``governance.rules.small_n``) hands the
decision to the exact binomial test; this verdict then reports the exact (Clopper-Pearson) interval,
whose upper bound is at or below the bar exactly when the exact test passes (and lower bound above it
exactly when it fails), so the interval shown is the one that decided. Pass: the whole interval at or
below X; fail: the whole interval above X; inconclusive otherwise, and never a pass below the rule's
minimum n (a fail needs none). Like the unscored-share ceiling it is a *gate*: outside the family of
score verdicts that Holm corrects, each verdict at an uncorrected one-sided 2.5%; an inconclusive one
keeps a candidate from approval (``governance.rules.recommendation``), as the committee barred the
harm until the evidence shows it is rare.
"""

from __future__ import annotations

from evaluator.evidence.record import CriterionMisses, Evidence
from governance.evidence.select import slug
from governance.rules.records import CriticalCriterionRule
from governance.rules.small_n import share_interval
from governance.rules.verdict_math import POWER, compare, fmt, further_cases, interval_text


def miss_interval(m: CriterionMisses, bar: float) -> tuple[float, float, str]:
    """(lower, upper, method) of the miss rate: Wilson, or Clopper-Pearson where the small-n switch fires.

    Example:
        >>> lo, hi, how = miss_interval(CriterionMisses(n=5, missed=0), 0.5)  # Wilson: 0-0.434, a pass
        >>> round(hi, 4), how[:35]  # but P(0 of 5 | 0.5) = 3.1% > 2.5%: the exact interval decides
        (0.5218, 'exact Clopper-Pearson interval, 95%')
        >>> miss_interval(CriterionMisses(n=400, missed=8), 0.05)[2]
        'Wilson score interval, 95%'
    """
    return share_interval(m.missed, m.n, bar)


def critical_verdict(rule: CriticalCriterionRule, e: Evidence, power: float = POWER) -> dict:
    """Verdict fields for a critical-criterion rule on one graded record that carries the rule's tag."""
    m = (e.criterion_misses or {})[rule.tag]
    out = dict(threshold=rule.threshold, direction="at_most", metric=f"{rule.tag} miss rate")
    left_out = (f"; {m.undetermined} case(s) carrying the tag undetermined (no readable grader verdict or "
                "no response), left out" if m.undetermined else "")
    if m.n == 0:
        return out | dict(status="inconclusive", n=0, reason=(
            f"{e.benchmark}: no case carrying {rule.tag!r} could be judged{left_out}."))
    share = m.missed / m.n
    lo, hi, method = miss_interval(m, rule.threshold)
    status = compare(lo, hi, rule.threshold, "at_most")
    out |= dict(estimate=share, ci_lower=lo, ci_upper=hi, n=m.n)
    seen = (f"{e.benchmark}: {m.missed} of {m.n} case(s) miss {rule.tag!r}, miss rate "
            f"{interval_text(share, lo, hi, m.n)} ({method}){left_out}")
    if status != "fail" and rule.min_n and m.n < rule.min_n:
        return out | dict(status="inconclusive", further_cases=rule.min_n - m.n,
                          further_cases_method="cases to reach the rule's minimum n",
                          reason=f"{seen}: n below the rule's minimum of {rule.min_n}, so no pass.")
    if status == "inconclusive":
        more, how = further_cases(share, lo, hi, rule.threshold, m.n, wilson=True, direction="at_most",
                                  power=power)
        return out | dict(status=status, further_cases=more, further_cases_method=how,
                          reason=f"{seen}: the interval contains the ceiling {fmt(rule.threshold)}; {how}.")
    verb = "upper bound ≤" if status == "pass" else "lower bound >"
    return out | dict(status=status, reason=f"{seen}: {verb} ceiling {fmt(rule.threshold)}.")


def critical_rows(rule: CriticalCriterionRule, models: list[str], kept: list[Evidence],
                  power: float = POWER) -> list[dict]:
    """Verdict rows per candidate: one per graded record carrying the tag; none at all is inconclusive."""
    rows = []
    for model in models:
        graded = [e for e in kept if e.model == model and e.criterion_misses is not None]
        tagged = [e for e in graded if rule.tag in (e.criterion_misses or {})]
        if not tagged:
            why = (f"no case of its rubric grading(s) carries the tag {rule.tag!r}" if graded else
                   "no rubric grading with per-tag miss counts (`medassure grade`, then `attach --grading`)")
            rows.append(dict(model=model, status="inconclusive", threshold=rule.threshold,
                             direction="at_most", metric=f"{rule.tag} miss rate",
                             evidence_ids=[e.id for e in graded], reason=f"{why} from this candidate."))
        for e in tagged:
            rows.append(dict(model=model, benchmark=e.benchmark, evidence_ids=[e.id])
                        | critical_verdict(rule, e, power))
    return rows


def critical_rule(tag: str, max_miss_rate: float, *, benchmark: str | None = None, min_n: int = 0,
                  rule_id: str | None = None, rationale: str | None = None) -> CriticalCriterionRule:
    """A ``CriticalCriterionRule`` from plain values, with id ``critical.<tag>`` and a stated rationale.

    Raises:
        pydantic.ValidationError: a rate outside (0, 1), an empty tag, a malformed id.

    Example:
        >>> r = critical_rule("medication_change", 0.05, min_n=60)
        >>> r.id, r.threshold, r.min_n
        ('critical.medication_change', 0.05, 60)
    """
    name = tag.strip()
    text = rationale or (f"Set from the command line: at most {max_miss_rate:.1%} of cases may miss the "
                         f"criteria tagged {name}" + (f", on at least {min_n} cases." if min_n else "."))
    return CriticalCriterionRule(id=rule_id or f"critical.{slug(name)[:70]}", tag=name,
                                 threshold=max_miss_rate, benchmark=benchmark, min_n=min_n, rationale=text)
