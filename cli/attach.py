"""``medassure attach RUN_ID --dossier ID``: attach a completed run's Evidence to a dossier
(``--grading GRADING_ID`` instead of RUN_ID: a rubric grading's score; ``attach_grading``).

For pipelines that run first and attach later (or attach a run made on the Run evidence page).
Thin wrapper over ``governance.runs.operations.attach.attach_completed_run``, which takes benchmark
and local-scenario runs alike. ``medassure run --dossier ID`` calls the same function after its
run. Exit 0 when the Evidence is on the dossier (attached now or before), 2 when the dossier or the
run does not exist, or the run did not complete.
"""

from __future__ import annotations

import argparse
from typing import Any

from cli._common import acting_name, actor_named, add_format, emit, fail, open_store, say

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).


def who(args: argparse.Namespace | None = None) -> str:
    """The acting person: ``--by``, else $MEDASSURE_USER, else the login name."""
    return acting_name(args, "by")


def require_dossier(store: Any, dossier_id: str) -> None:
    """Exit 2 naming the dossier when it does not exist (checked before any run starts)."""
    if store.latest_or_none(dossier_id) is None:
        fail(f"no dossier {dossier_id!r}: nothing was run or attached "
             "(`medassure dossier list` shows the ids)")


def attach_run_to(store: Any, dossier_id: str, run_id: str, by: str) -> dict[str, Any]:
    """Attach and return the JSON object ``attach`` prints (and ``run --dossier`` nests as ``attached``)."""
    from governance.runs import RunInputError, attach_completed_run

    try:
        done = attach_completed_run(store, dossier_id, run_id, actor=actor_named(by))
    except RunInputError as exc:
        fail(f"not attached to {dossier_id}: {exc}")
    if done.added:
        say(f"dossier {dossier_id}: version {done.version} holds run {run_id} "
            f"({done.added} evidence record(s))")
    else:
        say(f"dossier {dossier_id}: run {run_id} was already attached (version {done.version} unchanged)")
    return {"dossier_id": done.dossier_id, "version": done.version, "hash": done.hash, "run_id": run_id,
            "kind": done.kind, "evidence_ids": done.evidence_ids, "added": done.added}


def attach_grading_to(store: Any, dossier_id: str, grading_id: str, by: str) -> dict[str, Any]:
    """Attach a rubric grading and return the JSON object ``attach --grading`` prints."""
    from evaluator import GradingError
    from governance.scenarios import attach_grading

    before = store.latest_or_none(dossier_id)
    try:
        version = attach_grading(store, dossier_id, grading_id, actor=actor_named(by))
    except GradingError as exc:
        fail(f"not attached to {dossier_id}: {exc}")
    added = before is None or version.version != before.version
    ids = [e.id for e in version.dossier.evidence if e.source == grading_id]
    say(f"dossier {dossier_id}: " + (f"version {version.version} holds grading {grading_id}" if added
                                      else f"grading {grading_id} was already attached (version unchanged)"))
    return {"dossier_id": dossier_id, "version": version.version, "hash": version.hash,
            "grading_id": grading_id, "kind": "grading", "evidence_ids": ids,
            "added": len(ids) if added else 0}


def cmd_attach(args: argparse.Namespace) -> int:
    if bool(args.run_id) == bool(args.grading):
        fail("give exactly one of RUN_ID or --grading GRADING_ID")
    store = open_store(args)
    try:
        require_dossier(store, args.dossier)
        if args.grading:
            emit(attach_grading_to(store, args.dossier, args.grading, who(args)))
        else:
            emit(attach_run_to(store, args.dossier, args.run_id, who(args)))
    finally:
        store.close()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``attach``."""
    p = sub.add_parser("attach", help="attach a completed run (benchmark or local scenario) to a dossier",
                       description=__doc__)
    p.add_argument("run_id", nargs="?", help="the run id `medassure run` printed")
    p.add_argument("--grading", metavar="GRADING_ID",
                   help="attach a rubric grading (`medassure grade`) instead of a run: the scenario's score "
                        "for the graded candidate, with n and an interval for a mean")
    p.add_argument("--dossier", required=True, help="dossier id")
    p.add_argument("--by", help="who attaches it (default $MEDASSURE_USER or the login name)")
    add_format(p)
    p.set_defaults(func=cmd_attach)
