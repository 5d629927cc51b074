"""Parse an upload (CSV, XLSX or JSONL) into a plain table of rows, or say exactly why not.

Why a separate step before mapping and validation: a table whose structure is broken (wrong
delimiter, no header row, a file cut off mid-cell, a JSON line that does not parse) cannot be
interpreted column by column, so it is refused here, with the row, before any column gets a
meaning. Byte-level checks (size, type, encoding) come first, in ``evaluator.scenarios.sniff``.
HealthBench's JSONL is recognised by its fields and turned into columns here
(``evaluator.scenarios.rubric_cases``). Row numbers are those a person sees: in CSV and XLSX the
header is row 1 and blank rows count, as in Excel; in JSONL the row is the line number.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from evaluator.inputs.capped_json import JsonRefused, parse_json
from evaluator.scenarios.columns import known_column
from evaluator.scenarios.issues import ImportIssue, ImportRejected, file_issue, reject
from evaluator.scenarios.sniff import DEFAULT_MAX_BYTES, FileFormat, check_size, decode_text, file_format

__all__ = ["DEFAULT_MAX_BYTES", "RawRow", "RawTable", "read_table", "read_table_file"]


class RawRow(BaseModel):
    """One data row as read, before any column has a meaning."""

    model_config = ConfigDict(frozen=True)

    number: int
    """Row as a person counts it: CSV/XLSX with the header as row 1, JSONL by line."""
    cells: dict[str, Any]
    """Column name → cell value (text for CSV; text, number or list for XLSX/JSONL)."""


class RawTable(BaseModel):
    """A readable upload: its columns, its rows and the fingerprint of the exact bytes."""

    model_config = ConfigDict(frozen=True)

    source_name: str
    """File name as uploaded."""
    file_format: FileFormat
    """How it was read."""
    encoding: str
    """``utf-8``, ``utf-8-sig`` (with BOM) or ``xlsx``."""
    columns: list[str]
    """Header names in file order."""
    rows: list[RawRow]
    """Data rows (blank rows skipped)."""
    sha256: str
    """SHA-256 of the uploaded bytes."""
    size_bytes: int
    """Size of the upload."""
    layout: Literal["table", "healthbench"] = "table"
    """``healthbench``: HealthBench's JSONL, turned into columns (``evaluator.scenarios.rubric_cases``)."""


def _looks_like_value(cell: str) -> bool:
    text = cell.strip()
    try:
        float(text)
        return True
    except ValueError:
        return len(text) > 60 or text.count(" ") > 5


def _check_header(name: str, header: list[str]) -> None:
    if len(header) == 1:
        for sep, label in ((";", "semicolons"), ("\t", "tabs"), ("|", "vertical bars")):
            if sep in header[0]:
                raise reject(name, f"the header is one column {header[0][:60]!r}: the file seems to be "
                                   f"separated by {label}, not commas. Export it as comma-separated CSV "
                                   "(UTF-8)", row=1)
    if not any(known_column(h) for h in header) and any(_looks_like_value(h) for h in header):
        sample = ", ".join(repr(h[:30]) for h in header[:3])
        raise reject(name, f"no header row: the first row looks like data ({sample}); add a first row naming "
                           "the columns (for example id, context, question, reference)", row=1)
    issues = [ImportIssue(row=1, column=f"#{i}", reason=f"column {i} has no name in the header row")
              for i, h in enumerate(header, start=1) if not h]
    names = [h for h in header if h]
    issues += [ImportIssue(row=1, column=h, reason="this column name appears twice")
               for h in sorted({h for h in names if names.count(h) > 1})]
    if issues:
        raise ImportRejected(name, issues)


def _csv_table(name: str, text: str) -> tuple[list[str], list[RawRow]]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    records: list[tuple[int, list[str]]] = []
    try:
        for number, record in enumerate(reader, start=1):
            records.append((number, record))
    except csv.Error as exc:
        why = ("the file ends inside a quoted cell: it is truncated, or a quote is never closed"
               if "end of data" in str(exc) else f"malformed CSV ({exc}); check the quotes in this row")
        raise reject(name, why, row=len(records) + 1) from None
    records = [(n, rec) for n, rec in records if any(c.strip() for c in rec)]
    if not records:
        raise reject(name, "the file has no rows (only blank lines)")
    header = [h.strip() for h in records[0][1]]
    _check_header(name, header)
    issues, rows, last = [], [], records[-1][0]
    for number, rec in records[1:]:
        if len(rec) == len(header):
            rows.append(RawRow(number=number, cells=dict(zip(header, rec, strict=True))))
            continue
        why = "an unquoted comma, or a different delimiter?" if len(rec) > len(header) else "missing cells"
        cut = " — the file looks truncated" if number == last and len(rec) < len(header) else ""
        issues.append(ImportIssue(row=number, reason=f"{len(rec)} cells but the header has {len(header)} "
                                                     f"columns ({why}){cut}"))
    if issues:
        raise ImportRejected(name, issues)
    return header, rows


def _jsonl_table(name: str, text: str) -> tuple[list[str], list[RawRow]]:
    if text.lstrip().startswith("["):
        raise reject(name, "this is a JSON array, not JSON Lines: write one JSON object per line")
    lines = text.split("\n")
    issues: list[ImportIssue] = []
    rows: list[RawRow] = []
    columns: dict[str, None] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = parse_json(line)
        except JsonRefused as exc:
            issues.append(ImportIssue(row=number, reason=f"not accepted: {exc}"))
            continue
        except json.JSONDecodeError as exc:
            cut = " — the last line is cut off (truncated file?)" if number == len(lines) else ""
            reason = f"not valid JSON ({exc.msg}, column {exc.colno}){cut}"
            issues.append(ImportIssue(row=number, reason=reason))
            continue
        if not isinstance(record, dict):
            issues.append(ImportIssue(row=number, reason="each line must be one JSON object {...}"))
            continue
        columns.update(dict.fromkeys(str(k) for k in record))
        rows.append(RawRow(number=number, cells={str(k): v for k, v in record.items()}))
    if issues:
        raise ImportRejected(name, issues)
    return list(columns), rows


def _cell(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value if value is None or isinstance(value, str) else str(value)


def _filled(value: Any) -> bool:
    return value is not None and str(value).strip() != ""


def _xlsx_table(name: str, data: bytes) -> tuple[list[str], list[RawRow]]:
    import zipfile

    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=False)
        records = [[_cell(v) for v in rec] for rec in book.worksheets[0].iter_rows(values_only=True)]
        book.close()
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, IndexError, EOFError) as exc:
        raise reject(name, f"not a complete Excel workbook (damaged or truncated: {exc}); save it again "
                           "from Excel") from None
    numbered = [(n, rec) for n, rec in enumerate(records, start=1) if any(_filled(c) for c in rec)]
    if not numbered:
        raise reject(name, "the first worksheet is empty")
    cells = list(numbered[0][1])
    while cells and not _filled(cells[-1]):
        cells.pop()
    header = [str(h).strip() if h is not None else "" for h in cells]
    _check_header(name, header)
    issues, rows = [], []
    for number, rec in numbered[1:]:
        extra = [c for c in rec[len(header):] if _filled(c)]
        if extra:
            issues.append(ImportIssue(row=number, reason=f"a cell past the last named column: {extra[0]!r}"))
            continue
        padded = list(rec[:len(header)]) + [None] * (len(header) - len(rec))
        rows.append(RawRow(number=number, cells=dict(zip(header, padded, strict=True))))
    if issues:
        raise ImportRejected(name, issues)
    return header, rows


def read_table(name: str, data: bytes, max_bytes: int = DEFAULT_MAX_BYTES) -> RawTable:
    """Read an upload into a ``RawTable``.

    Raises:
        ImportRejected: too large, empty, binary, not UTF-8, wrong delimiter, no header, truncated,
            unsupported type, or a workbook/text mix-up; every issue says what to do.

    Example:
        >>> t = read_table("cases.csv", b"id,question,reference\\nq1,2+2?,4\\n")
        >>> t.columns, t.rows[0].number, t.rows[0].cells["reference"]
        (['id', 'question', 'reference'], 2, '4')
    """
    check_size(name, len(data), max_bytes)
    if not data.strip():
        raise reject(name, "the file is empty" if not data else "the file holds only blanks")
    fmt = file_format(name, data)
    if fmt == "xlsx":
        (columns, rows), encoding = _xlsx_table(name, data), "xlsx"
    else:
        text, encoding = decode_text(name, data)
        columns, rows = (_csv_table if fmt == "csv" else _jsonl_table)(name, text)
    if not rows:
        raise ImportRejected(name, [file_issue("the file has a header but no data rows")])
    layout = "table"
    if fmt == "jsonl":
        from evaluator.scenarios.rubric_cases import healthbench_rows, is_healthbench, meta_eval_problem

        if problem := meta_eval_problem(columns):
            raise reject(name, problem)
        if is_healthbench(columns, rows):  # it reads RawRow
            (columns, rows), layout = healthbench_rows(name, rows), "healthbench"
    return RawTable(source_name=name, file_format=fmt, encoding=encoding, columns=columns, rows=rows,
                    sha256=hashlib.sha256(data).hexdigest(), size_bytes=len(data), layout=layout)


def read_table_file(path: Path | str, max_bytes: int = DEFAULT_MAX_BYTES) -> RawTable:
    """``read_table`` of a file on disk; the size is checked before a byte is read.

    Example:
        >>> read_table_file("/no/such.csv")  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        ImportRejected: ...
    """
    p = Path(path)
    if not p.is_file():
        raise reject(str(path), "no such file")
    check_size(p.name, p.stat().st_size, max_bytes)
    return read_table(p.name, p.read_bytes(), max_bytes)
