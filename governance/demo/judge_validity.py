"""Demo step: a judge-validity result from synthetic ratings, clearly labelled as demo data.

Why synthetic: the demo must show what a measured jury-clinician agreement looks like on a
dossier (and what the judge-agreement rule makes of it) without real clinicians' ratings and
without calling any model. The ratings are generated from a seeded random generator: each case
has a latent quality; three "clinicians" and three "judges" rate it with noise (the judges a
little more generous, as LLM juries often are). The analysis is the real one
(``evaluator.agreement.analysis``), and the record's source says in capitals that the data are synthetic.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evaluator.agreement.analysis import compute_agreement
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.judge_validity.operations import agreement_setting, jury_benchmarks, record_agreement

DEMO_AUTHOR = "demo"
SEED = 20
DATASETS = ("MedDialog", "MedicationQA")
CLINICIANS = ("demo_clinician_a", "demo_clinician_b", "demo_clinician_c")
JUDGES = ("demo_judge_gpt-4o", "demo_judge_claude-3-7-sonnet", "demo_judge_llama-3.3-70b")
CRITERIA = ("accuracy", "completeness", "clarity")
SOURCE = (
    f"DEMO DATA: synthetic ratings generated deterministically by MedAssure's demo generator "
    f"(random seed {SEED}); not real clinicians, no model was called"
)


def demo_ratings(seed: int = SEED, per_dataset: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Clinician and jury ratings in the upload format (same seed, same frames).

    Example:
        >>> clinicians, jury = demo_ratings()
        >>> sorted(jury["rater"].unique()) == sorted(JUDGES), len(clinicians) > len(jury) / 2
        (True, True)
    """
    rng = np.random.default_rng(seed)
    clin, jury = [], []

    def rate(centre: float, noise: float) -> dict[str, int]:
        return {c: int(np.clip(np.rint(centre + rng.normal(0, noise)), 1, 5)) for c in CRITERIA}

    for dataset in DATASETS:
        for k in range(per_dataset):
            case = f"demo-{dataset.lower()}-{k + 1:02d}"
            quality = rng.uniform(1.8, 4.6)
            jury_view = quality + 0.3 + rng.normal(0, 0.7)  # the jury misreads some cases together
            raters = CLINICIANS if k < 10 else CLINICIANS[:2]  # a third clinician on the first ten only
            clin += [
                {
                    "dataset": dataset,
                    "instance_id": case,
                    "rater": r,
                    **rate(quality + rng.normal(0, 0.7), 0.5),
                }
                for r in raters
            ]
            jury += [
                {
                    "dataset": dataset,
                    "instance_id": case,
                    "rater": j,
                    **rate(jury_view + rng.normal(0, 0.5), 0.4),
                }
                for j in JUDGES
            ]
    return pd.DataFrame(clin), pd.DataFrame(jury)


def record_demo_judge_validity(store: DossierStorage, dossier: Dossier) -> Dossier:
    """Measure agreement on the synthetic ratings and record the pooled ICC(A,1) on the dossier.

    The demo jury is built a little more generous than the clinicians, so its single-rater
    absolute agreement (about 0.57, interval 0.41-0.70 on 80 cases) sits below its ICC(3,k) z
    (about 0.74, MedHELM's variant, kept beside it for comparison only).

    Example:
        >>> d = record_demo_judge_validity(store, dossier)  # doctest: +SKIP
        >>> d.judge_agreement.source.startswith("DEMO DATA")  # doctest: +SKIP
        True
    """
    clinicians, jury = demo_ratings()
    report = compute_agreement(clinicians, jury, n_boot=500)
    covered = [b for b in DATASETS if b in jury_benchmarks(dossier)] or list(DATASETS)
    setting = agreement_setting(
        report, source=SOURCE, benchmarks=covered, judges=list(JUDGES), by=DEMO_AUTHOR
    )
    return record_agreement(dossier, setting)
