"""Verdicts of the rule kinds that are not about a score: minimum n, unscored share, judge agreement, cost.

These are the *gating* rules: they are counted apart from score verdicts and never join the
score family that ``verdict_math.adjust`` corrects, so a gate's pass never pads the pass count and
a gate's error rate is the uncorrected one-sided 2.5% of its interval.

Each function takes one rule and what it reads, and returns the verdict's fields as a dict (the
candidate, benchmark and evidence ids are added by ``governance.rules.verdicts``). The arithmetic is in
``governance.rules.verdict_math``; the decisions they encode are listed in ``governance.rules.verdicts``.
"""

from __future__ import annotations

from evaluator.evidence.record import Evidence
from governance.evidence.judge_agreement import covers, gate_problem
from governance.rules.small_n import share_interval
from governance.rules.verdict_math import POWER, compare, fmt, further_cases, interval_text


def min_n_verdict(rule, e: Evidence) -> dict:
    """Verdict fields for a minimum-n rule on one record (below minimum: inconclusive, never fail).

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> from governance.rules.policy import MinNRule
        >>> rule = MinNRule(id="n", threshold=500, rationale="tight enough interval")
        >>> min_n_verdict(rule, published_evidence(["ProxySender"], ["DeepSeek R1"])[0])["further_cases"]
        200
    """
    out = dict(threshold=float(rule.threshold), estimate=None if e.n is None else float(e.n), n=e.n)
    if e.n is None:
        return out | dict(status="inconclusive", reason=f"{e.benchmark}: the source does not say on how many "
                                                        "instances the score rests.")
    if e.n >= rule.threshold:
        return out | dict(status="pass", reason=f"{e.benchmark}: n={e.n} ≥ {rule.threshold}.")
    return out | dict(status="inconclusive", further_cases=rule.threshold - e.n,
                      further_cases_method="cases to reach the minimum",
                      reason=f"{e.benchmark}: n={e.n} < {rule.threshold}; too few cases to rely on "
                             "(not a fail).")


def unscored_verdict(rule, e: Evidence, power: float = POWER) -> dict:
    """Verdict fields for the unparsed/unscored-share ceiling (Wilson interval on the share).

    A gate, outside the score family: its one-sided error rate is the uncorrected 2.5% (3.0% where the
    score test decides), the exact test deciding where Wilson's errs more at this n (``small_n``).
    """
    out = dict(threshold=rule.threshold, direction="at_most")
    if (e.n_unparsed is None and e.n_unscored is None) or e.n is None:
        return out | dict(status="inconclusive", reason=f"{e.benchmark}: the source does not report how many "
                                                        "outputs were unparsed or unscored.")
    bad = (e.n_unparsed or 0) + (e.n_unscored or 0)
    total = e.n + (e.n_unscored or 0)
    if total == 0:
        return out | dict(status="inconclusive", reason=f"{e.benchmark}: no instances.")
    share = bad / total
    # Wilson, or the exact interval where the score test errs above 3.0% at this n and ceiling, so a
    # share on the ceiling is failed (or passed) at most 2.5% of the time, as the critical rule is
    lo, hi, how = share_interval(bad, total, rule.threshold)
    status = compare(lo, hi, rule.threshold, "at_most")
    missing = [k for k in ("n_unparsed", "n_unscored") if getattr(e, k) is None]
    note = f" ({', '.join(missing)} not reported, counted as 0)" if missing else ""
    out |= dict(status=status, estimate=share, ci_lower=lo, ci_upper=hi, n=total)
    seen = (f"{e.benchmark}: {bad} of {total} outputs unparsed or unscored, share "
            f"{interval_text(share, lo, hi, total)}" + ("" if how.startswith("Wilson") else f" ({how})"))
    if status == "inconclusive":
        more, method = further_cases(share, lo, hi, rule.threshold, total, wilson=True, direction="at_most",
                                     power=power)
        return out | dict(further_cases=more, further_cases_method=method,
                          reason=f"{seen}: the interval contains the ceiling {fmt(rule.threshold)}{note}; "
                                 f"{method}.")
    verb = "upper bound ≤" if status == "pass" else "lower bound >"
    return out | dict(reason=f"{seen}: {verb} ceiling {fmt(rule.threshold)}{note}.")


def agreement_verdict(rule, setting, jury: list[Evidence], power: float = POWER) -> dict:
    """Verdict fields for the judge-agreement rule over one candidate's jury-scored evidence (a gate)."""
    out = dict(threshold=rule.threshold, evidence_ids=[e.id for e in jury])
    names = ", ".join(sorted({e.benchmark for e in jury}))
    if setting is None:
        return out | dict(status="inconclusive", reason=(
            f"jury-scored evidence ({names}) but no measured judge-clinician agreement on the dossier; "
            "measure it on a clinician-rated sample and record it."))
    uncovered = sorted({e.benchmark for e in jury if not covers(setting, e.benchmark)})
    lo, hi = (setting.ci_lower, setting.ci_upper) if setting.has_interval else (None, None)
    out |= dict(estimate=setting.estimate, ci_lower=lo, ci_upper=hi, n=setting.n_instances,
                point_estimate_only=lo is None)
    measured = interval_text(setting.estimate, lo, hi, setting.n_instances)
    seen = f"{setting.statistic} {measured} from {setting.source}"
    if uncovered:
        return out | dict(status="inconclusive", reason=f"{seen} was not measured on {', '.join(uncovered)}.")
    if why := gate_problem(setting):
        return out | dict(status="inconclusive", reason=f"{seen} {why}.")
    if lo is None:
        if not rule.allow_point_estimate:
            return out | dict(status="inconclusive", reason=f"{seen} has no interval and the committee "
                                                            "has not accepted point estimates for this rule.")
        lo = hi = setting.estimate
    status = compare(lo, hi, rule.threshold, "at_least")
    if status == "inconclusive":
        more, method = further_cases(setting.estimate, lo, hi, rule.threshold, setting.n_instances,
                                     wilson=False, power=power)
        return out | dict(status=status, further_cases=more, further_cases_method=method,
                          reason=f"{seen}: the interval contains {fmt(rule.threshold)} (covers {names}); "
                                 f"{method}.")
    verb = "reaches" if status == "pass" else "misses"
    return out | dict(status=status, reason=f"{seen} {verb} {fmt(rule.threshold)} (covers {names}).")


def cost_verdict(rule, row, profile) -> dict:
    """Verdict fields for the cost ceiling from a cost-table row (None when no profile)."""
    out = dict(threshold=rule.threshold, direction="at_most")
    if row is None:
        return out | dict(status="inconclusive",
                          reason="no token profile for this candidate: add one on the Cost page.")
    out |= dict(evidence_ids=list(profile.evidence_ids), n=profile.n_requests)
    if row.cost_per_1k is None:
        return out | dict(status="inconclusive", reason=f"no price known for {row.price_model!r}.")
    status = "pass" if round(row.cost_per_1k, 9) <= rule.threshold else "fail"
    sign = "≤" if status == "pass" else ">"
    return out | dict(status=status, estimate=row.cost_per_1k, reason=(
        f"USD {row.cost_per_1k:.2f} per 1,000 requests {sign} ceiling {rule.threshold:.2f} "
        f"({row.mean_prompt_tokens:.0f} prompt + {row.mean_completion_tokens:.0f} completion tokens at "
        f"{row.price_source}; tokens: {row.token_source})."))
