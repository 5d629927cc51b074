"""Candidates: the vendor products a dossier compares for one intended use.

Why a candidate is more than a model name: a committee buys a product, not a model. Two vendors
can sell the same underlying model with different prompts, prices and contracts, and the same
vendor can change the model under an unchanged product name. A ``Candidate`` therefore records
who sells it, which model and version it runs, the prompt or configuration version, the endpoint
for local runs (with the *name* of the key variable, never a key: ``evaluator.gateway.llm.ModelEndpoint``),
the price as quoted, the contract facts a committee asks about, and the vendor's attestations.

Which evidence belongs to a candidate: evidence records name models as their source does
(``GPT-4o (2024-05-13)`` for MedHELM, ``openai/gpt-4o`` for a local run). A candidate either lists
those names (``evidence_models``) or they are matched from its model id and version by the rule of
``governance.mapping.model_names`` (same name key; a candidate that names a snapshot date takes no
evidence of another date).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from governance.mapping.model_names import name_key, snapshot_date
from governance.procurement.attestations import with_answer
from governance.procurement.records import AttestationAnswer, Candidate

if TYPE_CHECKING:
    from governance.dossier.record import Dossier


class CandidateError(ValueError):
    """A candidate that cannot be recorded, with a message for the user."""


def slugify(text: str) -> str:
    """A candidate id from free text.

    Example:
        >>> slugify("Azure OpenAI / GPT-4o")
        'azure-openai-gpt-4o'
    """
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:64] or "candidate"


def matched_models(candidate: Candidate, evidence_models: list[str]) -> list[str]:
    """The evidence model names that stand for this candidate, in the order given.

    Example:
        >>> from datetime import UTC, datetime
        >>> c = Candidate(id="c", vendor="v", product="p", model_id="gpt-4o", model_version="2024-05-13",
        ...               added_by="me", added_at=datetime.now(UTC))
        >>> matched_models(c, ["GPT-4o (2024-05-13)", "GPT-4o mini (2024-07-18)", "openai/gpt-4o"])
        ['GPT-4o (2024-05-13)', 'openai/gpt-4o']
    """
    if candidate.evidence_models:
        return [m for m in evidence_models if m in candidate.evidence_models]
    key = name_key(candidate.model_id)
    date = snapshot_date(f"{candidate.model_id} {candidate.model_version}")
    return [
        m
        for m in evidence_models
        if key and name_key(m) == key and (date is None or snapshot_date(m) in (None, date))
    ]


def candidate_models(dossier: Dossier, candidate: Candidate) -> list[str]:
    """Evidence model names of one candidate among the dossier's evidence.

    Evidence of a run made for this candidate (``Evidence.candidate_id``) is its own whatever the
    model string; evidence bound to another candidate is never matched by name.
    """
    bound = [e.model for e in dossier.evidence if e.candidate_id == candidate.id]
    taken = {e.model for e in dossier.evidence if e.candidate_id not in (None, candidate.id)}
    free = [e.model for e in dossier.evidence if e.candidate_id is None and e.model not in taken]
    return list(dict.fromkeys([*bound, *matched_models(candidate, list(dict.fromkeys(free)))]))


def run_candidates(dossier: Dossier) -> list[str]:
    """What a run may be made for: the recorded candidates' ids, then the intended use's candidate models.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> from governance.dossier.record import Dossier
        >>> run_candidates(Dossier(title="demo", owner="me", intended_use=example_intended_use()))
        ['gpt-4o', 'claude-3-7-sonnet', 'llama-3.3-70b']
    """
    return list(dict.fromkeys([*(c.id for c in dossier.candidates), *dossier.intended_use.candidate_models]))


def run_binding(dossier: Dossier, chosen: str | None, model: str) -> tuple[str, str | None]:
    """(the evidence model name, the candidate id) of a run made for ``chosen`` calling ``model``.

    A run binds to the candidate chosen, not to its model string: a recorded candidate (by id or
    label) names the evidence by its label and binds it by id; a candidate model of the intended use
    names it. Anything else (no choice, or the model string itself, as a CLI run without
    ``--candidate``) keeps today's rule: the model string names the candidate.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> from governance.dossier.record import Dossier
        >>> d = Dossier(title="demo", owner="me", intended_use=example_intended_use())
        >>> run_binding(d, "gpt-4o", "openai/gpt-4o-bad"), run_binding(d, None, "openai/x")
        (('gpt-4o', None), ('openai/x', None))
    """
    if not chosen or chosen == model:
        return model, None
    for c in dossier.candidates:
        if chosen in (c.id, c.label):
            return c.label, c.id
    if chosen in dossier.intended_use.candidate_models:
        same = [c for c in dossier.candidates if name_key(c.model_id) == name_key(chosen)]
        return chosen, (same[0].id if len(same) == 1 else None)
    return model, None


def find(dossier: Dossier, candidate_id: str) -> Candidate:
    """The candidate with this id (CandidateError naming the ids when unknown)."""
    for c in dossier.candidates:
        if c.id == candidate_id:
            return c
    raise CandidateError(f"no candidate {candidate_id!r}; candidates: {[c.id for c in dossier.candidates]}")


def upsert_candidate(dossier: Dossier, candidate: Candidate) -> Dossier:
    """The dossier with this candidate added, or replacing the one with the same id (its answers kept
    unless the new record brings its own).

    Example:
        >>> d2 = upsert_candidate(dossier, candidate)  # doctest: +SKIP
        >>> [c.id for c in d2.candidates]  # doctest: +SKIP
        ['azure-gpt-4o']
    """
    old = next((c for c in dossier.candidates if c.id == candidate.id), None)
    if old is not None and not candidate.attestations:
        candidate = candidate.model_copy(update={"attestations": old.attestations})
    kept = [candidate if c.id == candidate.id else c for c in dossier.candidates]
    if old is None:
        kept.append(candidate)
    return dossier.model_copy(update={"candidates": kept})


def remove_candidate(dossier: Dossier, candidate_id: str) -> Dossier:
    """The dossier without one candidate (CandidateError when unknown)."""
    find(dossier, candidate_id)
    return dossier.model_copy(update={"candidates": [c for c in dossier.candidates if c.id != candidate_id]})


def record_attestation(dossier: Dossier, candidate_id: str, answer: AttestationAnswer) -> Dossier:
    """The dossier with one more (or a replaced) answer on a candidate's questionnaire.

    Example:
        >>> answer = make_answer("model_updates", "yes", by="buyer", at=now)  # doctest: +SKIP
        >>> d2 = record_attestation(dossier, "azure-gpt-4o", answer)  # doctest: +SKIP
    """
    candidate = find(dossier, candidate_id)
    updated = candidate.model_copy(update={"attestations": with_answer(candidate.attestations, answer)})
    return dossier.model_copy(
        update={"candidates": [updated if c.id == candidate_id else c for c in dossier.candidates]}
    )


def candidate_names(dossier: Dossier) -> dict[str, str]:
    """Evidence model name → the recorded candidate's product label (``vendor · product``).

    What the memo, the label and the Decision page call a candidate (issue 36 item 5: the memo said
    "openai/discharge-llm" where two vendors' products were compared); a model no candidate covers keeps
    its own name.
    """
    names: dict[str, str] = {}
    for c in dossier.candidates:
        for model in candidate_models(dossier, c):
            names.setdefault(model, c.label)
    return names
