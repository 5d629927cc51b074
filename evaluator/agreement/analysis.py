"""Judge validity: how well the LLM jury agrees with the hospital's own clinicians, on its own cases.

Why: MedHELM found its jury agreed with clinicians (ICC 0.47) about as well as clinicians agreed
with each other (0.43). A committee should not take that on faith for its own task, so this
module repeats MedHELM's analysis on local ratings: per dataset and pooled (``ALL``), between the
clinicians' mean composite and the jury's composite per instance: ICC(A,1) absolute agreement
(the single-measure figure the judge-agreement rule gates on), ICC(C,1), ICC(3,k) on z-scored
series (MedHELM's headline variant, for comparison with its published 0.47 only), Spearman's ρ
and quadratic-weighted κ, plus the clinician-clinician baseline (ICC(A,1) and ICC(3,k) z) on the
pair of clinicians with the most cases in common.
Where candidate responses and references are given, ROUGE-L and BERTScore-F1 are compared with
the clinicians the same way, as MedHELM did, to show what the jury adds over cheap metrics.
Statistics live in ``evaluator.agreement.stats``; file checks in ``evaluator.agreement.ratings``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from evaluator.agreement.ratings import (
    DEFAULT_DATASET,
    POOLED,
    RatingsError,
    align_datasets,
    instance_composites,
    most_overlapping_pair,
    rater_composites,
    read_ratings,
)
from evaluator.agreement.report import (
    AgreementReport,
    DatasetAgreement,
    MetricAgreement,
    published_agreement,
)
from evaluator.agreement.stats import Estimate, icc3k_z, icc21, icc31, kappa_w, spearman
from evaluator.benchmarks.instance import Instance
from evaluator.scoring.metrics import Sample, compute_metric

BASELINE_METRICS = {"rougeL": "ROUGE-L", "bertscore_f": "BERTScore-F1"}

__all__ = ["AgreementReport", "DatasetAgreement", "RatingsError", "compute_agreement", "published_agreement"]


def metric_scores(outputs: pd.DataFrame, metric: str) -> pd.Series:
    """A reference-based metric per (dataset, instance_id) for rows with a reference.

    Computed by ``evaluator.scoring.metrics``.

    ``outputs`` has ``dataset, instance_id, response, reference``.
    """
    rows = outputs[outputs["reference"].fillna("").astype(str).str.strip() != ""]
    samples = [
        Sample(
            Instance(id=str(r.instance_id), reference=str(r.reference), answer_type="free_text"),
            str(r.response or ""),
            str(r.response or ""),
        )
        for r in rows.itertuples()
    ]
    values = compute_metric(metric, samples)
    index = pd.MultiIndex.from_arrays(
        [rows["dataset"].astype(str), rows["instance_id"].astype(str)], names=["dataset", "instance_id"]
    )
    return pd.Series(values, index=index, dtype=float).dropna()


def _human_baseline(clinicians: pd.DataFrame) -> tuple[Estimate, Estimate, list[str]]:
    """ICC(3,k) z and ICC(A,1) between the two clinicians with the most instances in common."""
    pair = most_overlapping_pair(clinicians)
    if pair is None:
        why = "no two clinicians rated the same instance"
        return (
            Estimate(value=None, n=0, method="ICC(3,k) consistency on z-scored series", missing_reason=why),
            Estimate(value=None, n=0, method="ICC(2,1) absolute agreement", missing_reason=why),
            [],
        )
    a, b, _ = pair
    frame = clinicians.assign(composite=rater_composites(clinicians))
    wide = (
        frame[frame["rater"].isin([a, b])]
        .pivot_table(index=["dataset", "instance_id"], columns="rater", values="composite")
        .dropna()
    )
    x, y = wide[a].to_numpy(), wide[b].to_numpy()
    return icc3k_z(x, y), icc21(x, y), [a, b]


def _analyse(
    name: str,
    clinicians: pd.DataFrame,
    jury: pd.DataFrame,
    metrics: dict[str, pd.Series],
    n_boot: int,
    seed: int,
) -> DatasetAgreement:
    both = instance_composites(clinicians).join(instance_composites(jury), suffixes=("_c", "_j"), how="inner")
    c, j = both["composite_c"].to_numpy(), both["composite_j"].to_numpy()
    keys = set(both.index)
    in_c = clinicians[[k in keys for k in zip(clinicians["dataset"], clinicians["instance_id"], strict=True)]]
    in_j = jury[[k in keys for k in zip(jury["dataset"], jury["instance_id"], strict=True)]]
    human, human_a1, pair = _human_baseline(clinicians)
    baselines = []
    for metric, label in BASELINE_METRICS.items():
        if metric in metrics:
            joined = both.join(metrics[metric].rename("metric"), how="inner")
            baselines.append(
                MetricAgreement(
                    metric=label,
                    icc3k_z=icc3k_z(joined["composite_c"], joined["metric"]),
                    spearman=spearman(joined["composite_c"], joined["metric"]),
                )
            )
    return DatasetAgreement(
        dataset=name,
        n_instances=len(both),
        n_clinicians=in_c["rater"].nunique(),
        n_judges=in_j["rater"].nunique(),
        icc3k_z=icc3k_z(c, j),
        icc21=icc21(c, j),
        icc31=icc31(c, j),
        spearman=spearman(c, j),
        kappa_w=kappa_w(c, j, n_boot=n_boot, seed=seed),
        human_icc3k_z=human,
        human_icc21=human_a1,
        human_pair=pair,
        baselines=baselines,
    )


def compute_agreement(
    clinicians: Any,
    jury: Any,
    *,
    datasets: list[str] | None = None,
    outputs: pd.DataFrame | None = None,
    bertscore: bool = True,
    n_boot: int = 1000,
    seed: int = 0,
) -> AgreementReport:
    """Agreement between clinician and jury ratings, per dataset and pooled.

    Args:
        clinicians: clinician ratings (path, bytes, file object or DataFrame; see ``read_ratings``).
        jury: jury ratings in the same format (one ``rater`` per judge).
        datasets: only these datasets (``ALL`` then pools just these); None: every dataset.
        outputs: optional ``dataset, instance_id, response, reference`` for the ROUGE-L and
            BERTScore-F1 baselines.
        bertscore: also compute BERTScore-F1 (loads the offline MiniLM model once).
        n_boot, seed: bootstrap resamples and seed for κ's interval.

    Raises:
        RatingsError: a file that cannot be used, differing criteria, unknown datasets, or no
            instance rated by both clinicians and the jury.

    Example:
        >>> report = compute_agreement("clinicians.csv", "jury.csv")   # doctest: +SKIP
        >>> report.pooled.icc21.value, report.pooled.n_instances        # doctest: +SKIP
    """
    clin, jur = read_ratings(clinicians, "clinician ratings"), read_ratings(jury, "jury ratings")
    if set(clin.attrs["criteria"]) != set(jur.attrs["criteria"]):
        raise RatingsError(
            f"clinician and jury ratings use different criteria: {clin.attrs['criteria']} and "
            f"{jur.attrs['criteria']}; the composites must average the same criteria"
        )
    criteria = clin.attrs["criteria"]
    n_rows = (len(clin), len(jur))
    clin, jur = align_datasets(clin, jur)
    known = sorted(set(clin["dataset"]) | set(jur["dataset"]))
    notes: list[str] = []
    if datasets:
        unknown = sorted(set(datasets) - set(known))
        if unknown:
            raise RatingsError(f"unknown dataset(s) {unknown}; the files hold {known}")
        clin, jur = clin[clin["dataset"].isin(datasets)], jur[jur["dataset"].isin(datasets)]
        notes += (
            [f"datasets left out: {sorted(set(known) - set(datasets))}"] if set(known) - set(datasets) else []
        )
    for frame in (clin, jur):
        frame.attrs["criteria"] = criteria
    ck, jk = (
        set(zip(clin["dataset"], clin["instance_id"], strict=True)),
        set(zip(jur["dataset"], jur["instance_id"], strict=True)),
    )
    if not ck & jk:
        raise RatingsError(
            "no instance is rated by both the clinicians and the jury; check instance_id and dataset"
        )
    if ck - jk:
        notes.append(f"{len(ck - jk)} instance(s) rated by clinicians have no jury rating and are left out")
    if jk - ck:
        notes.append(
            f"{len(jk - ck)} instance(s) rated by the jury have no clinician rating and are left out"
        )
    metrics: dict[str, pd.Series] = {}
    if outputs is not None and not outputs.empty:
        out = outputs.astype({"instance_id": str})
        if "dataset" not in out:  # take each instance's dataset from the ratings
            where = dict(zip(clin["instance_id"], clin["dataset"], strict=True))
            out["dataset"] = out["instance_id"].map(where).fillna(DEFAULT_DATASET)
        metrics = {m: metric_scores(out, m) for m in BASELINE_METRICS if bertscore or m != "bertscore_f"}
    names = sorted(set(clin["dataset"]) & set(jur["dataset"]))
    results = []
    for name in [*names, POOLED]:
        c = clin if name == POOLED else clin[clin["dataset"] == name]
        j = jur if name == POOLED else jur[jur["dataset"] == name]
        c.attrs["criteria"], j.attrs["criteria"] = criteria, criteria
        subset = {
            k: (v if name == POOLED else v[v.index.get_level_values("dataset") == name])
            for k, v in metrics.items()
        }
        results.append(_analyse(name, c, j, subset, n_boot, seed))
    return AgreementReport(
        criteria=criteria,
        datasets=results,
        n_clinician_rows=n_rows[0],
        n_jury_rows=n_rows[1],
        notes=notes,
        published=published_agreement(),
    )
