"""docs/cli.md says what the parser does (issue 36 item 20: it said JSON is every command's default while
``dossier create`` printed a bare id)."""

from __future__ import annotations

import argparse
from pathlib import Path

from cli import build_parser

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def _commands(parser: argparse.ArgumentParser, prefix: str = ""):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, f"{prefix} {name}".strip())
            return
    yield prefix, parser


def test_every_command_whose_default_is_not_json_is_named_as_an_exception_in_the_contract():
    contract = DOCS.read_text(encoding="utf-8").split("## The contract", 1)[1].split("\n## ", 1)[0]
    odd = []
    for name, parser in _commands(build_parser()):
        fmt = next((a for a in parser._actions if "--format" in a.option_strings), None)
        if fmt is not None and fmt.default != "json" and "json" in (fmt.choices or []):
            odd.append(name)
    assert odd == ["dossier create"]
    assert all(f"`{name}` prints" in " ".join(contract.split()) for name in odd), contract
