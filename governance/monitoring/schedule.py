"""When the plan's scheduled re-evaluation falls due: its months after the decision or the last re-evaluation.

Why from the last re-evaluation: a re-evaluation run for any reason (a vendor change, a signal) re-ran the
frozen plan, so the clock restarts from it; a dossier without a decision has no schedule.
"""

from __future__ import annotations

import calendar
from datetime import datetime

from governance.dossier.record import Dossier


def add_months(when: datetime, months: int) -> datetime:
    """``when`` plus whole calendar months (the day clipped to the month's last).

    Example:
        >>> from datetime import UTC
        >>> add_months(datetime(2026, 8, 31, tzinfo=UTC), 6).date().isoformat()
        '2027-02-28'
    """
    month = when.month - 1 + months
    year, month = when.year + month // 12, month % 12 + 1
    return when.replace(year=year, month=month, day=min(when.day, calendar.monthrange(year, month)[1]))


def reevaluation_due(dossier: Dossier, schedule_months: int) -> tuple[datetime | None, str]:
    """(when the scheduled re-evaluation falls due, what it counts from); (None, why) without a decision."""
    if dossier.decision is None:
        return None, "no decision recorded"
    start, basis = dossier.decision.decided_at, "months after the decision"
    if dossier.reevaluations:
        last = max(a.created_at for a in dossier.reevaluations)
        if last > start:
            start, basis = last, "months after the last re-evaluation"
    return add_months(start, schedule_months), f"{schedule_months} {basis}"
