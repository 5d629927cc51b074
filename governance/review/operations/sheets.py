"""Offline ratings: a blinded sheet per rater, its import (all or nothing), and the export for ``agreement``.

Why strict: many hospitals collect ratings in REDCap or on paper, so a sheet leaves the app and comes
back. What comes back must be exactly what left, plus the ratings: the same queue, the same rater, the
same item ids with the same text, the same columns (an extra column, say ``sentinel``, is refused as an
attempt to label items), each item once, each value inside the rubric. Any fault refuses the whole
file with the row named, and nothing is stored. A row already rated with the same values is counted
as already there (re-importing a sheet changes nothing); a changed value is refused, because ratings
are kept as first given. The ratings belong to the sheet's rater; who imported them is recorded.

PHI: items may hold patient data, so a sheet's and an export's first line says so (a ``#`` line, which
``evaluator.agreement.ratings.read_ratings`` passes over).
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

from pydantic import BaseModel

from evaluator.inputs.csv_cells import safe_cell, write_rows
from evaluator.inputs.text_controls import control_problem
from governance.dossier.storage import DossierStorage
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require
from governance.review.measures import clinician_frame
from governance.review.operations.queues import (
    ReviewError,
    _check_writable,
    get_queue,
    is_closed,
    settle,
)
from governance.review.records import AUDIT_VERDICTS, Rating, ReviewQueue

PHI_LINE = (
    "# MAY HOLD PATIENT DATA: keep this file inside the hospital; delete it once imported. "
    "MedAssure review queue {queue_id}{who}."
)
ID_COLUMNS = ["queue_id", "rater", "item_id", "position", "context", "question", "output"]
SKIP = "skip_reason"


def sheet_columns(queue: ReviewQueue) -> list[str]:
    """The header of a sheet for ``queue``: ids and text, one column per criterion (or ``verdict``), skip."""
    return [*ID_COLUMNS, *queue.rubric.criteria, SKIP]


def sheet_csv(
    store: DossierStorage,
    queue_id: str,
    rater: str,
    *,
    actor: Actor,
) -> bytes:
    """A blinded sheet for one rater: their items in their order, empty rubric columns.

    Raises:
        PermissionDenied: not an editor. ReviewError: unknown queue or rater, or a closed queue.
    """
    queue = get_queue(store, queue_id)
    who = actor.identity
    require(who, "editor", "hand out a review sheet", queue.dossier_id)
    if queue.rubric.kind == "criteria":
        raise ReviewError(f"queue {queue_id} asks met / not met per rubric criterion: it is rated in the app "
                          "(Rate outputs), not on a sheet")
    if rater not in queue.raters:
        raise ReviewError(f"{rater!r} is not a rater of queue {queue_id} (raters: {', '.join(queue.raters)})")
    if is_closed(store, queue):
        raise ReviewError(f"queue {queue_id} is closed: no sheet for a frozen queue")
    items = store.reviews.items(queue_id)
    out = io.StringIO()
    out.write(PHI_LINE.format(queue_id=queue_id, who=f", rater {rater}") + "\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(sheet_columns(queue))
    for k, item_id in enumerate(store.reviews.order(queue_id, rater), 1):
        it = items[item_id]
        writer.writerow(
            [
                queue_id,
                safe_cell(rater),  # a rater's name is typed by people too ("=cmd|x" went out live)
                item_id,
                k,
                safe_cell(it.context),
                safe_cell(it.question),
                safe_cell(it.output),
                *[""] * len(queue.rubric.criteria),
                "",
            ]
        )
    return out.getvalue().encode("utf-8")


class SheetImport(BaseModel):
    """What an import did."""

    queue_id: str
    """The queue."""
    rater: str
    """Whose ratings."""
    added: int
    """Ratings (and skips) stored now."""
    already: int
    """Rows already stored with the same values."""
    blank: int
    """Rows left empty (not rated yet)."""
    imported_by: str
    """Who imported."""


def _value(queue: ReviewQueue, name: str, text: str) -> int | str:
    if queue.rubric.kind == "audit":
        value = text.strip().lower()
        if value not in AUDIT_VERDICTS:
            raise ValueError(f"{name} {text!r} is not one of {', '.join(AUDIT_VERDICTS)}")
        return value
    try:
        number = int(text.strip())
    except ValueError:
        raise ValueError(
            f"{name} {text!r} is not a whole number from {queue.rubric.scale_min} to {queue.rubric.scale_max}"
        ) from None
    if not queue.rubric.scale_min <= number <= queue.rubric.scale_max:
        raise ValueError(f"{name} {number} is outside {queue.rubric.scale_min}-{queue.rubric.scale_max}")
    return number


def _rows(data: bytes) -> tuple[list[str], list[list[str]]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReviewError(f"the sheet is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    lines = text.splitlines(keepends=True)
    if not lines or not lines[0].startswith("#"):
        raise ReviewError(
            "row 1: not a MedAssure review sheet (its first line says it may hold patient data)"
        )
    try:
        rows = list(csv.reader(io.StringIO("".join(lines[1:]))))
    except csv.Error as exc:
        raise ReviewError(f"the sheet is not readable CSV ({exc})") from None
    if not rows:
        raise ReviewError("row 2: the sheet has no header")
    return [c.strip() for c in rows[0]], rows[1:]


def import_sheet(
    store: DossierStorage,
    queue_id: str,
    data: bytes,
    *,
    actor: Actor,
) -> SheetImport:
    """Import one rater's filled-in sheet, all or nothing (rows are numbered as in a spreadsheet).

    Raises:
        PermissionDenied: not an editor. ReviewError: naming the first faulty row (another queue, an unknown
            rater or item, a duplicate, changed text, a value outside the rubric, a changed header).
    """
    queue = get_queue(store, queue_id)
    who, auth = actor.identity, actor.identity_label
    require(who, "editor", "import review ratings", queue.dossier_id)
    if queue.rubric.kind == "criteria":
        raise ReviewError(f"queue {queue_id} asks met / not met per rubric criterion: it is rated in the app "
                          "(Rate outputs), not on a sheet")
    header, rows = _rows(data)
    expected = sheet_columns(queue)
    if header != expected:
        extra = [c for c in header if c not in expected]
        missing = [c for c in expected if c not in header]
        what = (
            f"extra column(s) {', '.join(extra)}"
            if extra
            else f"missing column(s) {', '.join(missing)}"
            if missing
            else "columns in another order"
        )
        raise ReviewError(f"row 2: the sheet's header was changed ({what}); use the sheet as handed out")
    items = store.reviews.items(queue_id)
    stored = {(r.rater, r.item_id): r for r in store.reviews.ratings(queue_id)}
    sheet_rater, seen, new, already, blank = None, set(), [], 0, 0
    now = datetime.now(UTC)
    for number, row in enumerate(rows, 3):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(expected):
            raise ReviewError(f"row {number}: {len(row)} cells where the header has {len(expected)}")
        cell = dict(zip(expected, row, strict=True))
        for column in expected:  # the item texts are compared with the queue's own below
            if column not in ("context", "question", "output") and (bad := control_problem(cell[column])):
                raise ReviewError(f"row {number}: {column} holds {bad}; nothing was imported")
        if cell["queue_id"] != queue_id:
            raise ReviewError(f"row {number}: the sheet is for queue {cell['queue_id']!r}, not {queue_id}")
        # the sheet holds each name and text as ``safe_cell`` wrote it (a leading quote before a formula
        # character, line breaks as LF): read back, either spelling is the queue's own
        rater = next((r for r in queue.raters if cell["rater"] in (r, safe_cell(r))), cell["rater"])
        if rater not in queue.raters:
            raise ReviewError(f"row {number}: unknown rater {rater!r} (raters: {', '.join(queue.raters)})")
        if sheet_rater is None:
            sheet_rater = rater
            _check_writable(store, queue, rater)
            order = store.reviews.order(queue_id, rater)
        elif rater != sheet_rater:
            raise ReviewError(
                f"row {number}: rater {rater!r} on a sheet of {sheet_rater}: one sheet, one rater"
            )
        item_id = cell["item_id"]
        if item_id not in order:
            raise ReviewError(f"row {number}: unknown item {item_id!r} for {rater} in queue {queue_id}")
        if item_id in seen:
            raise ReviewError(f"row {number}: item {item_id} appears twice")
        seen.add(item_id)
        it = items[item_id]
        texts = (("context", it.context), ("question", it.question), ("output", it.output))
        if any(cell[c] not in (v, safe_cell(v)) for c, v in texts) or cell["position"].strip() != str(
            order.index(item_id) + 1
        ):
            raise ReviewError(
                f"row {number}: item {item_id}'s text or position differs from the queue's: "
                "ratings are accepted only for the items as handed out"
            )
        given = {c: cell[c] for c in queue.rubric.criteria if cell[c].strip()}
        skip = cell[SKIP].strip()
        if skip and given:
            raise ReviewError(f"row {number}: a skip reason and a rating; give one")
        if not skip and not given:
            blank += 1
            continue
        if not skip and len(given) != len(queue.rubric.criteria):
            left = [c for c in queue.rubric.criteria if c not in given]
            raise ReviewError(
                f"row {number}: {', '.join(left)} left empty; rate every column or skip the row"
            )
        try:
            scores = {c: _value(queue, c, v) for c, v in given.items()}
        except ValueError as exc:
            raise ReviewError(f"row {number}: {exc}") from None
        if skip and len(skip) < 3:
            raise ReviewError(f"row {number}: say why the item is skipped (at least 3 characters)")
        if (old := stored.get((rater, item_id))) is not None:
            if old.scores != scores or old.skipped != skip:
                raise ReviewError(
                    f"row {number}: {rater} already rated item {item_id} otherwise; ratings are "
                    "kept as first given"
                )
            already += 1
            continue
        new.append(
            Rating(
                queue_id=queue_id,
                item_id=item_id,
                rater=rater,
                scores=scores,
                skipped=skip,
                recorded_by=actor.name,
                recorded_auth=auth,
                via="sheet",
                rated_at=now,
            )
        )
    if sheet_rater is None:
        raise ReviewError("row 3: the sheet has no rows")
    added = store.reviews.add_ratings(new)
    settle(store, queue)
    store.audit(
        actor.name,
        "review ratings imported",
        queue.dossier_id,
        {"queue_id": queue_id, "rater": sheet_rater, "added": added},
        auth=auth or None,
    )
    return SheetImport(
        queue_id=queue_id, rater=sheet_rater, added=added, already=already, blank=blank,
        imported_by=actor.name,
    )


def export_csv(
    store: DossierStorage, queue_id: str, *, actor: Actor
) -> bytes:
    """A closed queue's ratings of real outputs in the format ``medassure agreement`` reads (PHI first line).

    Raises:
        PermissionDenied: not an editor. ReviewError: unknown or open queue.
    """
    queue = get_queue(store, queue_id)
    who = actor.identity
    require(who, "editor", "export review ratings", queue.dossier_id)
    if queue.rubric.kind == "criteria":
        raise ReviewError(f"queue {queue_id} holds met / not met per rubric criterion, not the format "
                          f"`medassure agreement` reads: see `medassure review status {queue_id}` "
                          "(grader_clinician)")
    if not is_closed(store, queue):
        raise ReviewError(
            f"queue {queue_id} is still open: close it (`medassure review close {queue_id}`) first"
        )
    frame = clinician_frame(queue, store.reviews.items(queue_id), store.reviews.ratings(queue_id))
    out = io.StringIO()
    out.write(PHI_LINE.format(queue_id=queue_id, who="") + "\n")
    write_rows(out, [str(c) for c in frame.columns], frame.itertuples(index=False, name=None))
    return out.getvalue().encode("utf-8")
