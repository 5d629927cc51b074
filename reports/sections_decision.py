"""The committee's decision and its sign-offs, each checked against the version the report is bound to.

Why the report re-checks the sign-offs: a sign-off holds only while the dossier content it signed
is unchanged (``governance.decision.signoff.signoff_status``). A PDF of a later version must therefore
show an earlier sign-off as invalidated, not as a signature, and say which content it was bound
to. The recommendation computed from the verdicts sits in the rules section; here the decision
records what the tool recommended at the moment the committee decided, and, when the committee
decided otherwise than the verdicts now support, the disagreement with its recorded reason
(``governance.rules.recommendation.disagreement``, the same words as the Decision page).
"""

from __future__ import annotations

from datetime import datetime

from governance.decision.records import OUTCOME_LABELS
from governance.decision.signoff import signoff_status
from governance.dossier.record import Dossier
from governance.rules.assessment import assessment_and_recommendation
from governance.rules.recommendation import Recommendation, disagreement
from reports.model import Fact, Section, Table


def decision_text(dossier: Dossier) -> str:
    """The committee's decision in words, or a not-recorded line.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> decision_text(Dossier(title="demo", owner="me", intended_use=example_intended_use()))
        'No decision recorded yet'
    """
    d = dossier.decision
    if d is None:
        return "No decision recorded yet"
    return OUTCOME_LABELS[d.outcome] + (f": {d.model}" if d.model else "")


def decision_date(dossier: Dossier) -> datetime | None:
    """When the decision was recorded, if it was."""
    return dossier.decision.decided_at if dossier.decision else None


def signoffs_section(dossier: Dossier, version_hash: str,
                     recommendation: Recommendation | None = None) -> Section:
    """The decision (rationale, conditions, what was recommended) and every sign-off with its status."""
    title = "Decision and sign-offs"
    d = dossier.decision
    if d is None and not dossier.signoffs:
        return Section(key="signoffs", title=title, recorded=False, paragraphs=[
            "Not recorded yet: the committee has not recorded a decision, and nobody has signed off."])
    status = signoff_status(dossier)
    paragraphs = []
    facts = []
    if d is not None:
        facts = [Fact(label="Decision", value=decision_text(dossier)),
                 Fact(label="Rationale", value=d.rationale),
                 Fact(label="Conditions", value="\n".join(f"{i}. {c}" for i, c in enumerate(d.conditions, 1))
                      or "none"),
                 Fact(label="Recorded", value=f"by {d.decided_by} on {d.decided_at:%Y-%m-%d %H:%M} UTC"),
                 Fact(label="The tool recommended then",
                      value=OUTCOME_LABELS[d.recommended] if d.recommended else "—"),
                 Fact(label="Sign-offs required from", value=", ".join(d.required_roles))]
        if d.gaps_override is not None:
            o = d.gaps_override
            facts.append(Fact(label="Approved with items missing",
                              value=f"{', '.join(o.missing)}. Override recorded by {o.by}: {o.reason}"))
        differs = disagreement(d, recommendation or assessment_and_recommendation(dossier)[1])
        if differs is not None:
            facts.append(Fact(label="Differs from the recommendation", value=differs.text))
            paragraphs.append("The decision differs from what the verdicts support; the difference and the "
                              "committee's recorded reason are set out below.")
        if status.decision_current is False:
            paragraphs.append("Warning: the dossier changed after the decision was recorded; the decision "
                              "describes an earlier content.")
    complete = "complete" if status.complete else "not complete"
    paragraphs.append(
        f"Sign-offs are {complete}. Each is bound to the dossier content without the sign-off list "
        f"(signable hash {status.current_hash[:16]}… for this version, whose version hash is "
        f"{version_hash[:16]}…); any later change to the content invalidates it.")
    rows = [[r.role, "yes" if r.required else "no",
             "valid" if r.valid else ("invalidated" if r.signoff else "not signed"),
             r.signoff.name if r.signoff else "—",
             f"{r.signoff.signed_at:%Y-%m-%d %H:%M}" if r.signoff else "—",
             r.signoff.signed_hash[:16] + "…" if r.signoff else "—", r.reason] for r in status.roles]
    tables = [Table(title="Sign-offs", rows=rows, widths=[70, 46, 60, 66, 62, 70, 119],
                    columns=["Role", "Required", "Status", "Signed by", "Signed at", "Bound to", "Detail"])]
    if status.invalidated:
        tables.append(Table(title="Sign-offs invalidated by later changes",
                            columns=["Role", "Signed by", "Signed at", "Bound to"],
                            rows=[[s.role, s.name, f"{s.signed_at:%Y-%m-%d %H:%M}", s.signed_hash[:16] + "…"]
                                  for s in status.invalidated], widths=[2, 2, 1.5, 2]))
    return Section(key="signoffs", title=title, paragraphs=paragraphs, facts=facts, tables=tables)
