"""When the vendor retires a candidate's model snapshot, and whether a date is near.

Why here: a retirement date is a fact about what is bought (procurement), read by the comparison and the
decision (a warning at decision time) and by monitoring (a signal after go-live), which all come later in
the path. The date the vendor announced, recorded on the candidate, wins; else litellm's shipped model
map is read for the candidate's snapshot (``evaluator.gateway.retirement``), and the record names the
map's version, since another litellm release may date the same snapshot otherwise.

Which snapshot: the candidate's ``snapshot`` when recorded; else its model id joined to a dated version
(``gpt-4o`` + ``2024-05-13`` → ``gpt-4o-2024-05-13``, tried also as ``gpt-4o-20240513``) when the map has
that entry; else the bare model id when no version is stated (an alias retires too). The endpoint's
model string is never used: it names a deployment (``azure/portal-reply``), not a snapshot.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from evaluator.gateway.retirement import in_map, map_retirement
from governance.mapping.model_names import snapshot_date
from governance.procurement.candidates import candidate_models, matched_models
from governance.procurement.records import Candidate

if TYPE_CHECKING:
    from governance.dossier.record import Dossier

DEFAULT_NOTICE_DAYS = 90
"""Days before a retirement date at which the watch starts asking for a review."""


class Retirement(BaseModel):
    """A candidate's retirement date and where it comes from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    retires_on: date
    """The day the vendor retires the snapshot."""
    snapshot: str
    """The snapshot the date is for."""
    source: Literal["candidate", "model_map"]
    """The candidate's record (the vendor's announcement) or litellm's shipped model map."""
    map_version: str | None = None
    """The map's version (``litellm 1.110.2``) when the date comes from it."""

    @property
    def source_text(self) -> str:
        """In words, e.g. ``litellm 1.110.2 model map (gpt-4o-2024-05-13)``."""
        if self.source == "candidate":
            return f"the vendor's announcement recorded on the candidate ({self.snapshot})"
        return f"{self.map_version} model map ({self.snapshot})"


def candidate_snapshot(candidate: Candidate) -> str:
    """The snapshot a candidate runs (see the module docstring).

    Example:
        >>> from datetime import UTC, datetime
        >>> c = Candidate(id="c", vendor="v", product="p", model_id="gpt-4o", model_version="2024-05-13",
        ...               added_by="me", added_at=datetime.now(UTC))
        >>> candidate_snapshot(c)
        'gpt-4o-2024-05-13'
    """
    if candidate.snapshot:
        return candidate.snapshot
    model, version = candidate.model_id.strip(), candidate.model_version.strip()
    if not version:
        return model
    day = snapshot_date(version)
    names = [f"{model}-{version}"] + ([f"{model}-{day}", f"{model}-{day.replace('-', '')}"] if day else [])
    return next((n for n in dict.fromkeys(names) if in_map(n)), names[0])


def retirement(candidate: Candidate) -> Retirement | None:
    """The candidate's retirement date: its own, else the shipped map's for its snapshot (None: neither)."""
    snapshot = candidate_snapshot(candidate)
    if candidate.retires_on is not None:
        return Retirement(retires_on=candidate.retires_on, snapshot=snapshot, source="candidate")
    found = map_retirement(snapshot)
    if found is None:
        return None
    return Retirement(retires_on=found.retires_on, snapshot=found.entry, source="model_map",
                      map_version=found.map_version)


def retirement_phase(r: Retirement | None, on: date | datetime, notice_days: int = DEFAULT_NOTICE_DAYS
                     ) -> Literal["retired", "notice"] | None:
    """``retired`` on or after the date, ``notice`` inside the notice window before it, else None.

    Example:
        >>> r = Retirement(retires_on=date(2026, 10, 23), snapshot="s", source="candidate")
        >>> [retirement_phase(r, date(2026, m, 1)) for m in (7, 8, 11)]
        [None, 'notice', 'retired']
    """
    if r is None:
        return None
    day = on.date() if isinstance(on, datetime) else on
    if day >= r.retires_on:
        return "retired"
    if day >= r.retires_on - timedelta(days=notice_days):
        return "notice"
    return None


def candidate_named(dossier: Dossier, name: str) -> Candidate | None:
    """The recorded candidate a decision or monitoring names: by id, label, or evidence model name."""
    for c in dossier.candidates:
        if name in (c.id, c.label):
            return c
    for c in dossier.candidates:
        if name in candidate_models(dossier, c) or name in c.evidence_models:
            return c
    matched = [c for c in dossier.candidates if matched_models(c, [name])]
    return matched[0] if len(matched) == 1 else None


def retirement_warning(dossier: Dossier, name: str, at: date | datetime,
                       notice_days: int = DEFAULT_NOTICE_DAYS) -> str | None:
    """One sentence when the candidate ``name`` is retired, or inside the notice window, at ``at``.

    Example:
        >>> retirement_warning(demo_dossier, "GPT-4o (2024-05-13)", date(2026, 12, 1))  # doctest: +SKIP
        'The vendor retires gpt-4o-2024-05-13 on 2026-10-23 (litellm 1.110.2 model map ...): already past ...'
    """
    c = candidate_named(dossier, name)
    r = retirement(c) if c is not None else None
    phase = retirement_phase(r, at, notice_days)
    if r is None or phase is None:
        return None
    day = at.date() if isinstance(at, datetime) else at
    when = (f"already past on {day:%Y-%m-%d}" if phase == "retired"
            else f"{(r.retires_on - day).days} days after {day:%Y-%m-%d}, "
            f"inside the {notice_days}-day notice")
    return (f"The vendor retires {r.snapshot} on {r.retires_on:%Y-%m-%d} ({r.source_text}): {when}. "
            "Plan a successor snapshot and its re-evaluation.")
