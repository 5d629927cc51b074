"""The result of a judge-validity analysis, and MedHELM's published figures to set beside it.

Why separate from the computation: pages, the CLI, the dossier and reports all read these
models, and none of them should need pingouin or scikit-learn to do so. ``AgreementReport``
renders itself two ways: ``as_cli`` (the ``medassure agreement`` JSON) and ``table`` (one row per
dataset × statistic, MedHELM's figure beside the local one where MedHELM published one). MedHELM's
jury–clinician 0.47 and clinician–clinician 0.43 pool aci_bench + medi_qa, and its abstract sets the
ROUGE-L 0.36 and BERTScore-F1 0.44 baselines against that 0.47, so all four sit only beside a
row that pools exactly those datasets (``MEDHELM_SUBSET``), never beside a single dataset or a pool of
others (issue 38: 0.47 sat beside aci_bench 0.308, medi_qa 0.625, mtsamples −1.195 and the
three-dataset 0.276). The
gated statistic is ICC(A,1) (``GATED``); ICC(3,k) z is MedHELM's average-of-two variant and sits
beside MedHELM's published figure for comparison only (see ``evaluator.agreement.stats``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import pandas as pd
from pydantic import BaseModel, Field

from evaluator.agreement.ratings import POOLED
from evaluator.agreement.stats import Estimate
from evaluator.paths import DATA_DIR

PUBLISHED_CSV = DATA_DIR / "medhelm_agreement.csv"
GATED = "ICC(A,1)"
MEDHELM_SUBSET = frozenset({"aci_bench", "medi_qa"})
"""The datasets pooled in MedHELM's published jury–clinician and clinician–clinician ICC(3,k) z."""
SUBSET_NOTES = {
    "jury_clinician": "MedHELM's 0.47 pools aci_bench + medi_qa, as this row does",
    "clinician_clinician": (
        "MedHELM's 0.43 is not reproducible from the released annotations: the authors' script gives "
        "0.635 on them, 0.641 with its duplicated column removed (the figure computed here)"
    ),
    "rouge_l_clinician": (
        "MedHELM's 0.36 is set against its 0.47, which pools aci_bench + medi_qa, as this row does"
    ),
    "bertscore_f1_clinician": (
        "MedHELM's 0.44 is set against its 0.47, which pools aci_bench + medi_qa, as this row does; "
        "MedHELM used distilbert-base-uncased, so a local BERTScore is not strictly comparable"
    ),
}
LABELS = {
    "icc21": "ICC(A,1) single rater (gated)",
    "icc31": "ICC(C,1) single rater",
    "icc3k_z": "ICC(3,k) z (MedHELM's variant, comparison only)",
}


class MetricAgreement(BaseModel):
    """A reference-based metric compared with the clinicians, as MedHELM did for ROUGE-L and BERTScore."""

    metric: str
    """Display name (``ROUGE-L``, ``BERTScore-F1``)."""
    icc3k_z: Estimate
    """ICC(3,k) between the clinicians' composite and the metric, both z-scored."""
    spearman: Estimate
    """Spearman's ρ between them."""


class DatasetAgreement(BaseModel):
    """Agreement on one dataset, or pooled over the selected datasets (``ALL``)."""

    dataset: str
    """Dataset name, or ``ALL``."""
    n_instances: int
    """Instances with both a clinician and a jury composite."""
    n_clinicians: int
    """Clinicians who rated any of those instances."""
    n_judges: int
    """Judges who rated any of those instances."""
    icc3k_z: Estimate
    """ICC(3,k) consistency, clinicians' mean composite vs jury composite, each z-scored (MedHELM's
    average-of-two variant: shown beside MedHELM's figure, never gated)."""
    icc21: Estimate
    """ICC(A,1) = ICC(2,1) absolute agreement, single rater, on the raw composites: the gated figure."""
    icc31: Estimate | None = None
    """ICC(C,1) = ICC(3,1) consistency, single rater, on the raw composites (None in older reports)."""
    spearman: Estimate
    """Spearman's ρ with a Fisher-z interval."""
    kappa_w: Estimate
    """Quadratic-weighted Cohen's κ on rounded composites, bootstrap interval."""
    human_icc3k_z: Estimate
    """Clinician-clinician baseline: ICC(3,k) z on the pair with the most instances in common."""
    human_icc21: Estimate | None = None
    """Clinician-clinician baseline: ICC(A,1) on the same pair (the like-for-like comparison)."""
    human_pair: list[str] = Field(default_factory=list)
    """The two clinicians of the baseline."""
    baselines: list[MetricAgreement] = Field(default_factory=list)
    """ROUGE-L and BERTScore-F1 vs clinicians, when responses and references were given."""


class PublishedFigure(BaseModel):
    """One of MedHELM's published agreement figures."""

    comparison: str
    """``jury_clinician``, ``clinician_clinician``, ``rouge_l_clinician`` or ``bertscore_f1_clinician``."""
    value: float
    """The published ICC."""
    source: str
    """Where it is published."""
    note: str
    """How to read it."""


class AgreementReport(BaseModel):
    """Agreement per dataset and pooled, with what the figures rest on."""

    criteria: list[str]
    """Criteria averaged into each composite."""
    datasets: list[DatasetAgreement]
    """One entry per dataset, then ``ALL``."""
    n_clinician_rows: int
    """Clinician ratings read."""
    n_jury_rows: int
    """Jury ratings read."""
    notes: list[str] = Field(default_factory=list)
    """Things a reader must know (unmatched instances, datasets left out)."""
    published: list[PublishedFigure] = Field(default_factory=list)
    """MedHELM's published figures, to show beside the local ones."""

    @property
    def pooled(self) -> DatasetAgreement:
        """The ``ALL`` entry."""
        return next(d for d in self.datasets if d.dataset == POOLED)

    def as_cli(self) -> dict[str, dict[str, Any]]:
        """The CLI's JSON: per dataset and ``ALL``, the figures with intervals and n.

        Example:
            >>> report.as_cli()["ALL"]["icc3k_z"]  # doctest: +SKIP
            0.52
        """
        out: dict[str, dict[str, Any]] = {}
        for d in self.datasets:
            row: dict[str, Any] = {
                "n_instances": d.n_instances,
                "n_clinicians": d.n_clinicians,
                "n_judges": d.n_judges,
            }
            for name in ("icc3k_z", "icc21", "icc31", "spearman", "kappa_w", "human_icc3k_z", "human_icc21"):
                est: Estimate | None = getattr(d, name)
                if est is None:
                    continue
                row[name], row[f"{name}_ci"] = est.value, _ci(est)
                if est.missing_reason:
                    row[f"{name}_note"] = est.missing_reason
            row["gated_statistic"] = GATED
            row["human_pair"] = d.human_pair
            row["human_n_instances"] = d.human_icc3k_z.n
            for b in d.baselines:
                key = b.metric.lower().replace("-", "_")
                row[f"{key}_icc3k_z"], row[f"{key}_icc3k_z_ci"] = b.icc3k_z.value, _ci(b.icc3k_z)
                row[f"{key}_spearman"] = b.spearman.value
            out[d.dataset] = row
        return out

    def table(self) -> pd.DataFrame:
        """One row per dataset × statistic: value, interval, n and MedHELM's published figure.

        Example:
            >>> list(report.table().columns)  # doctest: +SKIP
            ['dataset', 'comparison', 'statistic', 'value', 'ci_lower', 'ci_upper', 'n', 'medhelm', 'note']
        """
        published = {p.comparison: p.value for p in self.published}
        names = {d.dataset.lower() for d in self.datasets if d.dataset != POOLED}
        rows = []
        for d in self.datasets:
            subset = d.dataset == POOLED and names == MEDHELM_SUBSET
            jury_figure = published.get("jury_clinician") if subset else None
            human_figure = published.get("clinician_clinician") if subset else None
            items = [
                ("jury vs clinicians", LABELS["icc21"], d.icc21, None, ""),
                ("jury vs clinicians", LABELS["icc31"], d.icc31, None, ""),
                ("jury vs clinicians", LABELS["icc3k_z"], d.icc3k_z, jury_figure,
                 SUBSET_NOTES["jury_clinician"] if subset else ""),
                ("jury vs clinicians", "Spearman ρ", d.spearman, None, ""),
                ("jury vs clinicians", "weighted κ", d.kappa_w, None, ""),
                ("clinician vs clinician", "ICC(A,1) single rater", d.human_icc21, None, ""),
                ("clinician vs clinician", LABELS["icc3k_z"], d.human_icc3k_z, human_figure,
                 SUBSET_NOTES["clinician_clinician"] if subset else ""),
            ]
            for b in d.baselines:
                key = "rouge_l_clinician" if b.metric == "ROUGE-L" else "bertscore_f1_clinician"
                items += [
                    (f"{b.metric} vs clinicians", LABELS["icc3k_z"], b.icc3k_z,
                     published.get(key) if subset else None, SUBSET_NOTES[key] if subset else ""),
                    (f"{b.metric} vs clinicians", "Spearman ρ", b.spearman, None, ""),
                ]
            for comparison, statistic, est, medhelm, beside in items:
                if est is None:
                    continue
                rows.append(
                    {
                        "dataset": d.dataset,
                        "comparison": comparison,
                        "statistic": statistic,
                        "value": est.value,
                        "ci_lower": est.ci_lower,
                        "ci_upper": est.ci_upper,
                        "n": est.n,
                        "medhelm": medhelm,
                        "note": "; ".join(x for x in (est.missing_reason, beside) if x),
                    }
                )
        return pd.DataFrame(rows)


def _ci(est: Estimate) -> list[float] | None:
    return [est.ci_lower, est.ci_upper] if est.ci_lower is not None else None


@lru_cache(maxsize=1)
def _published_rows() -> tuple[PublishedFigure, ...]:
    df = pd.read_csv(PUBLISHED_CSV)
    return tuple(
        PublishedFigure(comparison=r.comparison, value=float(r.value), source=r.source, note=r.note)
        for r in df.itertuples()
    )


def published_agreement() -> list[PublishedFigure]:
    """MedHELM's published agreement figures (``data/medhelm_agreement.csv``).

    Example:
        >>> {p.comparison: p.value for p in published_agreement()}["jury_clinician"]
        0.47
    """
    return list(_published_rows())
