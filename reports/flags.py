"""What a chair must see before reading on: the flags on the cover and atop the executive summary.

Why a list of sentences computed once: the cover and the executive summary must say the same thing,
and each flag is a fact a reader could otherwise miss deep in the document: synthetic demo data,
sign-offs still missing, sections not recorded, rules not locked, a decision taken against the
computed recommendation (with the committee's recorded reason), or an approval taken while the
decision checklist (``governance.decision.readiness``, the list the Decision page shows) had gaps,
with the override the committee recorded.
"""

from __future__ import annotations

from governance.decision.readiness import decision_gaps, needs_override
from governance.decision.signoff import signoff_status
from governance.dossier.store import DossierVersion
from governance.rules.recommendation import disagreement
from reports.model import Section

DEMO_MARK = "DEMO DATA"


def dossier_flags(version: DossierVersion, parts: dict[str, Section], assessed: tuple | None) -> list[str]:
    """The flags of one version, most serious first; empty when there is nothing to flag.

    Example:
        >>> dossier_flags(version, parts, assessed)[0]  # doctest: +SKIP
        'DEMO DATA: this dossier holds synthetic values ...'
    """
    d = version.dossier
    flags: list[str] = []
    if DEMO_MARK in d.canonical_json():
        flags.append(f"{DEMO_MARK}: this dossier holds synthetic values made for the demonstration; they "
                     "are not evidence about any real model or patient.")
    if assessed is not None:
        assessment, rec = assessed
        if d.decision is not None and (gap := disagreement(d.decision, rec)) is not None:
            flags.append("Decision against the computed recommendation: " + gap.text)
        if not assessment.locked:
            flags.append("The acceptance rules are not locked: no verdict is pre-registered.")
    if d.decision is not None:
        if gaps := _approval_gaps(version):
            flags.append(gaps)
        required = [r for r in signoff_status(d).roles if r.required]
        valid = sum(r.valid for r in required)
        if valid < len(required):
            flags.append(f"Sign-offs incomplete: {valid} of {len(required)} required roles have signed this "
                         "content.")
    missing = [s.title for s in parts.values() if not s.recorded]
    if missing:
        flags.append(f"Not recorded yet ({len(missing)} section(s)): " + ", ".join(missing) + ".")
    return flags


def _approval_gaps(version: DossierVersion) -> str | None:
    """The approval's missing checklist items: the recorded override, or gaps nobody overrode."""
    decision = version.dossier.decision
    override = decision.gaps_override
    if override is not None:
        return (f"Approved with items missing: {', '.join(override.missing)}. Override recorded by "
                f"{override.by}: {override.reason}")
    if not needs_override(decision.outcome):
        return None
    missing = [g.label for g in decision_gaps(version.dossier)]
    if not missing:
        return None
    return (f"Approved while items are missing: {', '.join(missing)}, with no override on record (the "
            "decision predates the checklist, or the items were removed after it).")
