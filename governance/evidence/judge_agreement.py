"""How far the LLM jury agrees with clinicians: the number that decides whether jury scores count.

Why a record on the dossier rather than a computation here: agreement is measured elsewhere (the
jury work computes an ICC of jury against clinician ratings on a sample the hospital rated, or a
committee copies a published figure) and the committee must be able to see exactly which figure
its judge-agreement rule read, with its interval, sample and source. The acceptance rule treats
it like any other estimate: pass when the interval's lower bound reaches the bar, and only when
the figure is a single-measure ICC (``gate_problem``): an average-of-k ICC such as MedHELM's
ICC(3,k) credits the jury with the reliability of averaging two series (2r/(1+r) for two
z-scored series), so it is kept for comparison and never gated. ICCs are stored unclipped.
"""

from __future__ import annotations

import re

from governance.evidence.records import JudgeAgreementSetting


def covers(setting: JudgeAgreementSetting, benchmark: str) -> bool:
    """Whether the agreement was measured on (or declared for) this benchmark.

    Example:
        >>> s = JudgeAgreementSetting(estimate=0.6, source="pilot", benchmarks=("MedDialog",))
        >>> covers(s, "MedDialog"), covers(s, "MedicationQA")
        (True, False)
    """
    return not setting.benchmarks or benchmark in setting.benchmarks


_SINGLE = re.compile(r"^ICC\((A|C|1|2|3),1\)(-?Z)?$|^ICC[123](-?Z)?$")


def gate_problem(setting: JudgeAgreementSetting) -> str:
    """Why the judge-agreement rule cannot gate on this figure ("" when it can: a single-measure ICC).

    Example:
        >>> gate_problem(JudgeAgreementSetting(estimate=0.5, source="pilot"))
        ''
        >>> gate_problem(JudgeAgreementSetting(statistic="ICC3k-z", estimate=0.5, source="pilot"))[:30]
        'is an average-of-k ICC, which '
    """
    name = setting.statistic.upper().replace(" ", "")
    if _SINGLE.match(name):
        return ""
    if name.startswith("ICC") and "K" in name[3:8]:
        return ("is an average-of-k ICC, which credits the jury with the reliability of averaging raters; "
                "the rule needs a single-measure ICC (ICC(A,1) or ICC(C,1)), so record one")
    return "is not a single-measure ICC (ICC(A,1) or ICC(C,1)), which the rule needs; record one"
