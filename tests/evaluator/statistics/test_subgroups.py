"""Subgroup table: intervals, ratios to the reference group, flags and suppression."""

import pytest

from evaluator.benchmarks.instance import Instance
from evaluator.evidence.record import SubgroupScore
from evaluator.statistics.estimates import wilson_interval
from evaluator.statistics.subgroups import (
    MIN_N,
    bootstrap_ratio_interval,
    group_interval,
    katz_ratio_interval,
    mover_ratio_interval,
    subgroup_table,
)


def build(groups: dict[str, list[float]], tag: str = "language"):
    cases, scores = [], {}
    for group, values in groups.items():
        for i, v in enumerate(values):
            cases.append(Instance(id=f"{group}-{i}", subgroups={tag: group}))
            scores[f"{group}-{i}"] = v
    return cases, scores


def test_flagged_ratio_and_suppressed_small_group():
    # English 20 cases at 0.9, Spanish 12 at 0.5 (ratio 0.56: flagged), Tagalog 4 (suppressed).
    cases, scores = build({"English": [1.0] * 18 + [0.0] * 2, "Spanish": [1.0] * 6 + [0.0] * 6,
                           "Tagalog": [0.0] * 4})
    table = subgroup_table(cases, scores)
    rows = {r.group: r for r in table.rows}
    assert [r.group for r in table.rows] == ["English", "Spanish", "Tagalog"]  # largest first
    assert table.references == {"language": "English"} and rows["English"].is_reference
    assert rows["English"].ratio == pytest.approx(1.0) and not rows["English"].flagged
    assert rows["Spanish"].ratio == pytest.approx(0.5 / 0.9) and rows["Spanish"].flagged
    assert (rows["Spanish"].ci_lower, rows["Spanish"].ci_upper) == pytest.approx(wilson_interval(6, 12))
    assert rows["Spanish"].ci_method == "wilson"
    hidden = rows["Tagalog"]
    assert hidden.suppressed and hidden.score is None and hidden.ratio is None and hidden.ci_lower is None


def test_display_never_shows_a_suppressed_score_or_n():
    cases, scores = build({"A": [1.0] * 12, "B": [0.0] * 3})
    shown = subgroup_table(cases, scores).display_rows()
    assert shown[1] == {"tag": "language", "group": "B", "n": f"suppressed (n < {MIN_N})",
                        "score": f"suppressed (n < {MIN_N})", "95% interval": "", "ratio to reference": "",
                        "ratio 95% interval": "", "flag": ""}
    assert shown[0]["ratio to reference"] == "reference" and shown[0]["n"] == "12"


def test_reference_group_is_selectable_and_a_too_small_choice_falls_back():
    cases, scores = build({"A": [1.0] * 20, "B": [1.0] * 5 + [0.0] * 7, "C": [1.0] * 2})
    chosen = subgroup_table(cases, scores, reference_groups={"language": "B"})
    rows = {r.group: r for r in chosen.rows}
    assert rows["B"].is_reference and rows["A"].ratio == pytest.approx(1 / (5 / 12)) and rows["A"].flagged
    fallback = subgroup_table(cases, scores, reference_groups={"language": "C"})
    assert fallback.references == {"language": "A"}
    assert any("'C' is suppressed" in n for n in fallback.notes)


def test_ratio_window_edges_are_inside():
    cases, scores = build({"A": [1.0] * 10, "B": [1.0] * 8 + [0.0] * 2})  # ratio exactly 0.8
    rows = {r.group: r for r in subgroup_table(cases, scores).rows}
    assert rows["B"].ratio == pytest.approx(0.8) and not rows["B"].flagged


def test_min_n_is_configurable_and_every_tag_gets_a_table():
    cases = [Instance(id=str(i), subgroups={"sex": "F" if i % 2 else "M", "age": "65+" if i < 6 else "<65"})
             for i in range(16)]
    scores = {str(i): 1.0 for i in range(16)}
    table = subgroup_table(cases, scores, min_n=8)
    assert {(r.tag, r.group, r.suppressed) for r in table.rows} == {
        ("age", "<65", False), ("age", "65+", True), ("sex", "F", False), ("sex", "M", False)}
    with pytest.raises(ValueError):
        subgroup_table(cases, scores, min_n=0)


def test_unscored_and_errored_cases_are_left_out():
    cases, scores = build({"A": [1.0] * 10})
    scores["A-0"] = None
    del scores["A-1"]
    (row,) = subgroup_table(cases, scores).rows
    assert row.suppressed and row.n == 8


def test_reference_scoring_zero_gives_no_ratio():
    cases, scores = build({"A": [0.0] * 12, "B": [1.0] * 10})
    rows = {r.group: r for r in subgroup_table(cases, scores).rows}
    assert rows["B"].ratio is None and not rows["B"].flagged


def test_non_binary_scores_get_a_bootstrap_interval():
    mean, lo, hi, method = group_interval([0.2, 0.4, 0.6, 0.8, 1.0] * 3)
    assert method == "bootstrap" and lo < mean < hi and mean == pytest.approx(0.6)
    assert group_interval([0.2, 0.4, 0.6, 0.8, 1.0] * 3) == (mean, lo, hi, method)  # seeded


def test_subgroup_scores_for_evidence_withhold_suppressed_values():
    cases, scores = build({"A": [1.0] * 10, "B": [0.0] * 2})
    out = subgroup_table(cases, scores).to_subgroup_scores()
    assert all(isinstance(s, SubgroupScore) for s in out)
    assert out[1] == SubgroupScore(tag="language", group="B", n=2, suppressed=True, reference_group="A")
    assert out[0].score == 1.0 and out[0].ci_lower is not None


# ---- the ratio's interval (one definition for page, verdicts and PDF) -------------------------


def test_katz_interval_for_two_proportions_by_hand():
    # 18/24 vs 6/12: RR = 0.75 / 0.5 = 1.5; log-SE = sqrt(1/18 - 1/24 + 1/6 - 1/12) = 0.311805;
    # 1.5 * exp(-/+ 1.959964 * 0.311805) = 0.81411, 2.76376 (statsmodels' confint_proportions_2indep
    # with method="log", compare="ratio" gives the same 0.8141090, 2.7637577).
    d = katz_ratio_interval(18, 24, 6, 12)
    assert d.ratio == pytest.approx(1.5)
    assert (d.lower, d.upper) == pytest.approx((0.814109, 2.763758), abs=1e-6)
    assert d.method == "katz"
    inverse = katz_ratio_interval(6, 12, 18, 24)  # the same interval, inverted
    assert (inverse.lower, inverse.upper) == pytest.approx((1 / 2.763758, 1 / 0.814109), abs=1e-6)


def test_katz_with_a_zero_count_adds_a_half_and_stays_finite():
    # 0/10 vs 8/10 -> (0.5/11) / (8.5/11); log-SE = sqrt(1/0.5 - 1/11 + 1/8.5 - 1/11) = 1.391341
    d = katz_ratio_interval(0, 10, 8, 10)
    assert d.ratio == pytest.approx(0.5 / 8.5)
    assert d.upper == pytest.approx(0.5 / 8.5 * 2.718281828 ** (1.959964 * 1.391341), rel=1e-5)
    assert 0 < d.lower < d.ratio < d.upper and "0.5 added" in d.method


def test_mover_wilson_interval_known_answers():
    # Wilson 95%: 6/12 -> (0.253782, 0.746218); 24/24 -> (0.862024, 1). MOVER-R (Donner & Zou 2012):
    # L = [p1p2 - sqrt((p1p2)^2 - l1 u2 (2p1 - l1)(2p2 - u2))] / [u2 (2p2 - u2)]
    #   = 0.5 - sqrt(0.25 - 0.253782 * 0.746218) = 0.5 - |0.5 - 0.253782| = 0.253782
    # U = [p1p2 + sqrt((p1p2)^2 - u1 l2 (2p1 - u1)(2p2 - l2))] / [l2 (2p2 - l2)]
    #   = (0.5 + sqrt(0.25 - 0.746218 * 0.862024 * 0.253782 * 1.137976)) / (0.862024 * 1.137976) = 0.768056
    d = mover_ratio_interval(6, 12, 24, 24)
    assert d.ratio == 0.5 and d.method == "mover-wilson"
    assert (d.lower, d.upper) == pytest.approx((0.253782, 0.768056), abs=2e-6)
    both_perfect = mover_ratio_interval(12, 12, 14, 14)  # Katz collapses to [1, 1] here; MOVER does not
    assert both_perfect.lower < 0.8 < 1.25 < both_perfect.upper
    assert katz_ratio_interval(12, 12, 14, 14)[1:3] == (1.0, 1.0)
    assert mover_ratio_interval(0, 10, 8, 10).lower == pytest.approx(0.0, abs=1e-12)
    interior = mover_ratio_interval(180, 240, 60, 120)  # far from 0% and 100%: close to Katz
    katz = katz_ratio_interval(180, 240, 60, 120)
    assert (interior.lower, interior.upper) == pytest.approx((katz.lower, katz.upper), rel=0.02)


def test_table_ratio_interval_is_mover_wilson_against_the_reference_group():
    cases, scores = build({"en": [1.0] * 24, "es": [1.0] * 6 + [0.0] * 6})
    table = subgroup_table(cases, scores)
    rows = {r.group: r for r in table.rows}
    es = rows["es"]
    assert rows["en"].is_reference and rows["en"].ratio_lower is None
    assert es.ratio == pytest.approx(0.5) and es.ratio_method == "mover-wilson"
    assert (es.ratio_lower, es.ratio_upper) == pytest.approx((0.253782, 0.768056), abs=2e-6)
    score = table.to_subgroup_scores()[1]
    assert (score.reference_group, score.ratio_lower) == ("en", es.ratio_lower)
    assert table.display_rows()[1]["ratio 95% interval"] == "0.25–0.77 (mover-wilson)"


def test_bootstrap_ratio_of_means_is_seeded_and_brackets_the_ratio():
    group, ref = [0.2, 0.4, 0.6, 0.3] * 5, [0.5, 0.7, 0.9, 0.6] * 5
    d = bootstrap_ratio_interval(group, ref)
    assert d == bootstrap_ratio_interval(group, ref)  # same inputs, same seed, same interval
    assert d.ratio == pytest.approx(0.375 / 0.675) and d.lower < d.ratio < d.upper and d.method == "bootstrap"
    cases, scores = build({"A": ref, "B": group})
    row = next(r for r in subgroup_table(cases, scores).rows if r.group == "B")
    assert (row.ratio_lower, row.ratio_upper) == pytest.approx((d.lower, d.upper))


def test_jury_scores_are_put_on_0_1_before_the_ratio():
    cases, scores = build({"A": [5.0] * 10, "B": [3.0] * 10})  # 1-5 scale: 1.0 vs 0.5 on 0-1
    row = next(r for r in subgroup_table(cases, scores, scale="1-5").rows if r.group == "B")
    assert row.ratio == pytest.approx(0.5) and row.score == pytest.approx(3.0)
