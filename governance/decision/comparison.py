"""Candidates side by side: evidence, verdicts, cost and due diligence in one value.

Why one value for the page, the CLI and the PDF: the committee must see the same numbers wherever
it looks, so ``compare_candidates`` computes everything once from a dossier version and the three
outputs only format it. Nothing here is new arithmetic; it reuses what the rest of the dossier
uses, so the comparison cannot disagree with the Evidence, Rules and Cost pages:

* **Scores**: per candidate and benchmark, one evidence record of the candidate's evidence models
  (``governance.procurement.candidates``): a share-of-correct metric first, then local run > HELM import >
  published, then the newest (``governance.evidence.select``'s ranking). Intervals are shown on
  the normalized 0-1 scale, or the reason there is none.
* **Verdicts**: the dossier's per-benchmark rule verdicts (score, minimum n, unscored share,
  subgroup disparity) that used that record, combined worst first: fail > inconclusive > pass.
* **Ties**: per benchmark, ``evaluator.statistics.estimates.tie_groups`` over the candidates' intervals; not
  grouped when a record has no interval or the candidates' metrics differ.
* **Cost**: the quoted price converted per ``governance.procurement.candidate_cost``; per acceptable output =
  cost ÷ pass rate on the dossier's cost score benchmark, only where that score is a share.
  The Pareto frontier is ``governance.procurement.cost.pareto_frontier`` on (cost, normalized score).
* **Due diligence**: questionnaire completeness and ``governance.procurement.candidate_items``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict

from evaluator.evidence.record import Evidence
from evaluator.statistics.estimates import normalize_score, tie_groups
from governance.evidence.attach import mapped_benchmarks
from governance.evidence.select import PROVENANCE_RANK, is_share
from governance.procurement.attestations import load_questionnaire, statuses
from governance.procurement.candidate_cost import candidate_cost
from governance.procurement.candidate_items import vendor_items
from governance.procurement.candidates import candidate_models
from governance.procurement.cost import cost_report, default_score_benchmark, pareto_frontier
from governance.procurement.measured_cost import MeasuredCost
from governance.procurement.records import Candidate, ContractFacts
from governance.procurement.retirement import retirement
from governance.rules.assessment import assessment_and_recommendation
from governance.rules.kinds import kinds_where
from governance.rules.recommendation import RANK, Recommendation
from governance.rules.rule_text import verdict_label
from governance.rules.verdicts import Assessment, Verdict

if TYPE_CHECKING:
    from governance.dossier.record import Dossier

BENCH_KINDS = kinds_where(per_benchmark=True)
CellVerdict = Literal["pass", "fail", "inconclusive", "not_applicable", "no rule", "no evidence"]
METHODS = {
    "score": "One record per candidate and benchmark: a share-of-correct metric first, then local run > "
             "HELM import > published, then the newest. Interval: 95%, normalized 0-1.",
    "verdict": "The per-benchmark rule verdicts on that record, worst first (fail > inconclusive > pass).",
    "ties": "Candidates whose 95% intervals overlap the group leader's share a tie group (1 = best); not "
            "grouped when a record has no interval or the metrics differ.",
    "cost_rule": "The dossier's cost ceiling (its cost-ceiling rule) applied to the quoted price. The Rules "
                 "page applies it to the Cost page's token profiles and list prices instead, so the two can "
                 "differ where a quote differs from the list price.",
    "cost": "Quoted price converted to USD per 1,000 requests at the intended use's monthly volume: per "
            "token via mean tokens per request; per seat as seats × price ÷ volume. Per acceptable output: "
            "÷ pass rate on the cost score benchmark, only where that score is a share of correct outputs.",
    "attestations": "Answered and satisfactory questions of the vendor questionnaire; unanswered, "
                    "unreviewed or undocumented answers are open items, unsatisfactory ones conditions.",
}


class ScoreCell(BaseModel):
    """One candidate on one benchmark."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    candidate_id: str
    """The candidate."""
    benchmark: str
    """The benchmark or local scenario."""
    evidence_id: str | None = None
    """The evidence record shown (None: no evidence)."""
    model: str | None = None
    """The evidence model name of that record."""
    metric: str | None = None
    """Its metric."""
    provenance: str | None = None
    """published / helm-import / local-run."""
    score: float | None = None
    """Normalized 0-1 score."""
    ci_lower: float | None = None
    """Lower bound of the 95% interval, normalized (None: no interval)."""
    ci_upper: float | None = None
    """Upper bound, normalized."""
    interval_note: str = ""
    """The interval's method, or why there is none."""
    n: int | None = None
    """Instances."""
    verdict: CellVerdict = "no evidence"
    """Combined per-benchmark verdict."""
    rules: list[str] = []
    """Rule ids behind the verdict."""
    tie_group: int | None = None
    """1-based tie group on this benchmark (None: not grouped)."""


class BenchmarkColumn(BaseModel):
    """A benchmark compared, and its tie groups."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """Benchmark or local scenario name."""
    kind: Literal["mapped", "local scenario", "other"]
    """Mapped from the task mapping, a local scenario (local run), or other attached evidence."""
    groups: list[list[str]] | None
    """Tie groups of candidate ids, best first (None: not grouped)."""
    note: str = ""
    """Why there are no groups."""


class CandidateSummary(BaseModel):
    """One candidate's row: identity, cost, verdicts and due diligence."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """Candidate id."""
    label: str
    """Vendor · product."""
    model: str
    """Underlying model and version."""
    prompt_version: str
    """Prompt or configuration version."""
    endpoint: str | None
    """Endpoint for runs (name and model string; never a key)."""
    evidence_models: list[str]
    """Evidence model names that stand for it."""
    contract: ContractFacts
    """Contract facts."""
    pricing: str
    """per_token / per_seat / none."""
    cost_per_1k: float | None
    """USD per 1,000 requests."""
    monthly_cost: float | None
    """USD per month at the expected volume."""
    cost_basis: str
    """How the cost was computed."""
    pass_rate: float | None
    """Share of acceptable outputs on the cost score benchmark."""
    cost_per_1k_acceptable: float | None
    """USD per 1,000 acceptable outputs."""
    on_frontier: bool
    """On the cost-score Pareto frontier."""
    cost_rule: str
    """The dossier's cost ceiling applied to the quoted price: pass / fail / inconclusive / no rule."""
    questions: int
    """Questions in the questionnaire."""
    answered: int
    """Questions with an answer."""
    satisfactory: int
    """Questions answered satisfactorily."""
    open_items: list[str]
    """Information still missing."""
    conditions: list[str]
    """Shortfalls an approval must address."""
    verdicts: dict[str, int]
    """Verdicts per status over all rules, for its evidence models."""
    recommendation: str | None
    """What the verdicts and vendor items support (None: no evidence)."""
    list_cost_per_1k: float | None = None
    """USD per 1,000 requests at the list price (the Cost page's figure for its evidence model)."""
    list_basis: str = ""
    """Where the list price comes from."""
    measured_cost_per_1k: float | None = None
    """USD per 1,000 requests as charged in the dossier's own runs (None: not measured)."""
    measured_basis: str = ""
    """``measured on N instances of run R``, or why there is no measured figure."""
    retires_on: date | None = None
    """The day the vendor retires the candidate's snapshot (None: no date known)."""
    retires_on_source: str | None = None
    """Where that date comes from: the candidate's record, or litellm's model map with its version."""


class CandidateComparison(BaseModel):
    """Everything the Candidates page, ``medassure candidates`` and the PDF section show."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dossier_id: str
    """The dossier."""
    monthly_volume: int
    """Expected requests per month."""
    questionnaire: str
    """Questionnaire id and version the answers are judged against."""
    score_benchmark: str | None
    """Benchmark whose share is the pass rate for cost per acceptable output."""
    benchmarks: list[BenchmarkColumn]
    """Benchmarks compared, mapped first."""
    uncovered: list[str]
    """Mapped benchmarks with no evidence for any candidate."""
    candidates: list[CandidateSummary]
    """One row per candidate, in the dossier's order."""
    cells: list[ScoreCell]
    """Candidate × benchmark."""
    methods: dict[str, str] = METHODS
    """How each column is computed."""


def pick_record(records: list[Evidence]) -> Evidence | None:
    """The record shown for one candidate and benchmark (see the module docstring)."""
    ranked = sorted(records, key=lambda e: (not is_share(e), PROVENANCE_RANK[e.provenance],
                                            -e.date.timestamp()))
    return ranked[0] if ranked else None


def combine(verdicts: list[Verdict]) -> CellVerdict:
    """Worst status first.

    Example:
        >>> v = lambda s: Verdict(rule_id="r", kind="score", model="m", status=s, reason="x")
        >>> combine([v("pass"), v("inconclusive")]), combine([]), combine([v("fail"), v("pass")])
        ('inconclusive', 'no rule', 'fail')
    """
    found = {v.status for v in verdicts}
    return next((s for s in ("fail", "inconclusive", "pass", "not_applicable") if s in found), "no rule")


def _cell(candidate: Candidate, bench: str, e: Evidence | None, verdicts: list[Verdict]) -> ScoreCell:
    if e is None:
        return ScoreCell(candidate_id=candidate.id, benchmark=bench)
    used = [v for v in verdicts if v.kind in BENCH_KINDS and v.model == e.model
            and v.benchmark == e.benchmark and e.id in v.evidence_ids]
    lo = normalize_score(e.ci_lower, e.scale) if e.has_interval else None
    hi = normalize_score(e.ci_upper, e.scale) if e.has_interval else None
    return ScoreCell(candidate_id=candidate.id, benchmark=bench, evidence_id=e.id, model=e.model,
                     metric=e.metric, provenance=e.provenance, score=e.normalized_score, ci_lower=lo,
                     ci_upper=hi, n=e.n,
                     interval_note=(e.ci_method if e.has_interval else e.ci_missing_reason) or "",
                     verdict=combine(used), rules=sorted({verdict_label(v) for v in used}))


def _ties(cells: list[ScoreCell], records: dict[str, Evidence]) -> tuple[list[list[str]] | None, str]:
    shown = [c for c in cells if c.evidence_id]
    if len(shown) < 2:
        return None, "fewer than two candidates have evidence"
    if len({c.metric for c in shown}) > 1:
        return None, "the candidates' records use different metrics"
    missing = next((c for c in shown if c.ci_lower is None), None)
    if missing is not None:
        return None, f"no interval for {missing.candidate_id}: {missing.interval_note}"
    frame = pd.DataFrame({"model": [c.candidate_id for c in shown], "estimate": [c.score for c in shown],
                          "lower": [c.ci_lower for c in shown], "upper": [c.ci_upper for c in shown]})
    return tie_groups(frame, higher_is_better=records[shown[0].candidate_id].higher_is_better), ""


def compare_candidates(dossier: Dossier, measured: Mapping[str, MeasuredCost] | None = None,
                       assessed: tuple[Assessment, Recommendation] | None = None) -> CandidateComparison:
    """The comparison of a dossier's candidates (see the module docstring).

    ``measured`` (``measured_cost.measured_costs``, from a caller holding the store) adds what the
    candidate's requests cost in the dossier's own runs beside the quoted and list prices. ``assessed``
    is the dossier's ``assessment_and_recommendation``, when the caller has computed it already.

    Example:
        >>> cmp = compare_candidates(store.load("D-demo-portal").dossier)  # doctest: +SKIP
        >>> [c.id for c in cmp.candidates]  # doctest: +SKIP
        ['azure-gpt-4o', 'northwind-messageassist', 'onprem-llama-3-3-70b']
    """
    assessment, rec = assessed or assessment_and_recommendation(dossier)
    models = {c.id: candidate_models(dossier, c) for c in dossier.candidates}
    own = {cid: [e for e in dossier.evidence if e.model in ms] for cid, ms in models.items()}
    mapped = [b.name for b in mapped_benchmarks(dossier)]
    present = list(dict.fromkeys(e.benchmark for ev in own.values() for e in ev))
    names = [b for b in mapped if b in present] + [b for b in present if b not in mapped]
    local = {e.benchmark for ev in own.values() for e in ev if e.provenance == "local-run"}
    columns, cells = [], []
    for bench in names:
        picked = {c.id: pick_record([e for e in own[c.id] if e.benchmark == bench])
                  for c in dossier.candidates}
        row = [_cell(c, bench, picked[c.id], assessment.verdicts) for c in dossier.candidates]
        groups, note = _ties(row, {k: v for k, v in picked.items() if v is not None})
        rank = {cid: i for i, g in enumerate(groups or [], start=1) for cid in g}
        cells += [c.model_copy(update={"tie_group": rank.get(c.candidate_id)}) for c in row]
        kind = "mapped" if bench in mapped else "local scenario" if bench in local else "other"
        columns.append(BenchmarkColumn(name=bench, kind=kind, groups=groups, note=note))
    all_models = [m for ms in models.values() for m in ms]
    score_bench = (dossier.cost.score_benchmark if dossier.cost and dossier.cost.score_benchmark
                   else default_score_benchmark(dossier.evidence, all_models))
    rows = {r.model: r for r in cost_report(dossier, measured=measured).rows} if dossier.candidates else {}
    summaries = [_summary(dossier, c, models[c.id], own[c.id], score_bench, assessment.verdicts, rec)
                 .model_copy(update=_beside(c, models[c.id], rows)) for c in dossier.candidates]
    scored = [(s.id, s.cost_per_1k, _score_on(cells, s.id, score_bench)) for s in summaries]
    frontier = pareto_frontier(p for p in scored if p[1] is not None and p[2] is not None)
    q = load_questionnaire()
    return CandidateComparison(
        dossier_id=dossier.id, monthly_volume=dossier.intended_use.expected_monthly_volume,
        questionnaire=f"{q.id} v{q.version}", score_benchmark=score_bench, benchmarks=columns,
        uncovered=[b for b in mapped if b not in present], cells=cells,
        candidates=[s.model_copy(update={"on_frontier": s.id in frontier}) for s in summaries])


def _beside(c: Candidate, models: list[str], rows: Mapping) -> dict:
    """The list-price and measured figures of the candidate's first evidence model that has them."""
    names = list(dict.fromkeys([*models, *([c.endpoint.model] if c.endpoint else [])]))
    out: dict = {}
    listed = next((rows[m] for m in names if m in rows and rows[m].cost_per_1k is not None), None)
    if listed is not None:
        out.update(list_cost_per_1k=listed.cost_per_1k,
                   list_basis=f"{listed.price_model}: {listed.price_source}; tokens: {listed.token_source}")
    measured = next((rows[m] for m in names if m in rows and rows[m].measured_source), None)
    if measured is not None:
        out.update(measured_cost_per_1k=measured.measured_per_1k, measured_basis=measured.measured_source)
    return out


def _score_on(cells: list[ScoreCell], candidate_id: str, bench: str | None) -> float | None:
    return next((c.score for c in cells if c.candidate_id == candidate_id and c.benchmark == bench), None)


def _summary(dossier: Dossier, c: Candidate, models: list[str], evidence: list[Evidence],
             score_bench: str | None, verdicts: list[Verdict], rec) -> CandidateSummary:
    cost = candidate_cost(dossier, c)
    e = pick_record([x for x in evidence if x.benchmark == score_bench])
    rate = e.score if e is not None and is_share(e) else None
    per_acceptable = cost.cost_per_1k / rate if cost.cost_per_1k is not None and rate else None
    answers = statuses(c.attestations)
    items = vendor_items(dossier, c)
    mine = [v for v in verdicts if v.model in models]
    outcomes = [r.outcome for r in rec.candidates if r.model in models]
    endpoint = f"{c.endpoint.name} ({c.endpoint.model})" if c.endpoint else None
    ceiling = next((r.threshold for r in (dossier.policy.rules if dossier.policy else [])
                    if r.kind == "max_cost_per_1k"), None)
    cost_rule = ("no rule" if ceiling is None else "inconclusive" if cost.cost_per_1k is None
                 else "pass" if round(cost.cost_per_1k, 9) <= ceiling else "fail")
    retires = retirement(c)
    return CandidateSummary(
        retires_on=retires.retires_on if retires else None,
        retires_on_source=retires.source_text if retires else None,
        id=c.id, label=c.label, model=c.model_text, prompt_version=c.prompt_version, endpoint=endpoint,
        evidence_models=models, contract=c.contract, pricing=c.pricing.kind if c.pricing else "none",
        cost_per_1k=cost.cost_per_1k, monthly_cost=cost.monthly_cost, cost_basis=cost.basis,
        pass_rate=rate,
        cost_per_1k_acceptable=per_acceptable, on_frontier=False, cost_rule=cost_rule, questions=len(answers),
        answered=sum(s.status != "unanswered" for s in answers),
        satisfactory=sum(s.status == "satisfactory" for s in answers),
        open_items=[i.text for i in items if i.kind == "open_item"],
        conditions=[i.text for i in items if i.kind == "condition"],
        verdicts={s: sum(v.status == s for v in mine) for s in ("pass", "fail", "inconclusive")},
        recommendation=max(outcomes, key=RANK.get) if outcomes else None)
