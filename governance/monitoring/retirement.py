"""The retirement watch: a signal when the vendor's retirement date of the watched snapshot nears or passes.

Why its own signal and not a schedule: a retirement is announced by the vendor, not chosen by the
committee, and it comes whatever the feed shows. The date and its source are procurement's
(``governance.procurement.retirement``: the candidate's announced date, else litellm's shipped map, named
with its version), looked up once by the operation (``procured``); here the plan's notice window
(``retirement_notice_days``, default 90) turns it into a review, and the date itself into a pause. The
phase is part of the signal's key, so the review raised in the window and the pause raised on the day are
two signals, each with its own owner and deadline.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta

from governance.decision.records import MonitoringPlan
from governance.monitoring.procured import Procured
from governance.procurement.retirement import retirement_phase


def retirement_signal(
    procured: Procured, plan: MonitoringPlan, now: datetime, add: Callable[..., None], notes: list[str]
) -> None:
    """Call ``add`` with the retirement signal of the watched candidate at ``now``, if any; note the rest.

    The candidate's record and its date come looked up (``procured``, gathered by the operation).
    """
    record, r = procured.record, procured.retirement
    if record is None:
        return
    if r is None:
        notes.append(f"No retirement date is known for {record.label} (neither recorded nor in the model "
                     "map).")
        return
    days = plan.retirement_notice_days
    phase = retirement_phase(r, now, days)
    if phase is None:
        notes.append(f"The vendor retires {r.snapshot} on {r.retires_on:%Y-%m-%d} ({r.source_text}).")
        return
    day = datetime.combine(r.retires_on, time(0), tzinfo=UTC)
    if phase == "retired":
        add(kind="retirement", metric=r.snapshot, seen=f"{r.retires_on:%Y-%m-%d}|retired", first_seen=day,
            level="pause",
            detail=f"the vendor retired {r.snapshot} on {r.retires_on:%Y-%m-%d} ({r.source_text})",
            action="Pause use: the approved snapshot is retired and may be replaced or stop answering; "
            "choose a successor snapshot and re-run the frozen evidence plan against it")
    else:
        add(kind="retirement", metric=r.snapshot, seen=f"{r.retires_on:%Y-%m-%d}|notice",
            first_seen=day - timedelta(days=days), level="review",
            detail=f"the vendor retires {r.snapshot} on {r.retires_on:%Y-%m-%d} ({r.source_text}), "
            f"{(r.retires_on - now.date()).days} days from now: inside the {days}-day notice window",
            action="Review: plan the successor snapshot and its re-evaluation before the retirement date")
