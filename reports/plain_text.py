"""The report model as plain text, for fields whose reader shows text as it is (CHAI's XML).

Why not Markdown: a model-card viewer, a registry or an auditor's XML tool shows the field's text
verbatim, where ``**Reviewer:**`` and ``### Human review`` are noise. Plain text keeps the
structure with line breaks only: a title line, "Label: value" facts, one line per list item,
one line per table row with its column names.
"""

from __future__ import annotations

import re

from reports.model import Section, Table

_C0 = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def xml_safe(text: str) -> str:
    """Text without the control characters XML 1.0 cannot carry (tab, newline and CR are kept).

    Example:
        >>> xml_safe("a\\x00b\\x1bc\\td")
        'abc\\td'
    """
    return _C0.sub("", text)


def lines(items: list[str]) -> str:
    """One item per line, no list markers.

    Example:
        >>> lines(["first", "second"])
        'first\\nsecond'
    """
    return "\n".join(i.strip() for i in items if i.strip())


def table_text(table: Table) -> str:
    """Each row as ``column: value; column: value``, after the title and before the note."""
    out = [table.title] if table.title else []
    out += ["; ".join(f"{c}: {v}" for c, v in zip(table.columns, row, strict=False)) for row in table.rows]
    if table.note:
        out.append(table.note)
    return "\n".join(out)


def section_text(section: Section, heading: bool = True) -> str:
    """One section and its sub-sections as plain text.

    Example:
        >>> from reports.model import Fact
        >>> review = Section(key="r", title="Review", facts=[Fact(label="Reviewer", value="a nurse")])
        >>> print(section_text(review))
        Review
        Reviewer: a nurse
    """
    parts = [section.title] if heading else []
    parts += list(section.paragraphs)
    parts += [f"{f.label}: {f.value}" for f in section.facts]
    parts += list(section.bullets)
    parts += [table_text(t) for t in section.tables]
    parts += [f"Chart: {c.title}. {c.caption}".strip() for c in section.charts]
    text = "\n".join(p for p in parts if p)
    subs = [section_text(s) for s in section.subsections]
    return "\n\n".join([text, *subs]) if subs else text
