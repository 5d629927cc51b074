"""Assembling the report of one stored dossier version from its sections.

Why apart from ``reports.model``: the section modules build ``reports.model`` values, and this
function calls every section module, so it sits above them; the model stays a plain set of
record types that every section and renderer imports (no import cycle).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from governance.decision.memo import decision_memo
from governance.dossier.chain import ChainReport
from governance.dossier.store import DossierVersion
from governance.rules.assessment import assessment_and_recommendation
from governance.rules.recommendation import Recommendation
from governance.rules.verdicts import Assessment
from reports import sections_core as core
from reports import sections_decision as decision
from reports import sections_oversight as oversight
from reports import sections_review as review
from reports import sections_rules as rules
from reports import sections_summary as summary
from reports.charts import charts_section
from reports.flags import dossier_flags
from reports.hti1 import source_attributes_section
from reports.model import AppendixRun, Fact, Report, Section
from reports.sections_memo import memo_section


def _with(section: Section, sub: Section | None) -> Section:
    """``section`` with ``sub`` appended to its subsections (unchanged when there is none)."""
    return section if sub is None else section.model_copy(update={"subsections": [*section.subsections, sub]})


def build_report(
    version: DossierVersion,
    runs: Mapping[str, Mapping[str, Any] | AppendixRun] | None = None,
    extra_sections: list[Section] | None = None,
    measured: Mapping[str, Any] | None = None,
    chain: ChainReport | None = None,
    assessed: tuple[Assessment, Recommendation] | None = None,
) -> Report:
    """The report of one stored dossier version.

    Args:
        version: the stored version (its hash and timestamp go on every page).
        runs: run records by run id (``reports.runs.run_records`` reads them from the run
            store); runs the evidence names but this mapping lacks are listed from the evidence.
        extra_sections: sections added by later steps, placed before the appendices.
        measured: what the dossier's own runs cost per model
            (``governance.procurement.operations.measured_costs``), for the cost table's measured column.
        chain: the dossier's hash-chain check (``Store.verify_chain``); its line goes in the summary,
            and a broken chain or a version whose content no longer matches its hash is flagged first.
        assessed: the version's ``assessment_and_recommendation``, when the caller (the bundle, which
            hands the same value to every export) has computed it; otherwise computed here, once.

    Example:
        >>> report = build_report(store.load("D-demo-portal"))  # doctest: +SKIP
        >>> report.cover.version_hash == store.load("D-demo-portal").hash  # doctest: +SKIP
        True
    """
    records = {
        k: v if isinstance(v, AppendixRun) else AppendixRun.model_validate({"run_id": k, **v})
        for k, v in (runs or {}).items()
    }
    dossier = version.dossier
    refs = core.evidence_refs(dossier)
    full = assessed or assessment_and_recommendation(dossier)
    assessed = rules.assessed(dossier, full)
    cost = oversight.cost_section(dossier, measured)
    parts = {
        "intended_use": core.intended_use_section(dossier),
        "mapping": core.mapping_section(dossier),
        "evidence": _with(_with(core.evidence_section(dossier), review.judge_validity_subsection(dossier)),
                          review.grader_agreement_subsection(dossier)),
        "charts": charts_section(dossier, published_cost=not cost.charts),
        "rules": rules.rules_section(dossier, refs, assessed),
        "subgroups": core.subgroups_section(dossier),
        "cost": cost,
        "human_review": _with(oversight.human_review_section(dossier),
                              review.review_queue_subsection(dossier)),
        "monitoring": oversight.monitoring_section(dossier),
        "rule_changes": rules.rule_changes_section(dossier),
        "signoffs": decision.signoffs_section(dossier, version.hash, full[1]),
        "runs": core.runs_section(dossier, records),
        "source_attributes": source_attributes_section(dossier),
        "limitations": summary.limitations_section(dossier),
    }
    cover = core.cover(version, decision.decision_text(dossier), decision.decision_date(dossier))
    integrity = [f"RECORD INTEGRITY: {version.integrity_problem}"] if version.integrity_problem else []
    if chain is not None and not chain.ok:
        integrity.append(f"RECORD INTEGRITY: {chain.summary}")
    cover = cover.model_copy(update={"flags": [*integrity, *dossier_flags(version, parts, assessed)]})
    executive = summary.executive_summary(version, parts, cover, assessed)
    memo = memo_section(decision_memo(dossier, *full))
    if chain is not None:
        executive = executive.model_copy(update={"facts": [
            *executive.facts, Fact(label="Record chain", value=chain.summary)]})
    return Report(
        cover=cover,
        memo=memo,
        executive_summary=executive,
        extra_sections=list(extra_sections or []),
        **parts,
    )
