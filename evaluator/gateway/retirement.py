"""Vendor retirement dates from litellm's shipped model map, read offline.

Why the shipped map: litellm's ``model_prices_and_context_window_backup.json`` carries a
``deprecation_date`` (YYYY-MM-DD) on 925 of its 4,878 entries (litellm 1.110.2), e.g.
``gpt-4o-2024-05-13`` 2026-10-23. It is read as a file (``prices._bundled_cost_map``), never fetched
and without importing litellm, and every date it gives names the map's version (litellm's package
version), since a later litellm may carry a different date for the same snapshot.

Why the provider prefix is tried first: the map dates the same snapshot differently per provider
(``azure/gpt-4o-2024-05-13`` 2027-01-14 against OpenAI's 2026-10-23), so a snapshot named with its
provider gets that provider's date, and a bare one the bare entry's.
"""

from __future__ import annotations

import functools
import importlib.metadata
from datetime import date
from typing import NamedTuple

from evaluator.gateway.prices import _bundled_cost_map


class MapRetirement(NamedTuple):
    """A retirement date the shipped map gives for one snapshot."""

    retires_on: date
    entry: str
    """The map entry that carries the date."""
    map_version: str
    """The map's own version: ``litellm 1.110.2``."""


@functools.cache
def model_map_version() -> str:
    """The version of the model map litellm ships (its package version), e.g. ``litellm 1.110.2``."""
    try:
        return f"litellm {importlib.metadata.version('litellm')}"
    except importlib.metadata.PackageNotFoundError:
        return "litellm (not installed)"


def map_retirement(snapshot: str) -> MapRetirement | None:
    """The map's ``deprecation_date`` for ``snapshot`` (tried as given, then without its provider prefix).

    Example:
        >>> map_retirement("gpt-4o-2024-05-13").retires_on
        datetime.date(2026, 10, 23)
        >>> map_retirement("no-such-model") is None
        True
    """
    cost_map = _bundled_cost_map()
    names = [snapshot.strip()]
    if "/" in snapshot:
        names.append(snapshot.strip().split("/", 1)[1])
    for name in names:
        entry = cost_map.get(name)
        raw = entry.get("deprecation_date") if isinstance(entry, dict) else None
        if not raw:
            continue
        try:
            when = date.fromisoformat(str(raw)[:10])
        except ValueError:
            continue
        return MapRetirement(when, name, model_map_version())
    return None


def in_map(name: str) -> bool:
    """Whether the shipped map has an entry named ``name`` (with or without a date)."""
    return isinstance(_bundled_cost_map().get(name.strip()), dict)
