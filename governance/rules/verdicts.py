"""Verdicts: each acceptance rule applied to each candidate's evidence, with the reason in words.

Why this shape: a verdict must be checkable by someone who did not build the tool, so every
``Verdict`` carries the threshold, the estimate and interval it compared, n, the ids of the
evidence it used and a sentence saying why. The arithmetic lives in ``verdict_math``; which
evidence a rule reads lives in ``evidence_select``. Verdicts are never stored: they are
recomputed from a dossier version, so the same version always gives the same verdicts.

Decisions written down here (and tested):

* n below a rule's minimum is *inconclusive*, not fail: too few cases is a lack of evidence,
  which more cases can cure, not evidence of poor performance. It never passes.
* Evidence without an interval (published jury means, mean F1) is *inconclusive* either way
  unless the committee ticked ``allow_point_estimate`` on that rule: without an interval we can
  say neither that the model clears the bar nor that it misses it.
* A rule with no matching evidence for a candidate is *inconclusive* ("no evidence"); a rule that
  concerns nothing in the dossier (judge agreement with no jury-scored evidence) is
  *not_applicable* and does not count towards the recommendation.
* A score verdict *passes* only when its interval clears the bar **and** its p-value, adjusted
  over the family of score verdicts (``governance.rules.family``), is at or below 2.5%; a pass of
  the interval alone that the correction does not confirm is inconclusive and says so.
* Gating rules (minimum n, unscored share, subgroups, judge agreement, cost) are counted apart
  from score verdicts (``Assessment.score_counts`` / ``gating_counts``): their passes never pad
  the score pass count.
* A verdict is *pre-registered* only when its rule was fixed before every evidence record it uses
  was attached (``governance.rules.preregistration``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from evaluator.evidence.record import Evidence
from evaluator.statistics.estimates import normalize_score
from governance.dossier.rules_records import AcceptancePolicy, RuleKind, Status
from governance.evidence.select import is_jury_scored, matches, models_in, preferred, subcategory_name
from governance.procurement.cost import cost_report
from governance.rules.family import ErrorControl, adjusted_by_key
from governance.rules.policy import change_log_problem, rules_hash
from governance.rules.preregistration import preregistration
from governance.rules.subgroup_verdicts import subgroup_verdicts
from governance.rules.verdict_kinds import agreement_verdict, cost_verdict, min_n_verdict, unscored_verdict
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

if TYPE_CHECKING:
    from governance.dossier.record import Dossier

INTERVAL_GATES = ("max_unscored_share", "subgroup_disparity", "judge_agreement")
"""Gating rules judged on an interval, so each carries the uncorrected one-sided 2.5% error rate."""
NO_INTERVAL_ADVICE = "an interval needs per-instance scores: run the benchmark locally or import the HELM run"


class Verdict(BaseModel):
    """The outcome of one rule for one candidate (and one benchmark where the rule is per benchmark)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_id: str
    """The rule applied."""
    kind: RuleKind
    """Its kind."""
    model: str | None
    """Candidate the verdict is about (None for a rule that concerns no candidate)."""
    benchmark: str | None = None
    """Benchmark of the evidence, where the verdict is per benchmark."""
    metric: str | None = None
    """Metric of the evidence."""
    status: Status
    """pass / fail / inconclusive / not_applicable."""
    threshold: float | None = None
    """The bar (lower ratio bound for subgroup disparity)."""
    threshold_upper: float | None = None
    """Upper ratio bound (subgroup disparity only)."""
    direction: Direction = "at_least"
    """How the estimate must relate to the bar."""
    estimate: float | None = None
    """Estimate compared (normalized 0-1 for scores; USD for cost; ICC; ratio; share)."""
    ci_lower: float | None = None
    """Lower bound of the 95% interval compared, on the same scale."""
    ci_upper: float | None = None
    """Upper bound."""
    n: int | None = None
    """Instances behind the estimate."""
    evidence_ids: list[str] = []
    """Evidence records used."""
    reason: str
    """Why, in one or two sentences."""
    further_cases: int | None = None
    """Further cases giving a pass with the policy's power if the true value equals the estimate."""
    further_cases_method: str | None = None
    """How ``further_cases`` was estimated, or why it could not be."""
    point_estimate_only: bool = False
    """The estimate had no interval."""
    pre_registered: bool = False
    """The rule was fixed before every piece of evidence used here was attached."""
    pre_registration: str = ""
    """Why it is or is not pre-registered, in words."""
    subcategory: str | None = None
    """Taxonomy subcategory of the evidence (score verdicts), for the coverage of accepted subcategories."""
    alpha: float | None = None
    """One-sided error rate the verdict is held to (None: no test, e.g. no interval)."""
    p_value: float | None = None
    """One-sided p-value of "the true value misses the bar" (``verdict_math.one_sided_p``)."""
    p_adjusted: float | None = None
    """The p-value adjusted over the family of score verdicts (score verdicts only)."""
    correction: Multiplicity | None = None
    """The family correction applied (score verdicts with a test)."""
    family_size: int | None = None
    """Tests in the family the p-value was adjusted over."""

    @property
    def is_score(self) -> bool:
        """A score verdict (in the family), as opposed to a gating rule's."""
        return self.kind == "score"


class Assessment(BaseModel):
    """All verdicts of a dossier version, with the state of its rules."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    verdicts: list[Verdict]
    """Rule × candidate (× benchmark) verdicts, in rule order."""
    rules_hash: str | None
    """Hash of the rules applied (None without a policy)."""
    locked: bool
    """Whether the rules were locked."""
    changes_after_lock: int
    """How many rule changes were recorded after the lock."""
    change_log_problem: str | None
    """A break in the lock/change-log chain, if any."""
    models: list[str]
    """Candidates assessed (models with evidence)."""
    tier_note: str | None = None
    """Set when the rules were taken for another risk tier than the dossier's current one."""
    subcategories: list[str] = []
    """Accepted (mapped) subcategories that an approvable candidate must cover with a score pass."""
    family: ErrorControl | None = None
    """The family of score verdicts and its correction."""

    def counts(self, verdicts: list[Verdict] | None = None) -> dict[str, int]:
        """Verdicts per status (all verdicts, or the ones given)."""
        out = {s: 0 for s in ("pass", "fail", "inconclusive", "not_applicable")}
        for v in self.verdicts if verdicts is None else verdicts:
            out[v.status] += 1
        return out

    def score_counts(self) -> dict[str, int]:
        """Score verdicts per status (the family)."""
        return self.counts([v for v in self.verdicts if v.is_score])

    def gating_counts(self) -> dict[str, int]:
        """Gating verdicts per status (minimum n, unscored share, subgroups, judge agreement, cost)."""
        return self.counts([v for v in self.verdicts if not v.is_score])

    def preregistered(self) -> tuple[list[Verdict], list[Verdict]]:
        """(pre-registered, not pre-registered) verdicts, leaving out not-applicable ones."""
        live = [v for v in self.verdicts if v.status != "not_applicable"]
        return [v for v in live if v.pre_registered], [v for v in live if not v.pre_registered]


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


def _records(rule, dossier: Dossier) -> tuple[list[Evidence], dict[str, list[str]]]:
    found = [e for e in dossier.evidence
             if matches(e, rule.benchmark, rule.subcategory, rule.metric, rule.provenance)]
    return preferred(found)


def _family(policy: AcceptancePolicy, dossier: Dossier, models: list[str]) -> tuple[ErrorControl, dict]:
    """The family of score verdicts with a test, and their adjusted p-values keyed (rule, evidence id)."""
    raw: dict[tuple, float] = {}
    untested = 0
    score_rules = [r for r in policy.rules if r.kind == "score"]
    for rule in score_rules:
        kept, _ = _records(rule, dossier)
        for m in models:
            mine = [e for e in kept if e.model == m]
            untested += not mine
            for e in mine:
                p = score_verdict(rule, e, power=policy.power).get("p_value")
                if p is None:
                    untested += 1
                else:
                    raw[(rule.id, e.id)] = p
    control = ErrorControl(method=policy.multiplicity, power=policy.power, score_rules=len(score_rules),
                           candidates=len(models), tests=len(raw), untested=untested)
    return control, adjusted_by_key(raw, policy.multiplicity)


def _rule_verdicts(rule, dossier: Dossier, models: list[str], control: ErrorControl,
                   adjusted: dict) -> list[dict]:
    kept, over = _records(rule, dossier)
    power = control.power
    rows: list[dict] = []
    if rule.kind == "judge_agreement":
        jury = {m: [e for e in kept if e.model == m and is_jury_scored(e)] for m in models}
        if not any(jury.values()):
            return [dict(model=None, status="not_applicable", threshold=rule.threshold,
                         reason="no jury-scored evidence in the dossier.")]
        return [dict(model=m, **agreement_verdict(rule, dossier.judge_agreement, ev, power=power))
                for m, ev in jury.items() if ev]
    if rule.kind == "max_cost_per_1k":
        report = cost_report(dossier)
        by_model = {r.model: r for r in report.rows}
        profiles = {p.model: p for p in (dossier.cost.profiles if dossier.cost else [])}
        return [dict(model=m, **cost_verdict(rule, by_model.get(m), profiles.get(m))) for m in models]
    for m in models:
        mine = [e for e in kept if e.model == m]
        if not mine:
            what = f"{'/'.join(rule.provenance)} " if rule.provenance else ""
            rows.append(dict(model=m, status="inconclusive", threshold=getattr(rule, "threshold", None),
                             subcategory=getattr(rule, "subcategory", None) if rule.kind == "score" else None,
                             reason=f"no {what}evidence for {_target(rule)} from this candidate."))
        for e in mine:
            base = dict(model=m, benchmark=e.benchmark, metric=e.metric, evidence_ids=[e.id])
            if rule.kind == "score":
                rows.append(base | score_verdict(rule, e, over.get(e.id, []), family=control.tests,
                                                 p_adjusted=adjusted.get((rule.id, e.id)),
                                                 method=control.method, power=power))
            elif rule.kind == "min_n":
                rows.append(base | min_n_verdict(rule, e))
            elif rule.kind == "max_unscored_share":
                rows.append(base | unscored_verdict(rule, e, power=power))
            elif rule.kind == "subgroup_disparity":
                rows += [base | v for v in subgroup_verdicts(rule, e)]
    return rows


def assess(dossier: Dossier) -> Assessment:
    """Apply every rule of the dossier's policy to every candidate's evidence.

    Example:
        >>> a = assess(dossier)  # doctest: +SKIP
        >>> a.score_counts()  # doctest: +SKIP
        {'pass': 8, 'fail': 1, 'inconclusive': 10, 'not_applicable': 0}
    """
    policy: AcceptancePolicy = dossier.policy or AcceptancePolicy()
    models = models_in(dossier.evidence)
    problem = change_log_problem(policy)
    control, adjusted = _family(policy, dossier, models)
    verdicts = []
    for rule in policy.rules:
        for row in _rule_verdicts(rule, dossier, models, control, adjusted):
            pre, why = preregistration(rule.id, row.get("evidence_ids", []), policy, problem)
            tested_gate = rule.kind in INTERVAL_GATES and row.get("ci_lower") is not None
            gate = {"alpha": ALPHA} if tested_gate else {}
            verdicts.append(Verdict(**{"rule_id": rule.id, "kind": rule.kind, "pre_registered": pre,
                                       "pre_registration": why, **gate, **row}))
    tier = dossier.risk.tier
    tier_note = (f"the rules were taken for risk tier {policy.tier}, but the dossier is now tier {tier}"
                 if policy.tier and policy.tier != tier else None)
    return Assessment(verdicts=verdicts, rules_hash=rules_hash(policy.rules) if policy.rules else None,
                      locked=policy.lock is not None, changes_after_lock=len(policy.changes),
                      change_log_problem=problem, models=models, tier_note=tier_note,
                      subcategories=list(dossier.mapping.accepted), family=control)
