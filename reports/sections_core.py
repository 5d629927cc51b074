"""Sections built from the foundation's facts: cover, intended use, mapping, evidence, subgroups, runs.

Why numbered references in the evidence table: every record carries a long citation (a repo path
at a commit, a run folder) and an interval method or the reason there is none. Repeating them
on each of sixty rows would push the scores off the page, so each distinct citation and each
distinct interval note is listed once under the table and the rows point at it (S1, M1, C1).
"""

from __future__ import annotations

from collections.abc import Mapping

from evaluator.evidence.record import Evidence
from governance.dossier.labels import benchmark_label
from governance.dossier.record import Dossier
from governance.dossier.store import DossierVersion
from governance.evidence.coverage import coverage_map
from governance.evidence.subgroups import group_label, subgroup_lines, tag_label
from governance.intended_use.records import (
    DECISION_ROLE_LABELS,
    OVERSIGHT_LABELS,
    PHI_LABELS,
    SEVERITY_LABELS,
)
from governance.mapping.taxonomy import TaxonomyError, load_taxonomy
from reports.model import AppendixRun, Cover, Fact, Section, Table

PROVENANCE_LABELS = {"published": "published MedHELM", "helm-import": "imported HELM run",
                     "local-run": "local run", "inspect-import": "imported Inspect log"}
SHORT_PROVENANCE = {"published": "published", "helm-import": "HELM import", "local-run": "local run",
                    "inspect-import": "Inspect import"}


def fmt_score(value: float | None, scale: str = "0-1") -> str:
    """A score with three decimals, with its scale when not 0-1.

    Example:
        >>> fmt_score(4.1984, "1-5"), fmt_score(None)
        ('4.198 (1-5)', '—')
    """
    if value is None:
        return "—"
    return f"{value:.3f}" + ("" if scale == "0-1" else f" ({scale})")


def fmt_interval(lower: float | None, upper: float | None) -> str:
    """``0.786–0.834`` or ``none``.

    Example:
        >>> fmt_interval(0.78556, 0.83405), fmt_interval(None, None)
        ('0.786–0.834', 'none')
    """
    return "none" if lower is None or upper is None else f"{lower:.3f}–{upper:.3f}"


def fmt_date(value) -> str:
    """ISO date (UTC) of a datetime, or ``—``."""
    return value.strftime("%Y-%m-%d") if value is not None else "—"


def cover(version: DossierVersion, decision: str, decision_date) -> Cover:
    """The cover page of one version."""
    d = version.dossier
    return Cover(title=d.title, dossier_id=d.id, owner=d.owner, status=d.status, risk_tier=d.risk.tier,
                 version=version.version, version_hash=version.hash, parent_hash=version.parent_hash,
                 author=version.author, date=version.created_at, decision=decision,
                 decision_date=decision_date)


def intended_use_section(dossier: Dossier) -> Section:
    """The intended use in the committee's words and the risk tier with each step of its reasoning."""
    use, risk = dossier.intended_use, dossier.risk
    facts = [
        Fact(label="Purpose", value=use.purpose),
        Fact(label="Workflow", value=use.workflow or "not stated"),
        Fact(label="Intended users", value=", ".join(use.intended_users)),
        Fact(label="Care setting", value=use.care_setting),
        Fact(label="Patient population", value=use.patient_population),
        Fact(label="Decision role", value=DECISION_ROLE_LABELS[use.decision_role]),
        Fact(label="Severity of an uncaught error", value=SEVERITY_LABELS[use.error_severity]),
        Fact(label="Human oversight", value=OVERSIGHT_LABELS[use.human_oversight]),
        Fact(label="Patient data exposure", value=PHI_LABELS[use.phi_exposure]),
        *([Fact(label="Why this use is not tier high", value=use.lower_tier_reason)] if use.lower_tier_reason
          else []),
        Fact(label="Out-of-scope uses", value="\n".join(use.out_of_scope_uses) or "none stated"),
        Fact(label="Expected monthly volume", value=f"{use.expected_monthly_volume:,} requests"),
        Fact(label="Candidate models", value=", ".join(use.candidate_models) or "none named"),
    ]
    working = Section(key="risk_tier", title=f"Risk tier: {risk.tier}", bullets=list(risk.reasons),
                      paragraphs=[f"{risk.points} points before floors. The tier follows from the intended "
                                  "use by a fixed rule; each step of it:"])
    return Section(key="intended_use", title="Intended use and risk tier", facts=facts,
                   subsections=[working])


def _subcategory_name(sub_id: str) -> str:
    try:
        return load_taxonomy().subcategory(sub_id).name
    except TaxonomyError:
        return sub_id


def mapping_section(dossier: Dossier) -> Section:
    """Mapping decisions, local tasks and the coverage map of the accepted subcategories."""
    decisions = dossier.mapping.decisions
    if not decisions:
        return Section(key="mapping", title="Taxonomy mapping and evidence coverage", recorded=False,
                       paragraphs=["Not recorded yet: the intended use has not been mapped onto the MedHELM "
                                   "taxonomy (Task mapping page)."])
    tax = load_taxonomy()
    rows = [[_subcategory_name(d.subcategory_id), tax.category_of(d.subcategory_id).name, d.status, d.by,
             fmt_date(d.at), d.note] for d in decisions]
    tables = [Table(title="Mapping decisions", rows=rows, widths=[2.2, 2.2, 1.1, 1.1, 1.2, 3.2],
                    columns=["Subcategory", "Category", "Decision", "By", "Date", "Note"])]
    if dossier.mapping.local_tasks:
        tables.append(Table(
            title="The committee's own tasks (local, not part of MedHELM)",
            columns=["Subcategory", "Task", "Description", "Added by"],
            rows=[[_subcategory_name(t.subcategory_id), t.name, t.description, t.added_by]
                  for t in dossier.mapping.local_tasks], widths=[2, 2.5, 4, 1.2]))
    cov = coverage_map(dossier)
    if cov:
        tables.append(Table(
            title="Evidence coverage of the accepted subcategories",
            columns=["Subcategory", "Public", "Gated", "Private", "Attached (published / HELM / local)",
                     "Kinds"],
            rows=[[c.subcategory, ", ".join(c.public) or "—", ", ".join(c.gated) or "—",
                   ", ".join(c.private) or "—",
                   f"{c.attached_published} / {c.attached_helm_import} / {c.attached_local_run}", c.summary]
                  for c in cov], widths=[2, 2.2, 1.6, 2.2, 1.8, 1.8],
            note="Public: the hospital can run the benchmark itself. Gated: after credentialed access. "
                 "Private: MedHELM's published scores are the only evidence there will be."))
    accepted = len(dossier.mapping.accepted)
    return Section(key="mapping", title="Taxonomy mapping and evidence coverage", tables=tables,
                   paragraphs=[f"{accepted} subcategor{'y' if accepted == 1 else 'ies'} accepted, "
                               f"{len(decisions) - accepted} rejected."])


class _Refs:
    """Numbers each distinct text once: ``ref("x")`` → ``S1``."""

    def __init__(self, prefix: str):
        self.prefix, self.texts = prefix, {}

    def ref(self, text: str) -> str:
        return self.texts.setdefault(text, f"{self.prefix}{len(self.texts) + 1}")

    def rows(self) -> list[list[str]]:
        return [[r, t] for t, r in self.texts.items()]


def _sorted_evidence(evidence: list[Evidence]) -> list[Evidence]:
    return sorted(evidence, key=lambda e: (e.subcategory or "~", e.benchmark, e.metric, -e.normalized_score))


def _not_scored(e: Evidence) -> str:
    if e.n_unparsed is None and e.n_unscored is None:
        return "n/r"
    return " / ".join("—" if v is None else str(v) for v in (e.n_unparsed, e.n_unscored))


def evidence_refs(dossier: Dossier) -> dict[str, str]:
    """``E1``, ``E2``, ... per evidence id, in the evidence table's row order (verdicts cite these)."""
    return {e.id: f"E{i}" for i, e in enumerate(_sorted_evidence(dossier.evidence), start=1)}


def data_handling_lines(dossier: Dossier) -> list[str]:
    """One line per de-identification attestation recorded with the dossier (the PHI gate's records)."""
    return [f"Data handling (not covered by the sign-offs): {a.describe()}."
            for a in dossier.deidentification]


def evidence_section(dossier: Dossier) -> Section:
    """The evidence table (n, score, interval, provenance) with its sources, interval notes and caveats."""
    evidence = dossier.evidence
    if not evidence:
        return Section(key="evidence", title="Evidence", recorded=False, paragraphs=[
            "Not recorded yet: no evidence is attached to this dossier (Evidence page).",
            *data_handling_lines(dossier)])
    sources, notes, caveats = _Refs("S"), _Refs("M"), _Refs("C")
    rows = []
    for i, e in enumerate(_sorted_evidence(evidence), start=1):
        basis = notes.ref(e.ci_method or e.ci_missing_reason or "")
        refs = [sources.ref(e.source)] + ([caveats.ref(e.caveat)] if e.caveat else [])
        model = f"{e.model} (endpoint {e.endpoint_model})" if e.endpoint_model else e.model
        rows.append([f"E{i}", benchmark_label(e.benchmark), model, e.metric, fmt_score(e.score, e.scale),
                     f"{fmt_interval(e.ci_lower, e.ci_upper)} [{basis}]",
                     str(e.n) if e.n is not None else "—", _not_scored(e),
                     f"{SHORT_PROVENANCE[e.provenance]} [{', '.join(refs)}]", fmt_date(e.date)])
    by_prov = {p: sum(e.provenance == p for e in evidence) for p in PROVENANCE_LABELS}
    summary = (f"{len(evidence)} records on {len({e.benchmark for e in evidence})} benchmarks for "
               f"{len({e.model for e in evidence})} models: "
               + ", ".join(f"{n} {PROVENANCE_LABELS[p]}" for p, n in by_prov.items() if n) + ". "
               "Each score is on its own scale with its 95% interval where one can be computed; where "
               "none can, the note says why. 'Not scored' counts outputs that could not be parsed / scored "
               "('n/r': the source does not report them). Bracketed refs point to the sources (S), interval "
               "notes (M) and caveats (C) listed below the table.")
    handling = data_handling_lines(dossier)
    return Section(key="evidence", title="Evidence", paragraphs=[summary, *handling], tables=[
        Table(title="Scores", columns=["Ref", "Benchmark", "Model", "Metric", "Score", "95% interval", "n",
                                       "Not scored", "Source", "Date"],
              rows=rows, widths=[22, 74, 74, 48, 44, 60, 28, 46, 50, 51]),
        Table(title="Sources", columns=["Ref", "Citation"], rows=sources.rows(), widths=[0.6, 9]),
        Table(title="Interval methods and reasons for missing intervals", columns=["Ref", "Note"],
              rows=notes.rows(), widths=[0.6, 9]),
        *([Table(title="Caveats", columns=["Ref", "Caveat"], rows=caveats.rows(), widths=[0.6, 9])]
          if caveats.texts else []),
    ])


def subgroups_section(dossier: Dossier) -> Section:
    """Per-subgroup scores of the evidence that reports them."""
    rows = [[e.model, e.benchmark, e.metric, tag_label(s.tag), group_label(s.tag, s.group),
             "suppressed" if s.suppressed else fmt_score(s.score, e.scale),
             fmt_interval(s.ci_lower, s.ci_upper), str(s.n), _ratio_text(s)]
            for e in _sorted_evidence(dossier.evidence) for s in (e.subgroups or [])]
    if not rows:
        return Section(key="subgroups", title="Subgroup results", recorded=False, paragraphs=[
            "Not recorded yet: none of the attached evidence reports results by subgroup. Published MedHELM "
            "figures have none; local scenarios whose cases carry subgroup tags (sex, age band, language, "
            "...) add them."])
    tags = sorted({r[3] for r in rows})
    calculators = [[line.model, line.benchmark, line.group,
                    "suppressed" if line.suppressed else f"{line.score:.0%}",
                    "—" if line.ci_lower is None else f"{line.ci_lower:.0%}–{line.ci_upper:.0%}", str(line.n)]
                   for line in subgroup_lines(dossier.evidence, tag="calculator")]
    per_calculator = ([Table(title="Per-calculator accuracy (lowest first)", rows=calculators,
                             widths=[2.0, 1.8, 3.4, 0.9, 1.2, 0.6],
                             columns=["Model", "Benchmark", "Calculator", "Share right", "95% interval",
                                      "n"])]
                      if calculators else [])
    return Section(key="subgroups", title="Subgroup results",
                   paragraphs=[f"Groups compared along: {', '.join(tags)}. Groups too small to report are "
                               "suppressed rather than shown with a misleading score. Each group's ratio is "
                               "to its tag's reference group, with a 95% interval (MOVER-Wilson for shares "
                               "of correct answers, a seeded bootstrap for mean scores); the disparity rule "
                               "judges that interval."],
                   tables=[*per_calculator,
                           Table(rows=rows, widths=[1.7, 1.6, 1.0, 0.9, 0.9, 0.9, 1.2, 0.6, 1.6],
                                 columns=["Model", "Benchmark", "Metric", "Tag", "Group", "Score",
                                          "95% interval", "n", "Ratio to reference (95% CI)"])])


def _ratio_text(s) -> str:
    """A subgroup's ratio to its reference group as printed, e.g. ``0.50 (0.28–0.88) vs en``."""
    if s.suppressed or s.reference_group is None:
        return "—"
    if s.group == s.reference_group:
        return "reference"
    if s.ratio is None:
        return "n/a"
    ci = f" ({s.ratio_lower:.2f}–{s.ratio_upper:.2f})" if s.ratio_lower is not None else ""
    return f"{s.ratio:.2f}{ci} vs {s.reference_group}"


def runs_section(dossier: Dossier, runs: Mapping[str, AppendixRun]) -> Section:
    """Appendix: every run the evidence names, with the store's record of it where there is one."""
    seen: dict[str, Evidence] = {}
    for e in dossier.evidence:
        if e.run_id and e.run_id not in seen:
            seen[e.run_id] = e
    published = sum(e.provenance == "published" for e in dossier.evidence)
    note = (f"{published} published MedHELM records are not runs of this hospital; their source commit is "
            "cited under the evidence table." if published else "")
    if not seen:
        text = "Not recorded yet: no evidence from an imported HELM run or a local run is attached."
        return Section(key="runs", title="Appendix: runs", recorded=False,
                       paragraphs=[text, note] if note else [text])
    rows = []
    for run_id, e in seen.items():
        r = runs.get(run_id) or AppendixRun(run_id=run_id, status="not in store")
        rows.append([run_id, PROVENANCE_LABELS[e.provenance], r.model or e.model,
                     r.benchmark_id or e.benchmark, fmt_date(r.created_at or e.date), r.status or "—",
                     r.prompt_hash or "—", r.dataset_hash or "—"])
    return Section(key="runs", title="Appendix: runs", paragraphs=[p for p in [
        "Each run is one model on one benchmark with one prompt and dataset version; the hashes identify "
        "exactly which prompts and instances were sent. Imported HELM runs are not in MedAssure's run store, "
        "so their hashes are not recorded here.", note] if p],
        tables=[Table(columns=["Run id", "Kind", "Model identifier", "Benchmark", "Date", "Status",
                               "Prompt hash", "Dataset hash"],
                      rows=rows, widths=[84, 44, 64, 74, 52, 44, 65, 66])])
