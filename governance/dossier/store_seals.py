"""Keyed seals over what the record reports but does not hold: a review queue's rows, its audit verdicts.

Why a table of its own: a feed import's seal (its rows' count and digest) goes into the import's record
in the dossier, which the chain and the anchor already cover. A review queue's items, ratings and events,
and the audit verdicts a closed queue leaves beside the feed, are written without a dossier version (a
rating is not a save of the dossier), so their seal is one row per *subject* here (``queue:<id>``,
``verdicts:<dossier>:<candidate>:<queue>``; a queue's ratings one row each, ``queue-rating:<id>:<n>``),
written in the same transaction as every write of that subject, holding what the subject's rows hash to
and an HMAC-SHA256 under the record key
(``chain_anchor.record_key``). Changing, adding or removing a row disagrees with the seal; rewriting the
seal to agree needs the key; deleting it is a finding for a subject written since sealing began (the
time the store recorded for this table's migration), and "not sealed" for one that predates it.

What it does not do: as the anchor, it cannot tell a whole earlier copy (rows and seal restored together)
from the present; see docs/known-limits.md.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import datetime
from typing import Any

from evaluator.storage.db import apply_migrations
from governance.dossier.chain_anchor import record_key
from governance.dossier.key_files import key_id

SEAL_TAG = "medassure-seal-v1"
MIGRATIONS = [
    """
    CREATE TABLE record_seals (
        subject VARCHAR PRIMARY KEY,
        state VARCHAR NOT NULL,
        key_id VARCHAR NOT NULL,
        mac VARCHAR NOT NULL,
        sealed_at TIMESTAMPTZ NOT NULL
    );
    """,
]


def ensure_seal_table(con: Any) -> None:
    """Create ``record_seals`` on ``con`` once (every component that seals calls this on opening)."""
    apply_migrations(con, "seals", MIGRATIONS)


def row_digest(*parts: Any) -> str:
    """A short SHA-256 (16 hex digits) of one stored row's fields, for a seal's per-row map."""
    text = json.dumps(parts, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def seal_mac(key: bytes, subject: str, state: str) -> str:
    """HMAC-SHA256 under ``key`` over a subject and its state text."""
    text = json.dumps([SEAL_TAG, subject, state], separators=(",", ":"), ensure_ascii=False)
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def write_seal(con: Any, subject: str, state: dict, at: datetime) -> None:
    """Seal ``state`` for ``subject`` (call inside the transaction that wrote the subject's rows)."""
    text = json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    key = record_key()
    con.execute(
        "INSERT INTO record_seals (subject, state, key_id, mac, sealed_at) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (subject) DO UPDATE SET state = excluded.state, key_id = excluded.key_id, "
        "mac = excluded.mac, sealed_at = excluded.sealed_at",
        [subject, text, key_id(key), seal_mac(key, subject, text), at])


def read_seal(con: Any, subject: str) -> tuple[dict | None, str | None]:
    """The sealed state of ``subject`` and None, or None and what is wrong with its seal.

    A missing seal returns (None, None): whether that is a finding depends on when the subject was written
    (``sealing_began``).
    """
    row = con.execute("SELECT state, key_id, mac FROM record_seals WHERE subject = ?", [subject]).fetchone()
    if row is None:
        return None, None
    state, kid, mac = row
    key = record_key()
    if kid != key_id(key):
        return None, (f"its seal was made with another record key (key id {kid}; this deployment's is "
                      f"{key_id(key)}): set MEDASSURE_RECORD_KEY to that key to check it")
    if not hmac.compare_digest(seal_mac(key, subject, state), mac):
        return None, "its seal was altered outside MedAssure (the MAC does not match what it states)"
    return json.loads(state), None


def read_seals(con: Any, prefix: str) -> tuple[dict[str, dict], list[str]]:
    """Every sealed subject whose name starts with ``prefix``, in one read: the states of those whose MAC
    holds, by subject, and the subjects whose seal does not (another key, or altered)."""
    rows = con.execute("SELECT subject, state, key_id, mac FROM record_seals WHERE starts_with(subject, ?)",
                       [prefix]).fetchall()
    key = record_key()
    kid = key_id(key)
    good: dict[str, dict] = {}
    bad: list[str] = []
    for subject, state, k, mac in rows:
        if k == kid and hmac.compare_digest(seal_mac(key, subject, state), mac):
            good[subject] = json.loads(state)
        else:
            bad.append(subject)
    return good, sorted(bad)


def sealing_began(con: Any) -> datetime | None:
    """When this store began sealing queues and verdicts (``record_seals`` was created), or None."""
    row = con.execute("SELECT applied_at FROM schema_migrations WHERE component = 'seals' AND number = 1"
                      ).fetchone()
    return row[0] if row else None


def seal_subjects(con: Any, prefix: str) -> list[str]:
    """The sealed subjects whose name starts with ``prefix`` (sorted)."""
    rows = con.execute("SELECT subject FROM record_seals WHERE starts_with(subject, ?) ORDER BY subject",
                       [prefix]).fetchall()
    return [r[0] for r in rows]
