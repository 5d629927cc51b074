"""The audit log: who did what and when, append-only and chained per dossier.

Why shaped so: ``audit_log`` rows are only ever inserted. Each row stores the hash of the previous
row of the same dossier (``prev_row_hash``, the store-wide events, whose dossier is NULL, chain
among themselves) and a hash over its own fields (``row_hash``, ``governance/dossier/chain.py``),
so ``verify_chain`` finds a row changed, removed or inserted in the file. A save's ``create`` or
``save`` event records the version, its hash, the note and which fields the save changed; it is
written by ``store_versions`` through ``_append_event`` inside the save's own transaction, so a
version never exists without its event. ``audit`` is the same insert in a transaction of its own,
for events that are not a save (a local scenario imported or redacted). After each event of a dossier,
the same transaction rewrites the dossier's keyed anchor (``chain_anchor``), so the record's length is
sealed too.
"""

from __future__ import annotations

import json

from governance.dossier.chain import event_link, event_row_hash
from governance.dossier.chain_anchor import anchor_mac, head_links, record_key
from governance.dossier.key_files import key_id
from governance.dossier.record import utcnow
from governance.dossier.storage import AuditEvent
from governance.dossier.store_migrations import CHAIN_COLUMNS
from governance.dossier.store_transactions import DossierTransactions


class DossierAudit(DossierTransactions):
    """Appending to and reading the audit log."""

    def _append_event(self, at, actor: str, auth: str | None, dossier_id: str | None, action: str,
                      detail_text: str) -> None:
        """Insert one chained audit row (caller holds the lock, inside a transaction)."""
        prev = self._con.execute(
            "SELECT seq, row_hash FROM audit_log WHERE dossier_id IS NOT DISTINCT FROM ? "
            "ORDER BY seq DESC LIMIT 1", [dossier_id]).fetchone()
        link = event_link(prev[1], prev[0]) if prev else None
        row_hash = event_row_hash(at, actor, auth, dossier_id, action, detail_text, link)
        self._con.execute(
            "INSERT INTO audit_log (logged_at, actor, dossier_id, action, detail, " + CHAIN_COLUMNS + ")"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [at, actor, dossier_id, action, detail_text, auth, link, row_hash],
        )
        if dossier_id is not None:
            self._seal_anchor(dossier_id, at)

    def _seal_anchor(self, dossier_id: str, at) -> None:
        """Rewrite the dossier's anchor over its rows as they stand (caller holds the lock, in a transaction).

        Every version is written with its audit event, so sealing after each event covers both.
        """
        version = self._con.execute(
            "SELECT count(*), max(version) FROM dossier_versions WHERE dossier_id = ?",
            [dossier_id]).fetchone()
        head = self._con.execute(
            "SELECT hash, row_hash FROM dossier_versions WHERE dossier_id = ? AND version = ?",
            [dossier_id, version[1]]).fetchone() if version[1] is not None else None
        count = self._con.execute("SELECT count(*) FROM audit_log WHERE dossier_id = ?",
                                  [dossier_id]).fetchone()
        last = self._con.execute(
            "SELECT seq, row_hash FROM audit_log WHERE dossier_id = ? ORDER BY seq DESC LIMIT 1",
            [dossier_id]).fetchone()
        head_link, last_link = head_links(
            [{"hash": head[0], "row_hash": head[1]}] if head else [],
            [{"seq": last[0], "row_hash": last[1]}] if last else [])
        key = record_key()
        mac = anchor_mac(key, dossier_id, int(version[0]), head_link, int(count[0]), last_link)
        self._con.execute(
            "INSERT INTO chain_anchors (dossier_id, versions, head_link, events, event_link, key_id, mac, "
            "sealed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dossier_id) DO UPDATE SET "
            "versions = excluded.versions, head_link = excluded.head_link, events = excluded.events, "
            "event_link = excluded.event_link, key_id = excluded.key_id, mac = excluded.mac, "
            "sealed_at = excluded.sealed_at",
            [dossier_id, int(version[0]), head_link, int(count[0]), last_link, key_id(key), mac, at])

    def _anchor_all(self) -> int:
        """Seal every dossier that has no anchor yet; run once, when the anchor migration is applied."""
        with self._lock:
            ids = [r[0] for r in self._con.execute(
                "SELECT dossier_id FROM dossier_versions UNION SELECT dossier_id FROM audit_log "
                "WHERE dossier_id IS NOT NULL EXCEPT SELECT dossier_id FROM chain_anchors").fetchall()]
        for dossier_id in sorted(ids):
            with self._transaction(dossier_id):
                self._seal_anchor(dossier_id, utcnow())
        return len(ids)

    def audit(
        self, actor: str, action: str, dossier_id: str | None = None, detail: dict | None = None,
        *, auth: str | None = None,
    ) -> None:
        """Append one audit record, chained to the previous record of the same dossier.

        ``auth`` says how ``actor`` was established (``governance.identity``), e.g. "local, unauthenticated".
        """
        with self._transaction(dossier_id):
            detail_text = json.dumps(detail or {}, default=str)
            self._append_event(utcnow(), actor, auth, dossier_id, action, detail_text)

    def audit_log(self, dossier_id: str | None = None) -> list[AuditEvent]:
        """Audit records, oldest first, optionally for one dossier."""
        sql = "SELECT seq, logged_at, actor, dossier_id, action, detail, auth FROM audit_log"
        params: list = []
        if dossier_id:
            sql += " WHERE dossier_id = ?"
            params.append(dossier_id)
        with self._lock:
            rows = self._con.execute(sql + " ORDER BY seq", params).fetchall()
        return [
            AuditEvent(seq=s, at=at, actor=a, dossier_id=d, action=act, detail=json.loads(det) if det else {},
                       auth=auth)
            for s, at, a, d, act, det, auth in rows
        ]
