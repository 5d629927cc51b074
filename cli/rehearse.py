"""``medassure rehearse DOSSIER_ID``: a practice copy of a decided dossier, to rehearse go-live.

The copy's decision is dated ``--days-ahead`` days (default 180) earlier than the original's, so a feed
dated between then and now can be imported into it and monitoring tried (status, signals, acknowledgements,
the monthly report) as if the use had been live that long; the original is only read. ``--feed-out FILE``
also writes a generated feed for the copy, which ``medassure monitor import FILE --dossier COPY`` takes.
The copy is marked as practice everywhere and is never exported as the record (``docs/monitoring.md``).
Exit 0 when made, 2 on bad input (no decision, already a copy, an unknown dossier).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cli._common import cli_actor, emit, fail, open_store, say


def _discard(args: argparse.Namespace) -> int:
    from governance.monitoring import PracticeError, discard_practice_copy

    if args.feed_out:
        fail("--discard takes no --feed-out")
    try:
        version = discard_practice_copy(open_store(args), args.id, actor=cli_actor(args))
    except PracticeError as exc:
        fail(str(exc))
    say(f"discarded practice copy {args.id} (version {version}): lists leave it out; its versions stay")
    emit({"id": args.id, "discarded": True, "version": version})
    return 0


def cmd_rehearse(args: argparse.Namespace) -> int:
    from governance.monitoring import PracticeError, make_practice_copy, write_practice_feed

    if args.discard:
        return _discard(args)

    feed = Path(args.feed_out) if args.feed_out else None
    if feed is not None and (feed.is_dir() or not feed.parent.exists()):
        fail(f"{args.feed_out}: give a file name in an existing folder")
    store = open_store(args)
    try:
        result = make_practice_copy(store, args.id, days_back=args.days_ahead, actor=cli_actor(args))
        rows = write_practice_feed(store, result.id, feed) if feed is not None else None
    except PracticeError as exc:
        fail(str(exc))
    payload = {**result.model_dump(mode="json"), "practice": True,
               "feed": {"path": str(feed), "rows": rows} if feed is not None else None}
    if args.format == "json":
        emit(payload)
    else:
        print(result.id)
    say(f"made practice copy {result.id} of {result.source_id} v{result.source_version}: its decision is "
        f"dated {result.decided_at:%Y-%m-%d} ({result.days_back} days earlier); {result.mark}")
    if feed is not None:
        say(f"wrote {feed} ({rows:,} generated rows): medassure monitor import {feed} --dossier {result.id}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``rehearse``."""
    p = sub.add_parser("rehearse", help="a practice copy of a decided dossier whose go-live lies days back "
                                        "(never the record)")
    p.add_argument("id", help="the decided dossier to copy (it is not changed)")
    p.add_argument("--days-ahead", type=int, default=180, metavar="N",
                   help="how many days the copy's clock runs ahead of its decision: its decision is dated "
                        "N days back (default 180)")
    p.add_argument("--feed-out", metavar="FILE.csv", help="also write a generated feed for the copy")
    p.add_argument("--discard", action="store_true",
                   help="set the practice copy ID aside instead: lists leave it out (the store is "
                        "append-only)")
    p.add_argument("--by", help="who makes the copy (default $MEDASSURE_USER or the login name)")
    p.add_argument("--format", choices=["json", "text"], default="json",
                   help="json (default) or text (the copy's id alone)")
    p.set_defaults(func=cmd_rehearse)
