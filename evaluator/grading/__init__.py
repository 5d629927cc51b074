"""Rubric grading of local free-text cases with HealthBench's rule (one grader call per criterion).

Modules: ``rule`` (the arithmetic), ``prompt`` (what a grader is asked and how its reply is read),
``grade`` (the graders' passes through the runner, and the result), ``records`` (what is reported),
``store`` (gradings and verdicts). The cases' rubrics come from ``evaluator.scenarios``
(``rubric_cases``); docs/grading.md says what the score means and what it does not.
"""

from evaluator.grading.grade import GradingError, grade_run, grade_run_async, load_grading, summarise
from evaluator.grading.records import CaseResult, CriterionResult, GradingResult, TagScore, Unparsed
from evaluator.grading.rule import TIE_RULE, bootstrap_std, case_score, clipped_mean, majority, tag_scores

__all__ = [
    "TIE_RULE",
    "CaseResult",
    "CriterionResult",
    "GradingError",
    "GradingResult",
    "TagScore",
    "Unparsed",
    "bootstrap_std",
    "case_score",
    "clipped_mean",
    "grade_run",
    "grade_run_async",
    "load_grading",
    "majority",
    "summarise",
    "tag_scores",
]
