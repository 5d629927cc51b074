"""Judge validity: whether the LLM jury may stand in for clinicians on this job, assessed from the
stored jury passes and clinician ratings against the committee's bar (``operations``: it reads the store).
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "record_grader_agreement": "governance.judge_validity.criteria",
    "JudgeValidityView": "governance.judge_validity.operations",
    "agreement_setting": "governance.judge_validity.operations",
    "assess_judge_validity": "governance.judge_validity.operations",
    "jury_benchmarks": "governance.judge_validity.operations",
    "minimum_rule": "governance.judge_validity.operations",
    "record_agreement": "governance.judge_validity.operations",
    "sample_size_hint": "governance.judge_validity.operations",
    "set_minimum": "governance.judge_validity.operations",
    "stored_juries": "governance.judge_validity.operations",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "JudgeValidityView", "agreement_setting", "record_grader_agreement", "assess_judge_validity",
    "jury_benchmarks", "minimum_rule", "record_agreement", "sample_size_hint", "set_minimum",
    "stored_juries",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
