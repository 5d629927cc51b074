"""Each candidate's outcome in one plain sentence with its numbers, and what would settle it.

Why one function for every reader: the Decision page, the Rules & verdicts page, the decision memo and
the PDF summary all open with the same sentence, so a committee member reads the same words on screen
and in the signed dossier. The sentence is built from the verdicts behind the recommendation, never
from its reason strings, so the numbers in it are the verdict's own (estimate, interval, n, bar):

* **reject**: the failing verdict, score verdicts first, worst miss first ("Reject: GPT-4o got 19% of
  120 MedCalc-Bench cases right (95% CI 13–27%); your bar is 95%."); what would settle it says what a
  reject would need (a changed model, prompt, price or jury, re-evaluated), since more cases of the same
  model are not expected to turn a fail;
* **insufficient evidence**: the blocker in this order: an estimate below its bar (no number of cases
  is expected to help), an open verdict with the further cases that would settle it, a score without an
  interval, too few cases, no evidence, an accepted subcategory without a passing score, the judges'
  agreement;
* **approve with conditions** / **approve**: the weakest pass (smallest margin of the interval's bound
  over the bar), with the number of conditions.

Scores on 0-1 whose metric is a proportion (exact match, accuracy...) read as percentages; other scores
as numbers on the 0-1 scale. Rule ids and metric keys never appear: rules are named by their kind's label.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from governance.decision.records import OUTCOME_LABELS, Outcome
from governance.dossier.labels import benchmark_label, is_proportion_metric
from governance.evidence.select import subcategory_name
from governance.rules.recommendation import CandidateRecommendation, Recommendation
from governance.rules.verdicts import Assessment, Verdict


class OutcomeLine(BaseModel):
    """One candidate's outcome in words."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    """The candidate."""
    outcome: Outcome
    """The recommendation for it."""
    sentence: str
    """The outcome in one sentence with its numbers."""
    settle: str
    """What would settle or change it (for a reject: what a reversal would need)."""



def _bench(v: Verdict) -> str:
    """The verdict's benchmark as people name it (a spec id becomes its title)."""
    return benchmark_label(v.benchmark)

def _pct(x: float, fine: bool) -> str:
    text = f"{x * 100:.1f}" if fine else f"{x * 100:.0f}"
    return text.removesuffix(".0") + "%"


def _fine(v: Verdict) -> bool:
    """One decimal when whole percents would blur the comparison: the estimate or a bound of its interval
    lies within 1.5 points of the bar (95.3% would read 95%, the bar itself)."""
    if v.threshold is None:
        return False
    return any(abs(x - v.threshold) < 0.015 for x in (v.estimate, v.ci_lower, v.ci_upper) if x is not None)


def _num(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}"


def _score_phrase(v: Verdict, model: str) -> str:
    """"GPT-4o got 19% of 120 MedCalc-Bench cases right (95% CI 13–27%)" or its non-proportion form."""
    bench = benchmark_label(v.benchmark) or "the benchmark"
    if v.estimate is None:
        return f"{model} has no score on {bench}"
    n = f"{v.n:,}" if v.n is not None else "an unknown number of"
    if is_proportion_metric(v.metric):
        fine = _fine(v)
        lo, hi = v.ci_lower, v.ci_upper
        ci = (f" (95% CI {_pct(lo, fine).removesuffix('%')}–{_pct(hi, fine)})"
              if lo is not None and hi is not None else " (no interval)")
        return f"{model} got {_pct(v.estimate, fine)} of {n} {bench} cases right{ci}"
    ci = _ci(v, _num).strip(" ()") + ", " if v.ci_lower is not None else "no interval, "
    return f"{model} scored {_num(v.estimate)} of 1 on {bench} ({ci}{n} cases)"


def _value(v: Verdict, x: float) -> str:
    return _pct(x, _fine(v)) if is_proportion_metric(v.metric) else _num(x)


def _bar(v: Verdict) -> str:
    return "your bar" if v.threshold is None else _value(v, v.threshold)


def _margin(v: Verdict) -> float:
    """How far the verdict's evidence lies on the right side of its bar (negative: the wrong side)."""
    if v.estimate is None or v.threshold is None:
        return 0.0
    lo = v.ci_lower if v.ci_lower is not None else v.estimate
    hi = v.ci_upper if v.ci_upper is not None else v.estimate
    if v.direction == "at_most":
        return v.threshold - hi
    if v.direction == "within" and v.threshold_upper is not None:
        return min(lo - v.threshold, v.threshold_upper - hi)
    return lo - v.threshold


def _ci(v: Verdict, f) -> str:
    if v.ci_lower is None or v.ci_upper is None:
        return ""
    return f" (95% CI {f(v.ci_lower)}–{f(v.ci_upper)})"


def _gate_fact(v: Verdict, model: str) -> str:
    """A gating verdict's finding in words, with its numbers."""
    bench = f" on {_bench(v)}" if v.benchmark else ""
    est, bar = v.estimate, v.threshold or 0

    def share(x: float) -> str:
        return _pct(x, False)

    if v.kind == "max_unscored_share" and est is not None:
        return (f"{share(est)} of {model}'s {v.n or 'the'} outputs{bench} could not be parsed or scored"
                f"{_ci(v, share)}; your limit is {share(bar)}")
    if v.kind == "subgroup_disparity" and est is not None:
        compared = v.group_compared or "one patient group against the reference group"
        group, _, ref = compared.partition(" against ")
        return (f"{model}'s results{bench} for {group} are {_num(est)} times those for {ref or 'the rest'}"
                f"{_ci(v, _num)}; your window is {_num(bar)}–{_num(v.threshold_upper or 0)}")
    if v.kind == "judge_agreement" and est is not None:
        return (f"the judges scoring {model}'s outputs agree with clinicians at ICC {_num(est)}"
                f"{_ci(v, _num)}; your bar is {_num(bar)}")
    if v.kind == "critical_criterion" and est is not None:
        tag = (v.metric or "").removesuffix(" miss rate")
        return (f"{share(est)} of {model}'s {v.n or 'the'} graded cases{bench} miss the criteria tagged {tag}"
                f"{_ci(v, share)}; your ceiling is {share(bar)}")
    if v.kind == "max_cost_per_1k" and est is not None:
        return f"{model} costs USD {est:,.2f} per 1,000 requests; your ceiling is USD {bar:,.2f}"
    if v.kind == "min_n" and est is not None:
        return (f"{model} was tested on {round(est):,} {_bench(v)} cases; your rules ask for "
                f"{round(bar):,}")
    return f"{model}{bench}: {v.reason.rstrip('.')}"


def _reject_settle(v: Verdict) -> str:
    if v.is_score:
        gap = f"{_bar(v)} (today {_value(v, v.estimate)})" if v.estimate is not None else _bar(v)
        return (f"A reject stands unless a changed model or prompt is re-evaluated on {_bench(v)} and "
                f"clears {gap}; more cases of the same model are not expected to change it.")
    return {
        "max_unscored_share": "A re-evaluation with a fixed prompt or answer format that keeps unparsed or "
                              "unscored outputs under the limit.",
        "subgroup_disparity": "A changed model or prompt whose re-evaluation puts every patient group's "
                              "ratio inside the window.",
        "judge_agreement": "A jury whose measured agreement with clinicians reaches the bar, or evidence "
                           "that is not jury-scored.",
        "critical_criterion": "A changed model or prompt whose re-evaluation, graded against the same "
                              "rubric, keeps the cases missing the critical criterion under the ceiling.",
        "max_cost_per_1k": "A price or token use under the ceiling (a new quote, or a shorter prompt), "
                           "re-costed.",
    }.get(v.kind, "A changed model, prompt or contract, re-evaluated against the same rules.")


def _others(n: int, what: str) -> str:
    return f" ({n} other {what})" if n else ""


def _reject(c: CandidateRecommendation, mine: list[Verdict]) -> OutcomeLine:
    fails = sorted((v for v in mine if v.status == "fail"), key=lambda v: (not v.is_score, _margin(v)))
    v = fails[0]
    text = f"{_score_phrase(v, c.model)}; your bar is {_bar(v)}" if v.is_score else _gate_fact(v, c.model)
    # The harm the committee barred by name is never hidden behind "other rules" (issue 34's walk: a score
    # bar led and the omitted medication change read "(2 other rule(s) fail too)").
    barred = [f for f in fails[1:] if f.kind == "critical_criterion" and f.estimate is not None]
    text += "".join(f"; and {_gate_fact(f, c.model)}" for f in barred)
    more = _others(len(fails) - 1 - len(barred), "rule(s) fail too")
    return OutcomeLine(model=c.model, outcome=c.outcome, sentence=f"Reject: {text}{more}.",
                       settle=_reject_settle(v))


def _insufficient(c: CandidateRecommendation, mine: list[Verdict]) -> OutcomeLine:
    score = [v for v in mine if v.is_score and v.status == "inconclusive"]
    head = "Insufficient evidence"
    below = [v for v in score if v.estimate is not None and misses_bar(v)]
    counted = sorted((v for v in score if v.further_cases is not None and not misses_bar(v)),
                     key=lambda v: v.further_cases)
    pointwise = [v for v in score if v.point_estimate_only and v not in below]
    short = [v for v in mine if v.kind == "min_n" and v.status == "inconclusive"]
    open_items = len(c.reasons) - 1
    if below:
        v = min(below, key=_margin)
        text = (f"{_score_phrase(v, c.model)}, below your bar of {_bar(v)}, so more cases are not expected "
                "to reach a pass")
        settle = (f"A changed model or prompt, re-evaluated on {_bench(v)}: this one's estimate misses the "
                  "bar (an approval needs the whole interval above it).")
    elif counted:
        v = counted[0]
        text = (f"{_score_phrase(v, c.model)} against your bar of {_bar(v)}; the interval still reaches "
                "below it")
        settle = f"About {v.further_cases:,} more {_bench(v)} cases would settle it (at the rules' power)."
    elif pointwise:
        v = pointwise[0]
        text = (f"{_score_phrase(v, c.model)}: a published average with no interval cannot be compared "
                f"with your bar of {_bar(v)}")
        settle = (f"Per-case results on {_bench(v)} (a local run or an imported run) would give it an "
                  "interval.")
    elif short:
        v = short[0]
        need = max(int((v.threshold or 0) - (v.estimate or 0)), 1)
        text = _gate_fact(v, c.model)
        settle = f"{need:,} more {_bench(v)} cases would meet the minimum."
    elif score:
        v = score[0]
        text = f"{c.model}: {v.reason.rstrip('.')}"
        settle = "Evidence for this rule from this candidate."
    elif c.uncovered:
        names = ", ".join(subcategory_name(s) for s in c.uncovered)
        text = f"no score of {c.model} passes on the accepted subcategory {names}"
        settle = f"Evidence with an interval on {names} that clears its bar."
    else:
        v = next((g for g in mine if g.kind == "judge_agreement" and g.estimate is not None), None)
        text = _gate_fact(v, c.model) if v else (c.reasons[0].rstrip(".") if c.reasons else "nothing passes")
        settle = c.to_settle[0] if c.to_settle else "Evidence that clears the committee's bars."
    more = _others(open_items, "open point(s) listed below")
    return OutcomeLine(model=c.model, outcome=c.outcome, sentence=f"{head}: {text}{more}.", settle=settle)


def misses_bar(v: Verdict) -> bool:
    """The estimate itself misses the bar (never said of a case count or a ratio window)."""
    if v.estimate is None or v.threshold is None or v.kind == "min_n" or v.direction == "within":
        return False
    return v.estimate > v.threshold if v.direction == "at_most" else v.estimate < v.threshold


def _approve(c: CandidateRecommendation, mine: list[Verdict]) -> OutcomeLine:
    passes = sorted((v for v in mine if v.is_score and v.status == "pass"), key=_margin)
    label = OUTCOME_LABELS[c.outcome]
    if passes:
        v = passes[0]
        text = f"{_score_phrase(v, c.model)}, clearing your bar of {_bar(v)}"
        if len(passes) > 1:
            text += f" (its narrowest of {len(passes)} passes)"
    else:
        text = f"{c.model} passes every rule"
    if c.conditions:
        n = len(c.conditions)
        text += f"; {n} condition{'s' if n > 1 else ''} to meet, first: {c.conditions[0].rstrip('.')}"
        settle = "Meeting the conditions; the review plan covers them until then."
    else:
        settle = "Nothing open: monitoring after go-live watches the same bars."
    return OutcomeLine(model=c.model, outcome=c.outcome, sentence=f"{label}: {text}.", settle=settle)


def outcome_line(assessment: Assessment, candidate: CandidateRecommendation) -> OutcomeLine:
    """The candidate's outcome in one sentence with its numbers (see the module docstring).

    Example:
        >>> line = outcome_line(assessment, rec.candidates[0])  # doctest: +SKIP
        >>> line.sentence  # doctest: +SKIP
        'Reject: GPT-4o got 19% of 120 MedCalc-Bench cases right (95% CI 13–27%); your bar is 95%.'
    """
    mine = [v for v in assessment.verdicts if v.model == candidate.model]
    if candidate.outcome == "reject" and any(v.status == "fail" for v in mine):
        return _reject(candidate, mine)
    if candidate.outcome == "insufficient_evidence":
        return _insufficient(candidate, mine)
    if candidate.outcome in ("approve", "approve_with_conditions"):
        return _approve(candidate, mine)
    reason = candidate.reasons[0] if candidate.reasons else "see the reasons below"
    return OutcomeLine(model=candidate.model, outcome=candidate.outcome,
                       sentence=f"{OUTCOME_LABELS[candidate.outcome]}: {candidate.model}: {reason}",
                       settle=candidate.to_settle[0] if candidate.to_settle else "")


def outcome_lines(assessment: Assessment, rec: Recommendation) -> list[OutcomeLine]:
    """One line per candidate, best first (the recommendation's order)."""
    return [outcome_line(assessment, c) for c in rec.candidates]


def headline(rec: Recommendation, recorded: int = 0) -> str:
    """Whose outcome the headline is: "Insufficient evidence, for Llama 3.3 (the best of 3 candidates)".

    ``recorded``: how many candidates the dossier records (its procurement records). When more are
    recorded than have evidence, the headline says so rather than "the only candidate" (issue 36 item 5:
    the memo said "the only candidate" with two vendors recorded).

    Example:
        >>> headline(Recommendation(outcome="insufficient_evidence", models=[], reasons=[], candidates=[]))
        'Insufficient evidence: no candidate has evidence yet.'
    """
    label = OUTCOME_LABELS[rec.outcome]
    if not rec.candidates:
        return f"{label}: no candidate has evidence yet." + (
            f" {recorded} candidates are recorded." if recorded > 1 else "")
    who = " and ".join(rec.models)
    n = len(rec.candidates)
    if n == 1:
        if recorded > 1:
            return f"{label}, for {who} (the only candidate with evidence; {recorded} are recorded)."
        return f"{label}, for {who} (the only candidate)."
    tie = "tied best" if len(rec.models) > 1 else "the best"
    of = f"{n} candidates with evidence; {recorded} are recorded" if recorded > n else f"{n} candidates"
    return f"{label}, for {who} ({tie} of {of}; each one's outcome is below)."


def _status_words(v: Verdict) -> str:
    if v.status == "pass":
        return "passes"
    if v.status == "fail":
        return "fails"
    if v.kind == "min_n":
        return f"{max(round((v.threshold or 0) - (v.estimate or 0)), 1):,} more cases needed"
    if misses_bar(v):
        return "below the bar, so not approvable"
    if v.further_cases is not None:
        return f"open; about {v.further_cases:,} more cases would settle it"
    if v.point_estimate_only:
        return "open: no interval to compare with the bar"
    return "open"


def verdict_sentence(v: Verdict, model: str) -> str:
    """One verdict as a sentence with its numbers and what it concluded (the memo's reasons).

    Example:
        >>> v = Verdict(rule_id="s", kind="score", model="m", benchmark="B", metric="EM", status="fail",
        ...             estimate=0.19, ci_lower=0.13, ci_upper=0.27, n=120, threshold=0.95, reason="low.")
        >>> verdict_sentence(v, "GPT-4o")
        'GPT-4o got 19% of 120 B cases right (95% CI 13–27%) against your bar of 95%: fails.'
    """
    if v.is_score:
        return f"{_score_phrase(v, model)} against your bar of {_bar(v)}: {_status_words(v)}."
    fact = _gate_fact(v, model)
    if not fact.startswith(model):  # a name is written as it is named ("openai/x", never "Openai/x")
        fact = fact[:1].upper() + fact[1:]
    return f"{fact}: {_status_words(v)}."
