"""The check every page test shares: tables read without a glossary (no raw keys, no "None")."""

from __future__ import annotations

import re

import pandas as pd


def frames(at) -> list[pd.DataFrame]:
    """Every st.dataframe and st.table the page drew, as DataFrames."""
    return [d.value for d in at.dataframe] + [t.value for t in at.table]


def assert_readable(at) -> int:
    """No column name contains "_" and no cell is None, NaN or the text "None"; returns tables checked."""
    shown = frames(at)
    for frame in shown:
        names = [str(c) for c in frame.columns] + [str(n) for n in frame.index.names if n]
        assert not [n for n in names if "_" in n], names
        for column in frame.columns:
            bad = [v for v in frame[column] if v is None or (isinstance(v, float) and pd.isna(v))
                   or str(v) in {"None", "nan", "NaT"}]
            assert not bad, (column, bad)
    return len(shown)


def _unescape(value):
    if not isinstance(value, str):
        return value
    return re.sub(r"\\(.)", r"\1", value.replace("&lt;", "<"))


def as_shown(frame: pd.DataFrame) -> pd.DataFrame:
    """An ``st.table`` frame as the browser shows it (``pages.tables.plain_table``'s escapes undone)."""
    out = frame.map(_unescape).rename(columns=_unescape)
    out.index = out.index.map(lambda i: tuple(map(_unescape, i)) if isinstance(i, tuple) else _unescape(i))
    out.index.names = [_unescape(n) for n in out.index.names]
    return out
