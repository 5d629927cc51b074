"""Equation-based clinical values and unit conversions, as MedCalc-Bench computes them.

Formulas, units and conversion factors follow ``shared/reference/CALCULATORS.md`` (§0.2, §5-11),
i.e. ``ncbi-nlp/MedCalc-Bench@20b10f9``. Two MedCalc conventions matter for the answer key and
are easy to get wrong: Cockcroft-Gault uses a BMI-tiered weight (actual / min(IBW, actual) /
adjusted), not the actual weight of the 1976 paper, and MELD Na is the 2016 UNOS/OPTN version
(bounded inputs, MELD(i) rounded to a tenth, sodium term only above 11, cap 40). Values are
computed at full precision; MedCalc's 3- or 5-decimal intermediate rounding moves results far
less than its +/-5% tolerance band.
"""

from __future__ import annotations

import math

from evaluator.calculators.scores import Sex

LB_TO_KG = 0.453592
CM_TO_IN = 0.393701
CREATININE_UMOL_PER_MG_DL = 88.4
CALCIUM_MMOL_TO_MG_DL = 4.008


def lb_to_kg(pounds: float) -> float:
    """Pounds to kilograms (MedCalc factor 0.453592).

    Example:
        >>> round(lb_to_kg(154), 3)
        69.853
    """
    return pounds * LB_TO_KG


def creatinine_umol_to_mg_dl(umol_l: float) -> float:
    """Creatinine µmol/L to mg/dL (÷ 88.4).

    Example:
        >>> round(creatinine_umol_to_mg_dl(106), 4)
        1.1991
    """
    return umol_l / CREATININE_UMOL_PER_MG_DL


def calcium_mmol_to_mg_dl(mmol_l: float) -> float:
    """Calcium mmol/L to mg/dL (× 4.008).

    Example:
        >>> round(calcium_mmol_to_mg_dl(2.05), 3)
        8.216
    """
    return mmol_l * CALCIUM_MMOL_TO_MG_DL


def bmi(weight_kg: float, height_cm: float) -> float:
    """Body mass index, kg/m².

    Example:
        >>> round(bmi(68.039, 162.56), 2)
        25.75
    """
    return weight_kg / (height_cm / 100) ** 2


def ideal_body_weight(sex: Sex, height_cm: float) -> float:
    """Devine ideal body weight in kg; no floor below 60 inches (as MedCalc).

    Example:
        >>> round(ideal_body_weight("female", 160), 3)
        52.382
    """
    base = 50.0 if sex == "male" else 45.5
    return base + 2.3 * (height_cm * CM_TO_IN - 60)


def cockcroft_gault_weight(sex: Sex, weight_kg: float, height_cm: float) -> tuple[float, str]:
    """The weight MedCalc puts into Cockcroft-Gault, and which rule chose it.

    BMI < 18.5: actual; 18.5-24.9: min(IBW, actual); > 24.9: adjusted = IBW + 0.4 (actual − IBW).

    Example:
        >>> w, rule = cockcroft_gault_weight("female", 85, 160)
        >>> round(w, 3), rule
        (65.429, 'adjusted')
    """
    index = bmi(weight_kg, height_cm)
    ibw = ideal_body_weight(sex, height_cm)
    if index < 18.5:
        return weight_kg, "actual"
    if index <= 24.9:
        return min(ibw, weight_kg), "min(ideal, actual)"
    return ibw + 0.4 * (weight_kg - ibw), "adjusted"


def cockcroft_gault(
    *, age: int, sex: Sex, weight_kg: float, height_cm: float, creatinine_mg_dl: float
) -> float:
    """Creatinine clearance in mL/min: (140 − age) × W × (0.85 if female) ÷ (72 × SCr).

    Example:
        >>> round(cockcroft_gault(age=72, sex="female", weight_kg=85, height_cm=160, creatinine_mg_dl=1.3), 2)
        40.4
    """
    weight, _ = cockcroft_gault_weight(sex, weight_kg, height_cm)
    factor = 0.85 if sex == "female" else 1.0
    return (140 - age) * weight * factor / (72 * creatinine_mg_dl)


def meld_na(*, creatinine: float, bilirubin: float, inr: float, sodium: float, dialysis: bool) -> int:
    """MELD Na (UNOS/OPTN 2016) as MedCalc computes it; mg/dL inputs.

    Example:
        >>> meld_na(creatinine=1.8, bilirubin=3.2, inr=1.6, sodium=130, dialysis=False)
        26
    """
    # Order matters: MedCalc floors at 1.0 before applying the dialysis rule (CALCULATORS.md §6b).
    cr = min(max(creatinine, 1.0), 4.0)
    if dialysis:
        cr = 4.0
    bili, inr_b = max(bilirubin, 1.0), max(inr, 1.0)
    na = min(max(sodium, 125.0), 137.0)
    meld_i = 0.957 * math.log(cr) + 0.378 * math.log(bili) + 1.120 * math.log(inr_b) + 0.643
    meld = round(round(meld_i, 1) * 10)
    if meld > 11:
        meld = min(meld + 1.32 * (137 - na) - 0.033 * meld * (137 - na), 40)
    return round(meld)


def anion_gap(sodium: float, chloride: float, bicarbonate: float) -> float:
    """Anion gap in mEq/L: Na − (Cl + HCO3); no potassium, no albumin correction.

    Example:
        >>> anion_gap(138, 102, 20)
        16
    """
    return sodium - (chloride + bicarbonate)


def corrected_calcium(calcium_mg_dl: float, albumin_g_dl: float, normal_albumin: float = 4.0) -> float:
    """Calcium corrected for albumin, mg/dL: Ca + 0.8 × (4.0 − albumin).

    Example:
        >>> round(corrected_calcium(8.216, 2.5), 3)
        9.416
    """
    return calcium_mg_dl + 0.8 * (normal_albumin - albumin_g_dl)


def qtc_bazett(qt_ms: float, heart_rate: float) -> float:
    """QTc by Bazett, ms: QT ÷ √RR with RR = 60 ÷ HR seconds.

    Example:
        >>> round(qtc_bazett(380, 88), 1)
        460.2
    """
    return qt_ms / math.sqrt(60 / heart_rate)


def qtc_fridericia(qt_ms: float, heart_rate: float) -> float:
    """QTc by Fridericia, ms: QT ÷ RR^(1/3).

    Example:
        >>> round(qtc_fridericia(380, 88), 1)
        431.7
    """
    return qt_ms / (60 / heart_rate) ** (1 / 3)


def mean_arterial_pressure(systolic: float, diastolic: float) -> float:
    """Mean arterial pressure, mmHg: ⅓ SBP + ⅔ DBP.

    Example:
        >>> round(mean_arterial_pressure(125, 75), 3)
        91.667
    """
    return systolic / 3 + 2 * diastolic / 3
