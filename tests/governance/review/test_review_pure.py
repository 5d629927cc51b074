"""The review stage's pure functions: sample, double share, orders, sentinels, catch rates, flags, sizes.

Known answers: Bonett's n worked by hand (module docstring of ``governance.review.sample_size``), Wilson
bounds against statsmodels' ``proportion_confint(method="wilson")``.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

import pytest

from governance.review.measures import catch_rate, caught, rubber_stamp_flags
from governance.review.records import Rating
from governance.review.rubric import AUDIT, jury_rubric, rubric_for
from governance.review.sample_size import audit_sample_size, icc_sample_size, size_guidance
from governance.review.sampling import assign, double_count, item_ids, rater_order, stratified_sample
from governance.review.sentinels import change_number, drop_warning, flip_negation, make_sentinels

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def rating(item, scores, seconds=None, skipped=""):
    return Rating(
        queue_id="q",
        item_id=item,
        rater="a",
        scores=scores,
        skipped=skipped,
        seconds=seconds,
        recorded_by="a",
        rated_at=NOW,
    )


def test_bonett_sample_size_by_hand():
    # n = 1 + 8 z^2 (1-rho)^2 (1+(k-1)rho)^2 / (k (k-1) w^2), z = 1.959964, w = 0.2
    # rho 0.5, k 2: 1 + 8 * 3.841459 * 0.25 * 2.25 / 0.08 = 217.14 -> 218
    # rho 0.7, k 2: 1 + 8 * 3.841459 * 0.09 * 2.89 / 0.08 = 100.92 -> 101
    # rho 0.5, k 3: 1 + 8 * 3.841459 * 0.25 * 4 / 0.24 = 129.05 -> 130
    assert (icc_sample_size(0.5), icc_sample_size(0.7), icc_sample_size(0.5, raters=3)) == (218, 101, 130)
    assert icc_sample_size(0.5, half_width=0.2) == 56  # 1 + 17.287 / 0.32 = 55.02 -> 56
    with pytest.raises(ValueError):
        icc_sample_size(0.5, raters=1)


def _smallest_n(rate: float, margin: float, method: str) -> int:
    """Independent search with statsmodels: its "beta" is Clopper-Pearson, "wilson" is Wilson."""
    from statsmodels.stats.proportion import proportion_confint

    n = 1
    while True:
        lo, hi = proportion_confint(round(rate * n), n, alpha=0.05, method=method)
        if (hi - lo) / 2 <= margin:
            return n
        n += 1


@pytest.mark.parametrize(("rate", "margin", "wilson", "exact"),
                         [(0.05, 0.03, 208, 239), (0.02, 0.01, 772, 856), (0.01, 0.01, 432, 499)])
def test_audit_sizes_are_an_exact_search_on_the_reported_interval(rate, margin, wilson, exact):
    """Issue 38 §2. The expected sizes were obtained by the search above, run here with statsmodels'
    proportion_confint (method "beta" = Clopper-Pearson, "wilson"), expected count round(rate * n), "±" =
    half the interval's width. The exact figures are the issue's (239, 856, 499) and agree with it; Wald's
    formula gave 203, 753 and 381. The product reports Wilson intervals on audited rates, so the guidance
    leads with the Wilson size."""
    assert _smallest_n(rate, margin, "wilson") == wilson
    assert _smallest_n(rate, margin, "beta") == exact
    assert audit_sample_size(rate, margin) == wilson
    assert audit_sample_size(rate, margin, "clopper-pearson") == exact


def test_size_guidance_states_both_audit_sizes():
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(10, 203, alpha=0.05, method="wilson")  # Wald's 203 misses ±3%
    assert (round(lo, 3), round(hi, 3)) == (0.027, 0.088) and (hi - lo) / 2 > 0.03
    g = size_guidance()
    assert (g.audit_n, g.audit_n_exact, g.production_outputs) == (208, 239, 4160)  # one audit in 20
    assert "Auditing 208 outputs" in g.text and "Clopper-Pearson interval needs 239" in g.text


def test_stratified_sample_is_proportional_and_seeded():
    tags = {f"en{i}": {"lang": "en"} for i in range(60)} | {f"es{i}": {"lang": "es"} for i in range(30)}
    tags |= {f"vi{i}": {"lang": "vi"} for i in range(10)}
    picked = stratified_sample(tags, 20, ["lang"], seed=3)
    assert Counter(p[:2] for p in picked) == {"en": 12, "es": 6, "vi": 2}
    assert (
        picked
        == stratified_sample(tags, 20, ["lang"], seed=3)
        != stratified_sample(tags, 20, ["lang"], seed=4)
    )
    assert len(stratified_sample(tags, 7, [], seed=1)) == 7 and len(stratified_sample(tags, 500)) == 100


def test_double_share_assignment_and_orders():
    assert (double_count(10, 0.2, 2), double_count(10, 0.25, 2), double_count(10, 0.2, 1)) == (2, 3, 0)
    items = [f"i{k}" for k in range(10)]
    got = assign(items, ["i0", "i1"], ["s0", "s1"], ["a", "b"])
    assert len(got["a"]) == len(got["b"]) == 8
    assert set(got["a"]) & set(got["b"]) == {"i0", "i1", "s0", "s1"}
    three = assign(items, ["i0", "i1", "i2"], [], ["a", "b", "c"])
    assert sorted(len(v) for v in three.values()) == [4, 4, 5]  # 3 pairs (6 places) + 7 singles = 13
    assert sum(len(v) for v in three.values()) == 13
    one, two = rater_order(items, "a", 1), rater_order(items, "b", 1)
    assert sorted(one) == sorted(items) and one != two and one == rater_order(list(reversed(items)), "a", 1)
    assert len(set(item_ids(500, 9))) == 500


def test_the_three_perturbations():
    assert change_number("Give 2.5 mL every 8 hours.") == (
        "Give 25 mL every 8 hours.",
        "number: 2.5 became 25",
    )
    assert change_number("Give 1,5 mg.")[0] == "Give 15 mg."
    assert flip_negation("It isn't safe with warfarin.")[0] == "It is safe with warfarin."
    assert flip_negation("Never take two doses.")[0] == "Always take two doses."
    assert flip_negation("Rest today.") is None
    assert drop_warning("Seek care if you bleed.") is None  # one sentence: nothing would remain
    text = "Take it at night. Call 911 if your lips swell! It helps within a week."
    assert drop_warning(text) == (
        "Take it at night. It helps within a week.",
        'warning dropped: "Call 911 if your lips swell!"',
    )
    made = make_sentinels(
        [("a", "Rest today."), ("b", "Take 5 mg. Avoid alcohol."), ("c", "Do not drive.")], 2
    )
    assert [(m[0], m[1]) for m in made] == [("b", "number"), ("c", "negation")]  # 'a' fits none


def test_catch_rules_and_wilson_interval_against_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    rub = jury_rubric("default")
    assert caught(rating("s", {"accuracy": 2, "completeness": 5, "clarity": 5}), rub)
    assert not caught(rating("s", {"accuracy": 3, "completeness": 1, "clarity": 1}), rub)
    assert not caught(rating("s", {}, skipped="unsure"), AUDIT)  # a skipped sentinel is missed
    ratings = [rating(f"s{k}", {"verdict": "material" if k < 9 else "minor"}) for k in range(12)]
    rate = catch_rate(ratings, {f"s{k}" for k in range(12)}, AUDIT, 0.9)
    lo, hi = proportion_confint(9, 12, method="wilson")
    assert (rate.caught, rate.n, rate.estimate) == (9, 12, 0.75) and not rate.meets_bar
    assert rate.lower == pytest.approx(lo, abs=1e-9) and rate.upper == pytest.approx(hi, abs=1e-9)


def test_rubber_stamp_flags():
    fast = [rating(str(k), {"verdict": "correct"}, seconds=3.0) for k in range(5)]
    assert rubber_stamp_flags(fast) == ["median 3.0 s per item (under 8 s)", "all 5 ratings identical"]
    varied = [rating(str(k), {"verdict": ("correct", "minor")[k % 2]}, seconds=30.0) for k in range(6)]
    assert rubber_stamp_flags(varied) == []
    assert rubber_stamp_flags(fast[:2]) == []  # too few to say


def test_rubric_choice():
    assert rubric_for("medication_qa").rubric_id == "medication_qa" and rubric_for("calc_builtin") == AUDIT
    assert rubric_for("medication_qa", "audit") == AUDIT
    with pytest.raises(ValueError, match="no jury rubric"):
        rubric_for("calc_builtin", "jury")
    assert AUDIT.problem({"verdict": "material"}) is None
    assert "outside" not in (jury_rubric("default").problem({"accuracy": 0, "completeness": 1, "clarity": 1}))
