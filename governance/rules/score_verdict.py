"""The score rule's test on one evidence record: the interval against the bar, then the family's p-value.

Why apart from ``governance.rules.verdicts``: the rule-kind registry (``governance.rules.kinds``)
names each kind's verdict function, and the score kind's is the largest; the reasons for its
decisions (inconclusive below minimum n, no pass without an interval unless allowed, a pass only
when the family-adjusted p-value confirms it) are listed in ``verdicts``' module docstring.
"""

from __future__ import annotations

from evaluator.evidence.record import Evidence
from evaluator.statistics.estimates import normalize_score
from governance.evidence.select import subcategory_name
from governance.rules.verdict_math import (
    ALPHA,
    MULTIPLICITY_WORDS,
    POWER,
    TOL,
    Direction,
    Multiplicity,
    compare,
    fmt,
    further_cases,
    interval_kind,
    interval_text,
    one_sided_p,
)

NO_INTERVAL_ADVICE = "an interval needs per-instance scores: run the benchmark locally or import the HELM run"


def _bounds(e: Evidence) -> tuple[float | None, float | None]:
    if not e.has_interval:
        return None, None
    return normalize_score(e.ci_lower, e.scale), normalize_score(e.ci_upper, e.scale)


def _target(rule) -> str:
    if rule.benchmark:
        return f"benchmark {rule.benchmark}"
    if rule.subcategory:
        return f"subcategory {subcategory_name(rule.subcategory)}"
    return "any benchmark"


def _p_text(p: float) -> str:
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def score_verdict(rule, e: Evidence, passed_over: list[str] = (), *, family: int = 1,
                  p_adjusted: float | None = None, method: Multiplicity = "holm",
                  power: float = POWER) -> dict:
    """Verdict fields for a score rule on one evidence record (see the module docstring).

    ``family`` and ``p_adjusted`` come from the family of score verdicts (``assess`` fills them);
    alone, the record is a family of one.

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> from governance.rules.policy import ScoreRule
        >>> rule = ScoreRule(id="s", threshold=0.7, rationale="usually right, review catches the rest")
        >>> v = score_verdict(rule, published_evidence(["ProxySender"], ["GPT-4o (2024-05-13)"])[0])
        >>> v["status"], v["further_cases"]
        ('inconclusive', 3771)
    """
    direction: Direction = "at_least" if e.higher_is_better else "at_most"
    word = "at least" if e.higher_is_better else "at most"
    lo, hi = _bounds(e)
    est = e.normalized_score
    out = dict(threshold=rule.threshold, direction=direction, estimate=est, ci_lower=lo, ci_upper=hi, n=e.n,
               point_estimate_only=lo is None, subcategory=e.subcategory)
    seen = f"{e.benchmark} {e.metric} {interval_text(est, lo, hi, e.n)}"
    also = f" (preferred over {len(passed_over)} other record(s) of the same score)" if passed_over else ""
    if rule.min_n and (e.n is None or e.n < rule.min_n):
        more = rule.min_n - e.n if e.n is not None else None
        return out | dict(status="inconclusive", further_cases=more,
                          further_cases_method="cases to reach the rule's minimum n",
                          reason=f"{seen}: n below the rule's minimum of {rule.min_n}, so no verdict{also}.")
    if lo is None:
        if rule.allow_point_estimate:
            status = compare(est, est, rule.threshold, direction)
            return out | dict(status=status, reason=(
                f"{seen}: point estimate {'meets' if status == 'pass' else 'misses'} {word} "
                f"{fmt(rule.threshold)}; no interval ({e.ci_missing_reason}), accepted by the committee "
                f"for this rule, so no error rate can be stated{also}."))
        side = "would meet" if compare(est, est, rule.threshold, direction) == "pass" else "would miss"
        return out | dict(status="inconclusive", further_cases_method=NO_INTERVAL_ADVICE, reason=(
            f"{seen}: the point estimate {side} {word} {fmt(rule.threshold)}, but it has no interval "
            f"({e.ci_missing_reason}) and the committee has not accepted point estimates for this "
            f"rule{also}."))
    kind = interval_kind(e.ci_method)
    p = one_sided_p(est, lo, hi, rule.threshold, direction, e.n, kind)
    p_adj = p if p_adjusted is None else p_adjusted
    out |= dict(alpha=ALPHA, p_value=p, p_adjusted=p_adj, correction=method, family_size=family)
    test = f"one-sided p {_p_text(p)}"
    if family > 1:
        test += f", {method}-adjusted over {family} score verdicts {_p_text(p_adj)}"
    status = compare(lo, hi, rule.threshold, direction)
    if status == "pass" and p_adj <= ALPHA + TOL:
        bound = f"lower bound {fmt(lo)} ≥" if e.higher_is_better else f"upper bound {fmt(hi)} ≤"
        return out | dict(status=status, reason=f"{seen}: {bound} threshold {fmt(rule.threshold)}; {test} ≤ "
                                                f"{ALPHA:.3f}{also}.")
    if status == "fail":
        bound = f"upper bound {fmt(hi)} <" if e.higher_is_better else f"lower bound {fmt(lo)} >"
        return out | dict(status=status, reason=f"{seen}: {bound} threshold {fmt(rule.threshold)} (one-sided "
                                                f"error {ALPHA:.1%}, uncorrected: a wrong fail errs toward "
                                                f"caution){also}.")
    level = ALPHA / max(1, family)
    more, method_text = further_cases(est, lo, hi, rule.threshold, e.n, wilson=kind != "other",
                                      direction=direction, alpha=level, power=power)
    if family > 1 and more is not None:
        method_text += f" (2.5% ÷ {family} score verdicts, which the correction always accepts)"
    if status == "pass":
        why = (f"the interval clears threshold {fmt(rule.threshold)}, but after {MULTIPLICITY_WORDS[method]} "
               f"over {family} score verdicts its one-sided p {_p_text(p)} becomes {_p_text(p_adj)} > "
               f"{ALPHA:.3f}, so it is not yet a pass")
    else:
        why = f"the interval contains threshold {fmt(rule.threshold)} ({test})"
    return out | dict(status="inconclusive", further_cases=more, further_cases_method=method_text,
                      reason=f"{seen}: {why}; {method_text}{also}.")
