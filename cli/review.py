"""``medassure review``: blinded clinician review queues, with sheets for ratings collected offline.

* ``review create --run RUN_ID --n N [--double SHARE] [--sentinels K] --raters A,B --format json``: a
  queue of N outputs of a completed run (stratified by subgroup tags), SHARE of them rated by two raters,
  K planted errors every rater sees (``--sentinel-file F``: editor-written ones from a CSV of
  ``instance_id``, ``output``, ``note``); prints ``queue_id`` (with ``n_items``, ``n_double``,
  ``n_sentinels``, ``raters``, ``rubric``, ``guidance``, the sample-size figures, and ``warnings``: what
  the queue cannot measure, e.g. no sentinels). Needs an editor.
  ``review create --feed DOSSIER_ID [--month YYYY-MM] [--candidate NAME] --n N ...``: the same from the
  dossier's monitoring feed rows that carry output text, on the audit verdict (``skipped_no_text``: rows
  without text); once closed, its verdicts count as the feed's audits in ``monitor status``.
  ``review create --grading GRADING_ID --n N [--double SHARE] --raters A,B [--dossier ID]``: N cases of a
  completed rubric grading; raters answer met / not met for each rubric criterion of the case, never seeing
  the graders' verdicts (``rubric``: ``criteria``, ``grading_id``); no sentinels yet. Once closed, ``review
  status`` adds ``grader_clinician``: per criterion Cohen's κ and the share agreeing, and the bar's verdict.
* ``review sheet QUEUE --rater NAME --out FILE.csv``: a blinded sheet (item ids, context, question,
  output, empty rubric columns, ``skip_reason``); its first line says it may hold patient data.
* ``review import QUEUE FILE.csv``: a filled-in sheet, all or nothing; a faulty row is named, exit 2.
  The ratings belong to the sheet's rater; who imported them is recorded.
* ``review status QUEUE --format json``: per rater ``rater``, ``done``, ``total``, ``progress``,
  ``catch_rate`` ``{estimate, lower, upper, n}`` (once that rater has finished), ``flags``; once closed,
  ``clinician_clinician`` and ``jury_clinician`` agreement. That is an editor's view; one of the queue's
  raters gets only their own (``view: rater``, ``rater``, ``done``, ``total``, ``skipped``, ``progress``,
  ``finished``, ``closed``, ``removed``, ``catch_rate``), nothing about the model, the run, other raters
  or agreement (also when they hold editor, as on a local desk); anyone else is refused (exit 2).
* ``review export QUEUE --out ratings.csv``: a closed queue's ratings in the format ``medassure agreement``
  reads (first line: may hold patient data).
* ``review close QUEUE``: freeze the queue.
* ``review record-agreement QUEUE``: a closed ``--grading`` queue's per-criterion agreement recorded on its
  dossier, where the judge-agreement rule reads it for the grading's evidence (``grader_clinician``).
* ``review remove-rater QUEUE --rater NAME``: the rater rates no more; their ratings are kept, flagged.

Exit 0, or 2 with one line saying why (nothing stored). docs/review-queues.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cli._common import (
    add_format,
    cli_actor,
    emit,
    fail,
    float_flag,
    int_flag,
    open_store,
    say,
)

SHARE = float_flag(0, 1)
COUNT = int_flag(0, 100_000)
N_ITEMS = int_flag(1, 100_000)


def _errors():
    from governance.review import ReviewError

    return (ReviewError,)


def cmd_create(args: argparse.Namespace) -> int:
    from governance.review import (
        create_queue,
        create_queue_from_feed,
        create_queue_from_grading,
        queue_warnings,
        read_sentinel_file,
        size_guidance,
    )

    if args.feed is None and (args.month is not None or args.candidate is not None):
        fail("--month and --candidate go with --feed")
    if args.grading is not None and (args.rubric or args.dataset_file or args.sentinel_file):
        fail("--grading queues ask met / not met per rubric criterion: drop --rubric, --dataset-file and "
             "--sentinel-file")
    if args.feed is not None and (args.rubric == "jury" or args.dataset_file or args.dossier):
        fail(
            "--feed queues rate the audit verdict and serve the feed's own dossier: "
            "drop --rubric jury, --dataset-file and --dossier"
        )
    written: list = []
    if args.sentinel_file:
        try:
            written = read_sentinel_file(Path(args.sentinel_file).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            fail(f"--sentinel-file {args.sentinel_file}: {exc}")
    sentinels = max(args.sentinels, len(written))
    store = open_store(args)
    skipped = None
    try:
        if args.feed is not None:
            queue, skipped = create_queue_from_feed(
                store,
                args.feed,
                args.n,
                args.raters.split(","),
                candidate=args.candidate,
                month=args.month,
                double=args.double,
                sentinels=sentinels,
                seed=args.seed,
                strata=args.strata.split(",") if args.strata is not None else None,
                written=written,
                actor=cli_actor(args),
            )
        elif args.grading is not None:
            queue = create_queue_from_grading(
                store,
                args.grading,
                args.n,
                args.raters.split(","),
                double=args.double,
                sentinels=sentinels,
                dossier_id=args.dossier,
                seed=args.seed,
                strata=args.strata.split(",") if args.strata is not None else None,
                actor=cli_actor(args),
            )
        else:
            queue = create_queue(
                store,
                args.run,
                args.n,
                args.raters.split(","),
                double=args.double,
                sentinels=sentinels,
                written=written,
                rubric=args.rubric,
                dossier_id=args.dossier,
                seed=args.seed,
                dataset_path=args.dataset_file,
                strata=args.strata.split(",") if args.strata is not None else None,
                actor=cli_actor(args),
            )
    except _errors() as exc:
        fail(str(exc))
    guidance = size_guidance()
    warnings = queue_warnings(queue.n_items, args.double, queue.n_sentinels, len(queue.raters),
                              guidance=guidance)
    for warning in warnings:
        say(f"warning: {warning}")
    if skipped is not None:
        say(f"{skipped} feed row(s) without output text cannot be rated and were left out")
    say(
        f"queue {queue.queue_id}: {queue.n_items} outputs ({queue.n_double} rated twice) and "
        f"{queue.n_sentinels} "
        f"sentinels for {', '.join(queue.raters)}. {guidance.text}"
    )
    emit(
        {
            "queue_id": queue.queue_id,
            "run_id": queue.run_id,
            **(
                {
                    "feed": queue.dossier_id,
                    "candidate": queue.candidate,
                    "month": queue.month,
                    "skipped_no_text": skipped,
                }
                if skipped is not None
                else {}
            ),
            "n_items": queue.n_items,
            "n_double": queue.n_double,
            "n_sentinels": queue.n_sentinels,
            "raters": list(queue.raters),
            "rubric": queue.rubric.kind,
            "criteria": list(queue.rubric.criteria),
            **({"grading_id": queue.grading_id} if queue.grading_id else {}),
            "seed": queue.seed,
            "guidance": guidance.model_dump(),
            "warnings": warnings,
        }
    )
    return 0


def cmd_sheet(args: argparse.Namespace) -> int:
    from governance.review import sheet_csv

    store = open_store(args)
    try:
        data = sheet_csv(store, args.queue, args.rater, actor=cli_actor(args))
    except _errors() as exc:
        fail(str(exc))
    Path(args.out).write_bytes(data)
    say(f"wrote {args.out}: it may hold patient data; keep it inside the hospital")
    emit({"queue_id": args.queue, "rater": args.rater, "out": args.out, "rows": data.count(b"\n") - 2})
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from governance.review import import_sheet

    path = Path(args.file)
    if not path.is_file():
        fail(f"{args.file}: no such file")
    store = open_store(args)
    try:
        done = import_sheet(
            store, args.queue, path.read_bytes(), actor=cli_actor(args)
        )
    except _errors() as exc:
        fail(f"{args.file}: {exc}; nothing was stored")
    say(
        f"{done.added} rating(s) of {done.rater} stored, {done.already} already there, "
        f"{done.blank} left blank"
    )
    emit(done)
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from governance.review import queue_status_for

    # read-only: a closed queue's agreement, when not kept yet, is computed and shown, not stored
    store = open_store(args, read_only=True)
    try:
        status = queue_status_for(store, args.queue, actor=cli_actor(args))
    except _errors() as exc:
        fail(str(exc))
    if getattr(status, "view", None) == "rater":  # blinded: their own progress only
        doc = status.model_dump(mode="json")
        if args.format == "text":
            state = "closed" if status.closed else "open"
            print(f"{status.queue_id} ({state}): {status.rater}: {status.done}/{status.total} done")
            return 0
        emit(doc)
        return 0
    if args.format == "text":
        print(f"{status.queue_id}: {'closed' if status.closed else 'open'}")
        for r in status.raters:
            rate = r.catch_rate
            caught = f", caught {rate.caught}/{rate.n}" if rate is not None and rate.n else ""
            print(f"  {r.rater}: {r.done}/{r.total}{caught}{'; ' + '; '.join(r.flags) if r.flags else ''}")
        return 0
    doc = status.model_dump(mode="json")
    for r in doc["raters"]:  # the contract: catch_rate as {estimate, lower, upper, n}
        if r["catch_rate"] is not None:
            r["catch_rate"] = {
                k: r["catch_rate"][k]
                for k in ("estimate", "lower", "upper", "n", "caught", "bar", "meets_bar")
            }
    emit(doc)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from governance.review import export_csv

    store = open_store(args)
    try:
        data = export_csv(store, args.queue, actor=cli_actor(args))
    except _errors() as exc:
        fail(str(exc))
    Path(args.out).write_bytes(data)
    say(
        f"wrote {args.out} (may hold patient data); read it with "
        f"`medassure agreement --clinicians {args.out}`"
    )
    emit({"queue_id": args.queue, "out": args.out, "rows": data.count(b"\n") - 2})
    return 0


def cmd_close(args: argparse.Namespace) -> int:
    from governance.review import close_queue

    store = open_store(args)
    try:
        now = close_queue(
            store, args.queue, actor=cli_actor(args), note=args.note or ""
        )
    except _errors() as exc:
        fail(str(exc))
    say(f"queue {args.queue} {'closed: its ratings are frozen' if now else 'was already closed'}")
    emit({"queue_id": args.queue, "closed": True, "changed": now})
    return 0


def cmd_record_agreement(args: argparse.Namespace) -> int:
    from governance.review import grading_agreement, record_grading_agreement

    store = open_store(args)
    try:
        version = record_grading_agreement(store, args.queue, actor=cli_actor(args))
        view = grading_agreement(store, args.queue)
    except _errors() as exc:
        fail(str(exc))
    say(f"grading {view.grading_id}: {view.status}: {view.reason}")
    emit({"queue_id": args.queue, "dossier_id": version.dossier.id, "version": version.version,
          "grader_clinician": view.model_dump(mode="json")})
    return 0


def cmd_remove_rater(args: argparse.Namespace) -> int:
    from governance.review import remove_rater

    store = open_store(args)
    try:
        remove_rater(
            store,
            args.queue,
            args.rater,
            actor=cli_actor(args),
            note=args.note or "",
        )
    except _errors() as exc:
        fail(str(exc))
    say(f"{args.rater} removed from queue {args.queue}: their ratings are kept, flagged")
    emit({"queue_id": args.queue, "removed": args.rater})
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``review`` and its subcommands."""
    p = sub.add_parser(
        "review",
        help="blinded clinician review queues (rating sheets, sentinels, catch rates)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rs = p.add_subparsers(dest="review_command", required=True)

    c = rs.add_parser(
        "create",
        help="a queue of a completed run's outputs, a rubric grading's cases or the monitoring feed's; "
        "prints queue_id",
    )
    source = c.add_mutually_exclusive_group(required=True)
    source.add_argument("--run", help="the completed run whose outputs are rated")
    source.add_argument(
        "--grading",
        metavar="GRADING_ID",
        help="rate a rubric grading's cases: met / not met per criterion, blinded to the graders' verdicts",
    )
    source.add_argument(
        "--feed",
        metavar="DOSSIER_ID",
        help="rate production outputs: the dossier's monitoring feed rows with text",
    )
    c.add_argument("--month", help="with --feed: only rows of this month (YYYY-MM)")
    c.add_argument("--candidate", help="with --feed: the monitored candidate (needed when there are several)")
    c.add_argument("--n", type=N_ITEMS, required=True, help="outputs to sample (sentinels come on top)")
    c.add_argument("--double", type=SHARE, default=0.0, help="share rated by two raters (default 0)")
    c.add_argument("--sentinels", type=COUNT, default=0,
                   help="planted errors every rater sees (default 0; with --sentinel-file at least its rows)")
    c.add_argument("--sentinel-file", metavar="FILE",
                   help="editor-written sentinels: a CSV with instance_id, output (the faulty output raters "
                        "see) and note (what is wrong; never shown to raters); --sentinels K makes the rest")
    c.add_argument(
        "--raters", required=True, help="comma-separated rater names (their login names or subjects)"
    )
    c.add_argument(
        "--rubric",
        choices=("jury", "audit"),
        help="jury: the benchmark's jury criteria 1-5 (default where there is one); audit: the verdict",
    )
    c.add_argument("--dossier", help="the dossier the queue serves (raters need the rater role there)")
    c.add_argument("--strata", help="comma-separated subgroup tags to stratify by (default: every tag)")
    c.add_argument("--seed", type=int_flag(0, 2**31 - 1), help="seed of the sample and the orders")
    c.add_argument(
        "--dataset-file", help="the dataset file the run was made on (not needed for built-in ones)"
    )
    c.add_argument("--by", help="who creates it (default $MEDASSURE_USER or the login name)")
    add_format(c)
    c.set_defaults(func=cmd_create)

    s = rs.add_parser("sheet", help="a blinded CSV sheet for one rater (offline ratings)")
    s.add_argument("queue")
    s.add_argument("--rater", required=True)
    s.add_argument("--out", required=True, help="the CSV file to write")
    s.add_argument("--by")
    s.set_defaults(func=cmd_sheet)

    i = rs.add_parser("import", help="import a filled-in sheet (all or nothing)")
    i.add_argument("queue")
    i.add_argument("file")
    i.add_argument("--by", help="who imports it (recorded)")
    i.set_defaults(func=cmd_import)

    t = rs.add_parser("status", help="progress, catch rates, flags; agreement once closed (raters: own)")
    t.add_argument("queue")
    t.add_argument("--by", help="who asks (default $MEDASSURE_USER or the login name): an editor sees all, "
                   "a rater their own progress, anyone else nothing")
    add_format(t)
    t.set_defaults(func=cmd_status)

    e = rs.add_parser("export", help="a closed queue's ratings in the format `medassure agreement` reads")
    e.add_argument("queue")
    e.add_argument("--out", required=True)
    e.add_argument("--by")
    e.set_defaults(func=cmd_export)

    x = rs.add_parser("close", help="close the queue: its ratings are frozen")
    x.add_argument("queue")
    x.add_argument("--note", help="why")
    x.add_argument("--by")
    x.set_defaults(func=cmd_close)

    g = rs.add_parser("record-agreement",
                      help="a closed --grading queue: record its per-criterion agreement on its dossier")
    g.add_argument("queue")
    g.add_argument("--by")
    add_format(g)
    g.set_defaults(func=cmd_record_agreement)

    r = rs.add_parser("remove-rater", help="remove a rater: their ratings are kept, flagged")
    r.add_argument("queue")
    r.add_argument("--rater", required=True)
    r.add_argument("--note", help="why")
    r.add_argument("--by")
    r.set_defaults(func=cmd_remove_rater)
