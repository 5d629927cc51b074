"""What a dossier records about buying: candidates with their price, contract and attestations, and
the cost inputs.

Why apart from ``governance.procurement``: the dossier stores these values and the procurement
stage operates on the dossier, so the record types sit below both (no import cycle). The
operations (upsert, attestation statuses, the cost report) stay in ``governance.procurement``.
"""

from __future__ import annotations

from datetime import date
from typing import ClassVar, Literal

from pydantic import AwareDatetime, ConfigDict, Field, model_validator

from evaluator.gateway.llm import ModelEndpoint
from evaluator.storage.record_base import OmitNewDefaults
from governance.dossier.user_text import UserRecord


class DocumentRef(UserRecord):
    """A supporting document, by content hash (its bytes are in the document store)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    """SHA-256 of the bytes."""
    filename: str = Field(min_length=1, max_length=300)
    """Name the file was uploaded under."""
    media_type: str = "application/octet-stream"
    """MIME type as uploaded."""
    size: int = Field(ge=0)
    """Bytes."""


class AttestationAnswer(UserRecord):
    """The vendor's answer to one question, as entered by a person."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question_id: str
    """The question answered."""
    questionnaire_version: int = Field(ge=1)
    """Version of the questionnaire the answer was given against."""
    value: str = Field(min_length=1, max_length=20_000)
    """``yes``/``no``, a choice value, or the text of the answer."""
    note: str = Field(default="", max_length=5000)
    """Where the answer comes from (e.g. a contract clause, an e-mail) or a remark."""
    document: DocumentRef | None = None
    """Supporting document, if linked."""
    entered_by: str = Field(min_length=1)
    """Who entered the answer."""
    entered_at: AwareDatetime
    """When."""
    judgement: Literal["satisfactory", "unsatisfactory"] | None = None
    """A reviewer's judgement of a text answer (None: not judged)."""
    judged_by: str | None = None
    """Who judged it."""


class Pricing(UserRecord):
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


class ContractFacts(UserRecord):
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


class Candidate(OmitNewDefaults, UserRecord):
    """One vendor product under consideration for the dossier's intended use.

    ``snapshot`` and ``retires_on`` came with the retirement watch; left unset they are left out of the
    dump, so dossiers saved before them keep their content hashes (``OmitNewDefaults``).
    """

    _omit_at_default: ClassVar[tuple[str, ...]] = ("snapshot", "retires_on")

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
    snapshot: str | None = Field(default=None, min_length=1, max_length=200)
    """The vendor's model snapshot, e.g. ``gpt-4o-2024-05-13``, apart from the endpoint or deployment name
    (``azure/portal-reply``); None: derived from ``model_id`` and ``model_version``."""
    retires_on: date | None = None
    """The retirement date the vendor announced (None: litellm's shipped model map is consulted)."""
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


class TokenProfile(UserRecord):
    """Mean tokens per request for one candidate, and the price it is charged at."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(min_length=1)
    """Candidate as named in the evidence (so cost and score line up)."""
    price_model: str = Field(min_length=1)
    """litellm model string used to look up the price, e.g. ``gpt-4o``."""
    mean_prompt_tokens: float = Field(ge=0)
    """Mean prompt tokens per request."""
    mean_completion_tokens: float = Field(ge=0)
    """Mean completion tokens per request."""
    n_requests: int | None = Field(default=None, ge=0)
    """Requests the means are taken over, when known."""
    source: str = Field(min_length=3)
    """Where the means come from (run ids, or MedHELM's totals)."""
    evidence_ids: tuple[str, ...] = ()
    """Evidence records of the runs the tokens were measured in."""
    input_price_per_mtok: float | None = Field(default=None, ge=0)
    """Override: USD per 1M prompt tokens actually paid (negotiated rate, 0 on-prem)."""
    output_price_per_mtok: float | None = Field(default=None, ge=0)
    """Override: USD per 1M completion tokens actually paid."""


class EvaluationCostItem(UserRecord):
    """Money spent (or estimated) on producing the evidence itself."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str = Field(min_length=1)
    """What was run, e.g. ``run r-12: gpt-4o on MedicationQA`` or ``LLM jury for run r-12``."""
    usd: float = Field(ge=0)
    """USD."""
    kind: Literal["measured", "published_upper_bound"]
    """Measured by our runner, or MedHELM's published budget-based estimate."""
    source: str = Field(min_length=1)
    """Run id or citation."""


class CostSettings(OmitNewDefaults, UserRecord):
    """The dossier's cost inputs."""

    _omit_at_default: ClassVar[tuple[str, ...]] = ("workload_prompt_tokens", "workload_completion_tokens")

    model_config = ConfigDict(frozen=True, extra="forbid")

    profiles: list[TokenProfile] = Field(default_factory=list)
    """One token profile per candidate (latest wins when a model repeats)."""
    evaluation_costs: list[EvaluationCostItem] = Field(default_factory=list)
    """Cost of producing the evidence (runs and jury)."""
    score_benchmark: str | None = None
    """Benchmark whose score is plotted and used as the pass rate (None: chosen automatically)."""
    workload_prompt_tokens: float | None = Field(default=None, ge=0)
    """Override: the committee's estimate of prompt tokens per request for this intended use; replaces
    every candidate's measured or published prompt-token mean when set."""
    workload_completion_tokens: float | None = Field(default=None, ge=0)
    """Override: the committee's estimate of completion tokens per request; replaces every candidate's."""
