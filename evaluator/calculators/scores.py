"""Rule-based clinical scores, exactly as MedCalc-Bench applies them.

The point tables follow ``ncbi-nlp/MedCalc-Bench@20b10f9 calculator_implementations``, including
where that differs from the original
publication (HAS-BLED's nine separate items; CURB-65's BUN > 19 mg/dL). An item the note does not
mention counts as absent, so every function takes plain booleans. The answer key of the built-in
benchmark is computed here and nowhere else, and ``tests/evaluator/calculators/test_calculators.py`` checks
each function against hand-worked cases.
"""

from __future__ import annotations

from typing import Literal

Sex = Literal["female", "male"]


def has_bled(
    *,
    age: int,
    uncontrolled_hypertension: bool,
    renal_disease: bool,
    liver_disease: bool,
    stroke_history: bool,
    prior_major_bleeding: bool,
    labile_inr: bool,
    bleeding_medication: bool,
    alcohol_drinks_per_week: float,
) -> int:
    """HAS-BLED (0-9): one point per item; age counts only when strictly over 65.

    Example:
        >>> has_bled(age=71, uncontrolled_hypertension=True, renal_disease=False, liver_disease=False,
        ...          stroke_history=False, prior_major_bleeding=True, labile_inr=False,
        ...          bleeding_medication=True, alcohol_drinks_per_week=3)
        4
    """
    items = (
        age > 65,
        uncontrolled_hypertension,
        renal_disease,
        liver_disease,
        stroke_history,
        prior_major_bleeding,
        labile_inr,
        bleeding_medication,
        int(alcohol_drinks_per_week) >= 8,  # MedCalc truncates the count to an integer
    )
    return sum(bool(i) for i in items)


def cha2ds2_vasc(
    *,
    age: int,
    sex: Sex,
    heart_failure: bool,
    hypertension: bool,
    stroke_tia_thromboembolism: bool,
    vascular_disease: bool,
    diabetes: bool,
) -> int:
    """CHA2DS2-VASc (0-9): age 65-74 = 1, >= 75 = 2; female 1; stroke/TIA/TE 2; others 1.

    Example:
        >>> cha2ds2_vasc(age=68, sex="female", heart_failure=False, hypertension=False,
        ...              stroke_tia_thromboembolism=True, vascular_disease=False, diabetes=True)
        5
    """
    age_points = 2 if age >= 75 else 1 if age >= 65 else 0
    return (
        age_points
        + (sex == "female")
        + heart_failure
        + hypertension
        + 2 * stroke_tia_thromboembolism
        + vascular_disease
        + diabetes
    )


def curb_65(
    *,
    confusion: bool,
    bun_mg_dl: float,
    respiratory_rate: float,
    systolic_bp: float,
    diastolic_bp: float,
    age: int,
) -> int:
    """CURB-65 (0-5) with MedCalc's BUN > 19 mg/dL; RR and BP are truncated to integers first.

    Example:
        >>> curb_65(confusion=False, bun_mg_dl=24, respiratory_rate=32, systolic_bp=100,
        ...         diastolic_bp=58, age=70)
        4
    """
    rr, sbp, dbp = int(respiratory_rate), int(systolic_bp), int(diastolic_bp)
    return sum((confusion, bun_mg_dl > 19, rr >= 30, sbp < 90 or dbp <= 60, age >= 65))


def wells_pe(
    *,
    dvt_signs: bool,
    pe_most_likely: bool,
    heart_rate: float,
    immobilization_or_recent_surgery: bool,
    prior_pe_or_dvt: bool,
    hemoptysis: bool,
    malignancy: bool,
) -> float:
    """Wells' criteria for PE (0-12.5, steps of 0.5): 3, 3, 1.5 (HR > 100), 1.5, 1.5, 1, 1.

    Example:
        >>> wells_pe(dvt_signs=True, pe_most_likely=False, heart_rate=112,
        ...          immobilization_or_recent_surgery=True, prior_pe_or_dvt=False,
        ...          hemoptysis=False, malignancy=False)
        6.0
    """
    return (
        3.0 * dvt_signs
        + 3.0 * pe_most_likely
        + 1.5 * (heart_rate > 100)
        + 1.5 * immobilization_or_recent_surgery
        + 1.5 * prior_pe_or_dvt
        + 1.0 * hemoptysis
        + 1.0 * malignancy
    )
