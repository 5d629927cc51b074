"""Dossier rendering: the report model, the PDF, charts and the exports.

The public API below is what notebooks and scripts use; the Report page and ``medassure report``
call the same functions. Names are imported on first use (``evaluator.lazy_exports``): reportlab,
altair and vl-convert load only when a report is built.

Example:
    >>> from reports import report_bundle
    >>> report_bundle(store, dossier_id).write("pdf", "dossier.pdf")  # doctest: +SKIP
    PosixPath('dossier.pdf')
"""

from typing import TYPE_CHECKING

from evaluator.lazy_exports import lazy_exports

_EXPORTS = {
    "report_bundle": "reports.bundle",
    "ReportBundle": "reports.bundle",
    "scores_chart": "reports.charts",
}
__all__ = [  # literal, so tools see the public names; tests check it matches _EXPORTS
    "report_bundle", "ReportBundle", "scores_chart",
]
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # for editors and type checkers; at run time the names load on first use
    from reports.bundle import ReportBundle, report_bundle
    from reports.charts import scores_chart
