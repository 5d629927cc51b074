"""What the monitoring operations in the operations share: the error, the clock, who acted, the candidate.

Why apart: ``monitoring`` (import, status, exports) and ``monitoring_events`` (events, signals, go-live)
both need them, and neither should import the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.monitoring.identity import approved_candidate, decided_run_ids, known_candidates
from governance.monitoring.models import Signal
from governance.monitoring.records import SignalRecord


class MonitoringError(ValueError):
    """A monitoring operation refused, with a one-line message for the user (the CLI's exit 2)."""


class FeedSealBroken(MonitoringError):
    """The stored feed no longer matches its seal (rows removed, added or altered outside MedAssure): no
    status is computed from it; the glance views say so (``monitoring_state``: ``seal_broken``)."""


def now_or(now: datetime | None) -> datetime:
    return now or datetime.now(UTC)


def watched_candidate(dossier: Dossier, candidate: str | None, *, monitored: Iterable[str] = ()) -> str:
    """The candidate named (or the approved one), refused unless the dossier knows it.

    ``monitored``: names already holding feed rows or records, which a read may still show; a write
    passes none, so nothing is ever stored under a name the dossier does not know (issue 36 item 18).

    Raises:
        MonitoringError: an unknown name (the known ones are listed), or none named and none approved.
    """
    approved = approved_candidate(dossier)
    if candidate and candidate.strip():
        name = candidate.strip()
        known = list(dict.fromkeys([*known_candidates(dossier), *monitored]))
        if name not in known:
            raise MonitoringError(
                f"no candidate {name!r} in dossier {dossier.id}: nothing was done "
                f"(candidates: {', '.join(known) or 'none recorded'})"
            )
        return name
    if approved is None:
        raise MonitoringError(
            f"{dossier.id} has no approved candidate to monitor: record the decision first, "
            "or name the candidate (--candidate)"
        )
    return approved


def served_names(store: DossierStorage, dossier: Dossier, candidate: str) -> list[str]:
    """Served model names the decided runs' answers carried (empty when the runs recorded none)."""
    names: list[str] = []
    for run_id in decided_run_ids(dossier, candidate):
        names += [s["model"] for s in store.runs.served_identities(run_id) if s.get("model")]
    return names


def new_signal_records(dossier: Dossier, signals: list[Signal], at: datetime) -> list[SignalRecord]:
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
