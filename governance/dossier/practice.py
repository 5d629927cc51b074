"""A practice copy of a dossier: the mark it carries, and the one refusal every real-record path shares.

Why in the floor: the mark is a field of the ``Dossier`` value (``Dossier.practice``), and the paths that
must refuse a practice copy (the dossier PDF and its exports, sign-offs, export signatures) live in
several concepts and in ``reports``; they all read the mark here. The field is None on every real
dossier and a section at its default is left out of the hashes (``content_hash``), so the field leaves
every existing content hash as it was. What a practice copy is for, and how it is made, is monitoring's
(``governance.monitoring.practice``).
"""

from __future__ import annotations

from typing import Protocol

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

PRACTICE_MARK = "PRACTICE COPY — not a record"
"""The words every page, list and file of a practice copy carries."""


class PracticeCopy(BaseModel):
    """Marks a dossier as a practice copy of another: for rehearsing go-live, never the record."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source_id: str
    """The dossier it was copied from."""
    source_version: int = Field(ge=1)
    """The version copied."""
    source_hash: str
    """That version's content hash."""
    days_back: int = Field(ge=1, le=3650)
    """How many days earlier the copy's decision (its go-live) is dated than the original's."""
    made_at: AwareDatetime
    """When the copy was made."""
    made_by: str = Field(min_length=1, max_length=200)
    """Who made it."""
    discarded_at: AwareDatetime | None = None
    """When it was discarded (None: in use). The store is append-only, so a copy is set aside, not erased:
    lists leave it out, its versions stay."""
    discarded_by: str | None = Field(default=None, max_length=200)
    """Who discarded it."""


class Marked(Protocol):
    """What the refusal reads of a dossier (``Dossier`` imports this module, so it is not named here)."""

    id: str
    practice: PracticeCopy | None


class PracticeRefused(ValueError):
    """A real-record path (export, sign-off, signature) refused a practice copy (the CLI's exit 2)."""


def refuse_practice(dossier: Marked, what: str) -> None:
    """Raise ``PracticeRefused`` with one line when ``dossier`` is a practice copy.

    Raises:
        PracticeRefused: ``dossier`` is a practice copy (``what``: the refused action, e.g. "export").
    """
    if dossier.practice is not None:
        raise PracticeRefused(
            f"{dossier.id} is a practice copy of {dossier.practice.source_id} ({PRACTICE_MARK}): "
            f"it cannot {what}; use {dossier.practice.source_id} for the record"
        )


def practice_line(practice: PracticeCopy) -> str:
    """One line for lists, banners and JSON: whose copy, and how far its decision was moved back."""
    return (f"{PRACTICE_MARK}: a copy of {practice.source_id} v{practice.source_version} made "
            f"{practice.made_at:%Y-%m-%d}, its decision dated {practice.days_back} days earlier")
