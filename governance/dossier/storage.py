"""The storage interface: what the rest of MedAssure may ask of the database, and nothing more.

Why an interface: pages, the CLI, reports and the governance code above the store must not hold a
database connection or write SQL (``tests/test_storage_boundary.py`` checks it). They call the
methods listed in ``DossierStorage`` and get pydantic models back. One class implements it,
``governance.dossier.store.Store``, over two backends:

* a DuckDB file (the default, embedded deployment: one writing process);
* a PostgreSQL server (``MEDASSURE_DATABASE_URL=postgresql://...``, a shared deployment: several
  app processes and CLI runs at once), through ``evaluator.storage.postgres.PgConnection``, which offers the
  DuckDB connection methods the stores call. The SQL is the same portable SQL for both; what
  differs asks ``evaluator.storage.db.dialect``. ``tests/governance/dossier/test_store.py`` runs on both.

Nothing above the store knows the backend: ``Store.open()`` picks it (``pages/ui.py``,
``cli/_common.py``).

Transactions, in short: a dossier save and its audit record are one transaction (both or
neither); versions and audit records are append-only; a save based on an older version than the
latest is refused with ``SaveConflict`` (never a silent overwrite).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Protocol, Self, runtime_checkable

from pydantic import BaseModel, ConfigDict, PlainSerializer

from governance.dossier.record import Dossier, DossierStatus

# The errors are defined below the interface and re-exported here, where callers import them.
from governance.dossier.store_errors import (  # noqa: F401
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    StoreUnavailableError,
)
from governance.intended_use.risk import RiskTier

if TYPE_CHECKING:
    from pathlib import Path

    from evaluator.grading.store import GradingStore
    from evaluator.jury.store import JuryStore
    from evaluator.phi.attestation import AttestationStore
    from evaluator.runs.reads import RunReads
    from evaluator.runs.store import RunStore
    from evaluator.scenarios.store import ScenarioStore
    from governance.dossier.chain import ChainReport
    from governance.monitoring.store import MonitoringFeedStore
    from governance.procurement.store import DocumentStore
    from governance.review.store import ReviewStore

Timestamp = Annotated[datetime, PlainSerializer(lambda d: d.isoformat(), return_type=str, when_used="json")]
"""A timezone-aware time that dumps to JSON as ``datetime.isoformat()`` (the CLI's format)."""


class DossierNotFound(StoreError):
    """No dossier (or version) with that id."""


class SaveConflict(StoreError):
    """A save was based on a version that is no longer the latest; nothing was written.

    Attributes:
        dossier_id: the dossier.
        based_on_version: the version the edit started from (None when unknown).
        latest_version: the version saved in between.
        latest_hash: its hash.
        changes: what changed since, in words (at most a few lines).
    """

    def __init__(self, message: str, *, dossier_id: str | None = None, based_on_version: int | None = None,
                 latest_version: int | None = None, latest_hash: str | None = None,
                 changes: list[str] | None = None):
        super().__init__(message)
        self.dossier_id = dossier_id
        self.based_on_version = based_on_version
        self.latest_version = latest_version
        self.latest_hash = latest_hash
        self.changes = changes or []


class DossierVersion(BaseModel):
    """One saved version of a dossier."""

    model_config = ConfigDict(frozen=True)

    dossier: Dossier
    """The content."""
    version: int
    """1-based version number."""
    hash: str
    """SHA-256 of the canonical JSON."""
    parent_hash: str | None
    """Hash of the previous version, None for the first."""
    author: str
    """Who saved it."""
    created_at: datetime
    """When it was saved."""
    note: str = ""
    """What the save was for."""
    auth: str | None = None
    """How the author was established (e.g. "local, unauthenticated"); None before it was recorded."""
    integrity_problem: str = ""
    """Empty when the stored content matches its hash on loading; otherwise what is wrong."""


class VersionInfo(BaseModel):
    """One entry of a dossier's history: a saved version without its content."""

    model_config = ConfigDict(frozen=True)

    version: int
    """1-based version number."""
    hash: str
    """SHA-256 of the version's canonical JSON."""
    parent_hash: str | None
    """Hash of the previous version, None for the first."""
    created_at: Timestamp
    """When it was saved."""
    author: str
    """Who saved it."""
    note: str = ""
    """What the save was for."""
    auth: str | None = None
    """How the author was established (e.g. "local, unauthenticated"); None before it was recorded."""


class DossierSummary(BaseModel):
    """One line of the dossier list: the latest version of one dossier."""

    model_config = ConfigDict(frozen=True)

    id: str
    """The dossier id."""
    title: str
    """Its title."""
    owner: str
    """Who is responsible for it."""
    status: DossierStatus
    """Draft, in review, decided or under re-evaluation."""
    risk_tier: RiskTier
    """The risk tier of its intended use."""
    version: int
    """The latest version number."""
    hash: str
    """The latest version's hash."""
    updated_at: Timestamp
    """When the latest version was saved."""
    practice_of: str | None = None
    """The dossier this one is a practice copy of (``governance.dossier.practice``); None: a real dossier."""
    discarded: bool = False
    """A practice copy set aside (lists leave it out; the append-only store keeps its versions)."""


class AuditEvent(BaseModel):
    """One record of the append-only audit log: who did what, when."""

    model_config = ConfigDict(frozen=True)

    seq: int
    """Position in the log (increasing)."""
    at: Timestamp
    """When it happened."""
    actor: str
    """Who did it."""
    dossier_id: str | None
    """The dossier it concerns, None for store-wide events."""
    action: str
    """What was done (``create``, ``save``, ``scenario import``, ...)."""
    detail: dict[str, Any]
    """Action-specific facts (for a save: version, hash, note and the changed fields)."""
    auth: str | None = None
    """How the actor was established; None for events written before it was recorded."""


@runtime_checkable
class DossierStorage(Protocol):
    """Every storage operation the code above the store uses. ``Store`` (either backend) implements it.

    Exactly the members that pages, the CLI, reports and governance call on a store (``audit_log``
    through ``governance.dossier.history.timeline``; ``read_job`` through ``evaluator.runs.jobs``,
    which gets the store passed down), so they can be typed against this instead of the concrete
    class. Left out on purpose: ``Store.open`` and ``Store.open_url`` (how a caller
    gets a storage: the concrete class picks the backend), ``Store.cursor`` (a raw cursor, for
    tests only) and ``Store.chain_rows`` (the raw rows ``verify_chain`` checks).
    """

    path: Path | None
    """Where the database lives, when it is a file (uploads are kept beside it); None otherwise."""
    open_warnings: tuple[str, ...]
    """What opening the file found and the user should know (e.g. an unreadable write-ahead log)."""
    read_only: bool
    """Opened read-only (``Store.open(..., read_only=True)``): figures computed on read are not kept."""

    @property
    def location(self) -> str:
        """Where the record lives, for people: the DuckDB file, or the server URL without its password."""
        ...

    @property
    def backend(self) -> str:
        """``"duckdb"`` (one file, one writing process) or ``"postgresql"`` (a shared server)."""
        ...

    # ---- dossiers -----------------------------------------------------------------------
    def save(self, dossier: Dossier, author: str, note: str = "", *,
             expected_version: int | None = None, expected_hash: str | None = None,
             auth: str | None = None) -> DossierVersion:
        """Append version n+1 (or return the latest unchanged when the content hash is the same).

        Atomic: the version row and its ``create``/``save`` audit record are written in one
        transaction, under a lock, after re-reading the latest version. ``expected_version`` is the
        version the edit was based on (0 for a new dossier); when the latest differs the save is
        refused with ``SaveConflict`` and nothing is written. None skips the check. ``expected_hash``
        is the same check by the hash of the version the user was shown. ``auth`` says how the author
        was established. The version row and the audit row are chained (``verify_chain``).
        Raises ``StoreError`` without an author.
        """
        ...

    def update(self, dossier_id: str, change: Callable[[Dossier], Dossier], author: str, note: str = "", *,
               auth: str | None = None) -> DossierVersion:
        """Apply ``change`` to the latest version and append the result, as one step.

        For changes that do not depend on what a person was shown (attaching evidence, an
        attestation, a re-evaluation addendum): the latest version is read inside the save's
        transaction, under the dossier's lock, so another writer's change made in between is kept,
        never overwritten. An error raised by ``change`` writes nothing. ``DossierNotFound`` when
        missing. A change a person reviewed (a form, a decision, a sign-off) uses ``save`` with
        ``expected_hash`` instead.
        """
        ...

    def load(self, dossier_id: str, version: int | None = None) -> DossierVersion:
        """A version (the latest by default); ``DossierNotFound`` when missing. Read only.

        Recomputes the content hash: a mismatch sets ``integrity_problem`` (callers flag it)."""
        ...

    def latest_or_none(self, dossier_id: str) -> DossierVersion | None:
        """The latest version, or None when the dossier does not exist. Read only."""
        ...

    def history(self, dossier_id: str) -> list[VersionInfo]:
        """Every version, oldest first; ``DossierNotFound`` when the dossier does not exist."""
        ...

    def list_dossiers(self) -> list[DossierSummary]:
        """The latest version of every dossier, newest first."""
        ...

    def is_empty(self) -> bool:
        """True when no dossier has been saved yet."""
        ...

    def verify_chain(self, dossier_id: str) -> ChainReport:
        """Check the dossier's version and audit chain from the first version to the head."""
        ...

    # ---- audit log ----------------------------------------------------------------------
    def audit(self, actor: str, action: str, dossier_id: str | None = None,
              detail: dict | None = None, *, auth: str | None = None) -> None:
        """Append one audit record (its own transaction; records are never changed or removed;
        chained to the dossier's previous record)."""
        ...

    def audit_log(self, dossier_id: str | None = None) -> list[AuditEvent]:
        """Audit records in the order they were written, optionally of one dossier."""
        ...

    # ---- component stores ---------------------------------------------------------------
    @property
    def runs(self) -> RunStore:
        """Model runs, their per-case results and the response cache, for reading and direct
        writes; reading never replays a killed run's journal (that is ``journaled_runs``)."""
        ...

    @property
    def journaled_runs(self) -> RunStore:
        """The run store the runner writes through: each finished result is journaled, then
        committed in batches; opening it replays (commits) the journals of killed runs."""
        ...

    @property
    def run_reads(self) -> RunReads:
        """Read-only run views (lists, counts, latest results) for pages polling a live run."""
        ...

    @property
    def scenarios(self) -> ScenarioStore:
        """Local scenarios: a new version and its cases are written in one transaction."""
        ...

    @property
    def juries(self) -> JuryStore:
        """Jury passes: a batch of judgements and its ratings are written in one transaction."""
        ...

    @property
    def gradings(self) -> GradingStore:
        """Rubric gradings: one grader's verdicts are written in one transaction."""
        ...

    @property
    def documents(self) -> DocumentStore:
        """Uploaded documents by SHA-256 (write once; the same bytes are stored once)."""
        ...

    @property
    def reviews(self) -> ReviewStore:
        """Review queues: items, each rater's order, ratings (once per item and rater) and events."""
        ...

    @property
    def monitoring(self) -> MonitoringFeedStore:
        """The production monitoring feed: imports validated whole, aggregates summed in SQL."""
        ...

    @property
    def attestations(self) -> AttestationStore:
        """De-identification attestations, found by the SHA-256 of the file they cover (PHI gate)."""
        ...

    def read_job(self, job_id: str) -> dict[str, Any] | None:
        """One background job's status row, or None; read only (pages poll it every second)."""
        ...

    # ---- connection lifetime ------------------------------------------------------------
    def for_thread(self) -> DossierStorage:
        """The same storage for another thread (its own cursor or connection); close it after."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...

    def __enter__(self) -> Self:
        """``with store.for_thread() as db:`` closes the view at the end of the block."""
        ...

    def __exit__(self, *exc: object) -> None:
        ...
