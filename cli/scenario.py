"""``medassure scenario import|list|redact|results``: the hospital's own cases from the command line.

``scenario import FILE`` reads, maps (``--map column=field``), validates and PHI-scans a CSV, XLSX
or JSONL file and stores it as a new scenario version. When anything is wrong it prints every
problem as {row, column, reason} (JSON on stdout, a summary on stderr), stores nothing and exits 2.
``scenario list`` lists versions; ``scenario redact`` makes a redacted version; ``scenario results
RUN_ID`` prints a run's subgroup table and can attach its Evidence to a dossier. Running a scenario
is ``medassure run --scenario ID`` (``cli.scenario_run``).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from cli._common import (
    MAX_MB,
    MIN_N,
    VERSION,
    actor_named,
    add_format,
    emit,
    fail,
    open_store,
    require_role,
    say,
)

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).


def _pairs(values: list[str] | None, flag: str) -> dict[str, str]:
    out = {}
    for value in values or []:
        key, sep, val = value.partition("=")
        if not sep or not key.strip() or not val.strip():
            fail(f"{flag} {value!r}: write tag=group")
        out[key.strip()] = val.strip()
    return out


def _rejected(path: str, issues: list) -> int:
    emit({"ok": False, "file": path, "stored": False, "errors": [i.model_dump(mode="json") for i in issues]})
    say(f"{path}: {len(issues)} problem(s), nothing stored")
    for issue in issues[:20]:
        say(f"  {issue.line()}")
    return 2


def cmd_import(args: argparse.Namespace) -> int:
    from evaluator import ImportRejected, MappingError, parse_map_args, preview_table, read_table_file
    from governance.scenarios import import_for_dossier

    if args.max_mb <= 0:
        fail(f"--max-mb must be positive (got {args.max_mb})")
    try:
        table = read_table_file(args.file, int(args.max_mb * 1024 * 1024))
        mapping = parse_map_args(args.map or [], table.columns)
    except ImportRejected as exc:
        return _rejected(args.file, exc.issues)
    except MappingError as exc:
        fail(str(exc))
    if args.answer_type:
        mapping = mapping.model_copy(update={"default_answer_type": args.answer_type})
    preview = preview_table(table, mapping)
    if not preview.ok:
        return _rejected(args.file, preview.issues)
    store = open_store(args)
    try:
        if args.scenario and store.scenarios.latest(args.scenario) is None:
            fail(f"--scenario {args.scenario}: no such scenario (`medassure scenario list`); leave it out "
                 "to store a new scenario")
        dossier = store.load(args.dossier).dossier if args.dossier else None
        version = import_for_dossier(store, preview, name=args.name or Path(args.file).stem,
                                     actor=actor_named(args.author),
                                     dossier=dossier, subcategory_ids=args.subcategory,
                                     scenario_id=args.scenario)
    finally:
        store.close()
    emit({"ok": True, "scenario": version.model_dump(mode="json"),
          "phi": preview.phi.model_dump(mode="json")})
    say(f"stored {version.scenario_id} version {version.version}: {version.n_instances} cases; "
        f"{preview.phi.summary()}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from governance.scenarios import scenario_rows

    store = open_store(args)
    try:
        emit(scenario_rows(store))
    finally:
        store.close()
    return 0


def cmd_redact(args: argparse.Namespace) -> int:
    from governance.scenarios import redact_scenario

    store = open_store(args)
    try:
        version = redact_scenario(store, args.scenario_id, actor=actor_named(args.author),
                                  version=args.version)
    except (KeyError, ValueError) as exc:
        fail(str(exc.args[0]) if exc.args else str(exc))
    finally:
        store.close()
    emit(version.model_dump(mode="json"))
    return 0


def cmd_results(args: argparse.Namespace) -> int:
    from evaluator import scenario_results
    from governance.scenarios import attach_scenario_run

    if args.min_n < 1:
        fail(f"--min-n must be at least 1 (got {args.min_n})")
    refs = _pairs(args.reference, "--reference")
    store = open_store(args)
    try:
        try:
            results = scenario_results(store, args.run_id, min_n=args.min_n, reference_groups=refs)
        except KeyError as exc:
            fail(str(exc.args[0]))
        v = results.version
        out: dict[str, Any] = {"run_id": args.run_id, "scenario_id": v.scenario_id, "version": v.version,
                               "summary": results.summary.model_dump(mode="json"),
                               "subgroups": results.subgroups.json_rows(),
                               "notes": results.subgroups.notes}
        if results.unscored_note:
            out["unscored_note"] = results.unscored_note
        if args.attach_to:
            note = f"evidence: local scenario run {args.run_id}"
            require_role("editor", "attach a scenario run as evidence", args.attach_to, args=args,
                         flag="author")
            saved = store.update(  # onto the latest version: a change saved meanwhile is kept
                args.attach_to, lambda d: attach_scenario_run(store, d, args.run_id, by=args.author,
                                                              reference_groups=refs, min_n=args.min_n),
                author=args.author, note=note)
            out["attached"] = {"dossier_id": saved.dossier.id, "version": saved.version, "hash": saved.hash}
    finally:
        store.close()
    emit(out)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``scenario import|list|redact|results``."""
    author = os.environ.get("MEDASSURE_USER", "cli")
    top = sub.add_parser("scenario", help="local scenarios: the hospital's own cases", description=__doc__)
    cmds = top.add_subparsers(dest="scenario_command", required=True)

    p = cmds.add_parser("import", help="validate and store a CSV, XLSX or JSONL file of cases")
    p.add_argument("file")
    p.add_argument("--map", action="append", metavar="COLUMN=FIELD",
                   help="field: id, context, question, reference, answer_type, choices, lower, upper, tag, "
                        "tag:<name> or ignore (repeatable; other columns are matched by their names)")
    p.add_argument("--dossier", help="dossier the scenario is for (maps its accepted subcategories)")
    p.add_argument("--subcategory", action="append",
                   help="subcategory id (repeatable; overrides the dossier's)")
    p.add_argument("--name", help="scenario name (default: the file name)")
    p.add_argument("--scenario", help="store as a new version of this scenario id")
    p.add_argument("--answer-type", choices=["choice", "exact", "numeric_range", "free_text"],
                   help="answer type of rows that give none (default: inferred per row)")
    p.add_argument("--max-mb", type=MAX_MB, default=20.0, help="file size limit in MB (default 20)")
    p.add_argument("--author", default=author, help="who imports (default $MEDASSURE_USER)")
    add_format(p)
    p.set_defaults(func=cmd_import)

    p = cmds.add_parser("list", help="scenario versions, newest first")
    add_format(p)
    p.set_defaults(func=cmd_list)

    p = cmds.add_parser("redact", help="a new version with identifiers replaced by [PHONE], [NAME], ...")
    p.add_argument("scenario_id")
    p.add_argument("--version", type=VERSION, help="version to redact (default: the latest)")
    p.add_argument("--author", default=author)
    add_format(p)
    p.set_defaults(func=cmd_redact)

    p = cmds.add_parser("results", help="a scenario run's summary and subgroup table")
    p.add_argument("run_id")
    p.add_argument("--reference", action="append", metavar="TAG=GROUP", help="reference group of a tag")
    p.add_argument("--min-n", type=MIN_N, default=10,
                   help="suppress groups with fewer scored cases (default 10)")
    p.add_argument("--attach-to", metavar="DOSSIER", help="attach the run's Evidence to this dossier")
    p.add_argument("--author", default=author)
    add_format(p)
    p.set_defaults(func=cmd_results)
