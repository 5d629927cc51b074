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
_FACE = {  # what the pages and the CLI import besides the public API (tests/test_faces.py)
    "candidates_chart": "reports.comparison_chart",
    "comparison_csv": "reports.candidates_table",
    "score_rows": "reports.candidates_table",
    "summary_rows": "reports.candidates_table",
    "cost_score_chart": "reports.cost_chart",
    "write_atomically": "reports.bundle",
    "DossierImportError": "reports.exports",
    "import_json": "reports.exports",
    "md": "reports.markdown",
    "section_markdown": "reports.markdown",
    "pdf_page_images": "reports.preview",
    "addendum_section": "reports.sections_reevaluation",
    "status_charts": "reports.monitoring_charts",
    "write_monthly_report": "reports.monitoring_report",
    "EVENT_SEVERITY_LABELS": "reports.monitoring_text",
    "banner": "reports.monitoring_text",
    "event_rows": "reports.monitoring_text",
    "month_rows": "reports.monitoring_text",
    "one_line": "reports.monitoring_text",
    "open_signals": "reports.monitoring_text",
    "signal_choice": "reports.monitoring_text",
    "signal_rows": "reports.monitoring_text",
    "DETACHED_SUFFIX": "reports.signing",
    "ExportSigner": "reports.signing",
    "SigningError": "reports.signing",
    "verify_detached": "reports.signing",
    "verify_xml": "reports.signing",
    "BundleError": "reports.zip_bundle",
    "bundle_zip": "reports.zip_bundle",
    "document_refs": "reports.zip_bundle",
    "import_bundle": "reports.zip_bundle",
    "verify_signed_bundle": "reports.zip_bundle",
}
__getattr__, __dir__ = lazy_exports(globals(), {**_EXPORTS, **_FACE})

if TYPE_CHECKING:  # for editors and type checkers; at run time the names load on first use
    from reports.bundle import ReportBundle, report_bundle, write_atomically
    from reports.candidates_table import comparison_csv, score_rows, summary_rows
    from reports.charts import scores_chart
    from reports.comparison_chart import candidates_chart
    from reports.cost_chart import cost_score_chart
    from reports.exports import DossierImportError, import_json
    from reports.markdown import md, section_markdown
    from reports.monitoring_charts import status_charts
    from reports.monitoring_report import write_monthly_report
    from reports.monitoring_text import (
        EVENT_SEVERITY_LABELS,
        banner,
        event_rows,
        month_rows,
        one_line,
        open_signals,
        signal_choice,
        signal_rows,
    )
    from reports.preview import pdf_page_images
    from reports.sections_reevaluation import addendum_section
    from reports.signing import DETACHED_SUFFIX, ExportSigner, SigningError, verify_detached, verify_xml
    from reports.zip_bundle import BundleError, bundle_zip, document_refs, import_bundle, verify_signed_bundle
