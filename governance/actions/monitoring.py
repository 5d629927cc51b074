"""Monitoring after go-live at the front desk: import a feed, compute the status, record what was done.

Why here: each operation takes the store. An import reads the file into the feed table (validated whole
in SQL, nothing stored on a bad row: ``governance.dossier.store_monitoring``) and appends its record (file
hash, row counts) plus any new signal to the dossier, in one authorized update; the status is a pure
function of the dossier and the feed's aggregates (``governance.monitoring.status``). Every write passes
the one authorization check (``authorize``): an editor imports, reports events and acknowledges or
resolves a signal; only the chair returns a suspended candidate to service.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from governance.actions.authorize import AS_NAMED, _AsNamed, acting, require, update_as
from governance.actions.monitoring_sources import otel_to_feed
from governance.dossier.monitoring_records import (
    SEVERITIES,
    FeedImport,
    SafetyEvent,
    SignalAction,
    SignalRecord,
    Source,
)
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage, DossierVersion
from governance.identity.identity import Identity
from governance.monitoring.identity import approved_candidate, decided_run_ids
from governance.monitoring.models import MonitoringStatus, Signal
from governance.monitoring.status import compute_status


class MonitoringError(ValueError):
    """A monitoring operation refused, with a one-line message for the user (the CLI's exit 2)."""


class ImportResult(BaseModel):
    """What an import did: its record, the dossier version that holds it, and the status after it."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    record: FeedImport
    """The import's record (file hash, row counts)."""
    version: int
    """Dossier version holding the record (unchanged when the file added nothing new)."""
    status: MonitoringStatus
    """The status after the import."""
    new_signals: list[str]
    """Ids of signals recorded by this import."""


def _now(now: datetime | None) -> datetime:
    return now or datetime.now(UTC)


def _auth(identity: Identity | None | _AsNamed, by: str) -> str | None:
    who = acting(identity, by)
    return None if isinstance(identity, _AsNamed) or who is None else who.auth_label


def _candidate(dossier: Dossier, candidate: str | None) -> str:
    approved = approved_candidate(dossier)
    if candidate and candidate.strip():
        return candidate.strip()
    if approved is None:
        raise MonitoringError(
            f"{dossier.id} has no approved candidate to monitor: record the decision first, "
            "or name the candidate (--candidate)"
        )
    return approved


def _served(store: DossierStorage, dossier: Dossier, candidate: str) -> list[str]:
    """Served model names the decided runs' answers carried (empty when the runs recorded none)."""
    names: list[str] = []
    for run_id in decided_run_ids(dossier, candidate):
        names += [s["model"] for s in store.runs.served_identities(run_id) if s.get("model")]
    return names


def monitoring_status(
    store: DossierStorage, dossier_id: str, *, candidate: str | None = None, now: datetime | None = None
) -> MonitoringStatus:
    """The dossier's monitoring status for its approved candidate (or ``candidate``), from the stored feed.

    Raises:
        DossierNotFound: no such dossier.
        MonitoringError: no decided candidate and none named.
    """
    dossier = store.load(dossier_id).dossier
    name = _candidate(dossier, candidate)
    aggregates = store.monitoring.aggregates(dossier_id, name)
    return compute_status(
        dossier, aggregates, now=_now(now), candidate=name, served=_served(store, dossier, name)
    )


def _new_signal_records(dossier: Dossier, signals: list[Signal], at: datetime) -> list[SignalRecord]:
    known = {e.key for e in dossier.monitoring if isinstance(e, SignalRecord)}
    out = []
    for s in signals:
        if s.key in known or s.level == "in_control":
            continue
        known.add(s.key)
        out.append(
            SignalRecord(
                id=s.id,
                key=s.key,
                signal_kind=s.kind,
                level=s.level,
                candidate=s.candidate,
                metric=s.metric,
                first_seen=s.first_seen,
                recorded_at=at,
                owner=s.owner,
                deadline=s.deadline,
                action=s.action,
                detail=s.detail,
            )
        )
    return out


def import_feed(
    store: DossierStorage,
    dossier_id: str,
    path: str | Path,
    *,
    candidate: str | None = None,
    source: Source = "feed",
    by: str,
    identity: Identity | None | _AsNamed = AS_NAMED,
    now: datetime | None = None,
) -> ImportResult:
    """Import a feed file (CSV, JSONL or Parquet; or OTLP JSON spans, or a LiteLLM spend-log export).

    The file is taken whole or not at all: a bad row raises ``FeedError`` naming the row and the field,
    and nothing is stored. Rows already stored (same ``id``, else the same row) add nothing. The import's
    record and any new signal are appended to the dossier (``Dossier.monitoring``).

    Raises:
        FeedError: a bad file or row (the message names the row and the field).
        PermissionDenied: the identity is not an editor.
        MonitoringError: no approved candidate and none named.
    """
    require(acting(identity, by), "editor", "import a monitoring feed", dossier_id)
    file = Path(path)
    if not file.is_file():
        raise MonitoringError(f"{path}: no such file")
    at = _now(now)
    dossier = store.load(dossier_id).dossier
    name = _candidate(dossier, candidate)
    digest = hashlib.sha256(file.read_bytes()).hexdigest()
    import_id = "I-" + uuid.uuid4().hex[:10]
    served = _served(store, dossier, name)
    if source == "otel":
        with otel_to_feed(file) as flat:
            counts = store.monitoring.import_file(
                dossier_id, name, flat, source="feed", import_id=import_id, now=at
            )
    else:
        counts = store.monitoring.import_file(
            dossier_id, name, file, source=source, import_id=import_id, now=at
        )
    record = FeedImport(
        id=import_id,
        at=at,
        by=by,
        auth=_auth(identity, by),
        candidate=name,
        source=source,
        file_name=file.name,
        file_sha256=digest,
        rows_in_file=counts.rows_in_file,
        rows_added=counts.rows_added,
        rows_already_stored=counts.rows_in_file - counts.rows_added,
        first_timestamp=counts.first_timestamp,
        last_timestamp=counts.last_timestamp,
    )
    aggregates = store.monitoring.aggregates(dossier_id, name)
    new: list[str] = []

    def change(current: Dossier) -> Dossier:
        status = compute_status(current, aggregates, now=at, candidate=name, served=served)
        signals = _new_signal_records(current, status.signals, at)
        new[:] = [s.id for s in signals]
        return current.model_copy(update={"monitoring": [*current.monitoring, record, *signals]})

    version = update_as(
        store,
        identity,
        dossier_id,
        change,
        by=by,
        action="import a monitoring feed",
        note=f"monitoring feed {file.name}: {record.rows_added:,} of {record.rows_in_file:,} rows new",
    )
    status = compute_status(version.dossier, aggregates, now=at, candidate=name, served=served)
    return ImportResult(record=record, version=version.version, status=status, new_signals=new)


def record_event(
    store: DossierStorage,
    dossier_id: str,
    severity: str,
    description: str,
    *,
    output_ids: list[str] | tuple[str, ...] = (),
    candidate: str | None = None,
    by: str,
    identity: Identity | None | _AsNamed = AS_NAMED,
    now: datetime | None = None,
    occurred_at: datetime | None = None,
) -> tuple[SafetyEvent, DossierVersion]:
    """Record a safety event in the register; moderate or worse suspends the candidate (a new signal).

    Raises:
        MonitoringError: an unknown severity, an empty description.
        PermissionDenied: the identity is not an editor.
    """
    if severity not in SEVERITIES:
        raise MonitoringError(f"severity {severity!r} is not one of {', '.join(SEVERITIES)}")
    if len(description.strip()) < 3:
        raise MonitoringError("describe the event (at least 3 characters)")
    require(acting(identity, by), "editor", "report a safety event", dossier_id)
    at = _now(now)
    dossier = store.load(dossier_id).dossier
    name = _candidate(dossier, candidate)
    event = SafetyEvent(
        id="E-" + uuid.uuid4().hex[:10],
        at=at,
        by=by,
        auth=_auth(identity, by),
        severity=severity,
        description=description.strip(),  # type: ignore[arg-type]
        output_ids=[o.strip() for o in output_ids if o.strip()],
        candidate=name,
        occurred_at=occurred_at,
    )
    aggregates = store.monitoring.aggregates(dossier_id, name)
    served = _served(store, dossier, name)

    def change(current: Dossier) -> Dossier:
        updated = current.model_copy(update={"monitoring": [*current.monitoring, event]})
        status = compute_status(updated, aggregates, now=at, candidate=name, served=served)
        return updated.model_copy(
            update={"monitoring": [*updated.monitoring, *_new_signal_records(updated, status.signals, at)]}
        )

    version = update_as(
        store,
        identity,
        dossier_id,
        change,
        by=by,
        action="report a safety event",
        note=f"safety event {event.id} ({severity})",
    )
    return event, version


def _signal_action(
    store: DossierStorage,
    dossier_id: str,
    signal_id: str,
    kind: str,
    *,
    by: str,
    identity: Identity | None | _AsNamed,
    reason: str,
    reevaluation_id: str | None,
    now: datetime | None,
) -> DossierVersion:
    who = acting(identity, by)
    require(who, "editor", "acknowledge or resolve a monitoring signal", dossier_id)
    dossier = store.load(dossier_id).dossier
    records = {e.id: e for e in dossier.monitoring if isinstance(e, SignalRecord)}
    signal = records.get(signal_id.strip())
    if signal is None:
        raise MonitoringError(f"{dossier_id} has no recorded signal {signal_id!r}")
    done = {
        e.signal_id for e in dossier.monitoring if isinstance(e, SignalAction) and e.kind == "signal_resolve"
    }
    if signal.id in done:
        raise MonitoringError(f"signal {signal.id} is already resolved")
    role = None
    if kind == "signal_resolve":
        if not reason.strip() and not reevaluation_id:
            raise MonitoringError(
                "say why the signal is resolved (a reason, or the re-evaluation that answers it)"
            )
        if reevaluation_id and reevaluation_id not in {a.id for a in dossier.reevaluations}:
            raise MonitoringError(f"{dossier_id} has no re-evaluation {reevaluation_id!r}")
        if signal.level == "suspend":
            require(who, "chair", "return a suspended candidate to service", dossier_id)
            role = "chair"
    action = SignalAction(
        kind=kind,
        signal_id=signal.id,
        at=_now(now),
        by=by,
        auth=_auth(identity, by),  # type: ignore[arg-type]
        role=role,
        reason=reason.strip(),
        reevaluation_id=reevaluation_id,
    )
    word = "acknowledged" if kind == "signal_ack" else "resolved"
    return update_as(
        store,
        identity,
        dossier_id,
        lambda current: current.model_copy(update={"monitoring": [*current.monitoring, action]}),
        by=by,
        action=f"{word} a monitoring signal",
        note=f"signal {signal.id} {word}",
    )


def acknowledge_signal(
    store: DossierStorage,
    dossier_id: str,
    signal_id: str,
    *,
    by: str,
    note: str = "",
    identity: Identity | None | _AsNamed = AS_NAMED,
    now: datetime | None = None,
) -> DossierVersion:
    """Record that a signal was seen and is being handled (it stays on the ladder until resolved).

    Raises:
        MonitoringError: no such signal, or it is already resolved.
        PermissionDenied: the identity is not an editor.
    """
    return _signal_action(
        store,
        dossier_id,
        signal_id,
        "signal_ack",
        by=by,
        identity=identity,
        reason=note,
        reevaluation_id=None,
        now=now,
    )


def resolve_signal(
    store: DossierStorage,
    dossier_id: str,
    signal_id: str,
    *,
    by: str,
    reason: str = "",
    reevaluation_id: str | None = None,
    identity: Identity | None | _AsNamed = AS_NAMED,
    now: datetime | None = None,
) -> DossierVersion:
    """Close a signal with a reason or the re-evaluation that answers it; a suspension needs the chair.

    Raises:
        MonitoringError: no such signal, already resolved, no reason and no re-evaluation, unknown addendum.
        PermissionDenied: not an editor, or not the chair for a suspension.
    """
    return _signal_action(
        store,
        dossier_id,
        signal_id,
        "signal_resolve",
        by=by,
        identity=identity,
        reason=reason,
        reevaluation_id=reevaluation_id,
        now=now,
    )
