"""Safety events, what was done about a signal, and the go-live settings: appended to the dossier's record.

Why here: each takes the store and passes the authorization check. Reporting an event, acknowledging and
resolving a signal need an editor; resolving a suspension and recording the go-live settings (what counts
as approved) need the chair. Nothing here touches the feed rows.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage, DossierVersion
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require, update_as
from governance.monitoring.identity import bare_model
from governance.monitoring.operations.common import (
    MonitoringError,
    new_signal_records,
    now_or,
    served_names,
    watched_candidate,
)
from governance.monitoring.procured import procured
from governance.monitoring.records import (
    SEVERITIES,
    CanaryRun,
    GoLiveSettings,
    SafetyEvent,
    SignalAction,
    SignalRecord,
)
from governance.monitoring.status import compute_status


def record_event(
    store: DossierStorage,
    dossier_id: str,
    severity: str,
    description: str,
    *,
    output_ids: list[str] | tuple[str, ...] = (),
    candidate: str | None = None,
    actor: Actor,
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
    require(actor.identity, "editor", "report a safety event", dossier_id)
    at = now_or(now)
    dossier = store.load(dossier_id).dossier
    name = watched_candidate(dossier, candidate)
    event = SafetyEvent(
        id="E-" + uuid.uuid4().hex[:10],
        at=at,
        by=actor.name,
        auth=actor.auth_label,
        severity=severity,
        description=description.strip(),  # type: ignore[arg-type]
        output_ids=[o.strip() for o in output_ids if o.strip()],
        candidate=name,
        occurred_at=occurred_at,
    )
    aggregates = store.monitoring.aggregates(dossier_id, name)
    served = served_names(store, dossier, name)
    facts = procured(dossier, name)

    def change(current: Dossier) -> Dossier:
        updated = current.model_copy(update={"monitoring": [*current.monitoring, event]})
        status = compute_status(updated, aggregates, now=at, candidate=name, served=served, facts=facts)
        return updated.model_copy(
            update={"monitoring": [*updated.monitoring, *new_signal_records(updated, status.signals, at)]}
        )

    version = update_as(
        store,
        actor,
        dossier_id,
        change,
        action="report a safety event",
        note=f"safety event {event.id} ({severity})",
    )
    return event, version


IDENTITY_SIGNALS = ("model_change", "canary_identity")
"""Signals about who answers: the feed's served model, or the canary's endpoint answering as another."""


def _named_identity(dossier: Dossier, signal: SignalRecord) -> str:
    """The served model an identity signal names: the last part of a model-change key, or the model the
    canary run that raised it was served by (its last attempt's)."""
    if signal.signal_kind == "canary_identity":
        run = next((e for e in dossier.monitoring if isinstance(e, CanaryRun) and e.signal_id == signal.id),
                   None)
        return (run.attempts[-1].served_model if run is not None else None) or "(none named)"
    return signal.key.split("|", 3)[-1]


def _identity_resolution(dossier: Dossier, signal: SignalRecord, actor: Actor, reason: str,
                         reevaluation_id: str | None) -> str | None:
    """Check how an identity signal (``IDENTITY_SIGNALS``) is resolved; "chair" for the chair's override.

    A served model that was not approved is answered only by a re-evaluation of the signal's own candidate
    whose replies named that model, or by the chair's recorded override with the reason (issue 36 item 7: a
    pause was closed with a re-run answered by the old model; issue 35: with a re-run of another candidate
    that was served the same model).

    Raises:
        MonitoringError: a re-evaluation that did not see the identity, and no override reason.
        PermissionDenied: an override by someone who is not the chair.
    """
    named = _named_identity(dossier, signal)
    if reevaluation_id:
        addendum = next(a for a in dossier.reevaluations if a.id == reevaluation_id)
        own = [c for c in addendum.comparisons if c.candidate == signal.candidate]
        seen = [s for c in own for s in c.served_after]
        if any(s.model and bare_model(s.model) == bare_model(named) for s in seen):
            return None
        if not reason.strip() and not own:
            rerun = ", ".join(addendum.candidates_rerun) or "nothing"
            raise MonitoringError(
                f"re-evaluation {reevaluation_id} re-ran {rerun}, not {signal.candidate}, the candidate this "
                "signal is about: re-run its frozen evidence plan against the model now served, or have the "
                "chair resolve it with the reason for overriding"
            )
        if not reason.strip():
            names = dict.fromkeys(s.model or "no model named" for s in seen)
            answered = ", ".join(names) or "no recorded model"
            raise MonitoringError(
                f"re-evaluation {reevaluation_id} was answered by {answered}, not by {named}, the model this "
                f"signal names: re-run the frozen evidence plan against the model now served, or have the "
                "chair resolve it with the reason for overriding"
            )
    require(actor.identity, "chair", f"resolve an identity signal ({named}) without a re-evaluation that "
            "saw it", dossier.id)
    return "chair"


def _signal_action(
    store: DossierStorage,
    dossier_id: str,
    signal_id: str,
    kind: str,
    *,
    actor: Actor,
    reason: str,
    reevaluation_id: str | None,
    now: datetime | None,
) -> DossierVersion:
    require(actor.identity, "editor", "acknowledge or resolve a monitoring signal", dossier_id)
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
        if signal.signal_kind in IDENTITY_SIGNALS:
            role = _identity_resolution(dossier, signal, actor, reason, reevaluation_id) or role
        if signal.level == "suspend":
            require(actor.identity, "chair", "return a suspended candidate to service", dossier_id)
            role = "chair"
    action = SignalAction(
        kind=kind,
        signal_id=signal.id,
        at=now_or(now),
        by=actor.name,
        auth=actor.auth_label,  # type: ignore[arg-type]
        role=role,
        reason=reason.strip(),
        reevaluation_id=reevaluation_id,
    )
    word = "acknowledged" if kind == "signal_ack" else "resolved"
    return update_as(
        store,
        actor,
        dossier_id,
        lambda current: current.model_copy(update={"monitoring": [*current.monitoring, action]}),
        action=f"{word} a monitoring signal",
        note=f"signal {signal.id} {word}",
    )


def acknowledge_signal(
    store: DossierStorage,
    dossier_id: str,
    signal_id: str,
    *,
    actor: Actor,
    note: str = "",
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
        actor=actor,
        reason=note,
        reevaluation_id=None,
        now=now,
    )


def resolve_signal(
    store: DossierStorage,
    dossier_id: str,
    signal_id: str,
    *,
    actor: Actor,
    reason: str = "",
    reevaluation_id: str | None = None,
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
        actor=actor,
        reason=reason,
        reevaluation_id=reevaluation_id,
        now=now,
    )


def record_go_live(
    store: DossierStorage,
    dossier_id: str,
    *,
    actor: Actor,
    candidate: str | None = None,
    prompt_version: str | None = None,
    aliases: list[str] | tuple[str, ...] = (),
    baseline_rate: float | None = None,
    baseline_start: datetime | None = None,
    baseline_end: datetime | None = None,
    note: str = "",
    now: datetime | None = None,
) -> DossierVersion:
    """Record the go-live settings (approved prompt version, aliases, baseline) without voiding sign-offs.

    They widen or set what counts as the approved model, so the chair records them.

    Raises:
        MonitoringError: nothing to record, a window with its end before its start.
        PermissionDenied: the identity is not the chair.
    """
    require(
        actor.identity, "chair", "record the go-live settings (what counts as approved)", dossier_id
    )
    if baseline_start is not None and baseline_end is not None and baseline_end <= baseline_start:
        raise MonitoringError("the baseline window ends before it starts")
    if (baseline_start is None) != (baseline_end is None):
        raise MonitoringError("give the baseline window's start and end")
    names = [a.strip() for a in aliases if a.strip()]
    if prompt_version is None and not names and baseline_rate is None and baseline_start is None:
        raise MonitoringError("nothing to record: give a prompt version, an alias or a baseline")
    name = watched_candidate(store.load(dossier_id).dossier, candidate)
    settings = GoLiveSettings(
        at=now_or(now),
        by=actor.name,
        auth=actor.auth_label,
        candidate=name,
        approved_prompt_version=prompt_version,
        model_aliases=names,
        baseline_rate=baseline_rate,
        baseline_start=baseline_start,
        baseline_end=baseline_end,
        note=note.strip(),
    )
    return update_as(
        store,
        actor,
        dossier_id,
        lambda current: current.model_copy(update={"monitoring": [*current.monitoring, settings]}),
        action="record the go-live settings",
        note=f"go-live settings for {name}",
    )
