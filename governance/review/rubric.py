"""Which rubric a queue's raters answer: the benchmark's own jury rubric, or the audit verdict.

MedHELM's clinicians rated outputs on the jury's criteria (accuracy, completeness, clarity, 1-5), so a
queue over a benchmark with a jury rubric (or free-text answers: the default rubric) asks the same, and
its ratings can be set against the jury's (Judge validity). A benchmark without one (multiple choice,
numbers) and production outputs get the audit verdict: ``correct``, ``minor`` or ``material``.
"""

from __future__ import annotations

from evaluator.benchmarks.specs import BenchmarkError, get_benchmark
from evaluator.jury.rubrics import DEFAULT_RUBRIC, get_rubric
from governance.review.records import AUDIT_VERDICTS, ReviewRubric

AUDIT = ReviewRubric(
    kind="audit",
    rubric_id="audit",
    criteria=("verdict",),
    questions={
        "verdict": "Is the output correct, does it hold a minor error, or a material "
        "(clinically significant) one?"
    },
    scale_min=1,
    scale_max=len(AUDIT_VERDICTS),
)


def jury_rubric(rubric_id: str) -> ReviewRubric:
    """The jury rubric ``rubric_id`` as a review rubric (criteria, guiding questions, scale).

    Example:
        >>> jury_rubric("default").criteria
        ('accuracy', 'completeness', 'clarity')
    """
    r = get_rubric(rubric_id)
    return ReviewRubric(
        kind="jury",
        rubric_id=r.id,
        criteria=r.criterion_names,
        questions={c.name: c.question for c in r.criteria},
        scale_min=r.scale_min,
        scale_max=r.scale_max,
    )


def benchmark_rubric_id(benchmark_id: str) -> str | None:
    """The benchmark's jury rubric id (``default`` for free text without a jury block), or None.

    Example:
        >>> benchmark_rubric_id("medication_qa"), benchmark_rubric_id("calc_builtin")
        ('medication_qa', None)
    """
    try:
        spec = get_benchmark(benchmark_id)
    except BenchmarkError:
        return None
    if spec.jury is not None:
        return spec.jury.rubric
    return DEFAULT_RUBRIC if spec.answer_type == "free_text" else None


def rubric_for(benchmark_id: str, kind: str | None = None, *, free_text: bool = False) -> ReviewRubric:
    """The rubric of a queue over ``benchmark_id``: ``kind`` ``jury`` or ``audit``, default the jury's if any.

    A local scenario is no registered benchmark: with ``free_text`` answers it takes the default jury
    rubric (MedHELM's three criteria), else the audit verdict.

    Raises:
        ValueError: ``jury`` asked of a benchmark without a jury rubric, or an unknown kind.

    Example:
        >>> rubric_for("calc_builtin").kind, rubric_for("medication_qa").kind
        ('audit', 'jury')
    """
    rid = benchmark_rubric_id(benchmark_id) or (DEFAULT_RUBRIC if free_text else None)
    if kind in (None, "jury") and rid is not None:
        return jury_rubric(rid)
    if kind == "jury":
        raise ValueError(
            f"{benchmark_id} has no jury rubric: rate it with the audit verdict (--rubric audit)"
        )
    if kind not in (None, "audit"):
        raise ValueError(f"unknown rubric {kind!r}: jury or audit")
    return AUDIT
