"""Which benchmarks a dossier's mapping points at, and attaching or detaching evidence.

Why here and not on ``Dossier``: these are plain functions over a dossier value, shared by the
Evidence page, the demo and the CLI, and they return a new dossier rather than mutate one, so
every change becomes a new stored version. Who attached what is recorded by the store as the
author of that version (and in its audit log); an ``Evidence`` record itself stays exactly as
its source produced it.
"""

from __future__ import annotations

from evaluator.evidence.record import Evidence
from governance.dossier.record import Dossier
from governance.mapping.taxonomy import BenchmarkRef, load_taxonomy


def mapped_benchmarks(dossier: Dossier) -> list[BenchmarkRef]:
    """The MedHELM benchmarks of the dossier's accepted subcategories, in mapping order.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="demo", owner="me", intended_use=example_intended_use())
        >>> d = d.model_copy(update={"mapping": d.mapping.decide(
        ...     "providing_patient_education_resources", "accepted", by="me")})
        >>> [b.name for b in mapped_benchmarks(d)]
        ['MedicationQA']
    """
    tax = load_taxonomy()
    return [b for sub_id in dossier.mapping.accepted for b in tax.subcategory(sub_id).benchmarks]


def _check_by(by: str) -> None:
    if not by or not by.strip():
        raise ValueError("say who attaches or detaches evidence (by must not be empty)")


def attach_evidence(dossier: Dossier, evidence: list[Evidence], by: str) -> Dossier:
    """A new dossier with these evidence records appended; ids already attached are skipped.

    Args:
        dossier: the current dossier.
        evidence: records to attach, in order; duplicates (same ``id``) are attached once.
        by: who attaches them. The store records this person as the author of the version the
            caller saves; it must not be empty.

    Returns:
        The new dossier (the same content when nothing new was given, so saving it is a no-op).

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="demo", owner="me", intended_use=example_intended_use())
        >>> ev = published_evidence(["MedicationQA"], ["DeepSeek R1"])
        >>> len(attach_evidence(attach_evidence(d, ev, by="me"), ev + ev, by="me").evidence)
        1
    """
    _check_by(by)
    seen = {e.id for e in dossier.evidence}
    added = []
    for record in evidence:
        if record.id not in seen:
            seen.add(record.id)
            added.append(record)
    if not added:
        return dossier
    return dossier.model_copy(update={"evidence": [*dossier.evidence, *added]})


def detach_evidence(dossier: Dossier, evidence_ids: list[str], by: str) -> Dossier:
    """A new dossier without the evidence of these ids (earlier versions keep them).

    The ids are remembered as detached: they were seen, so a rule locked after this is not
    pre-registered for them if they come back (``governance.rules.preregistration``).

    Raises:
        ValueError: an id is not attached to this dossier, or ``by`` is empty.

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="demo", owner="me", intended_use=example_intended_use())
        >>> d = attach_evidence(d, published_evidence(["MedicationQA"], ["DeepSeek R1"]), by="me")
        >>> detach_evidence(d, [d.evidence[0].id], by="me").evidence
        []
    """
    _check_by(by)
    attached = {e.id for e in dossier.evidence}
    unknown = [i for i in evidence_ids if i not in attached]
    if unknown:
        raise ValueError(f"evidence not attached to {dossier.id}: {', '.join(unknown)}")
    drop = set(evidence_ids)
    detached = [*dossier.detached_evidence_ids,
                *(i for i in dict.fromkeys(evidence_ids) if i not in dossier.detached_evidence_ids)]
    return dossier.model_copy(update={"evidence": [e for e in dossier.evidence if e.id not in drop],
                                      "detached_evidence_ids": detached})
