"""The ``medassure`` command line: the interface pipelines use to build and re-run dossiers.

Each topic module defines ``register(subparsers)``; this module assembles them. Contract:
JSON on stdout, messages on stderr, exit 0 on success and 2 on bad input (other codes where a
command says so). Errors meant for users are raised as ``CliError`` or one of the packages'
own user-facing errors and printed as one line, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from cli._common import LOCAL_ACTORS, CliError, local_mode_warning, os_error_line, user_errors

COMMAND_MODULES = [
    "cli.dossier",
    "cli.evidence",
    "cli.run",
    "cli.attach",
    "cli.policy",
    "cli.report",
    "cli.scenario",
    "cli.jury",
    "cli.grade",
    "cli.reevaluate",
    "cli.candidates",
    "cli.verify",
    "cli.verify_export",
    "cli.db_roles",
    "cli.records",
    "cli.review",
    "cli.monitor",
    "cli.canary",
    "cli.rehearse",
]


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every registered command."""
    parser = argparse.ArgumentParser(prog="medassure", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--home", help="folder holding medassure.duckdb (default $MEDASSURE_HOME or ~/.medassure)"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # a topic not built yet
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code (also used as the console-script entry)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed usage; bad input is 2
        return int(exc.code or 0)
    LOCAL_ACTORS.clear()
    try:
        code = int(args.func(args) or 0)
        warning = local_mode_warning()
        if warning and code == 0:
            print(warning, file=sys.stderr)
        return code
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.code
    except user_errors() as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a full disk, a read-only folder: one line, like every other refusal
        print(f"error: {os_error_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
