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
    # one dataset "a", not MedHELM's aci_bench + medi_qa: its published 0.36 sits beside no row (issue 38 §4)
    assert table.loc[table["comparison"] == "ROUGE-L vs clinicians", "medhelm"].isna().all()


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


# --- known answers: single-measure ICCs, MedHELM's ICC(3,k) z, no clipping, κ rounding ----------

def two_raters(r: float = 0.31, n: int = 200, offset: float = 0.2, sd: float = 0.5, seed: int = 5):
    """Two series with Pearson correlation exactly ``r`` (the MedHELM authors' structure: 2 raters).

    The second series is ``offset`` higher on average (a kinder jury), both with SD ``sd``.
    """
    rng = np.random.default_rng(seed)
    a, e = rng.normal(size=n), rng.normal(size=n)
    a = (a - a.mean()) / a.std(ddof=1)
    e = e - e.mean()
    e -= (e @ a) / (a @ a) * a  # orthogonal to a, so the sample correlation is exactly r
    e /= e.std(ddof=1)
    b = r * a + np.sqrt(1 - r**2) * e
    return 3 + sd * a, 3 + offset + sd * b


def anova_iccs(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Shrout & Fleiss / McGraw & Wong two-way ANOVA ICCs for k = 2 raters, written out by hand."""
    data = np.column_stack([x, y])
    n, k = data.shape
    grand = data.mean()
    msr = k * ((data.mean(axis=1) - grand) ** 2).sum() / (n - 1)
    msc = n * ((data.mean(axis=0) - grand) ** 2).sum() / (k - 1)
    sse = ((data - data.mean(axis=1, keepdims=True) - data.mean(axis=0) + grand) ** 2).sum()
    mse = sse / ((n - 1) * (k - 1))
    return {
        "A,1": (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n),
        "C,1": (msr - mse) / (msr + (k - 1) * mse),
        "C,k": (msr - mse) / msr,
    }


def pingouin_iccs(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    import pingouin

    n = len(x)
    long = pd.DataFrame({"t": np.tile(np.arange(n), 2), "r": ["a"] * n + ["b"] * n, "s": np.r_[x, y]})
    table = pingouin.intraclass_corr(long, targets="t", raters="r", ratings="s")
    old_names = {"ICC2": "ICC(A,1)", "ICC3": "ICC(C,1)", "ICC3k": "ICC(C,k)"}  # pingouin < 0.7
    table["Type"] = table["Type"].replace(old_names)
    icc = table.set_index("Type")["ICC"]
    return {"A,1": icc["ICC(A,1)"], "C,1": icc["ICC(C,1)"], "C,k": icc["ICC(C,k)"]}


def test_authors_structure_single_measure_iccs_match_pingouin_and_hand_anova():
    from evaluator.agreement.stats import icc31, zscore

    x, y = two_raters()
    assert np.corrcoef(x, y)[0, 1] == pytest.approx(0.31, abs=1e-12)
    hand, ping = anova_iccs(x, y), pingouin_iccs(x, y)
    assert icc21(x, y).value == pytest.approx(hand["A,1"], abs=1e-12) == pytest.approx(ping["A,1"], abs=1e-12)
    assert icc31(x, y).value == pytest.approx(hand["C,1"], abs=1e-12) == pytest.approx(ping["C,1"], abs=1e-12)
    # equal SDs: ICC(C,1) is r itself; the kinder jury's 0.2 offset pulls ICC(A,1) down to ~0.29
    assert icc31(x, y).value == pytest.approx(0.31, abs=1e-12)
    assert icc21(x, y).value == pytest.approx(0.288, abs=0.003)
    # MedHELM's ICC(3,k) on z-scored series is exactly 2r/(1+r) = 0.473: the average-of-two figure
    z = icc3k_z(x, y)
    assert z.value == pytest.approx(2 * 0.31 / 1.31, abs=1e-12)
    assert z.value == pytest.approx(anova_iccs(zscore(x), zscore(y))["C,k"], abs=1e-12)
    assert z.value == pytest.approx(0.4733, abs=1e-4) and z.value > icc21(x, y).value + 0.18


@pytest.mark.parametrize("r", [-0.4, 0.05, 0.31, 0.8])
def test_icc3k_of_z_scored_raters_is_two_r_over_one_plus_r(r):
    x, y = two_raters(r=r, n=60, seed=9)
    assert icc3k_z(x, y).value == pytest.approx(2 * r / (1 + r), abs=1e-12)


def test_authors_structure_is_gated_on_the_single_measure_icc():
    from governance.judge_validity.operations import agreement_setting

    x, y = two_raters()
    keys = [("med", f"c{i}") for i in range(len(x))]
    clin, jur = dict(zip(keys, x, strict=True)), dict(zip(keys, y, strict=True))
    report = compute_agreement(clinicians(clin), jury(jur), n_boot=50)
    pooled = report.pooled
    assert pooled.icc21.value == pytest.approx(icc21(x, y).value, abs=1e-12)
    assert pooled.icc3k_z.value == pytest.approx(0.4733, abs=1e-4)
    setting = agreement_setting(report, source="authors' structure", benchmarks=[], judges=[], by="t")
    assert setting.statistic == "ICC(A,1)" and setting.estimate == pooled.icc21.value
    assert setting.comparison_icc3k_z == pooled.icc3k_z.value
    table = report.table()
    gated = table[(table["dataset"] == "ALL") & table["statistic"].str.contains("gated")]
    assert gated["value"].tolist() == [pooled.icc21.value] and gated["medhelm"].isna().all()
    # one dataset "med": not MedHELM's aci_bench + medi_qa, so its published 0.47 sits beside no row
    assert table["medhelm"].isna().all()
    # the same ratings split over aci_bench + medi_qa: 0.47 and 0.43 sit beside the pooled row only
    split = [("aci_bench" if i % 2 else "medi_qa", f"c{i}") for i in range(len(x))]
    table = compute_agreement(clinicians(dict(zip(split, x, strict=True))),
                              jury(dict(zip(split, y, strict=True))), n_boot=50).table()
    beside = table[(table["dataset"] == "ALL") & (table["comparison"] == "jury vs clinicians")
                   & table["statistic"].str.startswith("ICC(3,k) z")]
    assert beside["medhelm"].tolist() == [0.47] and "comparison only" in beside["statistic"].iloc[0]
    assert "pools aci_bench + medi_qa" in beside["note"].iloc[0]
    labelled = table.dropna(subset=["medhelm"])
    assert set(labelled["dataset"]) == {"ALL"} and sorted(labelled["medhelm"]) == [0.43, 0.47]
    human = labelled[labelled["comparison"] == "clinician vs clinician"]["note"].iloc[0]
    assert "not reproducible from the released annotations" in human and "0.635" in human and "0.641" in human


def test_published_figures_sit_beside_no_row_of_a_three_dataset_study():
    """Issue 38 §4: with mtsamples too, 0.47 sat beside aci_bench, medi_qa, mtsamples and the
    three-dataset pool, none of which is MedHELM's aci_bench + medi_qa figure."""
    x, y = two_raters(n=90)
    names = ("aci_bench", "medi_qa", "mtsamples")
    keys = [(names[i % 3], f"c{i}") for i in range(len(x))]
    report = compute_agreement(clinicians(dict(zip(keys, x, strict=True))),
                               jury(dict(zip(keys, y, strict=True))), n_boot=50)
    table = report.table()
    assert [d.dataset for d in report.datasets] == [*names, "ALL"]
    assert table["medhelm"].isna().all()


def test_negative_icc_below_minus_one_is_reported_unclipped():
    # two raters who disagree on every case: row means nearly constant, so MSR << MSE
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 2.0, 4.0, 1.0])
    y = 6.0 - x + np.array([0.1, -0.1, 0.2, 0.0, -0.2, 0.1, -0.1, 0.05])
    hand, ping = anova_iccs(zscore_(x), zscore_(y)), pingouin_iccs(zscore_(x), zscore_(y))
    est = icc3k_z(x, y)
    assert hand["C,k"] < -1.1 and est.value == pytest.approx(hand["C,k"], abs=1e-12)
    assert est.value == pytest.approx(ping["C,k"], abs=1e-12)
    assert est.ci_lower < est.value < -1  # the interval is not cut at -1 either
    r = np.corrcoef(x, y)[0, 1]
    assert est.value == pytest.approx(2 * r / (1 + r))
    a1 = icc21(x, y)
    assert a1.value == pytest.approx(anova_iccs(x, y)["A,1"], abs=1e-12) and a1.ci_lower < -1


def zscore_(v: np.ndarray) -> np.ndarray:
    return (v - v.mean()) / v.std(ddof=1)


def test_the_authors_like_minus_1_195_is_not_shown_as_minus_one():
    # r = -0.374 gives 2r/(1+r) = -1.195, the figure the review found shown as -1.0
    r = -0.37415
    x, y = two_raters(r=r, n=30, seed=2)
    assert icc3k_z(x, y).value == pytest.approx(-1.195, abs=1e-3)


def test_kappa_rounds_half_to_even_as_medhelm_does():
    """Issue 38 §5. MedHELM's 4_calculate_icc.py rounds composites with pandas' ``round`` (half to even),
    like Python's ``round``; the expected κ is computed here with that rounding and scikit-learn."""
    from sklearn.metrics import cohen_kappa_score

    from evaluator.agreement.stats import kappa_w, round_half_even

    halves = np.array([1.5, 2.5, 3.5, 4.5])
    assert pd.Series(halves).round().tolist() == [2, 2, 4, 4] == np.round(halves).tolist()  # MedHELM's pandas
    assert [round(h) for h in halves] == [2, 2, 4, 4] == round_half_even(halves).tolist()  # Python's round
    clin = np.array([1, 2, 2.5, 3, 4, 4.5, 5, 2.5, 3.5, 1.5, 2, 4])
    jur = np.array([1, 2, 3, 3, 4, 5, 5, 2, 4, 1, 2, 4])
    ours = kappa_w(clin, jur, n_boot=50).value
    authors = cohen_kappa_score([round(c) for c in clin], jur, weights="quadratic", labels=[1, 2, 3, 4, 5])
    half_up = cohen_kappa_score(np.floor(clin + 0.5).astype(int), jur, weights="quadratic",
                                labels=[1, 2, 3, 4, 5])
    assert ours == pytest.approx(authors) and ours != pytest.approx(half_up)  # the rounding decides


def test_single_measure_interval_width_matches_pingouin_at_the_planned_f():
    from scipy.stats import f as f_dist

    n, rho = 40, 0.5
    big_f = (1 + rho) / (1 - rho)
    f_lo, f_hi = big_f / f_dist.ppf(0.975, n - 1, n - 1), big_f * f_dist.ppf(0.975, n - 1, n - 1)
    by_hand = (f_hi - 1) / (f_hi + 1) - (f_lo - 1) / (f_lo + 1)
    assert icc3k_interval_width(n, rho, single=True) == pytest.approx(by_hand, abs=1e-12)
    n_needed = sample_size_for_width(0.3, rho, single=True)
    assert icc3k_interval_width(n_needed, rho, single=True) <= 0.3 < icc3k_interval_width(n_needed - 1, rho,
                                                                                          single=True)
