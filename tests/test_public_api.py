"""The public Python API (issue 11): package-level names, lazily imported, each documented with an example.

The names re-exported by ``governance``, ``evaluator`` and ``reports`` are the very objects the
pages and the CLI call (no second code path); importing a package or ``evaluator.storage.db`` stays cheap;
every public name (and the methods a notebook calls on the classes) has a docstring with an
``Example`` section, and the examples that are not marked ``+SKIP`` run and give what they say.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import subprocess
import sys

import pytest

from tests.conftest import REPO

PACKAGES = ["governance", "evaluator", "reports"]
METHODS = ["governance.Store.open", "governance.Store.save", "governance.Store.load",
           "governance.TaskMapping.decide", "reports.ReportBundle.write"]


def public_names() -> list[tuple[str, str]]:
    return [(p, n) for p in PACKAGES for n in importlib.import_module(p).__all__]


DOCUMENTED = [f"{p}.{n}" for p, n in public_names()] + METHODS


def resolve(dotted: str):
    package, _, rest = dotted.partition(".")
    obj = importlib.import_module(package)
    for part in rest.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("package", PACKAGES)
def test_all_lists_exactly_the_lazy_exports(package):
    module = importlib.import_module(package)
    assert module.__all__ == list(module._EXPORTS), "__all__ and _EXPORTS name the same things, in order"
    assert len(set(module.__all__)) == len(module.__all__)
    assert set(module.__all__) <= set(dir(module))
    if package == "evaluator":
        assert all(m.startswith("evaluator.") for m in module._EXPORTS.values()), "never governance/reports"


@pytest.mark.parametrize("package, name", public_names())
def test_each_name_is_the_defining_modules_own_object(package, name):
    pkg = importlib.import_module(package)
    defining = importlib.import_module(pkg._EXPORTS[name])
    assert getattr(pkg, name) is getattr(defining, name)
    assert not name.startswith("_")


@pytest.mark.parametrize("dotted", DOCUMENTED)
def test_each_public_name_has_a_docstring_with_an_example(dotted):
    doc = inspect.getdoc(resolve(dotted)) or ""
    assert "Example" in doc, f"{dotted} needs an Example section in its docstring"


@pytest.mark.parametrize("dotted", DOCUMENTED)
def test_the_examples_run(dotted, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    obj = resolve(dotted)
    module = sys.modules[obj.__module__]
    tests = doctest.DocTestFinder(recurse=False).find(obj, dotted, module=module, globs=dict(vars(module)))
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    for test in tests:
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


@pytest.mark.parametrize("package", PACKAGES)
def test_the_package_docstring_has_an_example(package):
    assert "Example" in (importlib.import_module(package).__doc__ or "")


def _fresh(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_importing_the_packages_and_evaluator_db_stays_cheap():
    loaded = _fresh(
        "import sys, evaluator.storage.db, governance, reports\n"
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('governance', 'evaluator', 'reports', 'pandas', 'litellm', 'altair', 'reportlab'))))")
    # each package's wiring registers the extensions of its floor by name: one small module each.
    assert loaded.split() == ["evaluator", "evaluator.extensions", "evaluator.lazy_exports",
                              "evaluator.storage", "evaluator.storage.db", "governance", "governance.dossier",
                              "governance.dossier.extensions", "reports"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_imports_first_in_a_fresh_process(package):
    """``from governance import *`` as a process's first import: no import cycle on any name."""
    names = _fresh(f"from {package} import *\nimport {package}\nprint(len({package}.__all__))")
    assert int(names) == len(importlib.import_module(package).__all__)
