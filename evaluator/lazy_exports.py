"""Package-level re-exports that import their module only when first used (PEP 562).

Why lazy: ``import evaluator.storage.db`` (every store component does it) or ``import
governance.dossier.store`` must stay as cheap as the module itself. A package ``__init__`` that
imported its public API eagerly would pull pandas, duckdb and the taxonomy into every such import,
and would risk import cycles (``governance.dossier.store`` imports ``evaluator.storage.db``, which
runs ``evaluator/__init__``, which would import ``evaluator.evidence.record``, ...). With a module
``__getattr__`` a public name costs nothing until someone reads it, and it is then the very object
its defining module holds: one function, no second code path. Stdlib only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any


def lazy_exports(namespace: MutableMapping[str, Any],
                 exports: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for a package re-exporting ``name -> defining module``.

    Args:
        namespace: the package's ``globals()``; a name, once read, is cached there.
        exports: public name -> module that defines it.

    Returns:
        ``(__getattr__, __dir__)`` to assign in the package's ``__init__``.

    Example:
        >>> ns = {"__name__": "pkg"}
        >>> getattr_, dir_ = lazy_exports(ns, {"dumps": "json"})
        >>> getattr_("dumps")([1]), "dumps" in ns, "dumps" in dir_()
        ('[1]', True, True)
    """
    package = namespace.get("__name__", "?")

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # later reads are plain attribute lookups
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
