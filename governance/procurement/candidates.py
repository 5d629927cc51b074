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
from typing import TYPE_CHECKING, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from evaluator.gateway.llm import ModelEndpoint
from governance.mapping.model_names import name_key, snapshot_date
from governance.procurement.attestations import AttestationAnswer, with_answer

if TYPE_CHECKING:
    from governance.dossier.record import Dossier


class CandidateError(ValueError):
    """A candidate that cannot be recorded, with a message for the user."""


class Pricing(BaseModel):
    """The price as quoted: per token, or per seat per month (see ``procurement.candidate_cost``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["per_token", "per_seat"]
    """How the vendor charges."""
    input_usd_per_mtok: float | None = Field(default=None, ge=0)
    """USD per 1M prompt tokens (per_token)."""
    output_usd_per_mtok: float | None = Field(default=None, ge=0)
    """USD per 1M completion tokens (per_token)."""
    usd_per_seat_month: float | None = Field(default=None, ge=0)
    """USD per seat per month (per_seat)."""
    seats: int | None = Field(default=None, ge=1)
    """Seats the hospital would buy (per_seat)."""
    source: str = Field(default="", max_length=1000)
    """Where the price comes from (quote number, list price page, internal cost model)."""

    @model_validator(mode="after")
    def _fields_fit_kind(self) -> Pricing:
        token = (self.input_usd_per_mtok, self.output_usd_per_mtok)
        seat = (self.usd_per_seat_month, self.seats)
        if self.kind == "per_token" and (None in token or any(v is not None for v in seat)):
            raise ValueError("per_token pricing needs input and output USD per 1M tokens, and no seat fields")
        if self.kind == "per_seat" and (None in seat or any(v is not None for v in token)):
            raise ValueError(
                "per_seat pricing needs USD per seat per month and a seat count, and no token prices"
            )
        return self


class ContractFacts(BaseModel):
    """What the contract says (None: not known yet, which becomes an open item)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    data_residency: str | None = Field(default=None, max_length=500)
    """Where data is processed and stored, e.g. ``US (Azure East US 2)``, ``on-premises``."""
    phi_agreement: bool | None = None
    """A PHI agreement (business associate agreement or equivalent) is in place."""
    change_notice_days: int | None = Field(default=None, ge=0, le=3650)
    """Days of notice the vendor gives before changing the model or its configuration."""
    version_pinning: bool | None = None
    """The hospital can pin the model version (the vendor cannot swap it underneath)."""


class Candidate(BaseModel):
    """One vendor product under consideration for the dossier's intended use."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]{0,63}$")
    """Stable id within the dossier, e.g. ``azure-gpt-4o``."""
    vendor: str = Field(min_length=1, max_length=200)
    """Who sells or operates it (the hospital itself for an on-prem model)."""
    product: str = Field(min_length=1, max_length=300)
    """Product or service name."""
    model_id: str = Field(min_length=1, max_length=200)
    """Underlying model identifier, e.g. ``gpt-4o``, ``claude-3-7-sonnet``."""
    model_version: str = Field(default="", max_length=100)
    """Model version or snapshot, e.g. ``2024-05-13`` (empty: not stated)."""
    prompt_version: str = Field(default="", max_length=200)
    """Prompt or configuration version the vendor runs."""
    endpoint: ModelEndpoint | None = None
    """How to call it for local runs (key variable NAME only)."""
    pricing: Pricing | None = None
    """Price as quoted (None: no quote yet)."""
    contract: ContractFacts = Field(default_factory=ContractFacts)
    """Contract facts."""
    evidence_models: list[str] = Field(default_factory=list)
    """Evidence model names that are this candidate (empty: matched from model id and version)."""
    attestations: list[AttestationAnswer] = Field(default_factory=list)
    """The vendor's answers to the questionnaire, latest per question."""
    added_by: str = Field(min_length=1)
    """Who recorded the candidate."""
    added_at: AwareDatetime
    """When."""

    @property
    def label(self) -> str:
        """``vendor · product``."""
        return f"{self.vendor} · {self.product}"

    @property
    def model_text(self) -> str:
        """Model id with its version, e.g. ``gpt-4o (2024-05-13)``."""
        return f"{self.model_id} ({self.model_version})" if self.model_version else self.model_id


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
    """Evidence model names of one candidate among the dossier's evidence."""
    return matched_models(candidate, list(dict.fromkeys(e.model for e in dossier.evidence)))


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
