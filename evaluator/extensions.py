"""The evaluator's two extension points, which the rooms above plug into without the floor importing them.

* **Store components**: ``ComponentStores.runs`` (``.journaled_runs``, ``.run_reads``, ``.scenarios``,
  ``.juries``, ``.attestations``, ``.read_job``) is built by the target a component registered for its
  name (``evaluator.storage.components``). The storage floor owns the connection; runs, local
  scenarios, juries and the PHI gate own their tables and sit above it.
* **Benchmark name lookups**: a benchmark file's ``loader`` and ``metrics`` are checked against their
  registries when the file is read (``evaluator.benchmarks.specs``); the loader registry
  (``evaluator.loaders``) and the metric registry (``evaluator.scoring.metrics``) sit above the specs,
  whose ``Instance`` they read.

Why registered in ``evaluator/__init__.py`` (``_wire``) and not by each component's own module:
Python runs a package's ``__init__`` before any of its submodules, so the registrations are complete
before anything can open a store or read a benchmark file, even when only ``evaluator.storage.db``
was imported. A component that registered itself when its module was imported would be missing
whenever nothing had imported it yet, and a store opened then would hand out no runs. Registrations
are ``"module:name"`` strings resolved on first use (as ``governance.dossier.extensions``), so
``import evaluator`` loads this module and nothing else of the house. A callable is accepted too
(tests). Stdlib only.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

Target = str | Callable[..., Any]
"""``"package.module:name"``, resolved on first use, or the callable itself."""

_COMPONENTS: dict[str, Target] = {}
_LOOKUPS: dict[str, Target] = {}


def resolve(target: Target) -> Callable[..., Any]:
    """The callable a target names (``"a.b:c"`` -> ``a.b.c``).

    Example:
        >>> resolve("json:dumps")([1])
        '[1]'
    """
    if callable(target):
        return target
    module, _, name = target.partition(":")
    return getattr(import_module(module), name)


def _register(registry: dict[str, Target], what: str, name: str, target: Target) -> None:
    held = registry.get(name)
    if held is not None and held != target:
        raise ValueError(f"{what} {name!r} is already registered ({held!r})")
    registry[name] = target


def _resolved(registry: dict[str, Target], what: str, name: str) -> Callable[..., Any]:
    target = registry.get(name)
    if target is None:
        known = ", ".join(sorted(registry)) or "none"
        raise LookupError(f"no {what} {name!r} is registered ({known}); evaluator/__init__.py wires them")
    return resolve(target)


def register_component(name: str, target: Target) -> None:
    """Build ``ComponentStores.<name>`` with ``target(connection, ...)``; the same target again is a no-op.

    Raises:
        ValueError: another target already holds ``name``.
    """
    _register(_COMPONENTS, "store component", name, target)


def component(name: str) -> Callable[..., Any]:
    """The callable registered for store component ``name``.

    Raises:
        LookupError: nothing is registered for ``name``.
    """
    return _resolved(_COMPONENTS, "store component", name)


def component_names() -> tuple[str, ...]:
    """The registered store component names, sorted (for error messages and tests)."""
    return tuple(sorted(_COMPONENTS))


def register_lookup(kind: str, target: Target) -> None:
    """Check a benchmark's ``kind`` names (``"loader"``, ``"metric"``) with ``target(name)``.

    ``target`` returns the registered object or raises ``KeyError`` naming the known ones.

    Raises:
        ValueError: another target already holds ``kind``.
    """
    _register(_LOOKUPS, "benchmark name lookup", kind, target)


def lookup(kind: str) -> Callable[..., Any]:
    """The lookup registered for ``kind``.

    Raises:
        LookupError: nothing is registered for ``kind``.
    """
    return _resolved(_LOOKUPS, "benchmark name lookup", kind)
