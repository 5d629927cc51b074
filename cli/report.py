"""``medassure report`` (PDF, exports, verifiable zip bundle) and ``medassure import-dossier`` (JSON or zip).

The ``reports`` package is imported inside the commands: it pulls reportlab, altair and
vl-convert, which every other command can do without.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cli._common import VERSION, emit, fail, open_store, require_role, say
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


def _signer(args: argparse.Namespace):
    """The export signer from ``--sign-key/--sign-cert`` or the environment; None when not configured."""
    from reports import ExportSigner, SigningError

    try:
        if args.sign_key or args.sign_cert:
            if not (args.sign_key and args.sign_cert):
                fail("give both --sign-key and --sign-cert (PEM files), or neither")
            return ExportSigner.from_files(args.sign_key, args.sign_cert)
        return ExportSigner.from_env()
    except SigningError as exc:
        fail(str(exc))


def cmd_report(args: argparse.Namespace) -> int:
    from reports import report_bundle

    if args.label is True and not args.out:
        fail("--label without a file name writes to --out FILE.pdf: give --out, or --label FILE.pdf")
    if not args.out and not args.bundle and not isinstance(args.label, str):
        fail("give --out FILE.pdf, --bundle FILE.zip, --label FILE.pdf, or a combination")
    # --label alone with --out: the one-page model-facts label goes to --out instead of the dossier PDF
    first = "label" if args.label is True else "pdf"
    targets = {first: _target(args.out)} if args.out else {}
    if isinstance(args.label, str):
        targets["label"] = _target(args.label)
    targets |= {kind: _target(getattr(args, opt))
                for opt, kind in OPTIONAL_FILES.items() if getattr(args, opt)}
    signer = _signer(args)
    zip_target = _target(args.bundle) if args.bundle else None
    store = open_store(args)
    bundle = report_bundle(store, args.id, args.version, signer=signer)
    written = {}
    for kind, path in targets.items():
        size = bundle.write(kind, path).stat().st_size
        written[kind] = {"path": str(path), "bytes": size}
        say(f"wrote {path} ({size:,} bytes)")
    if zip_target is not None:
        from governance.procurement import DocumentError
        from reports import bundle_zip, write_atomically

        try:
            write_atomically(zip_target, bundle_zip(store, bundle, signer=signer))
        except DocumentError as exc:
            fail(f"bundle not written: {exc}")
        size = zip_target.stat().st_size
        written["bundle"] = {"path": str(zip_target), "bytes": size}
        say(f"wrote {zip_target} ({size:,} bytes)")
    v = bundle.version
    if signer is not None and "chai" in written:
        written["chai"]["signed_by"] = signer.subject
    emit({"id": v.dossier.id, "version": v.version, "hash": v.hash, "files": written,
          "not_recorded": [s.title for s in bundle.report.sections() if not s.recorded]})
    return 0


def _import_zip(args: argparse.Namespace, data: bytes) -> int:
    from reports import BundleError, import_bundle

    try:
        require_role("editor", "import a dossier", args=args, flag="author")
        v, documents = import_bundle(open_store(args), data, author=_author(args))
    except BundleError as exc:
        fail(f"{args.file}: bundle refused, nothing imported: {exc}")
    say(f"imported {v.dossier.id} as version {v.version} ({v.hash[:12]}) with {len(documents)} document(s)")
    emit({"id": v.dossier.id, "version": v.version, "hash": v.hash,
          "documents": [{"sha256": d.sha256, "filename": d.filename, "size": d.size} for d in documents]})
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from reports import DossierImportError, import_json

    path = Path(args.file)
    if not path.is_file():
        fail(f"{args.file}: no such file")
    with path.open("rb") as head:
        if head.read(4) == b"PK\x03\x04" or path.suffix.lower() == ".zip":
            return _import_zip(args, path.read_bytes())
    store = open_store(args)
    try:
        require_role("editor", "import a dossier", args=args, flag="author")
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
    p.add_argument("--out", help="PDF file to write (required unless --bundle is given)")
    p.add_argument("--version", type=VERSION, help="version number (default: the latest)")
    p.add_argument("--label", nargs="?", const=True, default=None, metavar="FILE.pdf",
                   help="the one-page model-facts label for staff: to FILE.pdf, or alone to --out FILE.pdf")
    p.add_argument("--json", help="also write the re-importable JSON of the version")
    p.add_argument("--chai", help="also write the CHAI Applied Model Card XML")
    p.add_argument("--csv", help="also write the evidence CSV (formula cells neutralised)")
    p.add_argument("--hti1", help="also write the HTI-1 source-attribute sheet as CSV")
    p.add_argument("--sign-key", help="PEM private key signing the CHAI XML (default $MEDASSURE_EXPORT_KEY)")
    p.add_argument("--sign-cert", help="its PEM certificate (default $MEDASSURE_EXPORT_CERT)")
    p.add_argument("--bundle", metavar="FILE.zip",
                   help="write a verifiable zip: the files above, attached documents, a SHA-256 manifest")
    p.set_defaults(func=cmd_report)
    p = sub.add_parser("import-dossier",
                       help="import a dossier JSON or zip bundle written by `medassure report`")
    p.add_argument("file", help="the JSON file (--json) or zip bundle (--bundle)")
    p.add_argument("--author", help="who imports it (default $MEDASSURE_USER or the login name)")
    p.set_defaults(func=cmd_import)
