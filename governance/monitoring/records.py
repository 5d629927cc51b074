"""What a dossier records of its monitoring after go-live: imports, signals, what was done, safety events.

Why records on the dossier, and the feed rows elsewhere: a feed holds up to millions of rows, which stay
in the feed table (``store_monitoring``); the dossier's record keeps what a committee must be able to
prove later: each import (the file's SHA-256 and its row counts), each signal the ladder raised, each
acknowledgement and resolution (with the authenticated identity), each safety event, and the canary (its
frozen cases with their baseline digests, and each run of it; the answers stay in the run store). They are
appended to ``Dossier.monitoring`` as new versions, like re-evaluation addenda, outside what sign-offs
bind to (``content_hash.APPENDED``), so ``medassure verify`` covers them and the decision stays signed.

``FeedRow`` documents one row of the feed format (``docs/monitoring.md``); the importer validates files in
SQL against the same rules, so a million rows never become a million pydantic objects.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, ClassVar, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from evaluator.storage.record_base import OmitNewDefaults
from governance.dossier.user_text import UserRecord

Outcome = Literal["accepted", "minor_edit", "material_correction", "discarded", "not_reviewed"]
"""What the reviewer did with one output."""
OUTCOMES: tuple[str, ...] = ("accepted", "minor_edit", "material_correction", "discarded", "not_reviewed")
AuditVerdict = Literal["correct", "minor", "material"]
"""What an after-the-fact audit found."""
AUDIT_VERDICTS: tuple[str, ...] = ("correct", "minor", "material")
Severity = Literal["near_miss", "minor", "moderate", "severe"]
"""Severity of a safety event (moderate or worse suspends the candidate)."""
SEVERITIES: tuple[str, ...] = ("near_miss", "minor", "moderate", "severe")
SUSPENDING: tuple[str, ...] = ("moderate", "severe")
"""Severities that suspend the candidate at once."""
Level = Literal["in_control", "review", "pause", "suspend"]
"""The ladder, least to most severe."""
LEVELS: tuple[str, ...] = ("in_control", "review", "pause", "suspend")
SignalKind = Literal[
    "model_change",
    "prompt_change",
    "drift",
    "rate_above_bar",
    "review_effectiveness",
    "out_of_scope",
    "safety_event",
    "schedule",
    "retirement",
    "canary_identity",
    "canary_drift",
    "canary_unreachable",
]
"""Why a signal was raised (the CLI's ``signals[].kind``)."""
Source = Literal["feed", "otel", "litellm"]
"""The format a file came in: the feed format, OpenTelemetry GenAI spans (OTLP JSON), LiteLLM spend logs."""
BOOLEAN_WORDS: dict[str, bool] = {
    "true": True,
    "false": False,
    "1": True,
    "0": False,
    "yes": True,
    "no": False,
}
"""How a feed writes a boolean (case-insensitive)."""

OUTPUT_COLUMNS = ("latency_ms", "error", "tokens_in", "tokens_out", "cost_usd", "reviewer", "review_seconds",
                  "audited", "audit_verdict", "judge_score", "sentinel", "severity", "text")
"""A feed row's columns after its identity and outcome, in the feed's order: the import knows them, the
template lists them, and the seal hashes them in this order."""


class FeedRow(BaseModel):
    """One model output in production, as a row of the feed (CSV column, JSONL key or Parquet column).

    Subgroup tags come as extra columns named ``tag:NAME``; free text, when a feed has it, as ``text``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    timestamp: AwareDatetime
    """When the output was made: ISO 8601 with a zone (``2026-03-01T09:30:00Z``), never in the future."""
    served_model: str = Field(min_length=1)
    """The model identity the provider returned with the output (the reply's ``model``)."""
    outcome: Outcome
    """What the reviewer did with it."""
    prompt_version: str | None = None
    """The prompt version the application sent."""
    id: str | None = None
    """The output's id (re-importing a row with the same id adds nothing; without one, a hash of the row)."""
    latency_ms: float | None = Field(default=None, ge=0)
    """Milliseconds from request to reply."""
    error: bool | None = None
    """True when the call failed."""
    tokens_in: int | None = Field(default=None, ge=0)
    """Prompt tokens."""
    tokens_out: int | None = Field(default=None, ge=0)
    """Completion tokens."""
    cost_usd: float | None = Field(default=None, ge=0)
    """What the call cost, in US dollars."""
    reviewer: str | None = None
    """Who reviewed it (left out of a blinded export)."""
    review_seconds: float | None = Field(default=None, ge=0)
    """Seconds the reviewer spent."""
    audited: bool | None = None
    """True when the output was drawn for the after-the-fact audit."""
    audit_verdict: AuditVerdict | None = None
    """What the audit found."""
    judge_score: float | None = None
    """An automatic judge's score of the output, when the deployment runs one."""
    sentinel: bool | None = None
    """True for a planted faulty output (caught when its outcome is material_correction or discarded)."""
    severity: Severity | None = None
    """Set when the output was part of a safety event."""
    text: str | None = None
    """Free text of the output (stays in the store; masked by the PHI detector for examples)."""


class FeedImport(BaseModel):
    """One file imported into the feed: what it was, and what it added."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["feed_import"] = "feed_import"
    """Record kind."""
    id: str = Field(pattern=r"^I-[0-9a-f]{8,}$")
    """Stable id, e.g. ``I-3f9a1c2b``."""
    at: AwareDatetime
    """When it was imported."""
    by: str
    """Who imported it."""
    auth: str | None = None
    """How that person was established (None: named locally)."""
    candidate: str
    """Candidate the rows were recorded for."""
    source: Source
    """Format of the file."""
    file_name: str
    """The file's name (no folder)."""
    file_sha256: str
    """SHA-256 of the file's bytes."""
    rows_in_file: int
    """Rows the file held."""
    rows_added: int
    """Rows stored now."""
    rows_already_stored: int
    """Rows already in the feed (same id, or the same row without one): added nothing."""
    first_timestamp: AwareDatetime | None = None
    """Earliest output in the file."""
    last_timestamp: AwareDatetime | None = None
    """Latest output in the file."""
    sealed_rows: int | None = None
    """Feed rows this import stored, counted in the import's transaction (None: imported before sealing)."""
    sealed_digest: str | None = None
    """SHA-256 over those rows and their tags in a canonical order (``monitoring.store_seals``)."""


class SignalRecord(BaseModel):
    """A signal the ladder raised, as first recorded (its key makes the same signal recorded once)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["signal"] = "signal"
    """Record kind."""
    id: str = Field(pattern=r"^S-[0-9a-f]{8,}$")
    """Stable id derived from ``key`` (``S-`` + 10 hex digits)."""
    key: str
    """What makes two signals the same: candidate, kind, metric and what was seen (a month, a model)."""
    signal_kind: SignalKind
    """Why it was raised."""
    level: Literal["review", "pause", "suspend"]
    """Where it puts the candidate on the ladder."""
    candidate: str
    """Candidate it is about."""
    metric: str
    """What was measured (or the identity seen)."""
    first_seen: AwareDatetime
    """When the data first showed it (the first output, the month's start, the event)."""
    recorded_at: AwareDatetime
    """When it was written to the record."""
    owner: str
    """Who must respond (a role from the plan or the committee)."""
    deadline: AwareDatetime
    """Respond by then."""
    action: str
    """What to do."""
    detail: str
    """What was seen, in words."""


class SignalAction(UserRecord):
    """Someone acknowledged or resolved a signal."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["signal_ack", "signal_resolve"]
    """Acknowledged (seen, being handled) or resolved (closed)."""
    signal_id: str = Field(pattern=r"^S-[0-9a-f]{8,}$")
    """The signal."""
    at: AwareDatetime
    """When."""
    by: str = Field(min_length=1, max_length=200)
    """Who."""
    auth: str | None = None
    """How that person was established (None: named locally)."""
    role: str | None = None
    """The role they acted in (``chair`` to return a suspended candidate to service)."""
    reason: str = Field(default="", max_length=5000)
    """Why (a resolution needs a reason or a re-evaluation)."""
    reevaluation_id: str | None = Field(default=None, pattern=r"^R-[0-9a-f]{8,}$")
    """The re-evaluation addendum that answers the signal, when one does."""


class SafetyEvent(UserRecord):
    """A safety event someone reported: who, when, what, and which outputs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["safety_event"] = "safety_event"
    """Record kind."""
    id: str = Field(pattern=r"^E-[0-9a-f]{8,}$")
    """Stable id, e.g. ``E-3f9a1c2b``."""
    at: AwareDatetime
    """When it was reported."""
    by: str = Field(min_length=1, max_length=200)
    """Who reported it."""
    auth: str | None = None
    """How that person was established (None: named locally)."""
    severity: Severity
    """near_miss / minor / moderate / severe (moderate or worse suspends)."""
    description: str = Field(min_length=3, max_length=5000)
    """What happened, in the reporter's words."""
    output_ids: list[str] = Field(default_factory=list)
    """Feed row ids of the outputs involved."""
    candidate: str
    """Candidate it is about."""
    occurred_at: datetime | None = None
    """When it happened, when known (else when reported)."""


class GoLiveSettings(UserRecord):
    """What the committee records at go-live (or later) without reopening the signed plan.

    Why a record of its own: the plan is part of what sign-offs bind to, so an alias or the prompt version
    recorded after the decision would void them. These settings are appended instead; the latest one
    overrides the plan's fields of the same name (``governance.monitoring.plan``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["go_live"] = "go_live"
    """Record kind."""
    at: AwareDatetime
    """When it was recorded."""
    by: str = Field(min_length=1, max_length=200)
    """Who recorded it (the chair)."""
    auth: str | None = None
    """How that person was established (None: named locally)."""
    candidate: str
    """Candidate the settings are for."""
    approved_prompt_version: str | None = Field(default=None, max_length=200)
    """The prompt version approved for production (None: as the plan says)."""
    model_aliases: list[str] = Field(default_factory=list)
    """Served model names accepted as the approved model, besides the plan's."""
    baseline_rate: float | None = Field(default=None, gt=0, lt=1)
    """In-control material-correction rate (None: as the plan says)."""
    baseline_start: AwareDatetime | None = None
    """Start of the baseline window (None: as the plan says)."""
    baseline_end: AwareDatetime | None = None
    """End of the baseline window."""
    note: str = Field(default="", max_length=5000)
    """Why (a vendor's renamed build, the go-live date)."""


CanaryStatus = Literal["in_control", "drift", "identity_changed", "unreachable"]
"""The outcome of one canary run (the CLI's ``status``)."""


class CanaryCase(BaseModel):
    """One frozen case: where its baseline answer is stored, and whether that answer was correct."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    benchmark: str
    """The frozen plan item's benchmark (as the plan names it)."""
    run_id: str
    """The decided run holding the baseline answer."""
    instance_id: str
    """The case."""
    correct: bool
    """The baseline answer was correct (score 1 against the known answer)."""


class CanarySet(OmitNewDefaults):
    """A canary frozen for the approved candidate: its cases, baseline, schedule and level.

    ``baseline_runs`` came later; left unset it is left out of the dump, so canaries stored before it keep
    their dossiers' content hashes (``OmitNewDefaults``).
    """

    _omit_at_default: ClassVar[tuple[str, ...]] = ("baseline_runs",)

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["canary_set"] = "canary_set"
    """Record kind."""
    id: str = Field(pattern=r"^K-[0-9a-f]{8,}$")
    """Stable id, e.g. ``K-3f9a1c2b0d``."""
    at: AwareDatetime
    """When it was frozen."""
    by: str = Field(min_length=1, max_length=200)
    """Who froze it (chair or editor)."""
    auth: str | None = None
    """How that person was established (None: named locally)."""
    candidate: str
    """The approved candidate it watches."""
    every_days: int = Field(ge=1, le=366)
    """Days between scheduled runs (``canary run --due``)."""
    alpha: float = Field(default=0.05, gt=0, lt=1)
    """One-sided level of the exact test at which a drop is significant."""
    cases: list[CanaryCase] = Field(min_length=1)
    """The frozen cases, stratified over the frozen plan's benchmarks."""
    baseline_digest: str = Field(pattern=r"^[0-9a-f]{64}$")
    """SHA-256 of the baseline (each case's run, id, stored answer and correctness)."""
    cases_digest: str = Field(pattern=r"^[0-9a-f]{64}$")
    """SHA-256 of the cases' content, checked before the canary asks again."""
    baseline_runs: dict[str, str] | None = None
    """Decided run id → the fresh run that answered its baseline, when the decided run held no stored
    answers (None: every baseline answer is the decided runs' own)."""


class CanaryAttempt(BaseModel):
    """One asking of the canary's cases and its comparison with the baseline."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_ids: list[str]
    """The fresh runs (one per benchmark)."""
    status: CanaryStatus
    """What this attempt alone shows."""
    n: int
    """Cases answered now (errors are not compared)."""
    errors: int
    """Cases that got no answer."""
    baseline_correct: int
    """Of the ``n``, correct at baseline."""
    now_correct: int
    """Of the ``n``, correct now."""
    lost: int
    """Correct at baseline, wrong now."""
    gained: int
    """Wrong at baseline, correct now."""
    p_value: float
    """One-sided exact binomial (McNemar) p-value of a drop: P(X ≥ lost), X ~ Bin(lost + gained, 1/2)."""
    changed_answers: float
    """Share of the ``n`` whose parsed answer differs from the baseline's."""
    served_model: str | None
    """The served identity most answers named (None: the server named none)."""


class CanaryRun(BaseModel):
    """One scheduled or manual canary run: its attempts (a finding is confirmed once), outcome and signal."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["canary_run"] = "canary_run"
    """Record kind."""
    id: str = Field(pattern=r"^KR-[0-9a-f]{8,}$")
    """Stable id."""
    canary_id: str
    """The canary set asked."""
    at: AwareDatetime
    """When it ran."""
    by: str = Field(min_length=1, max_length=200)
    """Who (or which scheduler account) ran it."""
    auth: str | None = None
    """How that person was established (None: named locally)."""
    candidate: str
    """Candidate watched."""
    status: CanaryStatus
    """The outcome: a drift or identity change only when the confirmation run showed it again."""
    confirmed: bool
    """A confirmation run showed the first attempt's finding again."""
    attempts: list[CanaryAttempt] = Field(min_length=1)
    """The first attempt, and the confirmation run when one was made."""
    signal_id: str | None = None
    """The signal raised (None: in control, or a finding not confirmed)."""


MonitoringEntry = Annotated[
    FeedImport | SignalRecord | SignalAction | SafetyEvent | GoLiveSettings | CanarySet | CanaryRun,
    Field(discriminator="kind"),
]
"""One entry of ``Dossier.monitoring``."""
