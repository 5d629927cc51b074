"""Judge-clinician agreement on data built so that the answer is known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evaluator.agreement.analysis import compute_agreement, published_agreement
from evaluator.agreement.ratings import RatingsError, most_overlapping_pair, ratings_template, read_ratings
from evaluator.agreement.stats import icc3k_interval_width, icc3k_z, icc21, sample_size_for_width, spearman

CRITERIA = ["accuracy", "completeness", "clarity"]


def ratings(values: dict[tuple[str, str], float], rater: str) -> list[dict]:
    """One row per instance with every criterion at the instance's value."""
    return [
        {"dataset": d, "instance_id": i, "rater": rater, **{c: v for c in CRITERIA}}
        for (d, i), v in values.items()
    ]


def truth(n: int = 60, seed: int = 0, low: float = 1.0, high: float = 4.0) -> dict[tuple[str, str], float]:
    rng = np.random.default_rng(seed)
    return {
        ("a" if k % 2 else "b", f"case-{k}"): float(rng.integers(int(low), int(high) + 1)) for k in range(n)
    }


def clinicians(values: dict[tuple[str, str], float]) -> pd.DataFrame:
    rows = ratings(values, "dr_x") + ratings(values, "dr_y")
    rows += ratings(dict(list(values.items())[:8]), "dr_z")  # a third clinician on a few cases only
    return pd.DataFrame(rows)


def jury(values: dict[tuple[str, str], float]) -> pd.DataFrame:
    return pd.DataFrame(ratings(values, "judge-1") + ratings(values, "judge-2") + ratings(values, "judge-3"))


def test_perfect_agreement_is_one_everywhere():
    t = truth()
    report = compute_agreement(clinicians(t), jury(t), n_boot=200)
    assert [d.dataset for d in report.datasets] == ["a", "b", "ALL"]
    for d in report.datasets:
        assert d.icc3k_z.value == pytest.approx(1.0) and d.icc21.value == pytest.approx(1.0)
        assert d.spearman.value == pytest.approx(1.0) and d.kappa_w.value == pytest.approx(1.0)
        assert d.human_icc3k_z.value == pytest.approx(1.0) and d.human_pair == ["dr_x", "dr_y"]
    assert report.pooled.n_instances == 60 and report.pooled.n_clinicians == 3 and report.pooled.n_judges == 3


def test_pure_noise_gives_intervals_around_zero():
    rng = np.random.default_rng(7)
    keys = [("a", f"c{k}") for k in range(300)]
    clin = {k: float(rng.integers(1, 6)) for k in keys}
    noise = {k: float(rng.integers(1, 6)) for k in keys}
    d = compute_agreement(clinicians(clin), jury(noise), n_boot=300).pooled
    for est in (d.icc3k_z, d.icc21, d.spearman, d.kappa_w):
        assert est.ci_lower < 0 < est.ci_upper, est
        assert abs(est.value) < 0.25
    assert d.icc3k_z.n == 300


def test_constant_shift_is_ignored_by_icc3k_but_penalised_by_icc21():
    t = truth(low=1, high=4)
    shifted = {k: v + 1 for k, v in t.items()}
    d = compute_agreement(clinicians(t), jury(shifted), n_boot=200).pooled
    assert d.icc3k_z.value == pytest.approx(1.0) and d.spearman.value == pytest.approx(1.0)
    assert d.icc21.value < 0.75 and d.icc21.ci_upper < 0.95
    assert d.kappa_w.value < 0.9


def test_icc_functions_directly():
    x = np.linspace(1, 5, 20)
    assert icc3k_z(x, 2 * x).value == pytest.approx(1.0)  # a change of scale too
    assert icc21(x, 2 * x).value < 0.8
    assert spearman(x, -x).value == pytest.approx(-1.0)
    assert icc3k_z([1, 2, 3], [1, 2, 3]).missing_reason.startswith("only 3")
    assert "no variation" in icc3k_z([3] * 6, [1, 2, 3, 4, 5, 5]).missing_reason


def test_human_baseline_uses_the_pair_with_most_instances_in_common():
    t = truth()
    clin = clinicians(t)
    noisy = clin[clin["rater"] == "dr_z"].copy()
    noisy["rater"] = "dr_w"  # dr_z and dr_w share only 8 cases; dr_x and dr_y share 60
    report = compute_agreement(pd.concat([clin, noisy]), jury(t), n_boot=100)
    assert report.pooled.human_pair == ["dr_x", "dr_y"] and report.pooled.human_icc3k_z.n == 60
    assert most_overlapping_pair(read_ratings(pd.concat([clin, noisy]))) == ("dr_x", "dr_y", 60)


def test_datasets_filter_and_pooled_selection():
    t = truth()
    report = compute_agreement(clinicians(t), jury(t), datasets=["a"], n_boot=100)
    assert [d.dataset for d in report.datasets] == ["a", "ALL"]
    assert report.pooled.n_instances == report.datasets[0].n_instances == 30
    assert any("left out" in n for n in report.notes)
    with pytest.raises(RatingsError, match="unknown dataset"):
        compute_agreement(clinicians(t), jury(t), datasets=["zzz"])


def test_cli_keys_per_dataset_and_all():
    t = truth()
    out = compute_agreement(clinicians(t), jury(t), n_boot=100).as_cli()
    assert set(out) == {"a", "b", "ALL"}
    for key in ("icc3k_z", "icc3k_z_ci", "icc21", "spearman", "kappa_w", "human_icc3k_z", "n_instances"):
        assert key in out["ALL"]
    assert len(out["ALL"]["icc3k_z_ci"]) == 2


def test_jury_without_dataset_column_takes_the_clinicians_datasets():
    t = truth()
    j = jury(t).drop(columns=["dataset"])
    report = compute_agreement(clinicians(t), j, n_boot=100)
    assert [d.dataset for d in report.datasets] == ["a", "b", "ALL"]


def test_unmatched_instances_are_reported_not_silently_used():
    t = truth()
    extra = dict(list(t.items())[:50])
    report = compute_agreement(clinicians(t), jury(extra), n_boot=100)
    assert report.pooled.n_instances == 50 and any(
        "10 instance(s) rated by clinicians" in n for n in report.notes
    )


@pytest.mark.parametrize(
    "csv, problem",
    [
        (b"instance_id,rater,accuracy\n1,x,7\n", "outside the scale 1-5 at row 2"),
        (b"instance_id,rater,accuracy\n1,x,good\n", "not a number at row 2 ('good')"),
        (b"instance_id,accuracy\n1,4\n", "missing column(s) ['rater']"),
        (b"instance_id,rater\n1,x\n", "no criterion columns"),
        (b"instance_id,rater,accuracy\n1,x,4\n1,x,5\n", "the same rater twice"),
        (b"instance_id,rater,accuracy\n,x,4\n", "instance_id: empty"),
        (b"dataset,instance_id,rater,accuracy\nALL,1,x,4\n", "reserved"),
        (b"instance_id,rater,accuracy\n", "no ratings"),
    ],
)
def test_bad_ratings_files_are_refused_with_the_place(csv, problem):
    with pytest.raises(RatingsError) as err:
        read_ratings(csv, "clinician ratings")
    assert problem in str(err.value) and str(err.value).startswith("clinician ratings:")


def test_differing_criteria_and_no_overlap_are_refused():
    clin = b"instance_id,rater,accuracy,clarity\n1,x,4,4\n"
    with pytest.raises(RatingsError, match="different criteria"):
        compute_agreement(clin, b"instance_id,rater,accuracy\n1,j,4\n")
    with pytest.raises(RatingsError, match="no instance is rated by both"):
        compute_agreement(clin, b"instance_id,rater,accuracy,clarity\n2,j,4,4\n")


def test_template_reads_back_and_comment_is_ignored():
    r = read_ratings(ratings_template().encode())
    assert r.attrs["criteria"] == CRITERIA and len(r) == 2


def test_rouge_l_baseline_against_clinicians():
    rng = np.random.default_rng(3)
    keys = [("a", f"c{k}") for k in range(40)]
    t = {k: float(rng.integers(1, 6)) for k in keys}
    reference = "Take one tablet twice daily with food and stop if you notice a rash."
    words = reference.split()
    outputs = pd.DataFrame(
        [
            {
                "dataset": d,
                "instance_id": i,
                "reference": reference,
                "response": " ".join(words[: int(2 + 3 * v)]),
            }
            for (d, i), v in t.items()
        ]
    )
    report = compute_agreement(clinicians(t), jury(t), outputs=outputs, bertscore=False, n_boot=100)
    (rouge,) = report.pooled.baselines
    assert rouge.metric == "ROUGE-L" and rouge.icc3k_z.value > 0.8 and rouge.icc3k_z.n == 40
    table = report.table()
    assert {"ROUGE-L vs clinicians", "jury vs clinicians", "clinician vs clinician"} <= set(
        table["comparison"]
    )
    assert table.loc[table["comparison"] == "ROUGE-L vs clinicians", "medhelm"].dropna().tolist() == [
        0.36,
        0.36,
    ]


def test_published_figures_and_sample_size_hint():
    assert {p.comparison: p.value for p in published_agreement()} == {
        "jury_clinician": 0.47,
        "clinician_clinician": 0.43,
        "rouge_l_clinician": 0.36,
        "bertscore_f1_clinician": 0.44,
    }
    n = sample_size_for_width(0.2, 0.47)
    assert icc3k_interval_width(n, 0.47) <= 0.2 < icc3k_interval_width(n - 1, 0.47)
    assert sample_size_for_width(0.4, 0.47) < n


def test_vectorised_bootstrap_kappa_equals_scikit_learn():
    from sklearn.metrics import cohen_kappa_score

    from evaluator.agreement.stats import bootstrap_weighted_kappa

    rng = np.random.default_rng(11)
    hx, hy = rng.integers(1, 6, 40), rng.integers(1, 6, 40)
    idx = rng.integers(0, 40, size=(25, 40))
    fast = bootstrap_weighted_kappa(hx, hy, idx)
    slow = [cohen_kappa_score(hx[i], hy[i], weights="quadratic", labels=[1, 2, 3, 4, 5]) for i in idx]
    assert fast == pytest.approx(slow)


def test_bertscore_baseline_is_computed_offline_when_asked():
    t = {("a", f"c{k}"): float(1 + k % 5) for k in range(8)}
    reference = "Take one tablet twice daily with food."
    answers = ["No.", "Maybe ask someone.", "Take tablets.", "Take one tablet daily.", reference]
    outputs = pd.DataFrame([{"instance_id": i, "reference": reference, "response": answers[int(v) - 1]}
                            for (_, i), v in t.items()])  # no dataset column: taken from the ratings
    report = compute_agreement(clinicians(t), jury(t), outputs=outputs, bertscore=True, n_boot=50)
    metrics = {b.metric: b for b in report.pooled.baselines}
    assert set(metrics) == {"ROUGE-L", "BERTScore-F1"}
    assert metrics["BERTScore-F1"].spearman.n == 8 and metrics["BERTScore-F1"].spearman.value > 0.5
