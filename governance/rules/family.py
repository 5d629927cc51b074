"""The family of score verdicts whose error rate is controlled together, stated in one record.

Why a record of its own: "48 verdicts, each at 2.5%" says nothing about the chance that at least one
pass is wrong. The committee needs the family named (which tests, how many), the correction used
and the error rate it guarantees, on the page, in the PDF and in the JSON, from one place.

The family is every score verdict that carries a test (a p-value: an interval, enough cases):
score rules × candidates, one test per benchmark record. Gating rules (minimum n, unscored share,
subgroup disparity, judge agreement, cost, critical criteria) are counted apart and are not in it; a
fail is not corrected either (it needs the whole interval on the wrong side, and a wrong fail errs toward
caution). The arithmetic is ``governance.rules.verdict_math.adjust``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from governance.rules.verdict_math import ALPHA, MULTIPLICITY_WORDS, Multiplicity, adjust


def _article(power: float) -> str:
    return "an" if f"{power:.0%}".startswith(("8", "11", "18")) else "a"


class ErrorControl(BaseModel):
    """How the score verdicts' family is defined and corrected."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: Multiplicity
    """Holm (default) or Bonferroni."""
    alpha: float = ALPHA
    """Chance, at most, of one or more false passes in the family (one-sided)."""
    power: float
    """Chance of a pass that further-case figures aim for."""
    score_rules: int
    """Score rules in force."""
    candidates: int
    """Candidates assessed."""
    tests: int
    """Score verdicts carrying a test (the family's size m)."""
    untested: int
    """Score verdicts without a test (no interval, too few cases, no evidence): never a pass by test."""

    @property
    def pairs(self) -> int:
        """Score rules × candidates."""
        return self.score_rules * self.candidates

    @property
    def per_test_level(self) -> float:
        """The level that always suffices under the correction (alpha / m), used for further cases."""
        return self.alpha / max(1, self.tests)

    def statement(self) -> str:
        """The family and its error rate in one paragraph, for pages and reports.

        Example:
            >>> ErrorControl(method="holm", power=0.8, score_rules=3, candidates=3, tests=12,
            ...              untested=7).statement()[:60]
            'Family of score verdicts: 3 score rule(s) × 3 candidate(s) ='
        """
        return (f"Family of score verdicts: {self.score_rules} score rule(s) × {self.candidates} "
                f"candidate(s) = "
                f"{self.pairs} rule–candidate pair(s), giving {self.tests} test(s), one per benchmark record "
                f"with an interval ({self.untested} more score verdict(s) carry no test and cannot pass by "
                f"one). {MULTIPLICITY_WORDS[self.method]} over these {self.tests} keeps the chance of one or "
                f"more false passes at or below {self.alpha:.1%} (one-sided); each verdict shows its own "
                "p-value and the adjusted one. Fails and gating rules (minimum n, unscored share, "
                "subgroups, judge agreement, cost, critical criteria) are counted apart, each at an "
                f"uncorrected one-sided 2.5%. Further-case figures aim for {_article(self.power)} "
                f"{self.power:.0%} chance of a pass at the level {self.per_test_level:.2g} "
                f"(2.5% ÷ {max(1, self.tests)}), which the correction always accepts.")


def adjusted_by_key(p_values: dict[tuple, float], method: Multiplicity) -> dict[tuple, float]:
    """Adjusted p-values keyed as given (the keys name a verdict: rule, model, evidence id).

    Example:
        >>> out = adjusted_by_key({("a",): 0.01, ("b",): 0.04, ("c",): 0.03, ("d",): 0.005}, "holm")
        >>> [round(out[k], 3) for k in [("a",), ("b",), ("c",), ("d",)]]
        [0.03, 0.06, 0.06, 0.02]
    """
    keys = list(p_values)
    return dict(zip(keys, adjust([p_values[k] for k in keys], method), strict=True))
