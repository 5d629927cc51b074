"""``medassure canary``: frozen known-answer cases re-asked of the approved endpoint (docs/monitoring.md).

* ``canary set ID [--cases N] [--every DAYS] [--dry-run]`` (chair or editor): freezes N cases of the decided
  runs (stratified over the frozen plan's benchmarks, known answers only) and their baseline (the stored
  answers: no model call; a decided run without stored answers is asked once, through the run path, and
  that run is recorded as its baseline). The cost (tokens × the endpoint's price × runs per year) is
  printed on stderr first; ``--dry-run`` prints it and freezes nothing. JSON: ``canary_id``, ``candidate``,
  ``n``, ``baseline_correct``, ``every_days``, ``benchmarks`` {benchmark: cases}, ``baseline_digest``,
  ``baseline_runs`` {decided run: fresh baseline run}, ``version``, ``cost_per_run_usd``, ``runs_per_year``,
  ``cost_per_year_usd``, ``price_source``. Exit 0, or 2.
* ``canary run ID [--format json]`` asks the approved endpoint again (never the cache) and compares with the
  baseline. JSON: ``status`` (in_control | drift | identity_changed | unreachable), ``n``,
  ``baseline_correct``, ``now_correct``, ``lost``, ``gained``, ``p_value``, ``changed_answers``,
  ``served_model``, ``confirmed``, ``signal_id``. Exit 0 in control, 3 drift or identity change,
  4 unreachable, 2 bad input.
* ``canary run --due``: every dossier whose canary is due; JSON ``{"runs": {ID: payload}}``, exit the worst.
"""

from __future__ import annotations

import argparse
from typing import Any

from cli._common import add_format, cli_actor, emit, fail, int_flag, open_store, say

EXIT = {"in_control": 0, "drift": 3, "identity_changed": 3, "unreachable": 4}


def _errors() -> tuple[type[BaseException], ...]:
    from governance.dossier import DossierNotFound
    from governance.monitoring import MonitoringError

    return (MonitoringError, DossierNotFound)


def run_payload(record: Any) -> dict[str, Any]:
    """The JSON contract of ``canary run`` (figures of the last attempt: the confirmation when made)."""
    last = record.attempts[-1]
    return {
        "status": record.status,
        "n": last.n,
        "baseline_correct": last.baseline_correct,
        "now_correct": last.now_correct,
        "lost": last.lost,
        "gained": last.gained,
        "p_value": last.p_value,
        "changed_answers": last.changed_answers,
        "served_model": last.served_model,
        "confirmed": record.confirmed,
        "signal_id": record.signal_id,
        "canary_run_id": record.id,
        "canary_id": record.canary_id,
        "attempts": len(record.attempts),
    }


def _text(payload: dict[str, Any]) -> None:
    for key, value in payload.items():
        print(f"{key.replace('_', ' ')}: {value if value is not None else '-'}")


def cost_payload(preview: Any) -> dict[str, Any]:
    """The cost keys of ``canary set``: USD per run (tokens × the endpoint's price), runs and USD per year."""
    return {"cost_per_run_usd": preview.cost_per_run_usd, "runs_per_year": preview.runs_per_year,
            "cost_per_year_usd": preview.cost_per_year_usd, "price_source": preview.price_source}


def _cost_line(preview: Any) -> str:
    if preview.cost_per_run_usd is None:
        return f"cost unknown: {preview.price_source}"
    return (f"cost: USD {preview.cost_per_run_usd:.4f} per run x {preview.runs_per_year:g} runs a year = "
            f"USD {preview.cost_per_year_usd:.2f} a year (a finding asks once more; {preview.price_source})")


def cmd_set(args: argparse.Namespace) -> int:
    from governance.monitoring import preview_canary, set_canary

    store = open_store(args)
    try:
        preview = preview_canary(store, args.id, cases=args.cases, every_days=args.every)
        say(_cost_line(preview))
        if args.dry_run:
            emit({"candidate": preview.candidate, "n": len(preview.cases),
                  "baseline_correct": sum(c.correct for c in preview.cases), "every_days": preview.every_days,
                  "fresh_baseline": preview.fresh_baseline, "dry_run": True, **cost_payload(preview)})
            return 0
        record, version = set_canary(store, args.id, actor=cli_actor(args), cases=args.cases,
                                     every_days=args.every)
        if preview.fresh_baseline:  # priced by the baseline just asked
            preview = preview_canary(store, args.id, cases=args.cases, every_days=args.every)
            say(f"baseline asked once: {_cost_line(preview)}")
    except _errors() as exc:
        fail(str(exc))
    benchmarks: dict[str, int] = {}
    for c in record.cases:
        benchmarks[c.benchmark] = benchmarks.get(c.benchmark, 0) + 1
    emit({"canary_id": record.id, "candidate": record.candidate, "n": len(record.cases),
          "baseline_correct": sum(c.correct for c in record.cases), "every_days": record.every_days,
          "alpha": record.alpha, "benchmarks": benchmarks, "baseline_digest": record.baseline_digest,
          "baseline_runs": record.baseline_runs or {}, "version": version.version, **cost_payload(preview)})
    return 0


def _one(store: Any, dossier_id: str, args: argparse.Namespace) -> dict[str, Any]:
    from governance.monitoring import run_canary

    outcome = run_canary(store, dossier_id, actor=cli_actor(args), batch=bool(getattr(args, "batch", False)))
    payload = run_payload(outcome.record)
    if outcome.record.signal_id:
        say(f"signal {outcome.record.signal_id} raised ({outcome.record.status}); see "
            f"`medassure monitor status {dossier_id}`")
    return payload


def cmd_run(args: argparse.Namespace) -> int:
    from governance.monitoring import due_canaries

    if bool(args.id) == bool(args.due):
        fail("name one dossier, or --due for every dossier whose canary is due")
    store = open_store(args)
    try:
        if not args.due:
            payload = _one(store, args.id, args)
            emit(payload) if args.format == "json" else _text(payload)
            return EXIT[payload["status"]]
        runs = {}
        for dossier_id in due_canaries(store):
            try:
                runs[dossier_id] = _one(store, dossier_id, args)
            except _errors() as exc:  # one dossier's refusal does not stop the others
                say(f"{dossier_id}: {exc}")
                runs[dossier_id] = {"status": "error", "error": str(exc)}
    except _errors() as exc:
        fail(str(exc))
    emit({"runs": runs})
    codes = [EXIT.get(p["status"], 2) for p in runs.values()]
    return max(codes, default=0)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("canary", help="frozen known-answer cases re-asked of the approved endpoint")
    csub = p.add_subparsers(dest="canary_command", required=True)
    q = csub.add_parser("set", help="freeze the canary's cases and baseline (chair or editor; asks no model "
                        "unless a decided run holds no stored answers)")
    q.add_argument("id", help="dossier id")
    q.add_argument("--cases", type=int_flag(1, 10_000), help="cases to freeze (default by risk tier)")
    q.add_argument("--every", type=int_flag(1, 366), help="days between scheduled runs (default 30)")
    q.add_argument("--dry-run", action="store_true",
                   help="print the cases and the cost per run and per year; freeze nothing")
    q.add_argument("--by", help="who sets it (default $MEDASSURE_USER or the login name)")
    q.set_defaults(func=cmd_set)
    q = csub.add_parser("run", help="ask the approved endpoint the canary's cases again and compare")
    q.add_argument("id", nargs="?", help="dossier id (or --due)")
    q.add_argument("--due", action="store_true", help="run every dossier whose canary is due (for cron)")
    q.add_argument("--batch", action="store_true",
                   help="ask through the Batch API at the batch rate (a result within the provider's window)")
    q.add_argument("--by", help="who runs it (default $MEDASSURE_USER or the login name)")
    add_format(q)
    q.set_defaults(func=cmd_run)
