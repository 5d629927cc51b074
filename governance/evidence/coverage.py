"""The coverage map: for each accepted subcategory, what kind of evidence exists or could.

Why it matters: a committee must see at a glance whether its job is covered by a benchmark it
can run itself (public data), one it could obtain (gated, credentialed access), one only
Stanford holds (private: published scores are all there will be), by its own HELM runs or local
runs, or by nothing at all. The benchmark side comes from the taxonomy; the run side from the
evidence attached to the dossier. An attached record counts for a subcategory when it names that
subcategory or one of its benchmarks.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from evaluator.evidence.record import Evidence
from governance.dossier.record import Dossier
from governance.mapping.taxonomy import Subcategory, load_taxonomy

CoverageKind = Literal["public", "gated", "private", "helm-import", "inspect-import", "local-run", "none"]

KIND_NOTES = {
    "public": "public benchmark data: the hospital can run it on its candidates",
    "gated": "gated data (credentialed access, e.g. PhysioNet): can be run after approval",
    "private": "private data (Stanford): MedHELM's published scores are the only evidence",
    "helm-import": "the hospital's own HELM runs are attached",
    "inspect-import": "the hospital's own Inspect evaluation logs are attached",
    "local-run": "runs made in MedAssure are attached",
    "none": "no benchmark and no attached evidence: build a local scenario",
}


class CoverageRow(BaseModel):
    """Evidence coverage of one accepted subcategory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subcategory_id: str
    """Taxonomy subcategory id."""
    subcategory: str
    """Subcategory name."""
    category: str
    """Its category's name."""
    public: list[str]
    """Public benchmarks mapped to it."""
    gated: list[str]
    """Gated benchmarks mapped to it."""
    private: list[str]
    """Private benchmarks mapped to it."""
    attached_published: int
    """Attached published MedHELM records for it."""
    attached_helm_import: int
    """Attached imported HELM runs for it."""
    attached_local_run: int
    """Attached local runs for it."""
    attached_inspect_import: int = 0
    """Attached imported Inspect logs for it."""
    local_tasks: list[str]
    """The committee's own tasks under it (not MedHELM's; no evidence yet counts for them)."""
    kinds: list[CoverageKind]
    """Kinds of evidence that exist, ``["none"]`` when nothing does."""

    @property
    def summary(self) -> str:
        """The kinds, readable: ``public · private · helm-import``."""
        return " · ".join(self.kinds)


def _counts_for(sub: Subcategory, evidence: list[Evidence]) -> dict[str, int]:
    names = {b.name for b in sub.benchmarks}
    counts = {"published": 0, "helm-import": 0, "local-run": 0, "inspect-import": 0}
    for e in evidence:
        if e.is_main and (e.subcategory == sub.name or e.benchmark in names):  # context metrics not counted
            counts[e.provenance] += 1
    return counts


def coverage_row(sub: Subcategory, dossier: Dossier) -> CoverageRow:
    """Coverage of one subcategory by the taxonomy's benchmarks and the dossier's evidence."""
    tiers = {t: [b.name for b in sub.benchmarks if b.access == t] for t in ("public", "gated", "private")}
    counts = _counts_for(sub, dossier.evidence)
    kinds: list[CoverageKind] = [t for t in ("public", "gated", "private") if tiers[t]]
    kinds += [k for k in ("helm-import", "inspect-import", "local-run") if counts[k]]
    return CoverageRow(
        subcategory_id=sub.id, subcategory=sub.name, category=load_taxonomy().category_of(sub.id).name,
        **tiers, attached_published=counts["published"], attached_helm_import=counts["helm-import"],
        attached_local_run=counts["local-run"], attached_inspect_import=counts["inspect-import"],
        local_tasks=[t.name for t in dossier.mapping.local_tasks if t.subcategory_id == sub.id],
        kinds=kinds or ["none"],
    )


def coverage_map(dossier: Dossier) -> list[CoverageRow]:
    """One coverage row per accepted subcategory, in mapping order.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="demo", owner="me", intended_use=example_intended_use())
        >>> d = d.model_copy(update={"mapping": d.mapping.decide(
        ...     "patient_provider_messaging", "accepted", by="me")})
        >>> coverage_map(d)[0].kinds
        ['public', 'private']
    """
    tax = load_taxonomy()
    return [coverage_row(tax.subcategory(s), dossier) for s in dossier.mapping.accepted]
