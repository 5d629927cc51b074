"""Helpers every CLI topic shares: JSON output, user-facing errors, opening the store."""

from __future__ import annotations

import argparse
import json
import sys
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
    from governance.dossier.store import StoreError
    from governance.dossier.taxonomy import TaxonomyError

    return (StoreError, TaxonomyError)


def emit(obj: Any) -> None:
    """Print one JSON document to stdout."""
    if isinstance(obj, BaseModel):
        obj = obj.model_dump(mode="json")
    json.dump(obj, sys.stdout, indent=2, default=str, ensure_ascii=False)
    sys.stdout.write("\n")


def say(message: str) -> None:
    """A human message on stderr."""
    print(message, file=sys.stderr)


def add_format(parser: argparse.ArgumentParser) -> None:
    """The ``--format`` option (JSON is the contract; text is a summary for people)."""
    parser.add_argument("--format", choices=["json", "text"], default="json")


def open_store(args: argparse.Namespace):
    """Open the store named by ``--home`` (or the default home)."""
    import warnings

    from governance.dossier.store import Store, StoreWarning

    home = getattr(args, "home", None)
    with warnings.catch_warnings():  # said once below, without Python's file:line prefix
        warnings.simplefilter("ignore", StoreWarning)
        store = Store.open(Path(home) / "medassure.duckdb" if home else None)
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
    try:
        return json.loads(p.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError as exc:
        fail(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})")
    except json.JSONDecodeError as exc:
        fail(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
