"""Monitoring after go-live in the operations: import a feed, compute the status, record what was done.

Why here: each operation takes the store. An import reads the file into the feed table (validated whole
in SQL, nothing stored on a bad row: ``governance.monitoring.store``) and appends its record (file
hash, row counts) plus any new signal to the dossier, in one authorized update; the status is a pure
function of the dossier and the feed's aggregates (``governance.monitoring.status``). Every write passes
the one authorization check (``authorize``): an editor imports; events, acknowledgements, resolutions and
the go-live settings are in ``monitoring_events`` (re-exported here).
"""

from __future__ import annotations

import contextlib
import hashlib
import uuid
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from evaluator.inputs.csv_cells import write_rows
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require, update_as
from governance.monitoring.identity import approved_candidate
from governance.monitoring.models import MonitoringStatus
from governance.monitoring.operations.common import (
    FeedSealBroken,
    MonitoringError,
    new_signal_records,
    now_or,
    served_names,
    watched_candidate,
)
from governance.monitoring.operations.events import (
    acknowledge_signal,
    record_event,
    record_go_live,
    resolve_signal,
)
from governance.monitoring.operations.sources import otel_to_feed
from governance.monitoring.procured import procured
from governance.monitoring.records import (
    LEVELS,
    FeedImport,
    Level,
    Source,
)
from governance.monitoring.seals import feed_seal_breaks
from governance.monitoring.status import compute_status
from governance.monitoring.store import ImportCounts
from governance.monitoring.store_feed_conflicts import FeedConflict
from governance.monitoring.store_feed_import import FeedError

__all__ = [
    "DossierMonitoring",
    "ImportResult",
    "MaskedExample",
    "MonitoringError",
    "acknowledge_signal",
    "dossier_monitoring",
    "export_blinded_feed",
    "import_feed",
    "masked_examples",
    "monitoring_status",
    "record_event",
    "record_go_live",
    "resolve_signal",
]


class ImportResult(BaseModel):
    """What an import did: its record, the dossier version that holds it, and the status after it."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    record: FeedImport
    """The import's record (file hash, row counts)."""
    version: int
    """Dossier version holding the record (unchanged when the file added nothing new)."""
    status: MonitoringStatus
    """The status after the import."""
    new_signals: list[str]
    """Ids of signals recorded by this import."""


def _monitored(store: DossierStorage, dossier: Dossier) -> list[str]:
    """Names that already hold feed rows or monitoring records (a read still shows them)."""
    recorded = {getattr(e, "candidate", None) for e in dossier.monitoring} - {None}
    return [*store.monitoring.candidates(dossier.id), *sorted(recorded)]


def monitoring_status(
    store: DossierStorage, dossier_id: str, *, candidate: str | None = None, now: datetime | None = None,
    content: bool = True,
) -> MonitoringStatus:
    """The dossier's monitoring status for its approved candidate (or ``candidate``), from the stored feed.

    ``content``: recompute each import's digest over its stored rows (rows rewritten in place are found),
    not only its count. A glance (the sidebar, the dossier list, the Decision page's line) passes False:
    the digests cost 2-3 s per 1M rows on DuckDB and more on PostgreSQL, on every rerun; the Monitoring
    page, `monitor status`, the monthly report and `verify` check them.

    Raises:
        DossierNotFound: no such dossier.
        MonitoringError: no decided candidate and none named, or the stored feed no longer matches its seal.
    """
    dossier = store.load(dossier_id).dossier
    name = watched_candidate(dossier, candidate, monitored=_monitored(store, dossier))
    facts = procured(dossier, name)  # what procurement holds about it, looked up once (``procured``)
    records = {"monitoring": [e.model_dump(mode="json") for e in dossier.monitoring]}
    # The digests too, not only the counts: a count check let rows rewritten in place (served_model across
    # the feed, an outcome, a tag) through, and the status was computed from them without a word. The
    # digests cost about what the status's own aggregates do (docs/performance.md); the import, which has
    # just sealed its rows, computes its status without this check.
    # On PostgreSQL the aggregates are read beside the check, on connections of their own (the two use the
    # server's cores together: docs/performance.md); nothing is computed from them unless the check passes.
    aggregates = store.monitoring.aggregates_ahead(dossier_id, name)
    broken, _ = feed_seal_breaks(store, dossier_id, records, name, digests=content)
    if broken:
        with contextlib.suppress(Exception):
            aggregates()  # waited for, and dropped
        more = f" ({len(broken) - 1} further finding(s))" if len(broken) > 1 else ""
        raise FeedSealBroken(
            f"the stored feed of {name} no longer matches its seal, so no status is computed from it: "
            f"{broken[0].problem}{more}. `medassure verify {dossier_id}` names every change")
    return compute_status(dossier, aggregates(), now=now_or(now), candidate=name,
                          served=served_names(store, dossier, name), facts=facts)


class DossierMonitoring(BaseModel):
    """The dossier's status (the worst of its candidates') and each watched candidate's own."""

    model_config = ConfigDict(frozen=True)

    dossier_id: str
    """Dossier."""
    status: Level
    """The worst candidate status."""
    candidates: dict[str, MonitoringStatus]
    """Candidate → its status: the approved one first, then every candidate with feed rows or records."""


def dossier_monitoring(
    store: DossierStorage, dossier_id: str, *, now: datetime | None = None, content: bool = True
) -> DossierMonitoring:
    """Every watched candidate's status, and the dossier's (the highest level among them).

    Raises:
        DossierNotFound: no such dossier.
        MonitoringError: no approved candidate and no feed or record for any.
    """
    dossier = store.load(dossier_id).dossier
    approved = approved_candidate(dossier)
    recorded = {getattr(e, "candidate", None) for e in dossier.monitoring} - {None}
    names = [
        n for n in dict.fromkeys([approved, *store.monitoring.candidates(dossier_id), *sorted(recorded)]) if n
    ]
    if not names:
        raise MonitoringError(f"{dossier_id} has no approved candidate and nothing monitored yet")
    at = now_or(now)
    statuses = {n: monitoring_status(store, dossier_id, candidate=n, now=at, content=content) for n in names}
    worst = max((s.status for s in statuses.values()), key=LEVELS.index)
    return DossierMonitoring(dossier_id=dossier_id, status=worst, candidates=statuses)  # type: ignore[arg-type]


class MaskedExample(BaseModel):
    """One output's free text with identifiers masked by the PHI detector, for the report's examples."""

    model_config = ConfigDict(frozen=True)

    row_key: str
    """The feed row (its id, or ``h:`` and the row's hash)."""
    text: str
    """The text with each identifier the detector found replaced by its kind, e.g. ``[NAME]``."""
    masked: dict[str, int]
    """How many identifiers of each kind were masked."""


def masked_examples(
    store: DossierStorage, dossier_id: str, *, candidate: str | None = None, limit: int = 5
) -> list[MaskedExample]:
    """Free-text outputs of the feed (materially corrected first), masked by the PHI detector.

    The text never leaves the store unmasked through here; it is never sent anywhere.
    """
    from evaluator.phi.detect import redact_text  # the detector loads its name lists on first use

    dossier = store.load(dossier_id).dossier
    name = watched_candidate(dossier, candidate, monitored=_monitored(store, dossier))
    out = []
    for key, text in store.monitoring.text_examples(dossier_id, name, max(1, limit)):
        masked, counts = redact_text(text)
        out.append(MaskedExample(row_key=key, text=masked, masked=dict(counts)))
    return out


def _imported_before(dossier: Dossier, candidate: str, source: Source, digest: str) -> FeedImport | None:
    """The first recorded import of the same file (SHA-256) for the candidate, in the same format."""
    return next(
        (
            e
            for e in dossier.monitoring
            if isinstance(e, FeedImport)
            and (e.file_sha256, e.candidate, e.source) == (digest, candidate, source)
        ),
        None,
    )


def _conflict_words(dossier: Dossier, file_name: str, exc: FeedConflict) -> str:
    """A row re-sent under a stored id with other content, in words naming the import that stored the id."""
    stored = next((e for e in dossier.monitoring if isinstance(e, FeedImport) and e.id == exc.import_id),
                  None)
    by = (f"the feed import of {stored.at.date().isoformat()} ({stored.file_name}, {stored.id})"
          if stored is not None else f"import {exc.import_id} (not in the dossier's record)")
    where = f"row {exc.row}" if exc.row is not None else "a row"
    return (f"{file_name}: {where} has the id {exc.row_key!r} of a different row already stored by {by}: "
            "one id per output (send a changed output under a new id); nothing was imported")


def import_feed(
    store: DossierStorage,
    dossier_id: str,
    path: str | Path,
    *,
    candidate: str | None = None,
    source: Source = "feed",
    actor: Actor,
    now: datetime | None = None,
) -> ImportResult:
    """Import a feed file (CSV, JSONL or Parquet; or OTLP JSON spans, or a LiteLLM spend-log export).

    The file is taken whole or not at all: a bad row raises ``FeedError`` naming the row and the field,
    and nothing is stored. Rows already stored (same ``id``, else the same row) add nothing; a row under a
    stored id with other content (values as cleaned, or tags) refuses the file, naming the import that
    stored the id (``store_feed_conflicts``). The import's
    record and any new signal are appended to the dossier (``Dossier.monitoring``); the same file again
    (its SHA-256 already recorded for the candidate) is recognised before its rows are read, and, raising
    no signal, adds no version either.

    Raises:
        FeedError: a bad file or row (the message names the row and the field).
        PermissionDenied: the identity is not an editor.
        MonitoringError: no approved candidate and none named.
    """
    require(actor.identity, "editor", "import a monitoring feed", dossier_id)
    file = Path(path)
    if not file.is_file():
        raise MonitoringError(f"{path}: no such file")
    at = now_or(now)
    dossier = store.load(dossier_id).dossier
    name = watched_candidate(dossier, candidate)
    with file.open("rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    import_id = "I-" + uuid.uuid4().hex[:10]
    served = served_names(store, dossier, name)
    facts = procured(dossier, name)  # the status's inputs from procurement, looked up once
    earlier = _imported_before(dossier, name, source, digest)
    try:
        if earlier is not None:
            # the same bytes were imported before: every row is stored, so the rows are not read again
            counts = ImportCounts(
                earlier.rows_in_file, 0, earlier.first_timestamp, earlier.last_timestamp, 0, "none"
            )
        elif source == "otel":
            with otel_to_feed(file) as flat:
                counts = store.monitoring.import_file(
                    dossier_id, name, flat, source="feed", import_id=import_id, now=at
                )
        else:
            counts = store.monitoring.import_file(
                dossier_id, name, file, source=source, import_id=import_id, now=at
            )
    except FeedConflict as exc:
        raise FeedError(_conflict_words(dossier, file.name, exc)) from None
    record = FeedImport(
        id=import_id,
        at=at,
        by=actor.name,
        auth=actor.auth_label,
        candidate=name,
        source=source,
        file_name=file.name,
        file_sha256=digest,
        rows_in_file=counts.rows_in_file,
        rows_added=counts.rows_added,
        rows_already_stored=counts.rows_in_file - counts.rows_added,
        first_timestamp=counts.first_timestamp,
        last_timestamp=counts.last_timestamp,
        sealed_rows=counts.sealed_rows,
        sealed_digest=counts.sealed_digest,
    )
    aggregates = store.monitoring.aggregates(dossier_id, name)
    new: list[str] = []
    computed: list[MonitoringStatus] = []

    def change(current: Dossier) -> Dossier:
        # The status is computed once, on the latest version, and is also the status after the append: the
        # append adds this import's record and the signals of this very status (with its deadlines), and
        # nothing else the status reads (plan, go-live settings, events, actions) changes.
        status = compute_status(current, aggregates, now=at, candidate=name, served=served, facts=facts)
        computed[:] = [status]
        signals = new_signal_records(current, status.signals, at)
        new[:] = [s.id for s in signals]
        seen = {e.file_sha256 for e in current.monitoring if isinstance(e, FeedImport)}
        if record.rows_added == 0 and not signals and record.file_sha256 in seen:
            return current  # the same file again: nothing stored, no new version either
        return current.model_copy(update={"monitoring": [*current.monitoring, record, *signals]})

    version = update_as(
        store,
        actor,
        dossier_id,
        change,
        action="import a monitoring feed",
        note=f"monitoring feed {file.name}: {record.rows_added:,} of {record.rows_in_file:,} rows new",
    )
    return ImportResult(record=record, version=version.version, status=computed[0], new_signals=new)


def export_blinded_feed(
    store: DossierStorage, dossier_id: str, out: str | Path, *, candidate: str | None = None
) -> int:
    """Write the candidate's feed as CSV without reviewer identifiers or free text; the number of rows.

    Row ids stay (events and audits refer to them); a feed's ids carry no patient identifier by the format.

    Raises:
        MonitoringError: no approved candidate and none named.
    """
    dossier = store.load(dossier_id).dossier
    name = watched_candidate(dossier, candidate, monitored=_monitored(store, dossier))
    columns, batches = store.monitoring.blinded_rows(dossier_id, name)
    n = 0
    with Path(out).open("w", newline="", encoding="utf-8") as f:
        # Feed text comes from the vendor's logs (a served_model of '=HYPERLINK(...)' was stored as
        # given): every cell goes through the one CSV writer that neutralises formulas.
        write_rows(f, ["id" if c == "row_key" else c for c in columns], [])
        for chunk in batches:
            n += write_rows(f, None, ([v.isoformat() if isinstance(v, datetime) else v for v in row]
                                      for row in chunk))
    return n


SEAL_BROKEN = "seal_broken"
"""The monitoring state when a candidate's stored feed no longer matches its seal (no status is computed)."""
MONITORING_WORDS = {"in_control": "in control", "review": "review", "pause": "pause", "suspend": "suspend",
                    SEAL_BROKEN: "feed does not match its seal: run verify"}
"""The monitoring state in words, as the sidebar, the Dossiers list and the Decision page say it."""


def monitoring_state(store: DossierStorage, dossier_id: str, *, now: datetime | None = None) -> str | None:
    """The dossier's monitoring state now (``in_control``, ``review``, ``pause`` or ``suspend``: the worst
    watched candidate's; ``seal_broken`` when a candidate's stored feed no longer matches its seal), None
    when nothing is watched (no approved candidate, no feed, no record).

    Shown wherever the dossier's status is (issue 36 item 6): a paused use must look paused. An approved
    use with no production output imported yet and no open signal is not "in control": nothing has been
    watched, so it is None too. A feed whose rows were deleted or inserted behind the app's back (the row
    counts the glance checks) has no status at all, and says so (issue 35: it was None, shown as nothing).
    """
    try:
        watched = dossier_monitoring(store, dossier_id, now=now, content=False)  # a glance: counts only
    except FeedSealBroken:
        return SEAL_BROKEN
    except MonitoringError:
        return None
    if all(s.rows == 0 and all(x.state == "resolved" for x in s.signals)
           for s in watched.candidates.values()):
        return None
    return watched.status
