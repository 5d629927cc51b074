"""The monitoring status of one candidate: every check composed, and the ladder's verdict.

Why one composing function: the page, the CLI and the monthly report show the same status, so they call
``compute_status`` (through the front desk) and render what comes back.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from governance.dossier.record import Dossier
from governance.monitoring.models import FeedAggregates, MonitoringStatus


def compute_status(dossier: Dossier, aggregates: FeedAggregates, *, now: datetime, candidate: str,
                   served: Iterable[str] = ()) -> MonitoringStatus:
    """The status of ``candidate`` from the dossier (plan, decision, record) and the feed's aggregates.

    Args:
        dossier: the dossier (its plan, decision, frozen evidence plan and monitoring record are read).
        aggregates: the candidate's feed, summed by the store.
        now: the clock (deadlines, the schedule, future rows).
        candidate: the candidate watched.
        served: served model names of the decided runs' answers (from the run store).
    """
    raise NotImplementedError
