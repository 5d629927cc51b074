"""The model-facts label: one page for the staff who will use the tool, like a drug's package insert.

Why apart from the dossier report: the report is written for the committee that decides; the label is
for the nurse or pharmacist who reads the tool's output on a shift. It says what the tool is for and not
for, where it is known to go wrong (with the figures: the weakest benchmark results and per-subgroup
results, e.g. per calculator or per language, when the evidence has them), what the reviewer must check
on every output, how to report a bad output, which version was approved and when it is re-evaluated
next. Every fact comes from the dossier version; nothing is invented, and a fact the dossier lacks is
said to be missing.
"""

from __future__ import annotations

import calendar
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from governance.decision.records import OUTCOME_LABELS
from governance.dossier.labels import benchmark_label, is_proportion_metric, metric_label
from governance.evidence.select import job_evidence
from governance.intended_use.records import OVERSIGHT_LABELS
from governance.procurement.candidates import candidate_models
from governance.rules.recommendation import Recommendation

if TYPE_CHECKING:
    from evaluator.evidence.record import Evidence
    from governance.dossier.record import Dossier

MAX_FAILURES = 8
"""Failure-mode lines on the label (the weakest first), so it stays one page."""


class ModelFacts(BaseModel):
    """What the one-page label says."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str
    """The dossier's title."""
    status: str
    """Approved or not, in one line (a label for an unapproved tool says so at the top)."""
    tool: str
    """The product and model the label is about."""
    intended_use: str
    """What the tool is for."""
    users: str
    """Who uses it, where."""
    out_of_scope: list[str]
    """Uses it is not for."""
    failure_modes: list[str]
    """Known weak spots with their figures, weakest first."""
    reviewer_checks: list[str]
    """What the reviewer must check."""
    report_bad_output: str
    """How to report a bad output."""
    approved_version: str
    """Model, version, prompt version and the dossier version the approval binds to."""
    next_reevaluation: str
    """When the tool is re-evaluated next, and what else triggers it."""


def _add_months(when: datetime, months: int) -> datetime:
    month = when.month - 1 + months
    year, month = when.year + month // 12, month % 12 + 1
    return when.replace(year=year, month=month, day=min(when.day, calendar.monthrange(year, month)[1]))


def _score(e: Evidence, x: float | None) -> str:
    if x is None:
        return "not reported"
    if is_proportion_metric(e.metric) and e.scale == "0-1":
        return f"{x * 100:.0f}% right"
    return f"{x:.2f} {metric_label(e.metric)} (scale {e.scale})"


def _failures(evidence: list[Evidence]) -> list[str]:
    """Per-subgroup results and the weakest benchmarks, weakest first."""
    rows: list[tuple[float, str]] = []
    for e in evidence:
        if not e.is_main:
            continue
        ci = (f", 95% CI {e.ci_lower * 100:.0f}–{e.ci_upper * 100:.0f}%" if e.has_interval
              and is_proportion_metric(e.metric) and e.scale == "0-1" else "")
        n = f"{e.n:,} cases" if e.n is not None else "cases not counted"
        bench = benchmark_label(e.benchmark)  # "Built-in clinical calculators", never "calc_builtin"
        rows.append((e.normalized_score, f"{bench}: {_score(e, e.score)} ({n}{ci})."))
        for g in e.subgroups or []:
            if g.suppressed or g.score is None:
                continue
            tag = g.tag.replace("_", " ")
            rows.append((g.score if e.scale == "0-1" else (g.score - 1) / 4,
                         f"{bench}, {tag} {g.group}: {_score(e, g.score)} ({g.n:,} cases)."))
    rows.sort(key=lambda r: r[0])
    return [text for _, text in rows[:MAX_FAILURES]]


def model_facts(dossier: Dossier, rec: Recommendation, version: int, version_hash: str) -> ModelFacts:
    """The label of one dossier version (about the candidate decided on, else the recommendation's best).

    Example:
        >>> facts = model_facts(dossier, rec, version=12, version_hash="ab12...")  # doctest: +SKIP
        >>> facts.status  # doctest: +SKIP
        'Approved with conditions by the committee on 2026-12-01.'
    """
    use, d = dossier.intended_use, dossier.decision
    model = d.model if d is not None and d.model else (rec.models[0] if rec.models else None)
    cand = next((c for c in dossier.candidates if model in candidate_models(dossier, c)), None)
    if d is None:
        status = "NOT APPROVED: the committee has not decided. Do not use this tool for patient care."
    elif d.outcome == "reject":
        status = f"NOT APPROVED: the committee rejected it on {d.decided_at:%Y-%m-%d}. Do not use it."
    else:
        status = f"{OUTCOME_LABELS[d.outcome]}: decided by the committee on {d.decided_at:%Y-%m-%d}."
    tool = cand.label if cand is not None else (model or "no candidate with evidence")
    if cand is not None and model:
        tool += f" (model {cand.model_id}, version {cand.model_version})"
    job = job_evidence(dossier.evidence, dossier.mapping.accepted)  # try-outs say nothing about the job
    mine = [e for e in job if e.model == model] if model else []
    failures = _failures(mine) or ["No evidence for this job is attached for this model: its failure modes "
                                   "are unknown."]
    checks = [OVERSIGHT_LABELS[use.human_oversight] + "."]
    plan = dossier.oversight
    if plan is not None:
        r = plan.review
        checks.append(f"Reviewer: {r.reviewer} ({r.qualification}).")
        checks.append(f"{r.qa_sample_rate:.0%} of released outputs are audited afterwards by "
                      f"{r.qa_reviewer}.")
    if d is not None:
        checks += [f"Condition: {c}" for c in d.conditions]
    checks.append("Check every number, dose, date and name against the source record; never release an "
                  "output you have not read in full.")
    owner = plan.monitoring.owner if plan is not None else dossier.owner
    report = (f"Do not release it. Report it to {owner} through the hospital's incident reporting system, "
              f"quoting dossier {dossier.id}, the patient context (no identifiers in free text), the output "
              "and what was wrong. Reports count towards the monitored correction rate.")
    prompt = f", prompt {cand.prompt_version}" if cand is not None and cand.prompt_version else ""
    product = cand.label if cand is not None else (model or "no model")
    approved = (f"{product}{prompt}; dossier {dossier.id} version {version} "
                f"(hash {version_hash[:16]}).")
    if plan is not None:
        start = d.decided_at if d is not None else None
        months = plan.monitoring.schedule_months
        when = f"{_add_months(start, months):%Y-%m-%d}" if start else f"{months} months after the decision"
        others = "; ".join(t.description for t in plan.monitoring.triggers if t.kind != "schedule")
        nxt = f"{when} (every {months} months)" + (f"; also on: {others}" if others else "")
    else:
        nxt = "Not planned yet: the review and monitoring plan is not recorded."
    return ModelFacts(
        title=dossier.title, status=status, tool=tool, intended_use=use.purpose,
        users=f"{', '.join(use.intended_users)}; {use.care_setting}; patients: {use.patient_population}",
        out_of_scope=list(use.out_of_scope_uses) or ["None declared: ask the committee before another use."],
        failure_modes=failures, reviewer_checks=checks, report_bad_output=report, approved_version=approved,
        next_reevaluation=nxt)
