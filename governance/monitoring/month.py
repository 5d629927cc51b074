"""One calendar month of monitoring, as the monthly report prints it: the month, the record it was read from,
the status now, and the month's signals as the record stored them.

Why here and not in the report: what a month's report prints is the monitoring record's to say (issue 33
item 5: the monthly report prints the stored signals of that month, recomputing only to show "now"). The
operation (``operations.month.monitoring_month``) checks the month, loads the record, runs the seal check and
the status now, and ``month_of`` selects the month's stored signals here, once; ``reports.monitoring_report``
only lays out the ``MonitoringMonth`` it is given, so a later change of the plan does not alter which past
signals a past month's report shows, and the renderer never calls back into monitoring.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict

from governance.dossier.storage import DossierVersion
from governance.monitoring.ladder import recorded_signals
from governance.monitoring.models import MonitoringStatus, Signal

MONTH = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")


class MonthError(ValueError):
    """A month that is not ``YYYY-MM`` or lies in the future (one line for the user)."""


def parse_month(value: str, now: datetime | None = None) -> str:
    """``value`` checked as a calendar month ``YYYY-MM`` not after the current one.

    Example:
        >>> parse_month("2026-05", datetime(2026, 12, 1, tzinfo=UTC))
        '2026-05'
    """
    m = MONTH.match(value.strip())
    if m is None:
        raise MonthError(f"month {value!r} is not YYYY-MM (e.g. 2026-05)")
    now = now or datetime.now(UTC)
    if (int(m.group(1)), int(m.group(2))) > (now.year, now.month):
        raise MonthError(f"month {value} has not begun yet")
    return value.strip()


class MonitoringMonth(BaseModel):
    """What the monthly report of one month prints, gathered by the monitoring operation."""

    model_config = ConfigDict(frozen=True)

    month: str
    """``YYYY-MM``."""
    version: DossierVersion
    """The dossier version the record was read from (its hash is printed on every page)."""
    status: MonitoringStatus
    """The status now (recomputed: only "now" is)."""
    signals: list[Signal]
    """The month's signals as the record stored them when raised (first seen in the month, or raised
    earlier and not resolved by its end), in ladder order; their state follows what was done since."""
    unrecorded: list[Signal]
    """Signals of the month the current plan computes now that the record does not hold yet (the next
    import records them)."""


def _in_month(at: datetime | None, month: str) -> bool:
    return at is not None and f"{at:%Y-%m}" == month


def _of_month(signals: list[Signal], month: str) -> list[Signal]:
    return [s for s in signals if _in_month(s.first_seen, month)
            or (s.state != "resolved" and f"{s.first_seen:%Y-%m}" <= month)]


def month_of(status: MonitoringStatus, version: DossierVersion, month: str) -> MonitoringMonth:
    """The month's report input from the status now and the stored version (pure: no clock, no store)."""
    recorded = recorded_signals(version.dossier, status.approved.candidate)
    known = {s.id for s in recorded}
    return MonitoringMonth(
        month=month,
        version=version,
        status=status,
        signals=_of_month(recorded, month),
        unrecorded=[s for s in _of_month(status.signals, month) if s.id not in known],
    )
