"""The rule-kind registry: each kind of acceptance rule registered once, with its verdicts and its words.

Why a registry: a rule kind (score, minimum n, unscored share, subgroup disparity, judge agreement,
cost ceiling, critical criterion) used to be matched as a string in the verdicts, the bar's wording,
the Rules page, the comparison and the PDF. Each kind now says here, in one place, how it reaches its
verdicts, how its bar reads (one wording for the pages, the CLI and the PDF), its label, and the two
facts other modules ask of it: whether it reads one evidence record per benchmark (a column of the candidate
comparison) and whether it is a gate tested on an interval (its alpha is recorded). Adding a kind
touches its record type in ``governance.rules.records``, this module and its tests; a test
checks that every kind the record types allow is registered.

A kind's ``verdicts`` is given a :class:`RuleContext` (the dossier, the candidate models, the rule's
kept records and the family's control and adjusted p-values) and returns verdict rows (plain dicts
that ``governance.rules.verdicts`` turns into ``Verdict`` values).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evaluator.evidence.record import Evidence
from governance.evidence.select import is_jury_scored
from governance.procurement.cost import cost_report
from governance.rules.critical_criterion import critical_rows
from governance.rules.grader_agreement import grader_agreement_verdict, is_rubric_graded
from governance.rules.score_verdict import _target, score_verdict
from governance.rules.subgroup_verdicts import subgroup_verdicts
from governance.rules.verdict_kinds import agreement_verdict, cost_verdict, min_n_verdict, unscored_verdict

if TYPE_CHECKING:
    from governance.dossier.record import Dossier
    from governance.rules.family import ErrorControl


@dataclass(frozen=True)
class RuleContext:
    """What a kind's verdict function reads besides its rule."""

    dossier: Dossier
    models: list[str]
    kept: list[Evidence]
    """The rule's records after the preference order (one per model, benchmark and metric)."""
    passed_over: dict[str, list[str]]
    """Per kept record id, the ids of the records it was preferred to."""
    control: ErrorControl
    adjusted: dict = field(default_factory=dict)
    """Family-adjusted p-values keyed by (rule id, evidence id)."""


@dataclass(frozen=True)
class RuleKind:
    """One kind of acceptance rule: its verdicts, its bar in words and its label."""

    kind: str
    label: str
    """The kind in words (the stored key stays in the dossier and the CLI)."""
    bar: Callable[[Any], str]
    """The rule's number(s) in words."""
    verdicts: Callable[[Any, RuleContext], list[dict]]
    per_benchmark: bool = False
    """Reads one evidence record per benchmark: a column of the candidate comparison."""
    interval_gate: bool = False
    """A gate tested on an interval: its verdict records the test's alpha."""


REGISTRY: dict[str, RuleKind] = {}


def register(kind: RuleKind) -> RuleKind:
    """Add a kind to the registry.

    Raises:
        ValueError: the kind is registered already.
    """
    if kind.kind in REGISTRY:
        raise ValueError(f"rule kind {kind.kind!r} is registered twice")
    REGISTRY[kind.kind] = kind
    return kind


def rule_kind(kind: str) -> RuleKind:
    """The registered kind.

    Raises:
        KeyError: an unknown kind, naming the known ones.

    Example:
        >>> rule_kind("min_n").label
        'minimum n'
    """
    try:
        return REGISTRY[kind]
    except KeyError:
        raise KeyError(f"unknown rule kind {kind!r}; known kinds: {', '.join(sorted(REGISTRY))}") from None


def kinds_where(**facts: bool) -> tuple[str, ...]:
    """The registered kinds with the given facts, in registration order.

    Example:
        >>> kinds_where(per_benchmark=True)
        ('score', 'min_n', 'max_unscored_share', 'subgroup_disparity')
    """
    return tuple(k.kind for k in REGISTRY.values() if all(getattr(k, f) == v for f, v in facts.items()))


def _per_record(rule, ctx: RuleContext, verdict: Callable[[Evidence], list[dict]]) -> list[dict]:
    """Rows for a kind judged on each kept record of each model; a model without one is inconclusive."""
    rows: list[dict] = []
    for m in ctx.models:
        mine = [e for e in ctx.kept if e.model == m]
        if not mine:
            what = f"{'/'.join(rule.provenance)} " if rule.provenance else ""
            rows.append(dict(model=m, status="inconclusive", threshold=getattr(rule, "threshold", None),
                             subcategory=getattr(rule, "subcategory", None) if rule.kind == "score" else None,
                             reason=f"no {what}evidence for {_target(rule)} from this candidate."))
        for e in mine:
            base = dict(model=m, benchmark=e.benchmark, metric=e.metric, evidence_ids=[e.id])
            rows += [base | v for v in verdict(e)]
    return rows


def _score_rows(rule, ctx: RuleContext) -> list[dict]:
    c = ctx.control
    return _per_record(rule, ctx, lambda e: [score_verdict(
        rule, e, ctx.passed_over.get(e.id, []), family=c.tests, p_adjusted=ctx.adjusted.get((rule.id, e.id)),
        method=c.method, power=c.power)])


def _agreement_rows(rule, ctx: RuleContext) -> list[dict]:
    jury = {m: [e for e in ctx.kept if e.model == m and is_jury_scored(e)] for m in ctx.models}
    graded = {m: [e for e in ctx.kept if e.model == m and is_rubric_graded(e)] for m in ctx.models}
    if not any(jury.values()) and not any(graded.values()):
        return [dict(model=None, status="not_applicable", threshold=rule.threshold,
                     reason="no jury-scored evidence in the dossier.")]
    rows = [dict(model=m, **agreement_verdict(rule, ctx.dossier.judge_agreement, ev, power=ctx.control.power))
            for m, ev in jury.items() if ev]
    return rows + [dict(model=m, **grader_agreement_verdict(rule, ctx.dossier.grader_agreements, ev))
                   for m, ev in graded.items() if ev]


def _cost_rows(rule, ctx: RuleContext) -> list[dict]:
    report = cost_report(ctx.dossier)
    by_model = {r.model: r for r in report.rows}
    profiles = {p.model: p for p in (ctx.dossier.cost.profiles if ctx.dossier.cost else [])}
    return [dict(model=m, **cost_verdict(rule, by_model.get(m), profiles.get(m))) for m in ctx.models]


def _score_bar(rule) -> str:
    extra = [f"min n {rule.min_n}"] if rule.min_n else []
    extra += ["point estimates accepted"] if rule.allow_point_estimate else []
    text = (f"score {rule.threshold:.2f} (normalized; {1 + 4 * rule.threshold:.2f} on the jury's 1-5 scale; "
            "must be reached)")
    return text + "".join(f"; {x}" for x in extra)


register(RuleKind("score", "score bar", _score_bar, _score_rows, per_benchmark=True))
register(RuleKind("min_n", "minimum n", lambda r: f"n ≥ {r.threshold:,} instances",
                  lambda r, ctx: _per_record(r, ctx, lambda e: [min_n_verdict(r, e)]), per_benchmark=True))
register(RuleKind("max_unscored_share", "maximum unscored share",
                  lambda r: f"unparsed or unscored outputs ≤ {r.threshold:.0%}",
                  lambda r, ctx: _per_record(r, ctx, lambda e: [unscored_verdict(r, e,
                                                                                   power=ctx.control.power)]),
                  per_benchmark=True, interval_gate=True))
def _subgroup_rows(rule, ctx: RuleContext) -> list[dict]:
    blocks = getattr(rule, "suppressed", "condition") == "insufficient_evidence"
    return _per_record(rule, ctx, lambda e: [
        row | {"suppressed_blocks": blocks and bool(row.get("suppressed_groups"))}
        for row in subgroup_verdicts(rule, e)])


def _subgroup_bar(rule) -> str:
    text = f"subgroup / overall score within [{rule.ratio_lo:.2f}, {rule.ratio_hi:.2f}]"
    if getattr(rule, "suppressed", "condition") == "insufficient_evidence":
        text += "; every group must be large enough to report"
    return text


register(RuleKind("subgroup_disparity", "subgroup disparity", _subgroup_bar, _subgroup_rows,
                  per_benchmark=True, interval_gate=True))
register(RuleKind("judge_agreement", "judge agreement",
                  lambda r: f"judge-clinician agreement (ICC lower bound; a rubric grading's κ per "
                            f"criterion) ≥ {r.threshold:.2f}",
                  _agreement_rows, interval_gate=True))
register(RuleKind("max_cost_per_1k", "cost ceiling per 1,000 requests",
                  lambda r: f"≤ USD {r.threshold:,.2f} per 1,000 requests", _cost_rows))
register(RuleKind("critical_criterion", "critical criterion",
                  lambda r: f"cases missing the criteria tagged {r.tag} ≤ {r.threshold:.1%}"
                            + (f"; min n {r.min_n}" if r.min_n else ""),
                  lambda r, ctx: critical_rows(r, ctx.models, ctx.kept, ctx.control.power),
                  interval_gate=True))
