"""The record's hash chain: each stored version and audit event names the hash of the one before.

Why a chain on top of the content hashes: a version's ``hash`` covers its content, and its
``parent_hash`` names the previous version's content, but nothing covered who saved it, when, with
which note, or the audit log at all, and nothing recomputed a stored hash after the row was written.
Here every row gets a ``row_hash``: the SHA-256 of its own fields (content hash, author, how the
author was established, time, note) and of ``prev_row_hash``, the previous row's ``row_hash``.
Versions chain per dossier in version order; audit events chain per dossier in log order (events of
no dossier form their own chain). Changing, removing or reordering one stored row breaks its own
hash or the next row's link, and ``verify_chain`` names the first such break.

Rows saved before the chain existed (databases from earlier releases) have no ``row_hash``. They are
not back-filled: sealing them now would vouch for whatever they hold today. They are counted as
*legacy*: their content is still checked against their content hash and their parent links, and the
chain starts at the first row that has a row hash (its link names the last legacy row's content hash
for a version, or the last legacy event's sequence number for an event). A row saved after the chain
began (the time the store recorded for the migration that added it) cannot be legacy: one without a
row hash is a seal removed, not an old row, so nulling every ``row_hash`` does not pass as "predates".

What the chain does not do: it is unkeyed, so someone who can write the database and recompute every
later hash can rewrite history consistently, and removing the newest rows leaves a shorter chain that
holds. The keyed anchor (``chain_anchor.py``) seals each dossier's length and newest rows against both;
the head hash kept elsewhere (a PDF, an export) shows a consistent rollback of the whole database.
Sign-offs are keyed (``governance.identity.keys``).
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

VERSION_TAG = "medassure-version-v1"
EVENT_TAG = "medassure-audit-v1"


def _digest(parts: list[Any]) -> str:
    text = json.dumps(parts, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _time(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def content_digest(content: str) -> str:
    """SHA-256 of a stored content text (what a version's ``hash`` must equal)."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def canonical_detail(detail: str | dict | None) -> str:
    """An audit detail as sorted-key JSON, so the stored text's formatting does not matter."""
    value = json.loads(detail) if isinstance(detail, str) else (detail or {})
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def version_row_hash(dossier_id: str, version: int, content_hash: str, parent_hash: str | None,
                     author: str, auth: str | None, created_at: datetime, note: str | None,
                     prev_row_hash: str | None) -> str:
    """The chained hash of one version row."""
    return _digest([VERSION_TAG, dossier_id, version, content_hash, parent_hash, author, auth or "",
                    _time(created_at), note or "", prev_row_hash])


def event_row_hash(logged_at: datetime, actor: str, auth: str | None, dossier_id: str | None, action: str,
                   detail: str | dict | None, prev_row_hash: str | None) -> str:
    """The chained hash of one audit event."""
    return _digest([EVENT_TAG, _time(logged_at), actor, auth or "", dossier_id, action,
                    canonical_detail(detail), prev_row_hash])


def version_link(row_hash: str | None, content_hash: str) -> str:
    """What the next version's ``prev_row_hash`` must be, given this version row."""
    return row_hash or f"legacy:{content_hash}"


def event_link(row_hash: str | None, seq: int) -> str:
    """What the next event's ``prev_row_hash`` must be, given this event row."""
    return row_hash or f"legacy:{seq}"


class ChainBreak(BaseModel):
    """One link of the record that does not hold."""

    model_config = ConfigDict(frozen=True)

    kind: str
    """``version``, ``event``, ``anchor`` (the keyed seal over the record's length) or ``seal`` (data the
    record reports, sealed: feed rows, audit verdicts, a review queue's rows)."""
    version: int | None = None
    """The version concerned (for a version, or an event recording a save)."""
    seq: int | None = None
    """The audit event's position in the log (for an event)."""
    problem: str
    """What does not hold, in words."""


class ChainReport(BaseModel):
    """The result of checking one dossier's chain from its first version to its head."""

    model_config = ConfigDict(frozen=True)

    dossier_id: str
    """The dossier checked."""
    ok: bool
    """Every link holds."""
    versions: int
    """Versions checked."""
    events: int
    """Audit events of this dossier checked."""
    legacy_versions: int
    """Versions saved before the chain existed (content hash and parent link checked only)."""
    legacy_events: int
    """Audit events written before the chain existed."""
    head_version: int | None
    """The newest version number."""
    head_hash: str | None
    """The newest version's content hash."""
    head_row_hash: str | None
    """The newest version's chained row hash (keep it elsewhere to detect a consistent rewrite)."""
    first_break: ChainBreak | None
    """The first link that fails (versions first, then events), None when all hold."""
    breaks: list[ChainBreak]
    """Every failing link found."""
    unsealed: list[str] = []
    """Data the record reports that was written before sealing began (not checked), one line each."""

    @property
    def summary(self) -> str:
        """One line for the History page, the PDF and the CLI."""
        if self.ok:
            legacy = (f" ({self.legacy_versions} older versions and {self.legacy_events} events predate the "
                      "chain: content hashes checked)") if self.legacy_versions or self.legacy_events else ""
            old = (f" {len(self.unsealed)} record(s) not sealed (written before sealing)."
                   if self.unsealed else "")
            return f"Record chain verified: {self.versions} versions, {self.events} events{legacy}.{old}"
        b = self.first_break
        where = (f"version {b.version}" if b.kind == "version" else "its anchor" if b.kind == "anchor"
                 else "sealed data" if b.kind == "seal" else f"audit event {b.seq}")
        more = f" ({len(self.breaks) - 1} further problem(s))" if len(self.breaks) > 1 else ""
        return f"Record chain BROKEN at {where}: {b.problem}{more}."


def _after(at: datetime | None, since: datetime | None) -> bool:
    if at is None or since is None:
        return False
    def utc(t: datetime) -> datetime:  # a backend that drops the zone stores UTC
        return t.replace(tzinfo=UTC) if t.tzinfo is None else t
    return utc(at) >= utc(since)


def _unsealed(at: datetime | None, since: datetime | None) -> str:
    return (f"it has no row hash although it was written after the chain began ({since:%Y-%m-%d %H:%M} UTC): "
            "its seal was removed") if _after(at, since) else ""


def check_versions(dossier_id: str, rows: list[dict], sealed_since: datetime | None = None
                   ) -> tuple[list[ChainBreak], int]:
    """Breaks among a dossier's version rows (oldest first) and how many rows are legacy.

    ``sealed_since``: when the store began sealing rows; a row written since then must have a row hash.
    """
    breaks: list[ChainBreak] = []
    legacy = 0
    prev: dict | None = None
    chained = False
    for expected, row in enumerate(rows, start=1):
        n = row["version"]

        def bad(problem: str, n: int = n) -> None:
            breaks.append(ChainBreak(kind="version", version=n, problem=problem))

        if n != expected:
            bad(f"version {expected} is missing (the next stored version is {n})")
        if content_digest(row["content"]) != row["hash"]:
            bad("its stored content does not match its hash: the content was changed after it was saved")
        if row["parent_hash"] != (prev["hash"] if prev else None):
            bad(f"its parent hash does not name version {n - 1}'s content" if prev else
                "the first version names a parent")
        if row["row_hash"] is None:
            legacy += 1
            if chained:
                bad("it has no row hash although earlier versions are chained")
            elif unsealed := _unsealed(row["created_at"], sealed_since):
                bad(unsealed)
        else:
            chained = True
            link = version_link(prev["row_hash"], prev["hash"]) if prev else None
            if row["prev_row_hash"] != link:
                bad(f"its link does not name version {n - 1}'s row hash" if prev else
                    "the first version links to a predecessor")
            again = version_row_hash(dossier_id, n, row["hash"], row["parent_hash"], row["author"],
                                     row["auth"], row["created_at"], row["note"], row["prev_row_hash"])
            if again != row["row_hash"]:
                bad("its author, time, note or hash fields were changed after it was saved")
        prev = row
    return breaks, legacy


def check_events(rows: list[dict], versions: list[dict], sealed_since: datetime | None = None
                 ) -> tuple[list[ChainBreak], int]:
    """Breaks among a dossier's audit events (log order), cross-checked with its versions."""
    breaks: list[ChainBreak] = []
    legacy = 0
    prev: dict | None = None
    chained = False
    by_number = {v["version"]: v for v in versions}
    recorded: set[int] = set()
    for row in rows:
        seq = row["seq"]

        def bad(problem: str, seq: int = seq, version: int | None = None) -> None:
            breaks.append(ChainBreak(kind="event", seq=seq, version=version, problem=problem))

        if row["row_hash"] is None:
            legacy += 1
            if chained:
                bad("it has no row hash although earlier events are chained")
            elif unsealed := _unsealed(row["logged_at"], sealed_since):
                bad(unsealed)
        else:
            chained = True
            link = event_link(prev["row_hash"], prev["seq"]) if prev else None
            if row["prev_row_hash"] != link:
                bad("its link does not name the previous event: an event was removed or reordered")
            again = event_row_hash(row["logged_at"], row["actor"], row["auth"], row["dossier_id"],
                                   row["action"], row["detail"], row["prev_row_hash"])
            if again != row["row_hash"]:
                bad("its actor, time, action or detail were changed after it was written")
        if row["action"] in ("create", "save"):
            detail = json.loads(row["detail"]) if isinstance(row["detail"], str) else row["detail"] or {}
            number = detail.get("version")
            version = by_number.get(number)
            if version is None:
                bad(f"it records version {number}, which is no longer stored", version=number)
            elif detail.get("hash") != version["hash"]:
                bad(f"it records a different hash for version {number} than the one stored", version=number)
            else:
                recorded.add(number)
        prev = row
    for number, v in by_number.items():
        if v["row_hash"] is not None and number not in recorded:
            breaks.append(ChainBreak(kind="event", version=number,
                                     problem=f"no audit event records the save of version {number}"))
    return breaks, legacy


def verify_rows(dossier_id: str, versions: list[dict], events: list[dict],
                sealed_since: datetime | None = None, *, anchor_breaks: list[ChainBreak] | None = None,
                unsealed: list[str] | None = None) -> ChainReport:
    """Check stored version rows and audit rows of one dossier (as ``Store.chain_rows`` returns them).

    ``sealed_since`` is when the store began sealing rows (``Store.chain_started_at``), None if unknown.
    ``anchor_breaks`` are what the check of the dossier's keyed anchor found
    (``chain_anchor.anchor_breaks``: rows removed from the end) and by the record checks (seals over
    feed rows, verdicts and queues), listed after the chain's own; ``unsealed`` notes what predates sealing.
    """
    version_breaks, legacy_versions = check_versions(dossier_id, versions, sealed_since)
    event_breaks, legacy_events = check_events(events, versions, sealed_since)
    breaks = version_breaks + event_breaks + list(anchor_breaks or [])
    head = versions[-1] if versions else None
    return ChainReport(
        dossier_id=dossier_id, ok=not breaks, versions=len(versions), events=len(events),
        legacy_versions=legacy_versions, legacy_events=legacy_events,
        head_version=head["version"] if head else None, head_hash=head["hash"] if head else None,
        head_row_hash=head["row_hash"] if head else None,
        first_break=breaks[0] if breaks else None, breaks=breaks, unsealed=list(unsealed or []))
