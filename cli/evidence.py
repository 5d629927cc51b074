"""``medassure evidence published``, ``winrate``, ``import-helm`` and ``import-inspect``.

Thin wrappers: each command parses its input, calls one ``evaluator`` function and prints JSON.
Bad input (an unknown benchmark, a scores CSV without the required columns, a broken HELM run
folder) exits 2 with a message naming the file, row or name at fault.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from cli._common import actor_named, add_format, emit, fail, open_store, say
from cli.dossier import _author

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).

SCORE_COLUMNS = ("model", "benchmark", "score", "lower_is_better")
TRUTH = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False, "": None}


def _print_text(rows: list[dict], columns: list[str]) -> None:
    frame = pd.DataFrame(rows, columns=columns)
    sys.stdout.write(frame.to_string(index=False) + "\n")


def cmd_published(args: argparse.Namespace) -> int:
    from evaluator import published_evidence

    try:
        evidence = published_evidence(args.benchmark, args.model)
    except ValueError as exc:
        fail(str(exc))
    rows = [e.model_dump(mode="json") for e in evidence]
    if args.format == "text":
        _print_text(rows, ["model", "benchmark", "metric", "score", "n", "ci_lower", "ci_upper"])
    else:
        emit(rows)
    return 0


def read_scores_csv(path: str) -> pd.DataFrame:
    """A user's scores file with columns model, benchmark, score, lower_is_better, validated."""
    p = Path(path)
    if not p.is_file():
        fail(f"{path}: no such file")
    try:
        df = pd.read_csv(p, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        fail(f"{path}: not a readable CSV ({exc})")
    missing = [c for c in SCORE_COLUMNS if c not in df.columns]
    if missing:
        fail(f"{path}: missing column(s) {missing}; required: {list(SCORE_COLUMNS)}")
    scores = pd.to_numeric(df["score"].str.strip(), errors="coerce")
    bad = df.index[scores.isna() & (df["score"].str.strip() != "")]
    if len(bad):
        fail(f"{path}: row {bad[0] + 2}: score {df.loc[bad[0], 'score']!r} is not a number")
    direction = df["lower_is_better"].str.strip().str.lower().map(TRUTH)
    bad = df.index[direction.isna() & ~df["lower_is_better"].str.strip().str.lower().isin([""])]
    if len(bad):
        fail(f"{path}: row {bad[0] + 2}: lower_is_better {df.loc[bad[0], 'lower_is_better']!r} "
             "is not true/false")
    dup = df.duplicated(["model", "benchmark"])
    if dup.any():
        row = df.index[dup][0]
        fail(f"{path}: row {row + 2}: second score for ({df.loc[row, 'model']}, {df.loc[row, 'benchmark']})")
    return df.assign(score=scores, lower_is_better=direction.astype(object))


def cmd_winrate(args: argparse.Namespace) -> int:
    from evaluator import mean_win_rate, published_scores

    if args.published:
        scores = published_scores()
        if args.benchmark:
            unknown = sorted(set(args.benchmark) - set(scores["benchmark"]))
            if unknown:
                fail(f"unknown benchmark(s) {unknown}")
            scores = scores[scores["benchmark"].isin(args.benchmark)]
    else:
        scores = read_scores_csv(args.scores)
    rows = mean_win_rate(scores[list(SCORE_COLUMNS)]).to_dict("records")
    rows = [{"model": r["model"], "mean_win_rate": float(r["mean_win_rate"]),
             "n_columns": int(r["n_columns"])} for r in rows]
    if args.format == "text":
        _print_text(rows, ["model", "mean_win_rate", "n_columns"])
    else:
        emit(rows)
    return 0


def run_summary(run) -> dict:
    """The JSON object ``import-helm`` prints for one run."""
    interval = None
    if run.ci_lower is not None:
        interval = {"lower": run.ci_lower, "upper": run.ci_upper, "method": run.ci_method}
    return {
        "run_name": run.run_name, "benchmark": run.benchmark, "helm_run_group": run.helm_run_group,
        "model": run.model, "metric": run.main_metric, "split": run.main_split, "mean": run.mean,
        "recomputed_mean": run.recomputed_mean, "scored_mean": run.scored_mean, "score": run.score,
        "score_basis": run.score_basis, "n": run.n, "n_unscored": run.n_unscored,
        "unscored": run.unscored_reasons,
        "interval": interval, "prompt_tokens": run.prompt_tokens, "output_tokens": run.output_tokens,
        "n_stats": len(run.stats), "n_requests": len(run.requests), "warnings": run.warnings,
    }


def cmd_import_helm(args: argparse.Namespace) -> int:
    from evaluator import HelmImportError, load_helm_runs

    try:
        runs = load_helm_runs(args.path)
    except HelmImportError as exc:
        fail(str(exc))
    rows = [run_summary(r) for r in runs]
    if args.format == "text":
        _print_text(rows, ["benchmark", "model", "metric", "mean", "score", "n"])
        for row in rows:  # the JSON carries them too; text readers must not miss them
            for warning in row["warnings"]:
                say(f"warning: {row['run_name']}: {warning}")
    else:
        emit(rows)
    return 0


def cmd_import_inspect(args: argparse.Namespace) -> int:
    from evaluator import InspectNotInstalled
    from governance.evidence import attach_inspect_logs, preview_inspect_import

    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        fail(str(InspectNotInstalled()))
    preview = preview_inspect_import(args.path)
    if preview.errors:
        fail("Inspect import failed, nothing imported:\n" + "\n".join(f"  {e}" for e in preview.errors))
    rows = [p.summary() for p in preview.logs]
    result: dict = {"logs": rows}
    if args.dossier:
        store = open_store(args)
        if store.latest_or_none(args.dossier) is None:
            fail(f"no dossier {args.dossier!r}: nothing attached")
        try:
            v = attach_inspect_logs(store, args.dossier, preview, actor=actor_named(_author(args)))
        except ValueError as exc:
            fail(str(exc))
        say(f"attached to {v.dossier.id} as version {v.version} ({v.hash[:12]})")
        result["dossier"] = {"id": v.dossier.id, "version": v.version, "hash": v.hash}
    if args.format == "text":
        _print_text([{**r, **{k: (r["evidence"] or {}).get(k) for k in ("benchmark", "score", "ci_lower",
                                                                        "ci_upper")}} for r in rows],
                    ["task", "model", "scorer", "benchmark", "score", "n", "ci_lower", "ci_upper"])
        for row in rows:
            for note in [*row["warnings"], *([row["not_attachable"]] if row["not_attachable"] else [])]:
                say(f"warning: {row['log_file']}: {note}")
    else:
        emit(result)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``evidence``, ``winrate``, ``import-helm`` and ``import-inspect``."""
    evidence = sub.add_parser("evidence", help="published MedHELM evidence")
    esub = evidence.add_subparsers(dest="evidence_command", required=True)
    p = esub.add_parser("published", help="MedHELM's 9 × 37 published scores with n, interval, provenance")
    p.add_argument("--benchmark", action="append", help="keep this benchmark (repeatable)")
    p.add_argument("--model", action="append", help="keep this model (repeatable)")
    add_format(p)
    p.set_defaults(func=cmd_published)

    p = sub.add_parser("winrate", help="HELM mean win rate over benchmarks")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--published", action="store_true", help="MedHELM's published per-benchmark scores")
    source.add_argument("--scores", metavar="FILE.csv",
                        help="CSV with columns model, benchmark, score, lower_is_better")
    p.add_argument("--benchmark", action="append", help="with --published: restrict to these benchmarks")
    add_format(p)
    p.set_defaults(func=cmd_winrate)

    p = sub.add_parser("import-helm", help="read a HELM benchmark_output/runs/<suite> (or one run) folder")
    p.add_argument("path")
    add_format(p)
    p.set_defaults(func=cmd_import_helm)

    p = sub.add_parser("import-inspect", help="read Inspect evaluation logs (.eval/.json)")
    p.add_argument("path", help="an Inspect log file, or a folder of them")
    p.add_argument("--dossier", metavar="ID", help="attach the logs' evidence to this dossier")
    p.add_argument("--author", help="who attaches it (default $MEDASSURE_USER or the login name)")
    add_format(p)
    p.set_defaults(func=cmd_import_inspect)
