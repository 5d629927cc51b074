"""The report model as Markdown: the in-app preview, and Markdown text for CHAI's fields.

Why Markdown: Streamlit renders it natively, and CHAI's model-card text fields accept it, so one
small renderer serves the preview and the card. Charts are not drawn here (the page draws their
Vega-Lite specs itself); a line names each chart so the text stays complete.
"""

from __future__ import annotations

from reports.model import Report, Section, Table
from reports.plain_text import xml_safe

# The backslash is escaped too, so a typed ``\[`` cannot undo our escape of ``[``. ``[`` and
# ``]`` stop links, images (``![x](http://host/)`` would make the browser fetch) and Streamlit's
# ``:red[...]`` directives; ``$`` stops LaTeX; ``<`` stops HTML and ``<http://...>`` autolinks.
SPECIALS = str.maketrans({"\\": "\\\\", "|": "\\|", "*": "\\*", "_": "\\_", "`": "\\`", "<": "&lt;",
                          "#": "\\#", "[": "\\[", "]": "\\]", "$": "\\$", "~": "\\~"})


def md(text: str) -> str:
    """Escape text so Markdown shows it literally (newlines become line breaks).

    Control characters are dropped (as in every export). Example:
        >>> md("a|b *c*")
        'a\\\\|b \\\\*c\\\\*'
        >>> print(md("![x](http://example.invalid/a.png) <img src=x> $x$"))
        !\\[x\\](http://example.invalid/a.png) &lt;img src=x> \\$x\\$
    """
    return xml_safe(text).translate(SPECIALS).replace("\n", "  \n")


def table_markdown(table: Table) -> str:
    """A GitHub-style table (cells escaped, newlines as ``<br>``)."""
    def cell(value: str) -> str:
        return md(value).replace("  \n", "<br>")

    lines = [f"**{md(table.title)}**", ""] if table.title else []
    lines.append("| " + " | ".join(cell(c) for c in table.columns) + " |")
    lines.append("|" + "---|" * len(table.columns))
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.rows]
    if table.note:
        lines += ["", f"*{md(table.note)}*"]
    return "\n".join(lines)


def section_markdown(section: Section, level: int = 2, number: int | None = None,
                     heading: bool = True) -> str:
    """One section (and its sub-sections) as Markdown; ``heading=False`` leaves out its own heading."""
    title = f"{number}. {section.title}" if number is not None else section.title
    parts = [f"{'#' * level} {md(title)}"] if heading else []
    parts += [md(p) for p in section.paragraphs]
    if section.facts:
        parts.append("\n".join(f"- **{md(f.label)}:** {md(f.value)}" for f in section.facts))
    if section.bullets:
        parts.append("\n".join(f"- {md(b)}" for b in section.bullets))
    parts += [table_markdown(t) for t in section.tables]
    parts += [f"*Chart: {md(c.title)}. {md(c.caption)}*" for c in section.charts]
    parts += [section_markdown(s, level + 1) for s in section.subsections]
    return "\n\n".join(parts)


def report_markdown(report: Report) -> str:
    """The whole report: a cover block, then every section in reading order.

    Example:
        >>> report_markdown(build_report(version)).startswith("# ")  # doctest: +SKIP
        True
    """
    c = report.cover
    cover = [f"# {md(c.title)}",
             f"Dossier **{md(c.dossier_id)}**, version {c.version}, saved {c.date:%Y-%m-%d %H:%M} UTC by "
             f"{md(c.author)}  \nVersion hash (SHA-256): `{c.version_hash}`  \n"
             f"Risk tier: **{c.risk_tier}** · Status: {c.status} · Decision: {md(c.decision)}"
             + (f"  \nMonitoring (live): {md(c.monitoring)}" if c.monitoring else "")]
    body = [section_markdown(s, 2, i) for i, s in enumerate(report.sections(), start=1)]
    return "\n\n".join(cover + body) + "\n"
