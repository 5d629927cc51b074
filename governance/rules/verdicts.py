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
* Gating rules (minimum n, unscored share, subgroups, judge agreement, cost, critical criteria) are
  counted apart from score verdicts (``Assessment.score_counts`` / ``gating_counts``): their passes
  never pad the score pass count.
* A verdict is *pre-registered* only when its rule was fixed before every evidence record it uses
  was attached (``governance.rules.preregistration``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from evaluator.evidence.record import Evidence
from governance.evidence.select import job_evidence, matches, models_in, preferred
from governance.rules.family import ErrorControl, adjusted_by_key
from governance.rules.kinds import RuleContext, rule_kind
from governance.rules.policy import change_log_problem, rules_hash
from governance.rules.preregistration import preregistration
from governance.rules.records import AcceptancePolicy, RuleKind, Status
from governance.rules.rule_text import rule_label
from governance.rules.score_verdict import score_verdict
from governance.rules.verdict_math import (
    ALPHA,
    Direction,
    Multiplicity,
)

if TYPE_CHECKING:
    from governance.dossier.record import Dossier



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
    reads_jury: bool = False
    """A score verdict on jury-scored evidence (judge agreement below its bar keeps it from approving)."""
    suppressed_groups: list[str] = []
    """Subgroups too small to report, so untested by a subgroup verdict (each a named condition)."""
    group_compared: str | None = None
    """Subgroup verdicts: the group furthest from its reference, in words ("language es against en")."""
    suppressed_blocks: bool = False
    """The rule requires every group reported: a suppressed group makes the evidence insufficient."""

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
    rule_names: dict[str, str] = {}
    """Rule id → the rule in words (``governance.rules.rule_text.rule_label``): what pages and PDFs show."""

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
        """Gating verdicts per status (minimum n, unscored share, subgroups, judge agreement, cost, critical
        criteria)."""
        return self.counts([v for v in self.verdicts if not v.is_score])

    def preregistered(self) -> tuple[list[Verdict], list[Verdict]]:
        """(pre-registered, not pre-registered) verdicts that read evidence (as the headline counts them)."""
        live = [v for v in self.verdicts if v.status != "not_applicable" and v.evidence_ids]
        return [v for v in live if v.pre_registered], [v for v in live if not v.pre_registered]










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
    ctx = RuleContext(dossier=dossier, models=models, kept=kept, passed_over=over, control=control,
                      adjusted=adjusted)
    return rule_kind(rule.kind).verdicts(rule, ctx)


def assess(dossier: Dossier) -> Assessment:
    """Apply every rule of the dossier's policy to every candidate's evidence.

    Example:
        >>> a = assess(dossier)  # doctest: +SKIP
        >>> a.score_counts()  # doctest: +SKIP
        {'pass': 8, 'fail': 1, 'inconclusive': 10, 'not_applicable': 0}
    """
    policy: AcceptancePolicy = dossier.policy or AcceptancePolicy()
    # Try-outs (evidence for no accepted subcategory, e.g. the built-in calculator run) decide nothing.
    job = job_evidence(dossier.evidence, dossier.mapping.accepted)
    dossier = dossier.model_copy(update={"evidence": job})
    models = models_in(dossier.evidence)
    problem = change_log_problem(policy)
    control, adjusted = _family(policy, dossier, models)
    published = {e.id for e in dossier.evidence if e.provenance == "published"}
    verdicts = []
    for rule in policy.rules:
        for row in _rule_verdicts(rule, dossier, models, control, adjusted):
            pre, why = preregistration(rule.id, row.get("evidence_ids", []), policy, problem,
                                       published=published)
            tested_gate = rule_kind(rule.kind).interval_gate and row.get("ci_lower") is not None
            gate = {"alpha": ALPHA} if tested_gate else {}
            verdicts.append(Verdict(**{"rule_id": rule.id, "kind": rule.kind, "pre_registered": pre,
                                       "pre_registration": why, **gate, **row}))
    tier = dossier.risk.tier
    tier_note = (f"the rules were taken for risk tier {policy.tier}, but the dossier is now tier {tier}"
                 if policy.tier and policy.tier != tier else None)
    return Assessment(verdicts=verdicts, rules_hash=rules_hash(policy.rules) if policy.rules else None,
                      locked=policy.lock is not None, changes_after_lock=len(policy.changes),
                      change_log_problem=problem, models=models, tier_note=tier_note,
                      subcategories=list(dossier.mapping.accepted), family=control,
                      rule_names={r.id: rule_label(r) for r in policy.rules})
