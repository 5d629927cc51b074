"""What the feed's seals find: rows of an import removed, added or altered; audit verdicts changed.

Why here: the seals are written by the feed store (``store_seals``) and held by the import's record in
the dossier (``FeedImport.sealed_rows`` / ``sealed_digest``) and by the floor's keyed ``record_seals`` for
a queue's verdicts; this compares them with what is stored now. ``feed_seal_check`` is the record check
``verify`` runs (registered in ``governance/__init__.py``); ``feed_seal_breaks`` is what ``monitor status``
refuses on. Records are read as the head version's content (dicts), so ``verify`` needs no model load.
"""

from __future__ import annotations

from typing import Any

from governance.dossier.chain import ChainBreak

_FEW = 3


def _imports(content: dict) -> list[dict]:
    return [
        e for e in content.get("monitoring") or [] if isinstance(e, dict) and e.get("kind") == "feed_import"
    ]


def _label(record: dict) -> str:
    return f"feed import of {str(record.get('at', ''))[:10]} ({record.get('file_name')}, {record.get('id')})"


def _named(keys: list[str]) -> str:
    shown = ", ".join(keys[:_FEW]) + (f" and {len(keys) - _FEW} more" if len(keys) > _FEW else "")
    return f"{len(keys)} ({shown})"


def feed_seal_breaks(
    store: Any, dossier_id: str, content: dict, candidate: str | None = None, *, digests: bool = True
) -> tuple[list[ChainBreak], list[str]]:
    """Breaks between the feed's seals and its stored rows (of one candidate when named), and notes of
    imports and verdicts that predate sealing.

    ``digests=False`` compares each import's row count only (one GROUP BY: rows removed or inserted);
    ``verify`` and ``monitor status`` recompute the digests too, which finds rows rewritten in place
    (3.5-5 s per million rows on a loaded 2-core machine, against 0.01 s for the counts).
    """
    breaks: list[ChainBreak] = []
    notes: list[str] = []

    def bad(problem: str) -> None:
        breaks.append(ChainBreak(kind="seal", problem=problem))

    stored = (store.monitoring.import_digests if digests else store.monitoring.import_counts)(dossier_id)
    records = [r for r in _imports(content) if candidate is None or r.get("candidate") == candidate]
    for record in records:
        label = _label(record)
        if record.get("sealed_digest") is None:
            notes.append(f"{label}: not sealed (imported before sealing)")
            continue
        _, n, digest = stored.get(record["id"], (None, 0, "none"))
        if n != record.get("sealed_rows"):
            bad(f"{label}: {record['sealed_rows']:,} rows sealed, {n:,} stored")
        elif digest is not None and digest != record["sealed_digest"]:
            bad(
                f"{label}: {n:,} rows stored as sealed, but rows or their tags were altered outside MedAssure"
            )
    known = {r.get("id") for r in _imports(content)}
    for import_id, (who, n, _) in sorted(stored.items()):
        if import_id not in known and (candidate is None or who == candidate):
            bad(
                f"{n:,} feed rows of {who} belong to no import the dossier records (id {import_id!r}): "
                "inserted outside MedAssure, or an import whose record was never saved"
            )
    began = store.monitoring.sealing_began()
    found = store.monitoring.verdict_rows(dossier_id)
    subjects = store.monitoring.seal_subjects(f"verdicts:{dossier_id}:")
    pairs = set(found) | {tuple(s.split(":", 2)[2].rsplit(":", 1)) for s in subjects}
    for who, queue_id in sorted(pairs):
        if candidate is not None and who != candidate:
            continue
        label = f"audit verdicts of queue {queue_id} on {who}"
        rows = found.get((who, queue_id), {})
        state, problem = store.monitoring.seal(f"verdicts:{dossier_id}:{who}:{queue_id}")
        if problem:
            bad(f"{label}: {problem}")
        elif state is None:
            queue = store.reviews.get(queue_id)
            if queue is not None and began is not None and _before(queue.created_at, began) \
                    and not _logged_after(store, dossier_id, queue_id, began):
                notes.append(f"{label}: not sealed (recorded before sealing)")
            else:
                bad(
                    f"{label}: {len(rows):,} stored with no seal (inserted outside MedAssure, or the seal "
                    "was removed)"
                )
        else:
            sealed: dict[str, str] = state.get("rows", {})
            added = sorted(set(rows) - set(sealed))
            removed = sorted(set(sealed) - set(rows))
            altered = sorted(k for k in set(rows) & set(sealed) if rows[k] != sealed[k])
            for what, keys in (
                ("added outside MedAssure", added),
                ("removed", removed),
                ("altered", altered),
            ):
                if keys:
                    bad(f"{label}: {_named(keys)} {what}")
    return breaks, notes


def _logged_after(store: Any, dossier_id: str, queue_id: str, began: Any) -> bool:
    """Whether the chained audit log records the queue's creation or close at or after sealing began (the
    queue row's ``created_at`` can be edited, and a new store's first queue is stamped just before the seal
    table exists)."""
    if not hasattr(store, "audit_log"):
        return False
    return any(
        e.action in ("review queue created", "review queue closed") and e.detail.get("queue_id") == queue_id
        and not _before(e.at, began)
        for e in store.audit_log(dossier_id)
    )


def _before(a: Any, b: Any) -> bool:
    from datetime import UTC

    def utc(t: Any) -> Any:
        return t.replace(tzinfo=UTC) if getattr(t, "tzinfo", 1) is None else t

    return utc(a) < utc(b)


def feed_seal_check(store: Any, dossier_id: str, content: dict) -> tuple[list[ChainBreak], list[str]]:
    """The record check ``verify`` runs: every candidate's feed and verdicts against their seals."""
    return feed_seal_breaks(store, dossier_id, content)
