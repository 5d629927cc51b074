"""The one error shape of local-scenario import: a list of (row, column, reason).

Why a list and not the first exception: a committee member fixing a spreadsheet wants every
problem at once, each pointing at a row and a column, not one traceback per attempt. File-level
problems (size, encoding, format) carry no row; cell problems carry both. ``ImportRejected``
wraps the list when nothing can be stored, so callers cannot store a half-valid file by accident.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

MAX_ISSUES = 200


class ImportIssue(BaseModel):
    """One problem with an uploaded file, located as precisely as possible."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    row: int | None = None
    """Row as a person counts it (CSV/XLSX: header is row 1; JSONL: line number); None for the file."""
    column: str | None = None
    """Column (or JSON key) the problem is in; None when it concerns the whole row or file."""
    reason: str
    """What is wrong and, where it helps, how to fix it."""

    def line(self) -> str:
        """``row 4, column reference: the reference is empty``."""
        where = [f"row {self.row}"] if self.row is not None else []
        if self.column is not None:
            where.append(f"column {self.column}")
        return f"{', '.join(where) or 'file'}: {self.reason}"


class ImportRejected(ValueError):
    """The file cannot become a scenario; nothing was stored."""

    def __init__(self, source: str, issues: list[ImportIssue]):
        self.source, self.issues = source, issues[:MAX_ISSUES]
        more = f" (and {len(issues) - MAX_ISSUES} more)" if len(issues) > MAX_ISSUES else ""
        head = "; ".join(i.line() for i in self.issues[:3])
        super().__init__(f"{source}: {len(issues)} problem(s){more}, nothing stored: {head}")


def file_issue(reason: str) -> ImportIssue:
    """A problem with the whole file.

    Example:
        >>> file_issue("the file is empty").line()
        'file: the file is empty'
    """
    return ImportIssue(reason=reason)


def reject(source: str, reason: str, row: int | None = None) -> ImportRejected:
    """An ``ImportRejected`` with one issue, ready to raise.

    Example:
        >>> str(reject("a.csv", "the file is empty"))
        'a.csv: 1 problem(s), nothing stored: file: the file is empty'
    """
    return ImportRejected(source, [ImportIssue(row=row, reason=reason)])
