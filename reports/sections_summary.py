"""The executive summary and the limitations: the two sections a busy reader reads first.

Why computed from the other sections: the summary must never say more than the body does. It
counts what the body holds and names what it does not hold yet, so a reader of page one knows
which parts of the dossier are still empty. The limitations restate, in our words, what no
benchmark score can tell a committee, then add what this particular dossier lacks.
"""

from __future__ import annotations

from governance.decision.records import OUTCOME_LABELS
from governance.decision.signoff import signoff_status
from governance.dossier.record import Dossier
from governance.dossier.store import DossierVersion
from governance.evidence.coverage import coverage_map
from governance.evidence.gaps import activity_gaps
from governance.rules.outcome_text import outcome_lines
from reports.model import Cover, Fact, Section

GENERAL_LIMITS = [
    "Fit with the local workflow: a benchmark sends a fixed prompt and scores one answer. It does not "
    "show how the output lands in this hospital's in-basket, order entry or notes, how long staff take "
    "to check it, or what happens when the system is slow or down.",
    "Usability: nothing here measures whether the people named as intended users find the output "
    "clear, trust it the right amount, or can spot its mistakes under time pressure.",
    "Privacy and security: a score says nothing about where patient data travels, how long a vendor "
    "keeps it, or whether prompts can leak it; those need the privacy and security review.",
    "Equity beyond the tested groups: subgroup results cover only the groups tagged in the test cases. "
    "Patients outside them (other languages, disabilities, rare conditions, age groups not sampled) "
    "may fare worse without any number here showing it.",
    "Effect after deployment: benchmark accuracy is not patient outcome. Whether care, workload or "
    "safety actually improve can only be learned by monitoring the system in use, and models and "
    "prompts drift after the evidence was gathered.",
]


def limitations_section(dossier: Dossier) -> Section:
    """What benchmark evidence cannot show, then what this dossier's evidence in particular lacks."""
    specific: list[str] = []
    evidence = dossier.evidence
    provenances = {e.provenance for e in evidence}
    if not evidence:
        specific.append("No evidence is attached: nothing in this dossier speaks to the model's performance "
                        "yet.")
    elif "local-run" not in provenances:
        specific.append("No evidence comes from this hospital's own cases: every score was measured on "
                        "someone else's data.")
    no_ci = sorted({e.benchmark for e in evidence if not e.has_interval})
    if no_ci:
        specific.append("No 95% interval can be given for " + ", ".join(no_ci) + " (see the interval notes "
                        "under the evidence table); these scores cannot show how precise they are.")
    if evidence and not any(e.subgroups for e in evidence):
        specific.append("No subgroup results are attached, so differences between patient groups are "
                        "unknown.")
    uncovered = [c.subcategory for c in coverage_map(dossier)
                 if not (c.attached_published or c.attached_helm_import or c.attached_local_run
                        or c.attached_inspect_import)]
    if uncovered:
        specific.append("Accepted subcategories without any attached evidence: " + ", ".join(uncovered) + ".")
    specific += [gap.sentence for gap in activity_gaps(dossier)]
    if dossier.mapping.local_tasks:
        specific.append("The committee's own tasks (" + ", ".join(t.name for t in dossier.mapping.local_tasks)
                        + ") have no benchmark of their own unless a local scenario is run for them.")
    if dossier.intended_use.out_of_scope_uses:
        specific.append("Nothing here supports the uses declared out of scope: "
                        + "; ".join(dossier.intended_use.out_of_scope_uses) + ".")
    general = Section(key="limitations_general", title="What benchmark evidence cannot show",
                      bullets=GENERAL_LIMITS,
                      paragraphs=["Benchmark evidence answers a narrow question: how often a model gets "
                                  "test cases right. Whatever the scores, it cannot show:"])
    subsections = [general]
    if specific:
        subsections.append(Section(key="limitations_dossier", title="What this dossier's evidence lacks",
                                   bullets=specific))
    return Section(key="limitations", title="Limitations", subsections=subsections)


def _governance_facts(d: Dossier, assessed: tuple | None) -> list[Fact]:
    """Verdict counts, the recommendation and the sign-off state, when the dossier has rules."""
    facts = []
    if assessed is not None:
        assessment, rec = assessed
        score, gating = assessment.score_counts(), assessment.gating_counts()
        locked = "locked" if assessment.locked else "NOT locked"
        family = assessment.family
        control = (f"; {family.method} over {family.tests} test(s), at most {family.alpha:.1%} chance of any "
                   "false pass" if family is not None else "")
        pre = rec.preregistration[0] if rec.preregistration else ""
        verdicts = (f"score verdicts {score['pass']} pass, {score['fail']} fail, {score['inconclusive']} "
                    f"inconclusive{control}; gating rules (counted apart) {gating['pass']} pass, "
                    f"{gating['fail']} fail, {gating['inconclusive']} inconclusive; rules {locked}")
        facts += [Fact(label="Each candidate's outcome",
                       value="\n".join(line.sentence for line in outcome_lines(assessment, rec)) or "none"),
                  Fact(label="Verdicts", value=verdicts),
                  Fact(label="Pre-registered", value=f"{pre} Which ones: see the rules section."),
                  Fact(label="Recommendation from the verdicts",
                       value=f"{OUTCOME_LABELS[rec.outcome]}: {', '.join(rec.models) or 'no candidate'}")]
    if d.decision is not None:
        status = signoff_status(d)
        required = [r for r in status.roles if r.required]
        valid = sum(r.valid for r in required)
        facts.append(Fact(label="Sign-offs", value=f"{valid} of {len(required)} required roles signed and "
                                                   f"valid for this content; {len(status.invalidated)} "
                                                   "invalidated by later changes"))
    return facts


def executive_summary(version: DossierVersion, parts: dict[str, Section], cover: Cover,
                      assessed: tuple | None = None) -> Section:
    """A few lines on the question, the risk, the evidence and the decision, and what is still missing.

    ``assessed`` is the verdicts and recommendation (``sections_rules.assessed``), None without rules.
    """
    d = version.dossier
    use = d.intended_use
    candidates = ", ".join(use.candidate_models) or "the candidate models"
    cov = coverage_map(d)
    covered = sum(1 for c in cov if c.attached_published or c.attached_helm_import or c.attached_local_run
                        or c.attached_inspect_import)
    paragraphs = [
        f"The committee is asked whether {candidates} may be used for this job: {use.purpose}",
        f"Risk tier {d.risk.tier}: {d.risk.reasons[-1] if d.risk.reasons else ''}",
        f"Decision: {cover.decision}.",
    ]
    facts = [
        Fact(label="Dossier", value=f"{d.id}, version {version.version}, saved by {version.author} on "
                                    f"{version.created_at:%Y-%m-%d %H:%M} UTC"),
        Fact(label="Version hash (SHA-256)", value=version.hash),
        Fact(label="Evidence", value=f"{len(d.evidence)} records; {covered} of {len(cov)} accepted "
                                     "subcategories have attached evidence"),
        *_governance_facts(d, assessed),
    ]
    missing = [s.title for s in parts.values() if not s.recorded]
    subsections = [Section(key="not_recorded", title="Not recorded yet", bullets=missing, paragraphs=[
        "These sections hold no record yet; the report says so rather than fill them:"])] if missing else []
    if cover.flags:
        subsections.insert(0, Section(key="flags", title="Read first", bullets=list(cover.flags)))
    return Section(key="executive_summary", title="Executive summary", paragraphs=paragraphs, facts=facts,
                   subsections=subsections)
