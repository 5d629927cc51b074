"""The report model: everything the dossier PDF, its preview and its exports say, as plain data.

Why a model between the dossier and the PDF: the renderer should only lay out, never decide
what a number means, so tests can assert on content without parsing a PDF (pretix's invoice
renderer is fed the same way). ``build_report`` (``reports.build``) is a pure function of one stored dossier
version (plus the run records its evidence names): the same version always gives the same
report, dated by the version's own timestamp, not by the clock.

Every section is a ``Section`` of generic blocks (paragraphs, facts, bullets, tables, charts,
then sub-sections of the same shape), so the PDF and the Markdown preview render all sections
with one code path. A section whose data does not exist yet says so in words
(``recorded=False``); nothing is invented to fill it.
Later issues add sections without touching this model: "Candidates compared" (issue 10) and a
"Re-evaluation addendum" (issue 9) go into ``extra_sections``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

NOT_PROVIDED = "not provided"


class Fact(BaseModel):
    """A labelled value, shown as a two-column row."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str
    """What the value is."""
    value: str
    """The value as text."""


class Table(BaseModel):
    """A table of text cells; long tables repeat their header on each page."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str = ""
    """Caption above the table (empty: none)."""
    columns: list[str]
    """Column headers."""
    rows: list[list[str]]
    """Cells, one list per row, as many cells as columns."""
    widths: list[float] | None = None
    """Relative column widths (None: equal); the renderer scales them to the page."""
    note: str = ""
    """Text under the table (method, legend)."""


class Chart(BaseModel):
    """A chart as a Vega-Lite spec: rendered offline to PNG for the PDF, natively in the app."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    """Stable name, e.g. ``scores``."""
    title: str
    """Heading shown above the chart."""
    spec: dict[str, Any]
    """Vega-Lite spec with its data inlined."""
    caption: str = ""
    """What the chart shows and what it does not."""

    def _repr_mimebundle_(self, include=None, exclude=None):
        """Drawn inline in a notebook by altair's active renderer (``alt.renderers.enable("png")``)."""
        import altair as alt

        return alt.renderers.get()(self.spec)


class Section(BaseModel):
    """One section of the report: generic blocks rendered in order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    """Stable name, e.g. ``evidence``."""
    title: str
    """Heading."""
    recorded: bool = True
    """False when the dossier holds no data for this section yet (the text then says so)."""
    paragraphs: list[str] = Field(default_factory=list)
    """Plain-text paragraphs."""
    facts: list[Fact] = Field(default_factory=list)
    """Label/value rows."""
    bullets: list[str] = Field(default_factory=list)
    """A bulleted list."""
    tables: list[Table] = Field(default_factory=list)
    """Tables."""
    charts: list[Chart] = Field(default_factory=list)
    """Charts."""
    subsections: list[Section] = Field(default_factory=list)
    """Sub-sections, rendered after the blocks above with a smaller heading."""


class Cover(BaseModel):
    """The first page: what this document is about and which exact version it binds to."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str
    """Dossier title."""
    dossier_id: str
    """Dossier id."""
    owner: str
    """Accountable person or committee."""
    status: str
    """Dossier status."""
    risk_tier: str
    """Derived risk tier."""
    version: int
    """Stored version number."""
    version_hash: str
    """SHA-256 of the version's canonical JSON: the content this report is bound to."""
    parent_hash: str | None
    """Hash of the previous version (None for the first)."""
    author: str
    """Who saved the version."""
    date: datetime
    """When the version was saved (the report's date)."""
    decision: str
    """The committee's decision in words, or a not-recorded line."""
    decision_date: datetime | None = None
    """When the decision was recorded, if it was."""
    flags: list[str] = Field(default_factory=list)
    """What a reader must see first (``reports.flags``): demo data, missing sign-offs or sections,
    unlocked rules, a decision against the recommendation."""
    monitoring: str = ""
    """The live monitoring status after go-live in one line (``reports.monitoring_text.one_line``), read
    from the feed when the file is made, not part of the version (empty: not computed, e.g. no decision)."""


class AppendixRun(BaseModel):
    """One run as the report's appendix lists it (from the run store or the evidence)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    run_id: str
    """Run identifier."""
    benchmark_id: str | None = None
    """Benchmark the run evaluated."""
    model: str | None = None
    """Model identifier as sent to the endpoint."""
    created_at: datetime | None = None
    """When the run started."""
    finished_at: datetime | None = None
    """When it reached a terminal status."""
    status: str | None = None
    """Run status (finished, cancelled, ...)."""
    prompt_hash: str | None = None
    """Hash of the rendered prompts."""
    dataset_hash: str | None = None
    """Hash of the instances."""
    spec_hash: str | None = None
    """Hash of the benchmark spec."""


class Report(BaseModel):
    """The whole dossier report, one field per section, in reading order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cover: Cover
    """Cover page."""
    memo: Section | None = None
    """The one-page decision memo, page 1 of the PDF (``reports.sections_memo``; None: not built)."""
    executive_summary: Section
    """What was decided and why, in a few lines."""
    intended_use: Section
    """Intended use and risk tier with its reasoning."""
    mapping: Section
    """Taxonomy mapping and evidence coverage."""
    evidence: Section
    """Evidence tables with n, intervals and provenance."""
    charts: Section
    """Charts of the evidence."""
    rules: Section
    """Acceptance rules and their verdicts."""
    subgroups: Section
    """Subgroup results."""
    cost: Section
    """Cost-performance."""
    human_review: Section
    """Human review requirements."""
    monitoring: Section
    """Monitoring plan."""
    limitations: Section
    """What benchmark evidence cannot show."""
    rule_changes: Section
    """Changes to locked rules."""
    signoffs: Section
    """The committee's decision and sign-offs, checked against this version."""
    extra_sections: list[Section] = Field(default_factory=list)
    """Sections added by later steps (candidates compared, re-evaluation addendum)."""
    runs: Section
    """Appendix: runs behind the evidence."""
    source_attributes: Section
    """Appendix: HTI-1 source attributes as a procurement checklist."""

    def sections(self) -> list[Section]:
        """Body sections in reading order (the cover excluded).

        Example:
            >>> [s.key for s in report.sections()][:2]  # doctest: +SKIP
            ['executive_summary', 'intended_use']
        """
        body = [
            self.executive_summary,
            self.intended_use,
            self.mapping,
            self.evidence,
            self.charts,
            self.rules,
            self.subgroups,
            self.cost,
            self.human_review,
            self.monitoring,
            self.limitations,
            self.rule_changes,
            self.signoffs,
        ]
        return [*body, *self.extra_sections, self.runs, self.source_attributes]


