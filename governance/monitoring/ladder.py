"""The ladder: in control < review < pause < suspend, and what each signal asks of whom, by when.

Why keys: the same finding (the same month above the same bar, the same unapproved model) seen again
in a later import is the same signal, so a signal is identified by its key (candidate, kind, metric,
what was seen) and its id is a hash of the key. Its deadline runs from when it was first recorded
(defaults: review 48 h, pause 4 h, suspend at once; the plan may change them). Acknowledging keeps a
signal on the ladder; resolving takes it off, and so does a retirement pause for the notice it replaces
(``superseded_notices``). The status is the highest level of the signals not resolved.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from governance.decision.records import MonitoringPlan
from governance.dossier.record import Dossier
from governance.monitoring.models import Signal
from governance.monitoring.records import LEVELS, Level, SignalAction, SignalKind, SignalRecord

LEVEL_OF: dict[str, Level] = {
    "model_change": "pause",
    "prompt_change": "pause",
    "drift": "review",
    "rate_above_bar": "review",
    "review_effectiveness": "review",
    "out_of_scope": "review",
    "schedule": "review",
    "safety_event": "suspend",
    "retirement": "review",
    "canary_identity": "pause",
    "canary_drift": "review",
    "canary_unreachable": "review",
}
"""The level each kind of signal puts the candidate at (a minor safety event: review; a retirement date
passed: pause)."""


def signal_id(key: str) -> str:
    """``S-`` and 10 hex digits of the key's SHA-256.

    Example:
        >>> signal_id("c|drift|x")
        'S-c8d97b707a'
    """
    return "S-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:10]


def deadline_hours(plan: MonitoringPlan, level: Level) -> float:
    """Hours to respond at ``level`` (the plan's, defaults 48 / 4 / 0)."""
    return {
        "review": plan.review_deadline_hours,
        "pause": plan.pause_deadline_hours,
        "suspend": plan.suspend_deadline_hours,
    }.get(level, plan.review_deadline_hours)


def owner_for(plan: MonitoringPlan, level: Level) -> str:
    """Who responds: the plan's monitoring owner; a suspension goes to the committee chair as well."""
    return f"committee chair and {plan.owner}" if level == "suspend" else plan.owner


def make_signal(
    *,
    kind: SignalKind,
    candidate: str,
    metric: str,
    seen: str,
    first_seen: datetime,
    detail: str,
    action: str,
    plan: MonitoringPlan,
    now: datetime,
    level: Level | None = None,
    command: str | None = None,
) -> Signal:
    """A signal, its deadline counted from ``now`` (a recorded signal keeps its own: ``with_record``)."""
    lvl = level or LEVEL_OF[kind]
    key = f"{candidate}|{kind}|{metric}|{seen}"
    return Signal(
        id=signal_id(key),
        key=key,
        kind=kind,
        level=lvl,
        candidate=candidate,
        metric=metric,
        first_seen=first_seen,
        owner=owner_for(plan, lvl),
        deadline=now + timedelta(hours=deadline_hours(plan, lvl)),
        action=action,
        detail=detail,
        command=command,
    )


def _states(dossier: Dossier) -> dict[str, str]:
    """Signal id → ``acknowledged`` or ``resolved``, from the record's actions (absent: open)."""
    state: dict[str, str] = {}
    for e in dossier.monitoring:
        if isinstance(e, SignalAction):
            if e.kind == "signal_resolve":
                state[e.signal_id] = "resolved"
            elif state.get(e.signal_id) != "resolved":
                state[e.signal_id] = "acknowledged"
    return state


def superseded_notices(signals: list[Signal]) -> list[Signal]:
    """A retirement notice (the review raised inside the notice window) still open once the retirement
    pause of the same snapshot is raised is shown closed as superseded: the pause replaces it.

    Shown, not stored: the pause's presence on the list is the whole reason, so the list of an old record
    reads the same, and a notice someone resolved keeps their resolution. Its state is ``resolved`` (what
    JSON readers of ``state`` count as closed) and its detail names the pause.
    """
    pauses = {(s.candidate, s.metric): s for s in signals if s.kind == "retirement" and s.level == "pause"}
    out = []
    for s in signals:
        pause = pauses.get((s.candidate, s.metric))
        if pause is not None and s.kind == "retirement" and s.level == "review" and s.state != "resolved":
            s = s.model_copy(update={"state": "resolved", "detail": f"{s.detail}. Superseded by {pause.id}: "
                                     "the retirement date passed, and its pause replaces this notice"})
        out.append(s)
    return out


def _ladder_order(signals: list[Signal]) -> list[Signal]:
    order = {"open": 0, "acknowledged": 1, "resolved": 2}
    signals = superseded_notices(signals)
    return sorted(signals, key=lambda s: (order.get(s.state, 3), -LEVELS.index(s.level), s.first_seen))


def _as_signal(rec: SignalRecord, state: str) -> Signal:
    return Signal(
        id=rec.id,
        key=rec.key,
        kind=rec.signal_kind,
        level=rec.level,
        candidate=rec.candidate,
        metric=rec.metric,
        first_seen=rec.first_seen,
        owner=rec.owner,
        deadline=rec.deadline,
        action=rec.action,
        detail=rec.detail,
        state=state,
    )


def recorded_signals(dossier: Dossier, candidate: str) -> list[Signal]:
    """The candidate's signals as the record holds them (as raised, never recomputed), with their state.

    What a report of a past month prints: a later change of the plan or the data does not change a signal
    once recorded (its level, owner, deadline and what was seen then); only its state follows the actions.
    """
    state = _states(dossier)
    return _ladder_order(
        [
            _as_signal(e, state.get(e.id, "open"))
            for e in dossier.monitoring
            if isinstance(e, SignalRecord) and e.candidate == candidate
        ]
    )


def with_record(signals: list[Signal], dossier: Dossier, candidate: str) -> list[Signal]:
    """Signals with their recorded deadline and state (open, acknowledged, resolved), open ones first.

    Signals recorded earlier that no longer show in the data (a corrected file, say) stay listed with their
    state: a record is never dropped.
    """
    recorded = {e.key: e for e in dossier.monitoring if isinstance(e, SignalRecord)}
    state = _states(dossier)
    out, keys = [], set()
    for s in signals:
        keys.add(s.key)
        rec = recorded.get(s.key)
        update = {"state": state.get(s.id, "open")}
        if rec is not None:
            update["deadline"] = rec.deadline
        out.append(s.model_copy(update=update))
    for key, rec in recorded.items():
        if key not in keys and rec.candidate == candidate:
            out.append(_as_signal(rec, state.get(rec.id, "open")))
    return _ladder_order(out)


def ladder_status(signals: list[Signal]) -> Level:
    """The highest level of the signals not resolved (``in_control`` when none).

    Example:
        >>> ladder_status([])
        'in_control'
    """
    live = [LEVELS.index(s.level) for s in signals if s.state != "resolved"]
    return LEVELS[max(live)] if live else "in_control"  # type: ignore[return-value]
