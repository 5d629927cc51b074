"""Demo step: six months of monitoring after go-live, imported month by month through the real import.

Why month by month, through the operations: the demo should leave the record a real deployment leaves,
one import per monthly warehouse export, each with its file hash, and the signals the ladder raised at
the time of each import, then what the committee did. So each month's rows (``monitoring_feed``,
seeded, DEMO DATA) are written to a temporary CSV and imported with ``import_feed``, dated at the end of
their month; the chair's resolution goes through ``resolve_signal``. What the demo leaves:

- month 4's silent vendor update is a **pause**, left open on purpose: the re-evaluation of that update
  was run offline by the earlier demo step (``governance.demo.reevaluation``), and the page shows what
  to do now (read the addendum, resolve the pause by linking it);
- month 5's creeping correction rate is a CUSUM **review**, acknowledged and then resolved by the chair
  with a note, while the month's own rate never crossed the bar;
- a canary frozen on the decided scenario run, with one seeded run in control (``governance.demo.canary``:
  no model is called; the page says so).
"""

from __future__ import annotations

import csv
import io
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from governance.demo.canary import seed_demo_canary
from governance.demo.monitoring_feed import COLUMNS, demo_feed_rows, demo_months
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.identity.actor import Actor
from governance.identity.identity import demo_identity
from governance.monitoring.operations.feed import acknowledge_signal, import_feed, resolve_signal
from governance.monitoring.records import SignalRecord

CHAIR = "Dr. A. Rivera (chair)"
IMPORTER = "demo"
FILE_STEM = "DEMO-DATA-portal-feed"
RESOLUTION = ("DEMO DATA. Cause found: the portal's new message template (live from the 5th of the month) "
              "put the patient's question below the signature block, and drafts answered the wrong part. The "
              "template was fixed at the end of the month, and the audit share stays doubled for one month.")
ACK_NOTE = "DEMO DATA. Seen at the weekly safety huddle; the nurse lead is pulling the corrected drafts."


def _month_end(month: str) -> datetime:
    start = datetime(int(month[:4]), int(month[5:]), 1, tzinfo=UTC)
    return (start + timedelta(days=32)).replace(day=1)


def _csv(rows: list[dict[str, str]]) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def _signal(dossier: Dossier, kind: str) -> SignalRecord | None:
    found = [e for e in dossier.monitoring if isinstance(e, SignalRecord) and e.signal_kind == kind]
    return found[0] if found else None


def record_demo_monitoring(store: DossierStorage, dossier: Dossier, now: datetime | None = None) -> Dossier:
    """Import the demo's six months and record the chair's resolution of the drift review; returns the
    dossier as stored (the seeding loop's save then adds nothing).

    Does nothing for a dossier without a decision (monitoring starts after go-live).
    """
    if dossier.decision is None:
        return dossier
    now = now or datetime.now(UTC)
    rows = demo_feed_rows(now)
    with tempfile.TemporaryDirectory(prefix="medassure-demo-feed-") as tmp:
        for number, month in enumerate(demo_months(now), start=1):
            path = Path(tmp) / f"{FILE_STEM}-{month}.csv"
            path.write_bytes(_csv([r for r in rows if r["timestamp"].startswith(month)]))
            at = min(_month_end(month) + timedelta(hours=6), now)
            import_feed(store, dossier.id, path, actor=Actor.named(IMPORTER), now=at)
            if number == 5:
                drift = _signal(store.load(dossier.id).dossier, "drift")
                if drift is not None:
                    chair = Actor.of(demo_identity(CHAIR))
                    acknowledge_signal(store, dossier.id, drift.id, actor=chair, note=ACK_NOTE,
                                       now=min(drift.first_seen + timedelta(hours=20), now))
                    resolve_signal(store, dossier.id, drift.id, actor=chair, reason=RESOLUTION,
                                   now=at)
    seed_demo_canary(store, dossier.id, CHAIR, now)
    return store.load(dossier.id).dossier

