"""Every dotted code name the docs give in backticks imports (issue 36 item 20: review-queues.md named
``evaluator.statistics.wilson_interval``, which does not), and CONTRIBUTING counts the Makefile's pytest
processes."""

from __future__ import annotations

import importlib
import re

from tests.conftest import REPO

PAGES = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
NAME = re.compile(r"`((?:evaluator|governance|reports|cli)(?:\.\w+)+)(?:\(\))?`")


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):  # the longest importable module, then attributes
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def test_every_code_name_in_the_docs_imports():
    named = {(p.name, n) for p in PAGES for n in NAME.findall(p.read_text(encoding="utf-8"))}
    assert len(named) > 10
    assert [(page, n) for page, n in sorted(named) if not _resolves(n)] == []


def test_contributing_counts_the_pytest_processes_make_test_runs():
    make = (REPO / "Makefile").read_text(encoding="utf-8").split("\ntest:", 1)[1].split("\n\n", 1)[0]
    runs = len(re.findall(r"^\t\$\(PY\) -m pytest", make, flags=re.M))
    words = {2: "two", 3: "three", 4: "four"}
    lines = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8").splitlines()
    line = next(x for x in lines if x.startswith("| `make test`"))
    assert f"in {words[runs]} pytest processes" in line, (runs, line)
