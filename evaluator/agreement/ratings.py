"""Ratings files for judge validity: reading, checking, the template, and per-instance composites.

Why strict: agreement figures decide whether jury scores may count toward a verdict, so a file
with a typo in a column, a score of 7 or a clinician listed twice for one case must be refused
with the row and column named, never silently averaged. The format is the one MedHELM's
analysis used, made explicit: one row per (instance, rater), one column per criterion on the
1-5 scale, an optional ``dataset`` column; ``comment`` columns are ignored. A rater's composite is
the mean of their criteria; an instance's composite is the mean over its raters.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas as pd

ID_COLUMNS = ("instance_id", "rater", "dataset")
IGNORED = ("comment", "comments", "notes", "note")
DEFAULT_DATASET = "default"
POOLED = "ALL"
SCALE = (1, 5)
DEFAULT_CRITERIA = ("accuracy", "completeness", "clarity")


class RatingsError(ValueError):
    """A ratings file that cannot be used, with what is wrong and where."""


def _without_notice(data: bytes) -> bytes:
    """The file without a leading ``#`` line (a review export's notice that it may hold patient data)."""
    body = data.removeprefix(b"\xef\xbb\xbf")
    if body.startswith(b"#"):
        return body.split(b"\n", 1)[1] if b"\n" in body else b""
    return data


def _frame(source: Any, label: str) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        return source.copy()
    if isinstance(source, str | Path):
        if not Path(source).is_file():
            raise RatingsError(f"{label}: no such file {source}")
        source = Path(source).read_bytes()
    if isinstance(source, bytes):
        source = io.BytesIO(_without_notice(source))
    try:
        return pd.read_csv(source, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise RatingsError(f"{label}: not a readable CSV file ({exc})") from None


def _problems(rows: pd.Series, column: str, what: str, limit: int = 3) -> str:
    shown = ", ".join(f"row {i + 2} ({v!r})" for i, v in rows.head(limit).items())
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    return f"{column}: {what} at {shown}{more}"


def read_ratings(source: Any, label: str = "ratings") -> pd.DataFrame:
    """Read and check a ratings CSV (path, bytes, file object or DataFrame).

    Returns a frame with ``instance_id, rater, dataset`` (``default`` when absent) and one
    float column per criterion; ``attrs["criteria"]`` lists them and ``attrs["has_dataset"]``
    says whether the file named datasets.

    Raises:
        RatingsError: naming the file (``label``), the column and the rows at fault.

    Example:
        >>> read_ratings(b"instance_id,rater,accuracy\\n1,dr_a,4\\n").attrs["criteria"]
        ['accuracy']
    """
    df = _frame(source, label)
    df.columns = [str(c).strip().lower() for c in df.columns]
    missing = [c for c in ("instance_id", "rater") if c not in df.columns]
    if missing:
        raise RatingsError(
            f"{label}: missing column(s) {missing}; expected instance_id, rater, "
            f"optional dataset, then one column per criterion; got {list(df.columns)}"
        )
    criteria = [c for c in df.columns if c not in ID_COLUMNS and c not in IGNORED]
    if not criteria:
        raise RatingsError(f"{label}: no criterion columns (e.g. {', '.join(DEFAULT_CRITERIA)})")
    if df.empty:
        raise RatingsError(f"{label}: the file has a header but no ratings")
    has_dataset = "dataset" in df.columns
    df["dataset"] = df["dataset"].astype(str).str.strip() if has_dataset else DEFAULT_DATASET
    df.loc[df["dataset"] == "", "dataset"] = DEFAULT_DATASET
    errors = []
    for column in ("instance_id", "rater"):
        df[column] = df[column].astype(str).str.strip()
        if (df[column] == "").any():
            errors.append(_problems(df.loc[df[column] == "", column], column, "empty"))
    if (df["dataset"] == POOLED).any():
        errors.append(f"dataset: {POOLED!r} is reserved for the pooled result; rename that dataset")
    for c in criteria:
        text = df[c].astype(str).str.strip()
        values = pd.to_numeric(text, errors="coerce")
        bad = text[(text != "") & values.isna()]
        if not bad.empty:
            errors.append(_problems(bad, c, "not a number"))
        off = values[(values < SCALE[0]) | (values > SCALE[1])]
        if not off.empty:
            errors.append(_problems(off, c, f"outside the scale {SCALE[0]}-{SCALE[1]}"))
        df[c] = values
    empty = df[criteria].isna().all(axis=1)
    if empty.any():
        errors.append(_problems(df.loc[empty, "instance_id"], "instance_id", "a row with no score"))
    dup = df.duplicated(["dataset", "instance_id", "rater"], keep=False)
    if dup.any():
        errors.append(
            _problems(df.loc[dup, "instance_id"], "instance_id", "the same rater twice for one instance")
        )
    if errors:
        raise RatingsError(f"{label}: " + "; ".join(errors))
    out = df[["instance_id", "rater", "dataset", *criteria]].reset_index(drop=True)
    out.attrs.update(criteria=criteria, has_dataset=has_dataset)
    return out


def align_datasets(clinicians: pd.DataFrame, jury: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Give the file without a ``dataset`` column the other file's dataset of each instance.

    Raises:
        RatingsError: an instance id that belongs to two datasets, so the mapping is ambiguous.
    """
    frames = {"clinicians": clinicians, "jury": jury}
    named = [k for k, f in frames.items() if f.attrs.get("has_dataset")]
    if len(named) != 1:
        return clinicians, jury
    source = frames[named[0]]
    target_name = "jury" if named[0] == "clinicians" else "clinicians"
    mapping = source.drop_duplicates(["instance_id", "dataset"]).groupby("instance_id")["dataset"]
    ambiguous = mapping.nunique()
    if (ambiguous > 1).any():
        raise RatingsError(
            f"{target_name} file has no dataset column and instance id(s) "
            f"{list(ambiguous[ambiguous > 1].index[:3])} occur in several datasets; add a dataset column"
        )
    target = frames[target_name].copy()
    target["dataset"] = target["instance_id"].map(mapping.first()).fillna(DEFAULT_DATASET)
    target.attrs.update(frames[target_name].attrs, has_dataset=True)
    return (clinicians, target) if target_name == "jury" else (target, jury)


def rater_composites(ratings: pd.DataFrame) -> pd.Series:
    """Each row's composite: the mean of its criteria (blank criteria skipped)."""
    return ratings[ratings.attrs["criteria"]].mean(axis=1)


def instance_composites(ratings: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, instance_id): the composite averaged over raters, and how many raters.

    Example:
        >>> r = read_ratings(b"instance_id,rater,a,b\\n1,x,4,2\\n1,y,5,5\\n")
        >>> instance_composites(r)["composite"].tolist()
        [4.0]
    """
    frame = ratings.assign(composite=rater_composites(ratings))
    return frame.groupby(["dataset", "instance_id"]).agg(
        composite=("composite", "mean"), n_raters=("rater", "nunique")
    )


def most_overlapping_pair(ratings: pd.DataFrame) -> tuple[str, str, int] | None:
    """The two raters who rated the most instances in common (ties: first names alphabetically).

    Example:
        >>> r = read_ratings(b"instance_id,rater,a\\n1,x,4\\n1,y,5\\n2,x,3\\n2,y,3\\n1,z,2\\n")
        >>> most_overlapping_pair(r)
        ('x', 'y', 2)
    """
    keys = ratings.assign(key=ratings["dataset"] + "\x1f" + ratings["instance_id"])
    sets = keys.groupby("rater")["key"].apply(set).sort_index()
    best: tuple[str, str, int] | None = None
    names = list(sets.index)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            common = len(sets[a] & sets[b])
            if common and (best is None or common > best[2]):
                best = (a, b, common)
    return best


def ratings_template(criteria: tuple[str, ...] = DEFAULT_CRITERIA) -> str:
    """A CSV template for clinician ratings, with two example rows to overwrite.

    Example:
        >>> ratings_template().splitlines()[0]
        'dataset,instance_id,rater,accuracy,completeness,clarity,comment'
    """
    header = ["dataset", "instance_id", "rater", *criteria, "comment"]
    rows = [
        ["medication_qa", "case-001", "dr_lee", *["4"] * len(criteria), "example row: replace"],
        [
            "medication_qa",
            "case-001",
            "dr_okafor",
            *["3"] * len(criteria),
            "second clinician; same case",
        ],
    ]
    return "\n".join(",".join(r) for r in [header, *rows]) + "\n"
