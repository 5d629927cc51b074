"""The record's anchor: a keyed seal over each dossier's length and newest rows.

Why an anchor on top of the chain: the hash chain (``chain.py``) finds a row changed, removed or
inserted *before* the newest one, because the next row's link no longer holds. Removing the newest
version together with the audit event recording its save leaves a shorter chain in which every link
holds, so ``verify`` passed it. The anchor closes that gap: one row per dossier in ``chain_anchors``,
rewritten in the same transaction as every version or audit event of that dossier, holding how many
versions and events the dossier has, the link of its newest version and of its newest event, and an
HMAC-SHA256 over those under the *record key*. Removing rows now disagrees with the anchor's counts;
rewriting the anchor to agree needs the key; deleting the anchor is itself a finding, because every
dossier has one from the moment the store began anchoring (dossiers that existed then are anchored
when the migration that adds the table is applied).

The record key is ``$MEDASSURE_RECORD_KEY`` when set (a shared deployment sets it from its secret
store, the same value for every app process), otherwise ``$MEDASSURE_HOME/record.key``, created 0600 on
the first write. It is not the signing key: a sign-off and a seal fail for different reasons, and a
site may rotate one without the other. Its ``key_id`` is stored with the seal, so "sealed under another
key" (a restored backup without its key file) reads differently from "altered".

What the anchor does not do: someone holding the record key, or restoring an older copy of the whole
database (anchor included), can still present a consistent earlier record; the head hash kept outside
(a signed PDF, an export) is what shows that. See docs/known-limits.md.
"""

from __future__ import annotations

import hashlib
import hmac
import json

from governance.dossier.chain import ChainBreak, event_link, version_link
from governance.dossier.key_files import key_id, read_or_create_key
from governance.dossier.store_errors import StoreError

ANCHOR_TAG = "medassure-anchor-v1"


class RecordKeyError(StoreError):
    """The record key is missing, empty, too short or cannot be written; nothing is saved or sealed."""


def record_key() -> bytes:
    """The key that seals each dossier's anchor: the environment's, else ``$MEDASSURE_HOME/record.key``.

    Raises:
        RecordKeyError: the key is shorter than 16 bytes, or its file cannot be read or written.
    """
    from governance.dossier.store_opening import default_home

    return read_or_create_key("MEDASSURE_RECORD_KEY", default_home() / "record.key", "record key",
                              RecordKeyError)


def head_links(versions: list[dict], events: list[dict]) -> tuple[str | None, str | None]:
    """The links of the newest version and the newest event (rows oldest first), None where there is none."""
    head = version_link(versions[-1]["row_hash"], versions[-1]["hash"]) if versions else None
    last = event_link(events[-1]["row_hash"], events[-1]["seq"]) if events else None
    return head, last


def anchor_mac(key: bytes, dossier_id: str, versions: int, head_link: str | None, events: int,
               last_event_link: str | None) -> str:
    """HMAC-SHA256 under ``key`` over what the anchor states."""
    text = json.dumps([ANCHOR_TAG, dossier_id, versions, head_link, events, last_event_link],
                      separators=(",", ":"), ensure_ascii=False)
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def anchor_breaks(dossier_id: str, anchor: dict | None, versions: list[dict], events: list[dict],
                  key: bytes) -> list[ChainBreak]:
    """What does not hold between the stored rows of a dossier and its anchor (empty when all holds).

    ``anchor`` is the stored ``chain_anchors`` row as a dict, or None when there is none.
    """
    def bad(problem: str) -> list[ChainBreak]:
        return [ChainBreak(kind="anchor", problem=problem)]

    if anchor is None:
        return bad("the record has no anchor sealing its length: it was deleted, so rows may have been "
                   "removed from the end with it")
    if anchor["key_id"] != key_id(key):
        return bad(f"its anchor was sealed with another record key (key id {anchor['key_id']}; this "
                   f"deployment's is {key_id(key)}): set MEDASSURE_RECORD_KEY to that key, or restore its "
                   "record.key, to check it")
    expected = anchor_mac(key, dossier_id, anchor["versions"], anchor["head_link"], anchor["events"],
                          anchor["event_link"])
    if not hmac.compare_digest(expected, anchor["mac"]):
        return bad("its anchor was altered outside MedAssure (its seal does not match what it states)")
    head, last = head_links(versions, events)
    found: list[ChainBreak] = []
    if anchor["versions"] != len(versions) or anchor["head_link"] != head:
        found += bad(f"the anchor seals {anchor['versions']} versions and this newest one, but "
                     f"{len(versions)} are stored with another newest: versions were removed or added "
                     "outside MedAssure")
    if anchor["events"] != len(events) or anchor["event_link"] != last:
        found += bad(f"the anchor seals {anchor['events']} audit events, but {len(events)} are stored with "
                     "another newest: events were removed or added outside MedAssure")
    return found
