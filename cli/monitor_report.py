"""``medassure monitor report ID --month YYYY-MM --out FILE.pdf``: the monthly monitoring report.

A subcommand of ``medassure monitor`` (``cli.monitor`` adds it with ``add_report``), in a module of its
own because it pulls the ``reports`` package (reportlab, altair, vl-convert), which the other monitor
subcommands do without. With the hospital's export key (``--sign-key/--sign-cert`` or
``MEDASSURE_EXPORT_KEY``/``MEDASSURE_EXPORT_CERT``) a detached signature ``FILE.pdf.sig.json`` is written
beside the PDF; ``medassure verify-export FILE.pdf --cert CERT`` checks it. Exit 0 when written, 2 on
bad input (a month that is not ``YYYY-MM`` or has not begun, an unknown dossier, nothing to monitor).
"""

from __future__ import annotations

import argparse

from cli._common import emit, fail, open_store, say
from cli.report import _signer, _target


def cmd_monitor_report(args: argparse.Namespace) -> int:
    from governance.monitoring import MonitoringError, MonthError, monitoring_month
    from reports import write_monthly_report

    target = _target(args.out)
    store = open_store(args)
    try:  # what the month's report prints, gathered by monitoring; the report only renders it
        month = monitoring_month(store, args.id, args.month)
    except (MonthError, MonitoringError) as exc:
        fail(str(exc))
    practice = month.version.dossier.practice is not None
    if practice and (args.sign_key or args.sign_cert):  # never signed (docs/monitoring.md)
        fail(f"{args.id} is a practice copy: its report is never signed (drop --sign-key/--sign-cert)")
    signer = None if practice else _signer(args)
    written = write_monthly_report(month, target, signer)
    say(f"wrote {written.path} ({written.size:,} bytes)"
        + (f", signed by {written.signed_by} ({written.signature.name})" if written.signature else ""))
    emit({"id": args.id, "month": month.month, "status": month.status.status, "path": str(written.path),
          "bytes": written.size, "signature": str(written.signature) if written.signature else None,
          "signed_by": written.signed_by, "practice": practice})
    return 0


def add_report(monitor_sub: argparse._SubParsersAction) -> None:
    """Add ``report`` to the ``medassure monitor`` subcommands."""
    p = monitor_sub.add_parser("report", help="write the monthly monitoring report (PDF, signed with the "
                                              "export key when one is set)")
    p.add_argument("id", help="dossier id")
    p.add_argument("--month", required=True, help="calendar month YYYY-MM")
    p.add_argument("--out", required=True, help="PDF file to write")
    p.add_argument("--sign-key",
                   help="PEM private key for the detached signature (default $MEDASSURE_EXPORT_KEY)")
    p.add_argument("--sign-cert", help="its PEM certificate (default $MEDASSURE_EXPORT_CERT)")
    p.set_defaults(func=cmd_monitor_report)
