"""Subgroup table: intervals, ratios to the reference group, flags and suppression."""

import pytest

from evaluator.evidence import SubgroupScore
from evaluator.instance import Instance
from evaluator.stats import wilson_interval
from evaluator.subgroups import MIN_N, group_interval, subgroup_table


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
                        "flag": ""}
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
    assert out[1] == SubgroupScore(tag="language", group="B", n=2, suppressed=True)
    assert out[0].score == 1.0 and out[0].ci_lower is not None
