"""How far the LLM jury agrees with clinicians: the number that decides whether jury scores count.

Why a record on the dossier rather than a computation here: agreement is measured elsewhere (the
jury work computes an ICC of jury against clinician ratings on a sample the hospital rated, or a
committee copies a published figure) and the committee must be able to see exactly which figure
its judge-agreement rule read, with its interval, sample and source. The acceptance rule treats
it like any other estimate: pass when the interval's lower bound reaches the bar.
"""

from __future__ import annotations

from governance.dossier.evidence_records import JudgeAgreementSetting


def covers(setting: JudgeAgreementSetting, benchmark: str) -> bool:
    """Whether the agreement was measured on (or declared for) this benchmark.

    Example:
        >>> s = JudgeAgreementSetting(estimate=0.6, source="pilot", benchmarks=("MedDialog",))
        >>> covers(s, "MedDialog"), covers(s, "MedicationQA")
        (True, False)
    """
    return not setting.benchmarks or benchmark in setting.benchmarks

