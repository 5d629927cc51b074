"""What ``medassure run``, ``run --scenario`` and ``jury`` share: exit codes, the endpoint from the
flags, the progress bar on stderr, and the PHI gate's flags and exit (``EXIT_PHI_BLOCKED``).

Why a module of its own: ``cli.run`` hands ``--scenario`` over to ``cli.scenario_run``, which needs
these too; keeping them here lets both import them at module level without an import cycle.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli._common import emit, fail, say

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).

EXIT_STOPPED, EXIT_ALL_FAILED, EXIT_PHI_BLOCKED = 3, 4, 5
PHI_HELP = """PHI gate: cases (and, for a jury, model outputs) with likely patient identifiers are not sent
to an endpoint unless it is approved for PHI (--phi-approved) or the cases carry a recorded
de-identification attestation (--deidentified-by NAME --deidentification-method
safe_harbor|expert_determination; kept with the file's SHA-256, and in the dossier given with
--dossier). A blocked run sends nothing and exits 5."""


class ProgressBar:
    """Progress on stderr: the tqdm bar notebooks also use on a terminal, else a line per 10%."""

    def __init__(self, label: str) -> None:
        from evaluator import tqdm_progress

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

    from evaluator import ModelEndpoint, default_transport

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
            transport=args.transport or default_transport(args.model, args.api_base),
            phi_approved=bool(getattr(args, "phi_approved", False)),
        )
    except ValidationError as exc:
        fail("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))


def interrupted_run() -> int:
    """Ctrl-C during a run: the job was cancelled and what it received is kept, so this is a stop (exit 3,
    docs/cli.md), resumed by the same command, not the generic 130 of other commands."""
    say("interrupted: the run was cancelled (answers already received are kept); run the same command "
        "again to resume")
    return EXIT_STOPPED


def run_exit_code(summary) -> int:
    """0, or ``EXIT_STOPPED`` / ``EXIT_ALL_FAILED`` with the reason on stderr.

    Shared by ``medassure run --benchmark`` and ``medassure run --scenario``.
    """
    if summary.status != "completed":
        from evaluator import RESENT_NOTE

        say(f"run {summary.run_id} stopped: {summary.status}; run the same command again to resume "
            f"({RESENT_NOTE})")
        return EXIT_STOPPED
    if summary.n and summary.n_errors == summary.n:
        say(f"every instance failed: {summary.errors}")
        return EXIT_ALL_FAILED
    return 0


def add_attestation_arguments(p: argparse.ArgumentParser) -> None:
    """``--deidentified-by``, ``--deidentification-method``, ``--deidentification-note``."""
    p.add_argument("--deidentified-by", metavar="NAME",
                   help="record that the cases are de-identified, attested by NAME (with the method)")
    p.add_argument("--deidentification-method", choices=["safe_harbor", "expert_determination"],
                   help="how they were de-identified: HIPAA Safe Harbor or an expert determination")
    p.add_argument("--deidentification-note", default="",
                   help="optional detail, e.g. who made the expert determination")


def attestation_input(args: argparse.Namespace):
    """The attestation the flags give, or None (exit 2 when only one of name and method is given)."""
    from pydantic import ValidationError

    from evaluator import AttestationInput

    by, method = getattr(args, "deidentified_by", None), getattr(args, "deidentification_method", None)
    if not by and not method:
        return None
    if not (by and by.strip() and method):
        fail("an attestation needs both --deidentified-by NAME and --deidentification-method "
             "safe_harbor|expert_determination")
    try:
        return AttestationInput(attested_by=by, method=method, note=args.deidentification_note or "")
    except ValidationError as exc:
        fail("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))


def phi_blocked(check: Any, head: dict[str, Any] | None = None) -> int:
    """Print a blocked PHI check (JSON on stdout, the explanation and the flags to proceed on stderr)."""
    emit({"blocked": True, **(head or {}), "phi_check": check.model_dump(mode="json")})
    say(check.explanation)
    say("On the command line: add --phi-approved if the endpoint is approved for PHI, or record that the "
        "cases are de-identified with --deidentified-by NAME --deidentification-method "
        "safe_harbor|expert_determination.")
    return EXIT_PHI_BLOCKED
