"""Per-criterion grader-clinician agreement: κ against scikit-learn and statsmodels, the share too."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from evaluator.agreement.criteria import binary_kappa, criterion_agreement, share_agreeing


def pairs(tt: int, tf: int, ft: int, ff: int) -> list[tuple[bool, bool]]:
    return [(True, True)] * tt + [(True, False)] * tf + [(False, True)] * ft + [(False, False)] * ff


CELLS = [(20, 5, 0, 15), (30, 4, 6, 10), (8, 3, 2, 7), (3, 2, 2, 3), (50, 1, 9, 40)]


@pytest.mark.parametrize("cells", CELLS)
def test_kappa_and_its_interval_match_scikit_learn_and_statsmodels(cells):
    tt, tf, ft, ff = cells
    data = pairs(*cells)
    got = binary_kappa(data)
    a, b = [x for x, _ in data], [y for _, y in data]
    assert got.value == pytest.approx(cohen_kappa_score(a, b))
    ref = cohens_kappa(np.array([[tt, tf], [ft, ff]]))
    assert got.value == pytest.approx(ref.kappa)
    assert got.ci_lower == pytest.approx(max(ref.kappa_low, -1.0))
    assert got.ci_upper == pytest.approx(min(ref.kappa_upp, 1.0))
    assert got.n == sum(cells)


def test_share_agreeing_is_a_wilson_proportion():
    data = pairs(30, 4, 6, 10)
    got = share_agreeing(data)
    assert got.value == pytest.approx(40 / 50)
    assert (got.ci_lower, got.ci_upper) == pytest.approx(proportion_confint(40, 50, method="wilson"))


def test_missing_verdicts_are_left_out_and_small_or_constant_series_give_reasons():
    data = [*pairs(6, 1, 1, 4), (None, True), (True, None)]
    assert binary_kappa(data).n == 12 and share_agreeing(data).n == 12
    assert binary_kappa(pairs(2, 1, 0, 1)).missing_reason == "only 4 case(s); needs 5"
    paradox = binary_kappa(pairs(10, 0, 0, 0))  # every response met it, say both: κ undefined
    assert paradox.value is None and "no variation" in paradox.missing_reason
    assert share_agreeing(pairs(10, 0, 0, 0)).value == 1.0


def test_per_criterion_in_the_order_given():
    got = criterion_agreement({"States the medication change": pairs(20, 5, 0, 15),
                               "Names the follow-up": pairs(8, 3, 2, 7)})
    assert [(c.criterion, c.n) for c in got] == [("States the medication change", 40),
                                                 ("Names the follow-up", 20)]
    assert got[0].kappa.value == pytest.approx(0.75) and got[1].share_agreeing.value == pytest.approx(15 / 20)
