"""One-page documents: the decision memo (page 1 of the dossier PDF) and the model-facts label.

Why shrink to fit: each must be one page to be read at all (a memo on a board's table, a label pinned
in a pharmacy). ``KeepInFrame(mode="shrink")`` scales the content down rather than spill onto a page 2;
the content is bounded (three reasons, eight failure modes, the checklist) so the scale stays readable
(about 0.8 for the demo).
"""

from __future__ import annotations

from reportlab.platypus import Flowable, KeepInFrame, Paragraph, Spacer

from reports.model import Section
from reports.pdf_blocks import facts_flowables
from reports.pdf_style import FRAME_HEIGHT, FRAME_WIDTH, stylesheet, text


def _blocks(section: Section, level: int = 1) -> list[Flowable]:
    styles = stylesheet()
    out: list[Flowable] = [Paragraph(text(section.title), styles["title" if level == 1 else "h2"])]
    out += [Paragraph(text(p), styles["subtitle" if level == 1 else "body"]) for p in section.paragraphs]
    if section.facts:
        out += facts_flowables(section.facts)
    out += [Paragraph(text(b), styles["bullet"], bulletText="•") for b in section.bullets]
    for sub in section.subsections:
        out += _blocks(sub, level + 1)
    return out


def one_page(section: Section) -> Flowable:
    """The section's blocks shrunk, if need be, to fit one page's frame."""
    return KeepInFrame(FRAME_WIDTH, FRAME_HEIGHT - 6, [*_blocks(section), Spacer(1, 2)], mode="shrink")
