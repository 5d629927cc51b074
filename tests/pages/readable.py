"""The check every page test shares: tables read without a glossary (no raw keys, no "None")."""

from __future__ import annotations

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
