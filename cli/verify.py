"""``medassure verify ID``: check a dossier's hash chain from its first version to its head.

JSON on stdout (``ChainReport``'s fields plus ``summary``): ``dossier_id``, ``ok``, ``versions``,
``events``, ``legacy_versions``, ``legacy_events``, ``head_version``, ``head_hash``,
``head_row_hash``, ``first_break`` (``{kind, version, seq, problem}`` or null; ``kind`` is ``version``,
``event``, ``anchor``, the keyed seal over the record's length, or ``seal``, sealed data after go-live),
``breaks`` (every failing link), ``unsealed`` (what predates sealing) and ``summary`` (the one line the
History page and the PDF show). Exit 0 when every
link holds, 3 when one is broken (the first is named on stderr), 2 for bad input.
"""

from __future__ import annotations

import argparse

from cli._common import add_format, emit, open_store, say

EXIT_BROKEN = 3


def cmd_verify(args: argparse.Namespace) -> int:
    report = open_store(args).verify_chain(args.id)
    say(report.summary)
    emit({**report.model_dump(mode="json"), "summary": report.summary})
    return 0 if report.ok else EXIT_BROKEN


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="check a dossier's hash chain (versions, audit log); exit 3 if broken")
    p.add_argument("id", help="dossier id")
    add_format(p)
    p.set_defaults(func=cmd_verify)
