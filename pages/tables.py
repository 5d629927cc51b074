"""Display tables a committee member reads without a glossary: human column names, formatted values.

Why here: domain rows (``reports.candidates_table``, pydantic dumps) keep their machine keys
because the CLI JSON and the CSV downloads are a contract. Pages pass those rows through
``readable`` (or ``show`` / ``table``) just before drawing them: column keys become labels, None
becomes "—", floats get three decimals (money "USD 2.78"), datetimes read "2026-12-01 04:04 UTC",
enum values read as words and lists as "A, B". Number columns without gaps stay numbers, so an
interactive table still sorts them; Streamlit formats them through ``column_config``.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from governance.dossier import VALUE_LABELS as STORED_VALUE_LABELS
from reports import md

MISSING = "—"

COLUMN_LABELS: dict[str, str] = {
    "id": "Id", "usd_per_1k": "USD per 1,000 requests", "usd_per_month": "USD per month",
    "usd_per_1k_acceptable": "USD per 1,000 acceptable outputs", "pass_rate": "Pass rate",
    "on_frontier": "On the cost frontier", "cost_ceiling": "Cost ceiling", "open_items": "Open items",
    "tie_group": "Tie group", "lower": "95% lower", "upper": "95% upper",
    "risk_tier": "Risk tier", "updated_at": "Last saved", "total_usd": "Total (USD)",
    "published_upper_bound": "Published upper bound", "n_benchmarks": "Benchmarks (n)",
    "usd": "USD",
}
"""Column keys whose label is not just the key with spaces."""

VALUE_LABELS = {**STORED_VALUE_LABELS, "schedule": "schedule"}
"""Stored enum values shown as words: the one table in ``governance.dossier.labels`` (exact matches only)."""


def label(key: str) -> str:
    """The human name of a column key: ``usd_per_month`` → "USD per month", ``risk_tier`` → "Risk tier"."""
    if key in COLUMN_LABELS:
        return COLUMN_LABELS[key]
    if "_" not in key:  # already words, as the page wrote them
        return key
    if key.startswith("total_usd"):  # e.g. total_usd_37_benchmarks
        rest = key.removeprefix("total_usd").strip("_").replace("_", " ")
        return f"Total USD ({rest})" if rest else "Total USD"
    words = key.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def missing(value: Any) -> bool:
    """True for None, NaN and NaT."""
    if value is None or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def when(value: dt.datetime | dt.date | str) -> str:
    """A timestamp as "2026-12-01 04:04 UTC" (a date stays a date; ISO strings are parsed)."""
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC)
        return f"{value:%Y-%m-%d %H:%M} UTC" if value.tzinfo is not None else f"{value:%Y-%m-%d %H:%M}"
    return f"{value:%Y-%m-%d}"


def cell(value: Any, *, money: bool = False, digits: int = 3) -> Any:
    """One value as a reviewer reads it (numbers stay numbers unless money)."""
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return ", ".join(str(cell(v, money=money, digits=digits)) for v in items) or MISSING
    if missing(value):
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (dt.datetime, dt.date, pd.Timestamp)):
        return when(value)
    if money and isinstance(value, (int, float)):
        return f"USD {value:,.2f}"
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, str):
        return VALUE_LABELS.get(value, value)
    return value


def text(value: Any, *, money: bool = False, digits: int = 3) -> str:
    """``cell`` as text, floats with exactly ``digits`` decimals (for text columns and ``st.table``)."""
    shown = cell(value, money=money, digits=digits)
    return f"{shown:.{digits}f}" if isinstance(shown, float) else str(shown)


def tie_groups(groups: list[list[str]] | None, reason: str = "") -> str:
    """Tie groups, best first, as "1. A, B · 2. C"; or the reason there are none."""
    if not groups:
        return f"not grouped: {reason}" if reason else "not grouped"
    return " · ".join(f"{i}. {', '.join(g)}" for i, g in enumerate(groups, start=1))


def readable(data: pd.DataFrame | Iterable[Mapping[str, Any]], *, labels: Mapping[str, str] | None = None,
             money: Iterable[str] = (), digits: int = 3) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A display copy of ``data`` and the ``column_config`` that formats its number columns.

    Args:
        data: a DataFrame or rows of dicts keyed by machine keys.
        labels: extra key → label names (they win over ``COLUMN_LABELS``).
        money: keys of USD columns (shown "USD 2.78").
        digits: decimals for other floats.

    Returns:
        The frame with labelled columns and formatted cells; a column with a gap becomes text so
        that no cell reads "None", a column without one stays numeric and sortable.
    """
    # dtype=object keeps an int column with a gap as ints (pandas would make them floats).
    frame = data.copy() if isinstance(data, pd.DataFrame) else pd.DataFrame(list(data), dtype=object)
    names = {**COLUMN_LABELS, **(labels or {})}
    money = set(money)
    config: dict[str, Any] = {}
    out = {}
    for key in frame.columns:
        values = list(frame[key])
        name = names.get(key) or label(str(key))
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) and not missing(v)
                      for v in values)
        if numeric and values:
            out[name] = values
            if key in money:
                config[name] = st.column_config.NumberColumn(format="USD %.2f")
            elif any(isinstance(v, float) for v in values):
                config[name] = st.column_config.NumberColumn(format=f"%.{digits}f")
        else:
            present = [v for v in values if isinstance(v, (int, float)) and not missing(v)]
            counts = bool(present) and key not in money and all(float(v).is_integer() for v in present)
            out[name] = [text(int(v) if counts and isinstance(v, float) and not missing(v) else v,
                              money=key in money, digits=digits) for v in values]
    return pd.DataFrame(out, columns=list(out)), config


def show(data: pd.DataFrame | Iterable[Mapping[str, Any]], *, labels: Mapping[str, str] | None = None,
         money: Iterable[str] = (), digits: int = 3, **kwargs: Any) -> None:
    """Draw ``data`` with ``st.dataframe`` after ``readable`` (index hidden, full width)."""
    frame, config = readable(data, labels=labels, money=money, digits=digits)
    config.update(kwargs.pop("column_config", {}) or {})
    kwargs.setdefault("hide_index", True)
    kwargs.setdefault("width", "stretch")
    st.dataframe(frame, column_config=config, **kwargs)


def table(data: pd.DataFrame | Iterable[Mapping[str, Any]], *, labels: Mapping[str, str] | None = None,
          money: Iterable[str] = (), digits: int = 3) -> None:
    """Draw ``data`` with ``st.table``: every cell as text, formatted by ``readable``.

    ``st.table`` renders its cells as Markdown, so each cell is escaped like any user text (``ui.plain``,
    the same ``reports.md``): a local task named ``![x](http://host/a.png)`` once made the browser fetch.
    """
    frame, config = readable(data, labels=labels, money=money, digits=digits)
    for name in frame.columns:
        usd = name in config and "USD" in str(config[name])
        frame[name] = [text(v, money=usd, digits=digits) for v in frame[name]]
    plain_table(frame, hide_index=True)


def plain_table(frame: pd.DataFrame, **kwargs: Any) -> None:
    """``st.table`` with every text cell, index label and column name escaped (the only ``st.table``).

    Example:
        >>> plain_table(pd.DataFrame({"task": ["![x](http://h/a.png)"]}))  # doctest: +SKIP
    """
    def esc(v: Any) -> Any:
        return md(v) if isinstance(v, str) else v

    shown = frame.map(esc).rename(columns=esc)
    shown.index = shown.index.map(lambda i: tuple(esc(p) for p in i) if isinstance(i, tuple) else esc(i))
    shown.index.names = [esc(n) for n in shown.index.names]
    st.table(shown, **kwargs)
