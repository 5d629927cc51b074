"""What ``medassure run`` and ``medassure run --scenario`` share: exit codes, the endpoint from the
flags, and the progress bar on stderr.

Why a module of its own: ``cli.run`` hands ``--scenario`` over to ``cli.scenario_run``, which needs
these too; keeping them here lets both import them at module level without an import cycle.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli._common import fail, say

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).

EXIT_STOPPED, EXIT_ALL_FAILED = 3, 4


class ProgressBar:
    """Progress on stderr: the tqdm bar notebooks also use on a terminal, else a line per 10%."""

    def __init__(self, label: str) -> None:
        from evaluator.runs.progress import tqdm_progress

        self.label, self.tty, self.last_decile = label, sys.stderr.isatty(), -1
        self.bar = tqdm_progress(label, file=sys.stderr, notebook=False) if self.tty else None

    def __call__(self, done: int, total: int, row: dict[str, Any] | None) -> None:
        frac = done / total if total else 1.0
        if self.bar is not None:
            self.bar(done, total, row)
        elif int(frac * 10) > self.last_decile:
            self.last_decile = int(frac * 10)
            say(f"{self.label}: {done}/{total}")


def endpoint_from_args(args: argparse.Namespace):
    """The ``ModelEndpoint`` the run flags describe (exit 2 with the reasons when they do not fit)."""
    from pydantic import ValidationError

    from evaluator.gateway.llm import ModelEndpoint

    try:
        return ModelEndpoint(
            name=args.name or args.model,
            model=args.model,
            api_base=args.api_base,
            api_key_env=args.api_key_env,
            input_price_per_mtok=args.input_price,
            output_price_per_mtok=args.output_price,
            max_concurrency=max(args.concurrency, 1),
            requests_per_minute=args.rpm,
            timeout_s=args.timeout,
            transport=args.transport,
        )
    except ValidationError as exc:
        fail("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))


def run_exit_code(summary) -> int:
    """0, or ``EXIT_STOPPED`` / ``EXIT_ALL_FAILED`` with the reason on stderr.

    Shared by ``medassure run --benchmark`` and ``medassure run --scenario``.
    """
    if summary.status != "completed":
        say(f"run {summary.run_id} stopped: {summary.status}; run the same command again to resume")
        return EXIT_STOPPED
    if summary.n and summary.n_errors == summary.n:
        say(f"every instance failed: {summary.errors}")
        return EXIT_ALL_FAILED
    return 0
