"""Byte-level checks of an upload: size, what the file really is, and its text encoding.

Why before parsing: a 50 MB export, a workbook renamed to .csv, a CSV renamed to .xlsx, a PDF
uploaded by mistake, UTF-16 from "Unicode text" in Excel or Latin-1 from an old system each fail
in a parser with a message nobody can act on. Checked here on the raw bytes, each gets a reason
that says what to do. Accepted text encodings are UTF-8 and UTF-8 with a byte-order mark; any
other is detected and reported with the fix ("save as CSV UTF-8"), never guessed, because a
wrong guess silently corrupts names and drug names in the cases.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from evaluator.scenarios.issues import ImportIssue, ImportRejected, file_issue, reject

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
FORMATS = {".csv": "csv", ".xlsx": "xlsx", ".jsonl": "jsonl", ".ndjson": "jsonl"}
ZIP = b"PK\x03\x04"
MAGIC = {ZIP: "a ZIP archive (an Excel .xlsx workbook?)", b"%PDF": "a PDF document",
         b"\xd0\xcf\x11\xe0": "an old Excel 97-2003 (.xls) or Word file", b"\x89PNG": "a PNG image",
         b"\x1f\x8b": "a gzip archive", b"\xff\xd8\xff": "a JPEG image"}
FileFormat = Literal["csv", "xlsx", "jsonl"]


def megabytes(n: int) -> str:
    """``"20.0 MB"``."""
    return f"{n / 1024 / 1024:.1f} MB"


def check_size(name: str, size: int, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
    """Refuse a file over the limit (checked before a byte is parsed).

    Example:
        >>> check_size("big.csv", 50 * 2**20)  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        ImportRejected: big.csv: 1 problem(s), nothing stored: file: the file is 50.0 MB; the limit is 20.0 MB
    """
    if size > max_bytes:
        raise reject(name, f"the file is {megabytes(size)}; the limit is {megabytes(max_bytes)}. Split it, "
                           "or raise the limit if the cases really are this large")


def printable_share(data: bytes) -> float:
    """Share of bytes that can occur in text (bytes ≥ 0x80 count: they may be UTF-8)."""
    if not data:
        return 1.0
    return sum(1 for b in data if b >= 0x20 or b in (0x09, 0x0A, 0x0D)) / len(data)


def file_format(name: str, data: bytes) -> FileFormat:
    """The format to parse, from the extension, after checking the bytes agree with it.

    Example:
        >>> file_format("cases.xlsx", b"id,question\\n")  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        ImportRejected: cases.xlsx: ... named .xlsx but it is not an Excel workbook ...
    """
    suffix = Path(name).suffix.lower()
    if suffix not in FORMATS:
        raise reject(name, f"unsupported file type {suffix or '(none)'!r}: upload .csv, .xlsx or .jsonl")
    kind = next((what for magic, what in MAGIC.items() if data.startswith(magic)), None)
    if FORMATS[suffix] == "xlsx" and not data.startswith(ZIP):
        text_like = b"\x00" not in data[:4096] and printable_share(data[:4096]) > 0.95
        looks = "plain text (it looks like comma-separated values)" if text_like else kind or "binary"
        raise reject(name, f"named .xlsx but it is not an Excel workbook: its content is {looks}. Rename it "
                           "to .csv, or save it from Excel as .xlsx")
    if FORMATS[suffix] != "xlsx" and kind:
        hint = "; if it is a workbook, name it .xlsx" if data.startswith(ZIP) else ""
        raise reject(name, f"named {suffix} but it is {kind}, not text{hint}")
    return FORMATS[suffix]  # type: ignore[return-value]


def _bad_utf8_lines(data: bytes) -> list[ImportIssue]:
    issues, other_utf8 = [], False
    for number, line in enumerate(data.split(b"\n"), start=1):
        try:
            line.decode("utf-8")
            other_utf8 = other_utf8 or any(b >= 0x80 for b in line)
        except UnicodeDecodeError as exc:
            byte = line[exc.start]
            guess = bytes([byte]).decode("cp1252", errors="replace")
            issues.append(ImportIssue(row=number, reason=(
                f"not UTF-8 text: byte 0x{byte:02X} at position {exc.start + 1} of line {number} (in "
                f"Latin-1/Windows-1252 that is {guess!r}); save the file as UTF-8 (Excel: 'CSV UTF-8')")))
    if issues and other_utf8:
        issues.insert(0, file_issue("mixed encodings: some lines are UTF-8 and others are not; re-save the "
                                    "whole file as UTF-8"))
    return issues


def decode_text(name: str, data: bytes) -> tuple[str, str]:
    """(text, encoding) of a CSV/JSONL upload; only UTF-8, with or without BOM, is accepted.

    Example:
        >>> decode_text("a.csv", b"\\xef\\xbb\\xbfid\\n1")
        ('id\\n1', 'utf-8-sig')
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise reject(name, "UTF-16 text (it starts with a UTF-16 byte-order mark); save the file as UTF-8 "
                           "(Excel: 'CSV UTF-8')")
    if b"\x00" in data or printable_share(data[:65536]) < 0.95:
        at = data.find(b"\x00")
        where = f" (a NUL byte at byte {at + 1})" if at >= 0 else ""
        raise reject(name, f"contains binary data{where}, not a text table; upload the CSV, XLSX or JSONL "
                           "file itself")
    encoding = "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError:
        raise ImportRejected(name, _bad_utf8_lines(data)) from None
