"""``medassure report`` (PDF and exports of a dossier version) and ``medassure import-dossier``.

The ``reports`` package is imported inside the commands: it pulls reportlab, altair and
vl-convert, which every other command can do without.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cli._common import VERSION, emit, fail, open_store, say
from cli.dossier import _author

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).

OPTIONAL_FILES = {"json": "json", "chai": "chai", "csv": "evidence", "hti1": "hti1"}


def _target(path: str) -> Path:
    p = Path(path)
    if p.is_dir():
        fail(f"{path} is a folder; give a file name")
    if not p.parent.exists():
        fail(f"{p.parent}: no such folder")
    return p


def cmd_report(args: argparse.Namespace) -> int:
    from reports.bundle import report_bundle

    targets = {"pdf": _target(args.out)}
    targets |= {kind: _target(getattr(args, opt))
                for opt, kind in OPTIONAL_FILES.items() if getattr(args, opt)}
    bundle = report_bundle(open_store(args), args.id, args.version)
    written = {}
    for kind, path in targets.items():
        size = bundle.write(kind, path).stat().st_size
        written[kind] = {"path": str(path), "bytes": size}
        say(f"wrote {path} ({size:,} bytes)")
    v = bundle.version
    emit({"id": v.dossier.id, "version": v.version, "hash": v.hash, "files": written,
          "not_recorded": [s.title for s in bundle.report.sections() if not s.recorded]})
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from reports.exports import DossierImportError, import_json

    path = Path(args.file)
    if not path.is_file():
        fail(f"{args.file}: no such file")
    store = open_store(args)
    try:
        v = import_json(store, path.read_bytes(), author=_author(args))
    except DossierImportError as exc:
        fail(f"{args.file}: {exc}")
    say(f"imported {v.dossier.id} as version {v.version} ({v.hash[:12]})")
    emit({"id": v.dossier.id, "version": v.version, "hash": v.hash})
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``report`` and ``import-dossier``."""
    p = sub.add_parser("report", help="write the dossier PDF (and optionally JSON, CHAI XML, CSVs)")
    p.add_argument("id", help="dossier id")
    p.add_argument("--out", required=True, help="PDF file to write")
    p.add_argument("--version", type=VERSION, help="version number (default: the latest)")
    p.add_argument("--json", help="also write the re-importable JSON of the version")
    p.add_argument("--chai", help="also write the CHAI Applied Model Card XML")
    p.add_argument("--csv", help="also write the evidence CSV (formula cells neutralised)")
    p.add_argument("--hti1", help="also write the HTI-1 source-attribute sheet as CSV")
    p.set_defaults(func=cmd_report)
    p = sub.add_parser("import-dossier", help="import a dossier JSON written by `medassure report --json`")
    p.add_argument("file", help="the JSON file")
    p.add_argument("--author", help="who imports it (default $MEDASSURE_USER or the login name)")
    p.set_defaults(func=cmd_import)
