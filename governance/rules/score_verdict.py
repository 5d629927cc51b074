"""The score rule's test on one evidence record: the interval against the bar, then the family's p-value.

Why apart from ``governance.rules.verdicts``: the rule-kind registry (``governance.rules.kinds``)
names each kind's verdict function, and the score kind's is the largest; the reasons for its
decisions (no pass below the minimum n, though an interval wholly on the wrong side of the bar is a
fail at any n; no pass without an interval unless allowed, a pass only
when the family-adjusted p-value confirms it) are listed in ``verdicts``' module docstring. At small
n the usual test is replaced by a conservative one where its false-pass rate at the bar is too
high, and a fail on a Wilson interval is decided by the exact binomial test where the score test's
false-fail rate is (``governance.rules.small_n``); the reason names the test used and its error.

A further-cases figure depends on the family it is corrected over, so its sentence always names the
family size: ProxySender's 0.72 on 300 against 0.70 needs 3,771 more cases alone (a family of one)
and 6,848 in a family of 12.
"""

from __future__ import annotations

from evaluator.evidence.record import Evidence
from evaluator.statistics.estimates import normalize_score
from governance.evidence.select import is_jury_scored, subcategory_name
from governance.rules.small_n import (
    MEAN_MIN_N,
    SIZE_SLACK,
    Guard,
    exact_test_size,
    false_fail_size,
    other_side,
    small_n_fail_guard,
    small_n_guard,
)
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


def _fail_test(kind: str, n: int | None, bar: float, direction: Direction, guard: Guard | None) -> str:
    """The test that decided a fail and its false-fail rate at the bar, in words."""
    if guard is not None:
        size = exact_test_size(n, bar, other_side(direction))
        return (f"{guard.test}, one-sided p {_p_text(guard.p)} ≤ {ALPHA:.3f}: {guard.why}, so the exact "
                f"test decides; its false-fail rate at the bar is {size:.2%} at this n, never above "
                f"{ALPHA:.1%}")
    if kind == "wilson" and n:
        return (f"score test; its false-fail rate at the bar is {false_fail_size(n, bar, direction):.2%} at "
                f"n={n}, within {ALPHA:.1%} + {SIZE_SLACK:.1%}")
    if kind == "exact" and n:
        return (f"exact binomial test; its false-fail rate at the bar is "
                f"{exact_test_size(n, bar, other_side(direction)):.2%} at n={n}, never above {ALPHA:.1%}")
    return f"one-sided error {ALPHA:.1%}, nominal for this interval"


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
        >>> v["status"], v["further_cases"]  # alone: a family of one score verdict
        ('inconclusive', 3771)
        >>> score_verdict(rule, published_evidence(["ProxySender"], ["GPT-4o (2024-05-13)"])[0],
        ...               family=12)["further_cases"]
        6848
    """
    direction: Direction = "at_least" if e.higher_is_better else "at_most"
    word = "at least" if e.higher_is_better else "at most"
    lo, hi = _bounds(e)
    est = e.normalized_score
    out = dict(threshold=rule.threshold, direction=direction, estimate=est, ci_lower=lo, ci_upper=hi, n=e.n,
               point_estimate_only=lo is None, subcategory=e.subcategory, reads_jury=is_jury_scored(e))
    seen = f"{e.benchmark} {e.metric} {interval_text(est, lo, hi, e.n)}"
    also = f" (preferred over {len(passed_over)} other record(s) of the same score)" if passed_over else ""
    short_n = bool(rule.min_n) and (e.n is None or e.n < rule.min_n)
    kind = interval_kind(e.ci_method)
    below = lo is not None and compare(lo, hi, rule.threshold, direction) == "fail"
    fail_guard = small_n_fail_guard(kind, est, e.n, rule.threshold, direction) if below else None
    fails = below and (fail_guard is None or fail_guard.p <= ALPHA + TOL)
    # The minimum n guards a pass, not a fail: an interval already wholly on the wrong side of the bar
    # is a fail at any n (1 of 120 right, 95% CI 0-5%, against a bar of 80% was "no verdict" before),
    # once the exact test confirms it where the score test fails too often (0 of 1 against 80% is not).
    if short_n and not fails:
        more = rule.min_n - e.n if e.n is not None else None
        return out | dict(status="inconclusive", further_cases=more,
                          further_cases_method="cases to reach the rule's minimum n",
                          reason=f"{seen}: n below the rule's minimum of {rule.min_n}, so no verdict{also}.")
    if short_n:
        also += (f" (n below the rule's minimum of {rule.min_n}, which guards a pass; a fail needs no "
                 "minimum)")
    if lo is None:
        if rule.allow_point_estimate:
            status = compare(est, est, rule.threshold, direction)
            return out | dict(status=status, reason=(
                f"{seen}: point estimate {'meets' if status == 'pass' else 'misses'} {word} "
                f"{fmt(rule.threshold)}; no uncertainty available: no interval ({e.ci_missing_reason}), "
                "accepted by the committee for this rule, so there is no test, no error rate and no place "
                f"in the family of tested verdicts{also}."))
        side = "would meet" if compare(est, est, rule.threshold, direction) == "pass" else "would miss"
        return out | dict(status="inconclusive", further_cases_method=NO_INTERVAL_ADVICE, reason=(
            f"{seen}: the point estimate {side} {word} {fmt(rule.threshold)}, but it has no interval "
            f"({e.ci_missing_reason}) and the committee has not accepted point estimates for this "
            f"rule{also}."))
    p = one_sided_p(est, lo, hi, rule.threshold, direction, e.n, kind)
    guard = small_n_guard(kind, est, e.n, rule.threshold, direction)
    if guard is not None:
        p = max(p, guard.p)
    p_adj = p if p_adjusted is None else p_adjusted
    out |= dict(alpha=ALPHA, p_value=p, p_adjusted=p_adj, correction=method, family_size=family)
    test = f"one-sided p {_p_text(p)}" + (f" ({guard.test}: {guard.why})" if guard else "")
    if family > 1:
        test += f", {method}-adjusted over {family} score verdicts {_p_text(p_adj)}"
    status = compare(lo, hi, rule.threshold, direction)
    if status == "pass" and p_adj <= ALPHA + TOL:
        bound = f"lower bound {fmt(lo)} ≥" if e.higher_is_better else f"upper bound {fmt(hi)} ≤"
        return out | dict(status=status, reason=f"{seen}: {bound} threshold {fmt(rule.threshold)}; {test} ≤ "
                                                f"{ALPHA:.3f}{also}.")
    if status == "fail" and fails:
        bound = f"upper bound {fmt(hi)} <" if e.higher_is_better else f"lower bound {fmt(lo)} >"
        test = _fail_test(kind, e.n, rule.threshold, direction, fail_guard)
        return out | dict(status=status, reason=f"{seen}: {bound} threshold {fmt(rule.threshold)} ({test}; "
                                                f"uncorrected: a wrong fail errs toward caution){also}.")
    level = ALPHA / max(1, family)
    more, method_text = further_cases(est, lo, hi, rule.threshold, e.n, wilson=kind != "other",
                                      direction=direction, alpha=level, power=power)
    if more is not None:
        method_text += (f" (2.5% ÷ {family} score verdicts, which the correction always accepts)"
                        if family > 1 else
                        " (a family of 1 score verdict; more score verdicts in the family need more cases)")
    short = MEAN_MIN_N - (e.n or 0)
    if guard is not None and kind == "other" and more is not None and more < short:
        more = short
        method_text = (f"{more:,} more cases to reach n={MEAN_MIN_N}, where the interval's own test takes "
                       f"over from the Hoeffding bound (the power figure alone: {method_text})")
    if status == "fail":  # the interval lies beyond the bar, but the exact test does not confirm it
        why = (f"the interval lies wholly on the wrong side of threshold {fmt(rule.threshold)}, but "
               f"{fail_guard.why}, so the {fail_guard.test} decides: one-sided p {_p_text(fail_guard.p)} > "
               f"{ALPHA:.3f}, not a fail")
    elif status == "pass" and guard is not None and p > ALPHA + TOL:
        why = (f"the interval clears threshold {fmt(rule.threshold)}, but {guard.why}, so the "
               f"{guard.test} decides: one-sided p {_p_text(p)} > {ALPHA:.3f}, not a pass")
    elif status == "pass":
        why = (f"the interval clears threshold {fmt(rule.threshold)}, but after {MULTIPLICITY_WORDS[method]} "
               f"over {family} score verdicts its one-sided p {_p_text(p)} becomes {_p_text(p_adj)} > "
               f"{ALPHA:.3f}, so it is not yet a pass")
    else:
        why = f"the interval contains threshold {fmt(rule.threshold)} ({test})"
    return out | dict(status="inconclusive", further_cases=more, further_cases_method=method_text,
                      reason=f"{seen}: {why}; {method_text}{also}.")
