"""Helpers every CLI topic shares: JSON output, user-facing errors, opening the store."""

from __future__ import annotations

import argparse
import getpass
import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).


class CliError(Exception):
    """An error for the user: printed as one line, exits with ``code``."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def fail(message: str, code: int = 2) -> None:
    """Stop the command with a user-facing message."""
    raise CliError(message, code)


def user_errors() -> tuple[type[BaseException], ...]:
    """Exception types whose message is already written for users."""
    from governance.dossier import PracticeRefused, StoreError
    from governance.identity import IdentityConfigError, PermissionDenied
    from governance.mapping import TaxonomyError

    return (StoreError, TaxonomyError, PermissionDenied, IdentityConfigError, PracticeRefused)


def os_error_line(exc: OSError) -> str:
    """An OSError as one line: ``FILE: reason`` (``No space left on device``, say).

    Example:
        >>> os_error_line(OSError(28, "No space left on device", "d.pdf"))
        'd.pdf: No space left on device'
    """
    reason = exc.strerror or str(exc)
    return f"{exc.filename}: {reason}" if exc.filename else reason


def _finite(obj: Any) -> Any:
    """``obj`` with every NaN or infinity as None: JSON has no NaN, and a pipeline's parser refuses it."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj


def emit(obj: Any) -> None:
    """Print one JSON document to stdout (strict JSON: a value that is not a number is null)."""
    if isinstance(obj, BaseModel):
        obj = obj.model_dump(mode="json")
    json.dump(_finite(obj), sys.stdout, indent=2, default=str, ensure_ascii=False, allow_nan=False)
    sys.stdout.write("\n")


def say(message: str) -> None:
    """A human message on stderr."""
    print(message, file=sys.stderr)


def int_flag(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number in ``[low, high]``; anything else exits 2 with a reason.

    Example:
        >>> int_flag(1, 64)("8")
        8
    """

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range: give {low} to {high:,}")
        return value

    parse.__name__ = "whole number"
    return parse


def float_flag(low: float, high: float, *, above_low: bool = False) -> Callable[[str], float]:
    """An argparse ``type`` for a finite number in ``[low, high]`` (``(low, high]`` with ``above_low``).

    ``float()`` accepts ``nan``, ``inf`` and ``1e999``; a flag never means those, so they are refused.

    Example:
        >>> float_flag(0, 1024, above_low=True)("2.5")
        2.5
    """

    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if value > high or value < low or (above_low and value == low):
            bound = f"more than {low:g}" if above_low else f"{low:g} or more"
            raise argparse.ArgumentTypeError(f"{value:g} is out of range: give {bound}, at most {high:,g}")
        return value

    parse.__name__ = "number"
    return parse


# The numeric flags of every command, in one place: each range is wider than any real use.
VERSION = int_flag(1, 1_000_000)
"""A dossier or scenario version number."""
CONCURRENCY = int_flag(1, 256)
"""Requests in flight."""
WORKERS = int_flag(1, 64)
"""Worker processes."""
LIMIT = int_flag(1, 10_000_000)
"""First N instances."""
MIN_N = int_flag(1, 1_000_000)
"""Smallest subgroup size."""
N_BOOT = int_flag(100, 100_000)
"""Bootstrap resamples."""
USD = float_flag(0, 1_000_000)
"""A spending cap in US dollars."""
PRICE = float_flag(0, 10_000)
"""US dollars per million tokens."""
RPM = float_flag(0, 1_000_000, above_low=True)
"""Requests per minute."""
TIMEOUT = float_flag(0, 3600, above_low=True)
"""Seconds per request."""
MAX_MB = float_flag(0, 1024, above_low=True)
"""A file size limit in megabytes."""


def add_format(parser: argparse.ArgumentParser) -> None:
    """The ``--format`` option (JSON is the contract; text is a summary for people)."""
    parser.add_argument("--format", choices=["json", "text"], default="json")


def open_store(args: argparse.Namespace, *, read_only: bool = False):
    """Open the store named by ``--home`` (or the default home); ``read_only`` for commands that only read.

    A read-only open lets several reading commands hold a DuckDB file at once (``Store.open``).
    """
    import warnings

    from governance import Store
    from governance.dossier import StoreWarning

    home = getattr(args, "home", None)
    with warnings.catch_warnings():  # said once below, without Python's file:line prefix
        warnings.simplefilter("ignore", StoreWarning)
        store = Store.open(Path(home) / "medassure.duckdb" if home else None, read_only=read_only)
    for note in store.open_warnings:
        say(f"warning: {note}")
    return store


def validation_message(exc: ValidationError, source: str) -> str:
    """One line per invalid field: ``source: field.path: reason``."""
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(document)"
        lines.append(f"{source}: {loc}: {err['msg']}")
    return "invalid input\n" + "\n".join(lines)


def read_json_file(path: str) -> Any:
    """Parse a JSON file with errors that name the file and the position."""
    p = Path(path)
    if not p.is_file():
        fail(f"{path}: no such file")
    from evaluator import JsonRefused, parse_json

    try:
        return parse_json(p.read_text(encoding="utf-8-sig"))
    except JsonRefused as exc:
        fail(f"{path}: not accepted: {exc}")
    except UnicodeDecodeError as exc:
        fail(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})")
    except json.JSONDecodeError as exc:
        fail(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")


def cli_identity(args: argparse.Namespace | None = None, flag: str = "by"):
    """Who the command acts as: the deployment's service identity, else ``acting_name`` (local).

    Every write the command makes is checked against this identity's roles in the operations; in a
    shared (OIDC or proxy) deployment a local name holds no role, so writes need the service identity.
    """
    return identity_named(acting_name(args, flag))


def cli_actor(args: argparse.Namespace | None = None, flag: str = "by"):
    """The command's ``Actor``: recorded as ``acting_name``, checked and labelled as ``cli_identity``."""
    from governance.identity import Actor

    return Actor.of(cli_identity(args, flag), name=acting_name(args, flag))


def actor_named(name: str):
    """The command's ``Actor`` acting for ``name``: recorded as ``name``, checked as ``identity_named``."""
    from governance.identity import Actor

    return Actor.of(identity_named(name), name=name)


LOCAL_ACTORS: list[str] = []
"""Who this command acted as without any identity configuration (``main`` says so once, after it)."""


def identity_named(name: str | None):
    """The command's identity when it acts for ``name``: the service identity when configured, else local."""
    from governance.identity import command_line_identity, identity_configured, load_config

    config = load_config()
    if config.mode == "local" and not identity_configured() and name and name not in LOCAL_ACTORS:
        LOCAL_ACTORS.append(name)
    return command_line_identity(name, config.service_identity)


def local_mode_warning() -> str | None:
    """The one line a command prints after acting with no identity configuration, or None."""
    if not LOCAL_ACTORS:
        return None
    return (f"warning: no identity configuration (identity.toml or MEDASSURE_IDENTITY_FILE): acted as "
            f"{', '.join(LOCAL_ACTORS)}, local and unauthenticated, holding every role")


def require_role(role: str, action: str, dossier_id: str | None = None,
                 args: argparse.Namespace | None = None, flag: str = "by") -> None:
    """Refuse (exit 2, naming the role) a write the command's identity may not make; nothing is written."""
    from governance.identity import require

    require(cli_identity(args, flag), role, action, dossier_id)


def acting_name(args: argparse.Namespace | None = None, flag: str = "by") -> str:
    """Who acts: the command's ``--by`` (or ``--author``) flag, else $MEDASSURE_USER, else the login name."""
    given = getattr(args, flag, None) if args is not None else None
    if given:
        return given
    try:
        return os.environ.get("MEDASSURE_USER") or getpass.getuser()
    except (KeyError, OSError):
        return "cli"
