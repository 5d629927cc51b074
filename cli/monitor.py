"""``medassure monitor``: the approved model watched in production (docs/monitoring.md).

* ``monitor import FILE --dossier ID [--candidate NAME] [--source feed|otel|litellm]``: a feed file (CSV,
  JSON lines or Parquet; OTLP JSON spans; a LiteLLM spend-log export), taken whole or not at all. JSON:
  the import's record (``rows_in_file``, ``rows_added``, ``rows_already_stored``, ``file_sha256``, ...),
  ``status``, ``new_signals``, ``version``. Exit 0, or 2 for a bad file (the row and field are named;
  nothing is stored).
* ``monitor status ID [--candidate NAME]``: ``status`` (without ``--candidate``: the dossier's, the worst of
  its watched candidates', each listed in ``candidates``), ``approved`` {candidate, model, prompt_version,
  prompt_version_source}, ``signals``
  [{kind, metric, first_seen, owner, deadline, detail, ...}], ``metrics`` {metric: [{month, n, rate,
  interval, bar}]}, ``rows``. Exit 0 in control, 3 review, 4 pause or suspend, 2 bad input.
* ``monitor event ID --severity {near_miss,minor,moderate,severe} --description TEXT [--output-id ID]``:
  the safety-event register (moderate or worse suspends). Exit as ``status`` after the event.
* ``monitor template``: the feed template (CSV, every column with example rows) on stdout.
* ``monitor go-live ID [--prompt-version V] [--alias NAME ...] [--baseline-rate R | --baseline-start T
  --baseline-end T]``: the chair records what counts as approved in production, appended to the record so
  the decision's sign-offs stand.
* ``monitor events ID [--blinded]``: the safety-event register (blinded: no reporter, descriptions masked);
  ``monitor export ID --out FILE.csv``: the feed without reviewer identifiers or free text.
* ``monitor ack ID SIGNAL`` and ``monitor resolve ID SIGNAL (--reason TEXT | --reevaluation R-...)``:
  what was done about a signal (a suspension is resolved by the chair only).

When a signal asks for a re-evaluation (an unapproved identity, the schedule), the command to run is
printed on stderr.
"""

from __future__ import annotations

import argparse
from typing import Any

from cli._common import add_format, cli_actor, emit, fail, float_flag, open_store, say


def _out(args: argparse.Namespace, payload: dict[str, Any]) -> None:
    """JSON (the contract), or with ``--format text`` the payload's plain fields and signals, one a line."""
    if getattr(args, "format", "json") != "text":
        emit(payload)
        return
    for key, value in payload.items():
        if value is None or isinstance(value, str | int | float | bool):
            print(f"{key.replace('_', ' ')}: {value if value is not None else '-'}")
        elif key == "signals":
            for s in value:
                print(
                    f"  {s['level']} ({s['state']}): {s['detail']}; {s['action']} (owner {s['owner']}, "
                    f"by {s['deadline']})"
                )


EXIT = {"in_control": 0, "review": 3, "pause": 4, "suspend": 4}
SEVERITIES = ("near_miss", "minor", "moderate", "severe")


def status_payload(status: Any) -> dict[str, Any]:
    """The JSON contract of ``medassure monitor status``."""
    a = status.approved
    return {
        "dossier_id": status.dossier_id,
        "status": status.status,
        "approved": {
            "candidate": a.candidate,
            "model": a.model,
            "prompt_version": a.prompt_version,
            "prompt_version_source": a.prompt_source or None,
            "accepted_models": a.accepted_models,
            "source": a.source,
        },
        "signals": [
            {
                "kind": s.kind,
                "metric": s.metric,
                "first_seen": s.first_seen.isoformat(),
                "owner": s.owner,
                "deadline": s.deadline.isoformat(),
                "detail": s.detail,
                "id": s.id,
                "level": s.level,
                "state": s.state,
                "action": s.action,
                "command": s.command,
                "candidate": s.candidate,
            }
            for s in status.signals
        ],
        "metrics": {
            name: [
                {
                    "month": m.month,
                    "n": m.n,
                    "rate": m.rate,
                    "interval": list(m.interval) if m.interval else None,
                    "bar": m.bar,
                    "direction": m.direction,
                    "above_bar": m.above_bar,
                }
                for m in months
            ]
            for name, months in status.metrics.items()
        },
        "rows": status.rows,
        "plan_source": status.plan_source,
        "cusum": [
            {
                "metric": c.metric,
                "kind": c.kind,
                "baseline": c.baseline,
                "baseline_source": c.baseline_source,
                "target_arl0": c.target_arl0,
                "limit": c.limit,
                "signal_index": c.signal_index,
                "first_seen": c.first_seen.isoformat() if c.first_seen else None,
                "detection_delay": c.detection_delay,
                "note": c.note,
            }
            for c in status.cusum
        ],
        "reevaluation_due": status.reevaluation_due.isoformat() if status.reevaluation_due else None,
        "reevaluation_command": status.reevaluation_command,
        "notes": status.notes,
    }


def _tell(status: Any) -> int:
    live = [s for s in status.signals if s.state != "resolved"]
    say(
        f"{status.dossier_id}: {status.status.replace('_', ' ')} ({len(live)} signal(s) open; "
        f"{status.rows:,} feed rows; plan: {status.plan_source})"
    )
    for s in live[:10]:
        say(f"  {s.level}: {s.detail} — {s.action} (owner {s.owner}, by {s.deadline:%Y-%m-%d %H:%M} UTC)")
    if status.reevaluation_command:
        say(f"run: {status.reevaluation_command}")
    return EXIT[status.status]


def _errors() -> tuple[type[BaseException], ...]:
    from pydantic import ValidationError

    from governance.dossier import DossierNotFound
    from governance.monitoring import FeedError, MonitoringError

    return (FeedError, MonitoringError, DossierNotFound, ValidationError)


def _run(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except _errors() as exc:
        from pydantic import ValidationError

        if isinstance(exc, ValidationError):
            fail("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))
        fail(str(exc))


def cmd_import(args: argparse.Namespace) -> int:
    from governance.monitoring import import_feed

    store = open_store(args)
    result = _run(
        import_feed,
        store,
        args.dossier,
        args.file,
        candidate=args.candidate,
        source=args.source,
        actor=cli_actor(args),
    )
    r = result.record
    say(
        f"{r.file_name}: {r.rows_added:,} of {r.rows_in_file:,} rows new ({r.rows_already_stored:,} already "
        f"stored); dossier version {result.version}"
    )
    _tell(result.status)
    _out(
        args,
        {
            **r.model_dump(mode="json"),
            "version": result.version,
            "new_signals": result.new_signals,
            "status": result.status.status,
        },
    )
    return 0


def dossier_payload(overview: Any) -> dict[str, Any]:
    """``status_payload`` of the approved candidate, with the dossier's status, every candidate's signals
    and ``candidates`` (candidate → its level)."""
    first, *others = overview.candidates.values()
    out = status_payload(first)
    for other in others:
        out["signals"] += status_payload(other)["signals"]
    out["status"] = overview.status
    out["candidates"] = {name: s.status for name, s in overview.candidates.items()}
    out["rows"] = sum(s.rows for s in overview.candidates.values())
    return out


def cmd_status(args: argparse.Namespace) -> int:
    from governance.monitoring import dossier_monitoring, monitoring_status

    store = open_store(args, read_only=True)
    if args.candidate:
        status = _run(monitoring_status, store, args.id, candidate=args.candidate)
        code = _tell(status)
        _out(args, status_payload(status))
        return code
    overview = _run(dossier_monitoring, store, args.id)
    for status in overview.candidates.values():
        _tell(status)
    _out(args, dossier_payload(overview))
    return EXIT[overview.status]


def cmd_event(args: argparse.Namespace) -> int:
    from governance.monitoring import monitoring_status, record_event

    store = open_store(args)
    event, version = _run(
        record_event,
        store,
        args.id,
        args.severity,
        args.description,
        output_ids=args.output_id or [],
        candidate=args.candidate,
        actor=cli_actor(args),
    )
    say(f"safety event {event.id} ({event.severity}) recorded in version {version.version}")
    status = _run(monitoring_status, store, args.id, candidate=event.candidate)
    code = _tell(status)
    _out(args, {**event.model_dump(mode="json"), "version": version.version, "status": status.status})
    return code


def cmd_ack(args: argparse.Namespace) -> int:
    from governance.monitoring import acknowledge_signal

    version = _run(
        acknowledge_signal,
        open_store(args),
        args.id,
        args.signal,
        actor=cli_actor(args),
        note=args.note or "",
    )
    say(f"signal {args.signal} acknowledged in version {version.version}")
    _out(
        args,
        {"dossier_id": args.id, "signal": args.signal, "state": "acknowledged", "version": version.version},
    )
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    from governance.monitoring import resolve_signal

    if not args.reason and not args.reevaluation:
        fail("give --reason TEXT or --reevaluation R-... (the re-evaluation that answers the signal)")
    version = _run(
        resolve_signal,
        open_store(args),
        args.id,
        args.signal,
        actor=cli_actor(args),
        reason=args.reason or "",
        reevaluation_id=args.reevaluation,
    )
    say(f"signal {args.signal} resolved in version {version.version}")
    _out(
        args, {"dossier_id": args.id, "signal": args.signal, "state": "resolved", "version": version.version}
    )
    return 0


def _when(text: str):
    from datetime import datetime

    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 date and time") from None
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no zone: add Z or +HH:MM")
    return value


_when.__name__ = "date and time"


def cmd_go_live(args: argparse.Namespace) -> int:
    from governance.monitoring import record_go_live

    version = _run(
        record_go_live,
        open_store(args),
        args.id,
        actor=cli_actor(args),
        candidate=args.candidate,
        prompt_version=args.prompt_version,
        aliases=args.alias or [],
        baseline_rate=args.baseline_rate,
        baseline_start=args.baseline_start,
        baseline_end=args.baseline_end,
        note=args.note or "",
    )
    say(f"go-live settings recorded in version {version.version} (the decision's sign-offs stand)")
    _out(args, {"dossier_id": args.id, "version": version.version})
    return 0


def cmd_events(args: argparse.Namespace) -> int:
    from governance.monitoring import known_candidates, safety_register

    store = open_store(args)
    dossier = _run(lambda: store.load(args.id).dossier)
    if args.candidate is not None:
        recorded = [getattr(e, "candidate", "") for e in dossier.monitoring]
        known = [n for n in dict.fromkeys([*known_candidates(dossier), *recorded]) if n]
        if args.candidate not in known:
            fail(f"no candidate {args.candidate!r} in dossier {args.id} (candidates: {', '.join(known)})")
    rows = safety_register(dossier, args.candidate, blinded=args.blinded)
    say(
        f"{len(rows)} safety event(s)"
        + (" (blinded: no reporter, descriptions masked)" if args.blinded else "")
    )
    _out(args, {"dossier_id": args.id, "blinded": args.blinded, "events": rows})
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from governance.monitoring import export_blinded_feed

    n = _run(export_blinded_feed, open_store(args), args.id, args.out, candidate=args.candidate)
    say(f"{n:,} feed rows written to {args.out} (no reviewer, no free text)")
    _out(args, {"dossier_id": args.id, "out": args.out, "rows": n})
    return 0


def cmd_template(args: argparse.Namespace) -> int:
    import sys

    from governance.monitoring import feed_template

    sys.stdout.write(feed_template())
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "monitor", help="monitoring after go-live: import a feed, status, safety events, signals"
    )
    msub = p.add_subparsers(dest="monitor_command", required=True)

    q = msub.add_parser("import", help="import a production feed file (taken whole or not at all)")
    q.add_argument("file", help="CSV, JSON lines or Parquet feed; OTLP JSON spans; LiteLLM spend-log export")
    q.add_argument("--dossier", required=True, help="dossier id")
    q.add_argument("--candidate", help="candidate the rows are for (default: the approved one)")
    q.add_argument(
        "--source",
        choices=["feed", "otel", "litellm"],
        default="feed",
        help="file format: the feed (default), OpenTelemetry GenAI spans, LiteLLM spend logs",
    )
    q.add_argument("--by", help="who imports (default $MEDASSURE_USER or the login name)")
    add_format(q)
    q.set_defaults(func=cmd_import)

    q = msub.add_parser("template", help="print the feed template (CSV: every column, example rows)")
    q.set_defaults(func=cmd_template)

    q = msub.add_parser("status", help="the ladder: exit 0 in control, 3 review, 4 pause or suspend")
    q.add_argument("id", help="dossier id")
    q.add_argument("--candidate", help="candidate (default: the approved one)")
    add_format(q)
    q.set_defaults(func=cmd_status)

    q = msub.add_parser("event", help="record a safety event (moderate or worse suspends)")
    q.add_argument("id", help="dossier id")
    q.add_argument("--severity", required=True, choices=SEVERITIES)
    q.add_argument("--description", required=True, help="what happened")
    q.add_argument("--output-id", action="append", help="feed row id of an output involved (repeatable)")
    q.add_argument("--candidate", help="candidate (default: the approved one)")
    q.add_argument("--by", help="who reports (default $MEDASSURE_USER or the login name)")
    add_format(q)
    q.set_defaults(func=cmd_event)

    q = msub.add_parser("go-live", help="record the approved prompt version, aliases or baseline (chair)")
    q.add_argument("id", help="dossier id")
    q.add_argument("--candidate", help="candidate (default: the approved one)")
    q.add_argument("--prompt-version", help="the prompt version approved for production")
    q.add_argument("--alias", action="append", help="a served model name accepted as the approved model")
    q.add_argument(
        "--baseline-rate",
        type=float_flag(0, 1, above_low=True),
        help="in-control material-correction rate for the CUSUM (0 to 1)",
    )
    q.add_argument("--baseline-start", type=_when, help="start of the baseline window (ISO 8601 with zone)")
    q.add_argument("--baseline-end", type=_when, help="end of the baseline window")
    q.add_argument("--note", help="why")
    q.add_argument("--by", help="who records it (the chair)")
    add_format(q)
    q.set_defaults(func=cmd_go_live)

    q = msub.add_parser("events", help="the safety-event register (--blinded: no reporter, masked text)")
    q.add_argument("id", help="dossier id")
    q.add_argument("--candidate", help="only this candidate's events")
    q.add_argument("--blinded", action="store_true", help="leave out who reported; mask identifiers")
    add_format(q)
    q.set_defaults(func=cmd_events)

    q = msub.add_parser("export", help="the feed as CSV without reviewer identifiers or free text")
    q.add_argument("id", help="dossier id")
    q.add_argument("--out", required=True, help="CSV file to write")
    q.add_argument("--candidate", help="candidate (default: the approved one)")
    q.set_defaults(func=cmd_export)

    q = msub.add_parser("ack", help="acknowledge a signal (it stays on the ladder until resolved)")
    q.add_argument("id", help="dossier id")
    q.add_argument("signal", help="signal id (S-...)")
    q.add_argument("--note", help="what is being done")
    q.add_argument("--by", help="who acknowledges")
    add_format(q)
    q.set_defaults(func=cmd_ack)

    q = msub.add_parser("resolve", help="resolve a signal with a reason or a re-evaluation (suspend: chair)")
    q.add_argument("id", help="dossier id")
    q.add_argument("signal", help="signal id (S-...)")
    q.add_argument("--reason", help="why it is resolved")
    q.add_argument("--reevaluation", help="the re-evaluation addendum (R-...) that answers it")
    q.add_argument("--by", help="who resolves")
    add_format(q)
    q.set_defaults(func=cmd_resolve)

    from cli.monitor_report import add_report  # the monthly PDF: its own module (pulls reports)

    add_report(msub)
