"""Pages, the CLI and app.py import governance, evaluator and reports only through the package faces.

Why: a face (the package ``__init__``'s lazy export table) is the one list of what the app uses from
a package, so moving a module inside the package changes one line of its face instead of every page
and command that imports it. The public API (``__all__``) is the documented part of each face; the
rest (``_FACE``) is what the app needs besides. In governance every concept has its own face
(``governance.monitoring``, ...), so the import contracts see which page uses which concept, and the
top face holds the public API alone.
"""

from __future__ import annotations

import ast
import importlib

import pytest

from tests.conftest import REPO

FACES = ("governance", "evaluator", "reports")
INITS = (REPO / "governance").glob("*/__init__.py")
CONCEPT_FACES = tuple(sorted(f"governance.{p.parent.name}" for p in INITS
                             if "_FACE = {" in p.read_text()))


def app_files():
    return [REPO / "app.py", *sorted((REPO / "pages").rglob("*.py")), *sorted((REPO / "cli").rglob("*.py"))]


def submodule_imports(source: str) -> list[str]:
    """Imports of a module below a face (``from governance.rules import x``, ``import evaluator.db``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in FACES and node.module not in FACES + CONCEPT_FACES:
                found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in FACES and "." in a.name]
    return found


def test_the_scan_sees_each_kind_of_submodule_import():
    assert submodule_imports("from governance.rules.verdicts import assess") == ["governance.rules.verdicts"]
    assert submodule_imports("def f():\n    import evaluator.storage.db\n") == ["evaluator.storage.db"]
    assert submodule_imports("from governance import assess\nfrom pages import ui\nimport reports") == []
    assert submodule_imports("from governance.monitoring import import_feed") == []
    assert submodule_imports("from governance.monitoring.operations import feed") == [
        "governance.monitoring.operations"]


def test_every_concept_has_a_face():
    assert "governance.monitoring" in CONCEPT_FACES and "governance.review" in CONCEPT_FACES
    assert len(CONCEPT_FACES) >= 13


@pytest.mark.parametrize("path", app_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_app_code_imports_only_the_faces(path):
    assert submodule_imports(path.read_text()) == [], "import these names from the package face instead"


def face_names(package) -> dict[str, str]:
    return {**getattr(package, "_EXPORTS", {}), **getattr(package, "_FACE", {})}


@pytest.mark.parametrize("face", FACES + CONCEPT_FACES)
def test_every_face_name_is_its_defining_modules_object(face):
    package = importlib.import_module(face)
    assert not set(getattr(package, "_FACE", {})) & set(getattr(package, "_EXPORTS", {})), \
        "a name is public or app-only, not both"
    for name, module in face_names(package).items():
        assert getattr(package, name) is getattr(importlib.import_module(module), name), name


@pytest.mark.parametrize("face", CONCEPT_FACES)
def test_a_concept_face_lists_its_names_literally(face):
    package = importlib.import_module(face)
    assert sorted(package.__all__) == sorted(package._FACE)
    assert all(m.startswith(face + ".") for m in package._FACE.values()), "not its concept's"


def test_the_top_face_is_the_public_api_alone():
    import governance

    assert not hasattr(governance, "_FACE") and sorted(governance.__all__) == sorted(governance._EXPORTS)


@pytest.mark.parametrize("face", FACES + CONCEPT_FACES)
def test_every_app_only_name_is_used_by_the_app(face):
    package = importlib.import_module(face)
    if not hasattr(package, "_FACE"):
        return
    used = set()
    for path in app_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == face:
                used |= {a.name for a in node.names}
    assert set(package._FACE) <= used, f"unused app-only names: {sorted(set(package._FACE) - used)}"


@pytest.mark.parametrize("face", FACES + CONCEPT_FACES)
def test_no_face_name_is_also_a_submodule(face):
    """``from reports import x`` would give the submodule ``reports.x`` once something imported it."""
    package = importlib.import_module(face)
    root = REPO.joinpath(*face.split("."))
    clashes = [n for n in face_names(package)
               if (root / f"{n}.py").exists() or (root / n / "__init__.py").exists()]
    assert clashes == []
