"""Rehearsing go-live in the operations: make a practice copy of a decided dossier, write a feed for it.

Why here: making the copy saves a new dossier (an editor's act, like creating one) and writing its feed
reads the decided runs' served identities from the store. What a practice copy is, and why its decision is
moved back rather than its clock forward, is in ``governance.monitoring.practice``.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from evaluator.inputs.csv_cells import write_rows
from governance.dossier.practice import PRACTICE_MARK
from governance.dossier.storage import DossierStorage
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require, update_as
from governance.monitoring.identity import approved_candidate, approved_identity
from governance.monitoring.operations.common import now_or, served_names
from governance.monitoring.plan import resolved_plan
from governance.monitoring.practice import (
    DEFAULT_DAYS_BACK,
    FEED_COLUMNS,
    PracticeError,
    practice_copy,
    practice_feed_rows,
    practice_id,
)
from governance.monitoring.procured import procured


class PracticeResult(BaseModel):
    """What making a practice copy did (the CLI's JSON)."""

    model_config = ConfigDict(frozen=True)

    id: str
    """The practice copy's id."""
    source_id: str
    """The dossier copied."""
    source_version: int
    """The version copied (the original is not changed)."""
    title: str
    """The copy's title (``PRACTICE — …``)."""
    decided_at: datetime
    """The copy's decision date: the original's, ``days_back`` days earlier."""
    days_back: int
    """How far the decision was moved back."""
    candidate: str | None
    """The approved candidate a feed is imported for."""
    mark: str = PRACTICE_MARK
    """The words the copy carries everywhere."""


def make_practice_copy(store: DossierStorage, dossier_id: str, *, days_back: int = DEFAULT_DAYS_BACK,
                       actor: Actor, now: datetime | None = None) -> PracticeResult:
    """Save a practice copy of ``dossier_id``'s latest version; the original is only read.

    Raises:
        DossierNotFound: no such dossier.
        PracticeError: no decision, already a practice copy, or ``days_back`` outside 1-3650.
        PermissionDenied: the identity is not an editor.
    """
    require(actor.identity, "editor", "make a practice copy", dossier_id)
    at = now_or(now)
    v = store.load(dossier_id)
    copy = practice_copy(v.dossier, version=v.version, content_hash=v.hash, days_back=days_back,
                         by=actor.name, new_id=practice_id(dossier_id, uuid.uuid4().hex[:6]), now=at)
    store.save(copy, author=actor.name, expected_version=0, auth=actor.auth_label,
               note=f"practice copy of {dossier_id} v{v.version}, decision dated {days_back} days earlier")
    return PracticeResult(id=copy.id, source_id=dossier_id, source_version=v.version, title=copy.title,
                          decided_at=copy.decision.decided_at, days_back=days_back,  # type: ignore[union-attr]
                          candidate=approved_candidate(copy))


def discard_practice_copy(store: DossierStorage, dossier_id: str, *, actor: Actor,
                          now: datetime | None = None) -> int:
    """Set a practice copy aside: a last version marked discarded, left out of every list; its version number.

    Why not erased: dossier versions and the audit log are append-only (on PostgreSQL by triggers), and a
    practice copy's rows are sealed like any; the copy stays readable by its id and ``verify`` still holds.

    Raises:
        PracticeError: not a practice copy, or already discarded.
        PermissionDenied: the identity is not an editor.
    """
    at = now_or(now)

    def change(current):
        if current.practice is None:
            raise PracticeError(f"{dossier_id} is not a practice copy: only a practice copy is discarded")
        if current.practice.discarded_at is not None:
            raise PracticeError(f"{dossier_id} was discarded on {current.practice.discarded_at:%Y-%m-%d}")
        mark = current.practice.model_copy(update={"discarded_at": at, "discarded_by": actor.name})
        return current.model_copy(update={"practice": mark})

    version = update_as(store, actor, dossier_id, change, action="discard a practice copy",
                        note="practice copy discarded")
    return version.version


def write_practice_feed(store: DossierStorage, dossier_id: str, out: str | Path, *,
                        now: datetime | None = None) -> int:
    """Write a generated feed for a practice copy (CSV in the feed format); the number of rows.

    The rows are served by the approved identity (the decided runs' served names, else their model
    string) with the approved prompt version, from the copy's decision to now: the real import takes them.

    Raises:
        PracticeError: not a practice copy, or no approved candidate.
    """
    dossier = store.load(dossier_id).dossier
    name = approved_candidate(dossier)
    if dossier.practice is None or name is None:
        raise PracticeError(f"{dossier_id} is not a practice copy with an approved candidate: a generated "
                            "feed is for practice copies only")
    identity = approved_identity(dossier, name, resolved_plan(dossier, name).monitoring,
                                 served_names(store, dossier, name), procured=procured(dossier, name))
    rows = practice_feed_rows(dossier, served_model=identity.model or name,
                              prompt_version=identity.prompt_version, now=now_or(now))
    with Path(out).open("w", newline="", encoding="utf-8") as f:
        # through the one CSV writer (issue 35 item 3): the served model and prompt version are names an
        # editor typed, and "=HYPERLINK(...)" went into the generated file as a live formula
        write_rows(f, list(FEED_COLUMNS), ([r.get(c, "") for c in FEED_COLUMNS] for r in rows))
    return len(rows)
