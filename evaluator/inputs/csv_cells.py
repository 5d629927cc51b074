"""The one way a CSV of people's and vendors' text leaves MedAssure: no cell a spreadsheet runs as a formula.

Why every export goes through here: a spreadsheet treats a cell that starts with ``=``, ``+``, ``-``, ``@``
(or a tab or carriage return) as a formula, and what we export was typed by people, vendors and models (a
feed row's ``served_model``, a rater's skip reason, a model's output). Such cells get a leading single
quote (OWASP's CSV-injection advice), so they open as text. A bare carriage return inside a cell once
slipped past both guards: ``csv.writer(lineterminator="\\n")`` does not quote a field for a CR, and a
spreadsheet starts a new row there, so ``"a\\r=1+1"`` opened as a cell ``=1+1``. So line breaks inside a
cell become ``\\n`` (which the writer always quotes) and every line of the cell, not only its first, is
neutralised. Control characters (C0, DEL, and the bidi overrides that show text in another order than it
is stored) are dropped. Numbers stay numbers: only text cells are touched.

The evidence CSV, the candidates table, the monitoring feed export, a practice copy's generated feed and
the review sheets (the rater's name too) and exports all write through :func:`csv_text` or :func:`safe_cell`
(a test per export); a sheet's import reads a neutralised cell back as the text it came from.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from typing import Any

from evaluator.inputs.text_controls import CONTROL_CHARS

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters a spreadsheet reads as the start of a formula."""
_LINE_BREAK = re.compile(r"\r\n?|\n")


def safe_cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet will not run as a formula, without control characters.

    Example:
        >>> safe_cell("=HYPERLINK(\\"http://x\\")"), safe_cell("-1+2"), safe_cell(0.5), safe_cell("ok")
        ('\\'=HYPERLINK("http://x")', "'-1+2", 0.5, 'ok')
        >>> safe_cell("\\x00=1+2\\x07")
        "'=1+2"
        >>> safe_cell("note\\r=1+1")
        "note\\n'=1+1"
    """
    if not isinstance(value, str):
        return value
    lines = _LINE_BREAK.split(CONTROL_CHARS.sub("", value))
    return "\n".join("'" + line if line.startswith(FORMULA_STARTS) else line for line in lines)


def csv_text(header: list[str], rows: Iterable[Iterable[Any]]) -> str:
    """A CSV with every cell through ``safe_cell`` and LF rows (None becomes an empty cell).

    A cell holding a line break is quoted (the writer quotes any cell holding ``\\n``, and ``safe_cell``
    has turned every CR into one).

    Example:
        >>> csv_text(["a", "b"], [["x\\ry", None]])
        'a,b\\n"x\\ny",\\n'
    """
    out = io.StringIO()
    write_rows(out, header, rows)
    return out.getvalue()


def write_rows(out: Any, header: list[str] | None, rows: Iterable[Iterable[Any]]) -> int:
    """Write ``header`` (unless None) and ``rows`` to the text stream ``out`` through ``safe_cell``.

    For exports too large to hold as one string (the monitoring feed): rows are written as they come.
    Returns the number of rows written.
    """
    writer = csv.writer(out, lineterminator="\n")
    if header is not None:
        writer.writerow([safe_cell(h) for h in header])
    n = 0
    for row in rows:
        writer.writerow([safe_cell("" if v is None else v) for v in row])
        n += 1
    return n
