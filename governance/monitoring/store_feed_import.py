"""Reading a feed file into a DuckDB staging table and validating it there, whole, before anything is stored.

Why DuckDB and SQL: a warehouse export has up to millions of rows; ``read_csv`` / ``read_json`` /
``read_parquet`` load it into a staging table of text columns without passing rows through Python, and
each rule is one query that names the first row breaking it (its 1-based data row: a CSV's header is
not counted) and the field. A file with one bad row is refused whole, so nothing is stored. The LiteLLM
proxy's spend-log export is mapped onto the feed columns here, in SQL too; OpenTelemetry spans are
nested JSON and are flattened in Python first (``governance.monitoring.operations.sources``).

Timestamps: ISO 8601 with a zone (``Z``, ``+02:00``); a time without a zone is refused, because an hour's
shift moves outputs between months and past deadlines. The one exception is LiteLLM's table, whose
``startTime`` Prisma writes in UTC without a zone.
"""

from __future__ import annotations

import csv
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from evaluator.inputs.text_controls import CONTROL_CHARS_RE2, NAME_CONTROLS_RE2, control_problem, name_problem
from governance.monitoring.records import AUDIT_VERDICTS, BOOLEAN_WORDS, OUTCOMES, OUTPUT_COLUMNS, SEVERITIES

REQUIRED = ("timestamp", "served_model", "outcome")
TEXT_FIELDS = ("served_model", "prompt_version", "id", "reviewer", "text")
NAME_FIELDS = ("served_model", "prompt_version", "id", "reviewer")
"""Names compared with approved ones or with each other (and tag values): no control or format character
at all, bidi marks and zero-width spaces included (``evaluator.inputs.text_controls.name_problem``);
``text`` keeps the prose rule (``control_problem``)."""
BOOLEAN_FIELDS = ("error", "audited", "sentinel")
COUNT_FIELDS = ("tokens_in", "tokens_out")
NUMBER_FIELDS = ("latency_ms", "cost_usd", "review_seconds")  # finite, not negative
SCORE_FIELDS = ("judge_score",)  # finite
CHOICE_FIELDS = {"outcome": OUTCOMES, "audit_verdict": AUDIT_VERDICTS, "severity": SEVERITIES}
KNOWN = (
    *REQUIRED,
    "prompt_version",
    "id",
    *OUTPUT_COLUMNS,
)
FUTURE_SLACK = timedelta(minutes=5)
"""How far ahead of the clock a timestamp may be (clock skew between systems)."""
ZONED = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*([Zz]|[+-]\d{2}(:?\d{2})?)$"
"""An ISO 8601 date and time with its zone."""
EARLIEST = "2000-01-01 00:00:00+00"
"""No output of a large language model is older (a year 0001 is a typo or a default, not a time)."""
DESCRIBED = {CONTROL_CHARS_RE2: control_problem, NAME_CONTROLS_RE2: name_problem}
"""The SQL patterns for prose and for names, each with the function that names the character found."""
LITELLM_COLUMNS = ("request_id", "model", "startTime")
"""Columns a LiteLLM spend-log export must have (of LiteLLM_SpendLogs)."""


class FeedError(ValueError):
    """A feed file refused, with a one-line message naming the row and the field; nothing was stored."""


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def file_format(path: Path) -> str:
    """``csv``, ``json`` or ``parquet`` from the file's name.

    Example:
        >>> file_format(Path("feed.JSONL")), file_format(Path("x.parquet"))
        ('json', 'parquet')
    """
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv", ".txt"):
        return "csv"
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "json"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    raise FeedError(f"{path.name}: give a .csv, .jsonl or .parquet file")


def _columns(con: Any, table: str) -> list[str]:
    return [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]


def ragged_row(path: Path) -> str | None:
    """The first CSV record whose field count differs from the header's, in words, or None.

    Read in Python only when DuckDB could not make the file's columns out (its sniffer takes a file with
    one ragged row for a one-column file), so the message names the row rather than missing columns.
    """
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    with path.open(newline="", encoding="utf-8", errors="replace") as f:
        rows = csv.reader(f, delimiter=delimiter)
        header = next(rows, None)
        for n, row in enumerate(rows, start=1):
            if header is not None and row and len(row) != len(header):
                return (f"row {n} has {len(row)} fields where the header has {len(header)} "
                        "(a ragged row: check its quoting and delimiters)")
    return None


def stage(con: Any, path: Path, table: str = "feed_raw") -> list[str]:
    """Load ``path`` into the temporary table ``table`` (every column text, plus ``_row``); its columns.

    Raises:
        FeedError: the file cannot be read as CSV, JSON lines or Parquet.
    """
    fmt, src = file_format(path), _lit(str(path))
    con.execute(f"DROP TABLE IF EXISTS {table}")
    try:
        if fmt == "csv":
            con.execute(
                f"CREATE TEMP TABLE {table} AS SELECT row_number() OVER () AS _row, * FROM "
                f"read_csv({src}, all_varchar = true, header = true, auto_detect = true)"
            )
        elif fmt == "json":
            con.execute(
                f"CREATE TEMP TABLE feed_json AS SELECT row_number() OVER () AS _row, json AS j "
                f"FROM read_ndjson_objects({src})"
            )
            keys = [
                r[0]
                for r in con.execute(
                    "SELECT DISTINCT unnest(json_keys(j)) AS k FROM feed_json ORDER BY k"
                ).fetchall()
            ]
            bad = con.execute(
                "SELECT _row FROM feed_json WHERE json_type(j) <> 'OBJECT' ORDER BY _row LIMIT 1"
            ).fetchone()
            if bad:
                raise FeedError(f"{path.name}: row {bad[0]}: each line must be one JSON object")
            cols = ", ".join(f"j ->> {_lit(k)} AS {_q(k)}" for k in keys) or "NULL AS timestamp"
            con.execute(f"CREATE TEMP TABLE {table} AS SELECT _row, {cols} FROM feed_json")
            con.execute("DROP TABLE feed_json")
        else:
            con.execute(f"CREATE TEMP VIEW feed_pq AS SELECT * FROM read_parquet({src})")
            names = _columns(con, "feed_pq")
            cols = ", ".join(f"CAST({_q(n)} AS VARCHAR) AS {_q(n)}" for n in names)
            con.execute(
                f"CREATE TEMP TABLE {table} AS SELECT row_number() OVER () AS _row, {cols} FROM feed_pq"
            )
            con.execute("DROP VIEW feed_pq")
    except FeedError:
        raise
    except Exception as exc:  # duckdb's parser and IO errors, as one line
        if fmt == "csv" and (ragged := ragged_row(path)):
            raise FeedError(f"{path.name}: {ragged}; nothing was imported") from None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise FeedError(f"{path.name}: not readable as {fmt.upper()}: {first}") from None
    columns = [c for c in _columns(con, table) if c != "_row"]
    if fmt == "csv" and any(c not in columns for c in REQUIRED) and (ragged := ragged_row(path)):
        raise FeedError(f"{path.name}: {ragged}; nothing was imported")
    _check_header(path, fmt, columns)
    return columns


def _check_header(path: Path, fmt: str, columns: list[str]) -> None:
    """Refuse a column name holding a control character, and a CSV header naming one column twice.

    A tag's name is shown like its values (subgroup tables, the report): ``tag:age\u202eband`` or a NUL in
    it went in unchecked while the same characters in a cell were refused. DuckDB renames a repeated
    header (``tag:a``, ``tag:a_1``), so two columns of one name became two tags, silently.
    """
    for column in columns:
        if bad := control_problem(column):
            raise FeedError(f"{path.name}: column {column!r} holds {bad}; nothing was imported")
    if fmt != "csv":
        return
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    with path.open(newline="", encoding="utf-8-sig", errors="replace") as f:
        header = [h.strip() for h in next(csv.reader(f, delimiter=delimiter), [])]
    twice = next((h for i, h in enumerate(header) if h in header[:i]), None)
    if twice is not None:
        raise FeedError(f"{path.name}: the header names column {twice!r} twice; nothing was imported")


def map_litellm(con: Any, columns: list[str], table: str = "feed_raw") -> list[str]:
    """Replace the staged LiteLLM spend-log export by feed columns (in SQL); the new columns.

    ``request_id`` → ``id``; ``startTime`` → ``timestamp`` (UTC when no zone is written, as Prisma
    stores it); the response's own ``model`` when the export has ``response``, else ``model`` →
    ``served_model``; ``prompt_tokens`` / ``completion_tokens`` → tokens; ``spend`` → ``cost_usd``;
    ``endTime − startTime`` → ``latency_ms``; ``status`` other than ``success`` → ``error``; outcome
    ``not_reviewed`` (a gateway does not see review). ``model_group`` becomes the tag ``tag:model_group``.

    Raises:
        FeedError: a column the export must have is missing.
    """
    missing = [c for c in LITELLM_COLUMNS if c not in columns]
    if missing:
        raise FeedError(
            f"not a LiteLLM spend-log export: no column {', '.join(missing)} "
            "(export the LiteLLM_SpendLogs table with its column names)"
        )

    def has(c: str) -> bool:
        return c in columns

    def when(col: str) -> str:
        c = _q(col)
        return (
            f"CASE WHEN regexp_matches(trim({c}), {_lit(ZONED)}) THEN trim({c}) "
            f"WHEN trim({c}) <> '' THEN trim({c}) || 'Z' END"
        )

    served = (
        "coalesce(nullif(json_extract_string(try_cast(response AS JSON), '$.model'), ''), model)"
        if has("response")
        else "model"
    )
    latency = (
        f"CAST(round(date_diff('millisecond', try_cast({when('startTime')} AS TIMESTAMPTZ), "
        f"try_cast({when('endTime')} AS TIMESTAMPTZ))) AS VARCHAR)"
        if has("endTime")
        else "NULL"
    )
    error = (
        "CASE WHEN status IS NULL OR status = '' THEN NULL WHEN lower(status) = 'success' THEN 'false' "
        "ELSE 'true' END"
        if has("status")
        else "NULL"
    )
    parts = [
        "_row",
        "request_id AS id",
        f"{when('startTime')} AS timestamp",
        f"{served} AS served_model",
        "'not_reviewed' AS outcome",
        f"{latency} AS latency_ms",
        f"{error} AS error",
        ("prompt_tokens" if has("prompt_tokens") else "NULL") + " AS tokens_in",
        ("completion_tokens" if has("completion_tokens") else "NULL") + " AS tokens_out",
        ("spend" if has("spend") else "NULL") + " AS cost_usd",
    ]
    if has("model_group"):
        parts.append('model_group AS "tag:model_group"')
    con.execute(f"CREATE TEMP TABLE feed_mapped AS SELECT {', '.join(parts)} FROM {table}")
    con.execute(f"DROP TABLE {table}")
    con.execute(f"ALTER TABLE feed_mapped RENAME TO {table}")
    return [c for c in _columns(con, table) if c != "_row"]


def validate(con: Any, columns: list[str], now: datetime, name: str, table: str = "feed_raw") -> int:
    """Refuse the staged file at its first bad row, naming the row and the field; the number of rows.

    Raises:
        FeedError: a missing or unknown column, an empty file, or a bad value.
    """
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise FeedError(
            f"{name}: no column {', '.join(missing)} (the feed needs timestamp, served_model, outcome)"
        )
    unknown = [c for c in columns if c not in KNOWN and not (c.startswith("tag:") and len(c) > 4)]
    if unknown:
        raise FeedError(
            f"{name}: unknown column {unknown[0]!r} (feed columns are listed in docs/monitoring.md; "
            "subgroup tags are named tag:NAME)"
        )
    n = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    if n == 0:
        raise FeedError(f"{name}: the file holds no rows")

    rules: list[tuple[str, str, str, list]] = []

    def refuse(where: str, field: str, why: str, params: list | None = None) -> None:
        rules.append((where, field, why, params or []))

    ts = _q("timestamp")
    refuse(f"{ts} IS NULL OR trim({ts}) = ''", "timestamp", "is missing")
    refuse(
        f"NOT regexp_matches(trim({ts}), {_lit(ZONED)})",
        "timestamp",
        "is not an ISO 8601 date and time with a zone (e.g. 2026-03-01T09:30:00Z)",
    )
    refuse(f"try_cast(trim({ts}) AS TIMESTAMPTZ) IS NULL", "timestamp", "is not a valid date and time")
    refuse(f"try_cast(trim({ts}) AS TIMESTAMPTZ) > ?", "timestamp", "is in the future", [now + FUTURE_SLACK])
    refuse(f"try_cast(trim({ts}) AS TIMESTAMPTZ) < TIMESTAMPTZ '{EARLIEST}'", "timestamp",
           "is before 2000 (no model output is that old: a typo or a default date?)")
    refuse("served_model IS NULL OR trim(served_model) = ''", "served_model", "is missing")
    for field, allowed in CHOICE_FIELDS.items():
        if field in columns:
            words = ", ".join(_lit(a) for a in allowed)
            empty_ok = (
                "" if field == "outcome" else f"{_q(field)} IS NOT NULL AND trim({_q(field)}) <> '' AND "
            )
            missing_bad = f"{_q(field)} IS NULL OR " if field == "outcome" else ""
            refuse(
                f"{missing_bad}{empty_ok}lower(trim({_q(field)})) NOT IN ({words})",
                field,
                f"is not one of {', '.join(allowed)}",
            )
    for field in BOOLEAN_FIELDS:
        if field in columns:
            words = ", ".join(_lit(w) for w in BOOLEAN_WORDS)
            refuse(
                f"trim({_q(field)}) <> '' AND lower(trim({_q(field)})) NOT IN ({words})",
                field,
                "is not a boolean (true/false, 1/0, yes/no)",
            )
    for field in (*COUNT_FIELDS, *NUMBER_FIELDS, *SCORE_FIELDS):
        if field not in columns:
            continue
        c = f"trim({_q(field)})"
        refuse(f"{c} <> '' AND try_cast({c} AS DOUBLE) IS NULL", field, "is not a number")
        refuse(f"{c} <> '' AND NOT isfinite(try_cast({c} AS DOUBLE))", field, "is not a finite number")
        if field in COUNT_FIELDS or field in NUMBER_FIELDS:
            refuse(f"{c} <> '' AND try_cast({c} AS DOUBLE) < 0", field, "is negative")
        if field in COUNT_FIELDS:
            refuse(
                f"{c} <> '' AND try_cast({c} AS DOUBLE) <> floor(try_cast({c} AS DOUBLE))",
                field,
                "is not a whole number",
            )
    # free text and tags (the other fields are held to numbers, times and fixed words above)
    for field in [c for c in columns if c in TEXT_FIELDS or c.startswith("tag:")]:
        pattern = NAME_CONTROLS_RE2 if field in NAME_FIELDS or field.startswith("tag:") else CONTROL_CHARS_RE2
        refuse(f"regexp_matches({_q(field)}, ?)", field, "holds a control character", [pattern])
    # One scan for every rule: the first bad row, and at that row the first rule in the order above.
    firsts = con.execute(
        "SELECT " + ", ".join(f"min(_row) FILTER (WHERE {w})" for w, _, _, _ in rules) + f" FROM {table}",
        [p for *_, params in rules for p in params],
    ).fetchone()
    failed = [(row, i) for i, row in enumerate(firsts) if row is not None]
    if failed:
        row, i = min(failed)
        _, field, why, _ = rules[i]
        value = con.execute(f"SELECT {_q(field)} FROM {table} WHERE _row = ?", [row]).fetchone()[0]
        shown = "empty" if value is None or str(value).strip() == "" else repr(str(value)[:60])
        describe = DESCRIBED.get(rules[i][3][0]) if len(rules[i][3]) == 1 else None
        if describe is not None and value is not None:
            why = f"holds {describe(str(value))}"
        raise FeedError(f"{name}: row {row}: {field} {why} (found {shown}); nothing was imported")
    return int(n)


def refuse_conflicting_ids(con: Any, name: str, table: str = "feed_clean") -> None:
    """Refuse a file in which one id names two rows with different content, naming both rows.

    The same row given twice (a re-sent batch) is harmless and kept once; two different rows under one id
    would make the second silently "already stored", so the file is refused whole.

    Raises:
        FeedError: the first such pair, by row number.
    """
    cols = [c for c in _columns(con, table) if c != "_row"]
    h = "md5(" + " || chr(31) || ".join(f"coalesce(CAST({_q(c)} AS VARCHAR), chr(30))" for c in cols) + ")"
    found = con.execute(
        f"WITH r AS (SELECT row_key, _row, {h} AS h FROM {table}), "
        "f AS (SELECT row_key, arg_min(h, _row) AS h0, min(_row) AS first FROM r GROUP BY row_key) "
        "SELECT f.row_key, f.first, min(r._row) FROM r JOIN f ON r.row_key = f.row_key AND r.h <> f.h0 "
        "GROUP BY f.row_key, f.first ORDER BY min(r._row) LIMIT 1").fetchone()
    if found:
        key, first, second = found
        raise FeedError(f"{name}: rows {first} and {second} have the same id {key!r} with different "
                        "content (one id per output); nothing was imported")


def _bool(field: str, columns: list[str]) -> str:
    if field not in columns:
        return "NULL"
    c = f"lower(trim({_q(field)}))"
    return f"CASE WHEN {c} IN ('true', '1', 'yes') THEN true WHEN {c} IN ('false', '0', 'no') THEN false END"


def _num(field: str, columns: list[str], kind: str = "DOUBLE") -> str:
    return f"CAST(nullif(trim({_q(field)}), '') AS {kind})" if field in columns else "NULL"


def _text(field: str, columns: list[str]) -> str:
    return f"nullif(trim({_q(field)}), '')" if field in columns else "NULL"


def clean_select(columns: list[str], table: str = "feed_raw", dedupe: bool = True) -> str:
    """The SELECT that turns the validated staging table into feed rows (``dedupe``: one per key, first kept).

    Columns, in order: row_key, ts, month, served_model, prompt_version, outcome, latency_ms, error,
    tokens_in, tokens_out, cost_usd, reviewer, review_seconds, audited, audit_verdict, judge_score,
    sentinel, severity, text, _row, then the ``tag:NAME`` columns.
    """
    originals = " || chr(31) || ".join(f"coalesce({_q(c)}, '')" for c in sorted(columns))
    key = (
        f"CASE WHEN trim(id) <> '' THEN trim(id) ELSE 'h:' || md5({originals}) END"
        if "id" in columns
        else f"'h:' || md5({originals})"
    )
    ts = f"CAST(trim({_q('timestamp')}) AS TIMESTAMPTZ)"
    low = {f: (f"lower({_text(f, columns)})" if f in columns else "NULL") for f in CHOICE_FIELDS}
    tags = "".join(f", {_text(c, columns)} AS {_q(c)}" for c in tag_columns(columns))
    return (
        f"SELECT {key} AS row_key, {ts} AS ts, strftime(timezone('UTC', {ts}), '%Y-%m') AS month, "
        f"trim(served_model) AS served_model, {_text('prompt_version', columns)} AS prompt_version, "
        f"{low['outcome']} AS outcome, {_num('latency_ms', columns)} AS latency_ms, "
        f"{_bool('error', columns)} AS error, {_num('tokens_in', columns, 'DOUBLE')}::BIGINT AS tokens_in, "
        f"{_num('tokens_out', columns, 'DOUBLE')}::BIGINT AS tokens_out, "
        f"{_num('cost_usd', columns)} AS cost_usd, "
        f"{_text('reviewer', columns)} AS reviewer, {_num('review_seconds', columns)} AS review_seconds, "
        f"{_bool('audited', columns)} AS audited, {low['audit_verdict']} AS audit_verdict, "
        f"{_num('judge_score', columns)} AS judge_score, {_bool('sentinel', columns)} AS sentinel, "
        f"{low['severity']} AS severity, {_text('text', columns)} AS text, _row{tags} "
        f"FROM {table}"
        + (" QUALIFY row_number() OVER (PARTITION BY row_key ORDER BY _row) = 1" if dedupe else "")
    )


def tag_columns(columns: list[str]) -> list[str]:
    """The ``tag:NAME`` columns of the file.

    Example:
        >>> tag_columns(["timestamp", "tag:site", "tag:lang"])
        ['tag:site', 'tag:lang']
    """
    return [c for c in columns if c.startswith("tag:")]
