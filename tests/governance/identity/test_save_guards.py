"""The save door runs the guards later concepts register, and refuses to save when none is wired."""

from __future__ import annotations

import subprocess
import sys

import pytest

from governance.dossier import extensions
from governance.identity.operations.guards import run_save_guards
from tests.conftest import REPO


def test_a_fresh_interpreter_has_the_decision_guard_and_the_concept_stores_wired():
    # Importing only the door (not the governance face's names) must already wire the floor.
    code = ("from governance.identity.operations.save import save_as\n"
            "from governance.dossier.extensions import save_guards, component_names\n"
            "print([f'{g.__module__}.{g.__name__}' for g in save_guards()], component_names())\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ("['governance.decision.operations.standing.refuse_unsignable'] "
                                  "('documents', 'monitoring', 'reviews')")


def test_the_door_fails_closed_without_guards(monkeypatch):
    monkeypatch.setattr(extensions, "_SAVE_GUARDS", [])
    with pytest.raises(RuntimeError, match="not wired"):
        run_save_guards(None, None, None)


def test_every_registered_guard_runs_once_in_order(monkeypatch):
    seen = []
    monkeypatch.setattr(extensions, "_SAVE_GUARDS", [])

    def first(store, before, after):
        seen.append(("first", before, after))

    def second(store, before, after):
        raise ValueError("refused")

    extensions.register_save_guard(first)
    extensions.register_save_guard(first)
    extensions.register_save_guard(second)
    with pytest.raises(ValueError, match="refused"):
        run_save_guards("store", "b", "a")
    assert seen == [("first", "b", "a")] and extensions.save_guards() == (first, second)


def test_a_named_target_resolves_to_the_function():
    assert extensions.resolve("os.path:join") is __import__("os").path.join
