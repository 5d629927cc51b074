"""The monthly report's input: one operation gathers what the report of a month prints.

Why an operation: it takes the store. It checks the month, reads the dossier's head version, computes the
status now (which refuses a feed that no longer matches its seal: ``monitoring_status``) and selects the
month's stored signals (``governance.monitoring.month``). The report (``reports.monitoring_report``)
renders the ``MonitoringMonth`` it is handed and reads nothing else.
"""

from __future__ import annotations

from datetime import datetime

from governance.dossier.storage import DossierStorage
from governance.monitoring.month import MonitoringMonth, month_of, parse_month
from governance.monitoring.operations.feed import monitoring_status


def monitoring_month(
    store: DossierStorage, dossier_id: str, month: str, *, now: datetime | None = None
) -> MonitoringMonth:
    """What the monthly report of ``month`` prints: the record, the status now, the month's stored signals.

    Raises:
        MonthError: ``month`` is not ``YYYY-MM`` or has not begun.
        DossierNotFound: no such dossier.
        MonitoringError: nothing to monitor, or the stored feed no longer matches its seal.
    """
    month = parse_month(month, now)
    version = store.load(dossier_id)
    status = monitoring_status(store, dossier_id, now=now)
    return month_of(status, version, month)
