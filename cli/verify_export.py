"""``medassure verify-export``: check the signature of an exported file against a trusted certificate.

Exit 0 when the signature verifies, 3 when the file is unsigned, altered or signed with another
key (the committee must not rely on it), 2 on bad input (missing files, unreadable certificate).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cli._common import emit, fail, say

EXIT_NOT_VERIFIED = 3


def cmd_verify_export(args: argparse.Namespace) -> int:
    from reports import (
        DETACHED_SUFFIX,
        BundleError,
        SigningError,
        verify_detached,
        verify_signed_bundle,
        verify_xml,
    )

    path, cert = Path(args.file), Path(args.cert)
    for p in (path, cert):
        if not p.is_file():
            fail(f"{p}: no such file")
    data, trusted = path.read_bytes(), cert.read_bytes()
    if b"BEGIN CERTIFICATE" not in trusted:
        fail(f"{cert}: not a PEM certificate")
    detached = Path(args.signature) if args.signature else path.with_name(path.name + DETACHED_SUFFIX)
    kind = "detached" if args.signature or (path.suffix.lower() != ".xml" and detached.is_file()) else "xml"
    if not args.signature and data[:4] == b"PK\x03\x04":
        kind = "bundle"
    if kind == "xml" and path.suffix.lower() != ".xml" and data.lstrip()[:1] != b"<":
        # a PDF, CSV or JSON export with no signature file beside it: unsigned, whatever its bytes are
        reason = (f"unsigned: no signature file {detached.name} beside it (a PDF, CSV or JSON export is "
                  "signed by a detached signature file; only a CHAI XML carries its signature inside)")
        say(f"NOT VERIFIED: {path}: {reason}")
        emit({"file": str(path), "verified": False, "kind": "detached", "reason": reason})
        return EXIT_NOT_VERIFIED
    try:
        if kind == "bundle":
            result = verify_signed_bundle(data, trusted)
        elif kind == "xml":
            result = verify_xml(data, trusted)
        else:
            if not detached.is_file():
                fail(f"{detached}: no such signature file")
            result = verify_detached(data, detached.read_bytes(), trusted)
    except (SigningError, BundleError) as exc:
        say(f"NOT VERIFIED: {path}: {exc}")
        emit({"file": str(path), "verified": False, "kind": kind, "reason": str(exc)})
        return EXIT_NOT_VERIFIED
    say(f"verified: {path} was signed by {result.signer}")
    emit({"file": str(path), "verified": True, "kind": kind, "signer": result.signer,
          "sha256": result.sha256})
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``verify-export``."""
    p = sub.add_parser("verify-export", help="check an export's signature against the hospital's certificate")
    p.add_argument("file", help="a signed CHAI XML, a bundle zip (its files and signed manifest), "
                                "or any file with a detached FILE.sig.json beside it")
    p.add_argument("--cert", required=True, help="the trusted signer certificate (PEM), obtained out of band")
    p.add_argument("--signature", help="the detached signature file (default FILE.sig.json)")
    p.set_defaults(func=cmd_verify_export)
