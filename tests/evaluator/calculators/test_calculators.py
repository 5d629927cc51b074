"""The built-in calculators against hand-worked cases, and the generator's notes against its key.

Where a case comes from shared/reference/CALCULATORS.md the comment says so; its figures were
computed there by hand from the formulas (they are numbers, not dataset records). The working is
written out in each comment so that a reviewer can redo it with a pocket calculator.
"""

from __future__ import annotations

import json
import re

import pytest

from evaluator.calculators import BY_KEY, CALCULATORS, generate_cases, scores
from evaluator.calculators import equations as eq

# --- HAS-BLED ------------------------------------------------------------------------------------


def _hasbled(**overrides):
    base = dict(
        age=50,
        uncontrolled_hypertension=False,
        renal_disease=False,
        liver_disease=False,
        stroke_history=False,
        prior_major_bleeding=False,
        labile_inr=False,
        bleeding_medication=False,
        alcohol_drinks_per_week=0,
    )
    return scores.has_bled(**{**base, **overrides})


def test_has_bled_worked_example():
    # CALCULATORS.md §1: 71 y (>65: 1), uncontrolled HTN (1), prior GI bleed (1), aspirin (1),
    # 3 drinks (0) = 4
    assert (
        _hasbled(
            age=71,
            uncontrolled_hypertension=True,
            prior_major_bleeding=True,
            bleeding_medication=True,
            alcohol_drinks_per_week=3,
        )
        == 4
    )


def test_has_bled_boundaries():
    assert _hasbled(age=65) == 0  # age must be strictly over 65
    assert _hasbled(age=66) == 1
    assert _hasbled(alcohol_drinks_per_week=8) == 1  # >= 8 drinks/week scores
    assert _hasbled(alcohol_drinks_per_week=7.9) == 0  # count truncated to 7 first


def test_has_bled_each_item_and_maximum():
    # 58 y (0) + alcohol 12 (1) + HTN (1) + renal (1) + bleeding (1) + drugs (1) = 5
    # (CALCULATORS.md row-350 working)
    assert (
        _hasbled(
            age=58,
            alcohol_drinks_per_week=12,
            uncontrolled_hypertension=True,
            renal_disease=True,
            prior_major_bleeding=True,
            bleeding_medication=True,
        )
        == 5
    )
    # all nine items: 9
    assert (
        _hasbled(
            age=80,
            uncontrolled_hypertension=True,
            renal_disease=True,
            liver_disease=True,
            stroke_history=True,
            prior_major_bleeding=True,
            labile_inr=True,
            bleeding_medication=True,
            alcohol_drinks_per_week=10,
        )
        == 9
    )


# --- CHA2DS2-VASc ---------------------------------------------------------------------------------


def _chads(**overrides):
    base = dict(
        age=50,
        sex="male",
        heart_failure=False,
        hypertension=False,
        stroke_tia_thromboembolism=False,
        vascular_disease=False,
        diabetes=False,
    )
    return scores.cha2ds2_vasc(**{**base, **overrides})


def test_cha2ds2_vasc_worked_examples():
    # §2: 68 y woman: age 1 + female 1 + TIA 2 + DM 1 = 5
    assert _chads(age=68, sex="female", stroke_tia_thromboembolism=True, diabetes=True) == 5
    # 76 y man: age 2 + HTN 1 + stroke 2 + DM 1 = 6
    assert _chads(age=76, hypertension=True, stroke_tia_thromboembolism=True, diabetes=True) == 6
    # 62 y man with prior stroke: 0 + 2 = 2
    assert _chads(age=62, stroke_tia_thromboembolism=True) == 2


def test_cha2ds2_vasc_age_bands_and_sex():
    assert [_chads(age=a) for a in (64, 65, 74, 75)] == [0, 1, 1, 2]
    assert _chads(sex="female") == 1  # female always adds 1 in MedCalc
    # 80 y woman with every item: 2 + 1 + 1 + 1 + 2 + 1 + 1 = 9
    assert (
        _chads(
            age=80,
            sex="female",
            heart_failure=True,
            hypertension=True,
            stroke_tia_thromboembolism=True,
            vascular_disease=True,
            diabetes=True,
        )
        == 9
    )


# --- CURB-65 --------------------------------------------------------------------------------------


def _curb(**overrides):
    base = dict(confusion=False, bun_mg_dl=10, respiratory_rate=16, systolic_bp=120, diastolic_bp=80, age=50)
    return scores.curb_65(**{**base, **overrides})


def test_curb_65_worked_example():
    # §3: 70 y (1), BUN 24 > 19 (1), RR 32 >= 30 (1), BP 100/58: DBP <= 60 (1), oriented (0) = 4
    assert _curb(age=70, bun_mg_dl=24, respiratory_rate=32, systolic_bp=100, diastolic_bp=58) == 4


def test_curb_65_thresholds():
    # BP 90/65: SBP not < 90 and DBP > 60 -> 0; BUN 20 -> 1; total 1 (§3 row-539 working)
    assert _curb(bun_mg_dl=20, systolic_bp=90, diastolic_bp=65) == 1
    assert _curb(bun_mg_dl=19) == 0 and _curb(bun_mg_dl=19.1) == 1  # MedCalc: BUN > 19 mg/dL
    assert _curb(respiratory_rate=29.9) == 0  # truncated to 29
    assert _curb(diastolic_bp=60) == 1 and _curb(systolic_bp=89) == 1
    assert _curb(age=64) == 0 and _curb(age=65) == 1
    assert _curb(confusion=True, bun_mg_dl=30, respiratory_rate=30, systolic_bp=80, age=90) == 5


# --- Wells PE -------------------------------------------------------------------------------------


def _wells(**overrides):
    base = dict(
        dvt_signs=False,
        pe_most_likely=False,
        heart_rate=80,
        immobilization_or_recent_surgery=False,
        prior_pe_or_dvt=False,
        hemoptysis=False,
        malignancy=False,
    )
    return scores.wells_pe(**{**base, **overrides})


def test_wells_pe_worked_example():
    # §4: DVT signs 3 + HR 112 > 100: 1.5 + surgery 2 weeks ago 1.5 = 6; adding "PE most likely" 3 -> 9
    assert _wells(dvt_signs=True, heart_rate=112, immobilization_or_recent_surgery=True) == 6.0
    assert (
        _wells(dvt_signs=True, heart_rate=112, immobilization_or_recent_surgery=True, pe_most_likely=True)
        == 9.0
    )


def test_wells_pe_heart_rate_boundary_and_maximum():
    assert _wells(heart_rate=100) == 0.0 and _wells(heart_rate=101) == 1.5
    # 3 + 3 + 1.5 + 1.5 + 1.5 + 1 + 1 = 12.5
    assert (
        _wells(
            dvt_signs=True,
            pe_most_likely=True,
            heart_rate=120,
            immobilization_or_recent_surgery=True,
            prior_pe_or_dvt=True,
            hemoptysis=True,
            malignancy=True,
        )
        == 12.5
    )


# --- Cockcroft-Gault ------------------------------------------------------------------------------


def test_cockcroft_gault_obese_uses_adjusted_weight():
    # §5 A: female 72 y, 160 cm, 85 kg, SCr 1.3. BMI 33.2 -> adjusted weight.
    # height 62.992 in; IBW 45.5 + 2.3*2.992 = 52.382; ABW 52.382 + 0.4*32.618 = 65.429
    # CrCl = 68 * 65.429 * 0.85 / (72 * 1.3) = 40.40
    assert eq.cockcroft_gault(
        age=72, sex="female", weight_kg=85, height_cm=160, creatinine_mg_dl=1.3
    ) == pytest.approx(40.40, abs=0.01)


def test_cockcroft_gault_normal_bmi_with_imperial_units():
    # §5 B: male 45 y, 5 ft 10 in (70 in = 177.8 cm), 154 lb = 69.853 kg, SCr 106 µmol/L = 1.1991 mg/dL
    # BMI 22.1 (normal) -> min(IBW 73.0, 69.853) = 69.853; CrCl = 95 * 69.853 / (72 * 1.1991) = 76.87
    crcl = eq.cockcroft_gault(
        age=45,
        sex="male",
        weight_kg=eq.lb_to_kg(154),
        height_cm=70 * 2.54,
        creatinine_mg_dl=eq.creatinine_umol_to_mg_dl(106),
    )
    assert crcl == pytest.approx(76.87, abs=0.01)


@pytest.mark.parametrize(
    ("age", "cm", "kg", "cr", "expected", "rule"),
    [
        # §5 cross-checks: BMI 18.07 -> actual: 53 * 48 / (72 * 1.4) = 25.238
        (87, 163, 48, 1.4, 25.238, "actual"),
        # BMI 24.09 -> min(IBW 64.126, 68): 74 * 64.126 / (72 * 5.09) = 12.948
        (66, 168, 68, 5.09, 12.948, "min(ideal, actual)"),
        # BMI 30.84 -> ABW 82.236 + 0.4 * 26.764 = 92.942: 85 * 92.942 / 108 = 73.149
        (55, 188, 109, 1.5, 73.149, "adjusted"),
    ],
)
def test_cockcroft_gault_three_weight_branches(age, cm, kg, cr, expected, rule):
    assert eq.cockcroft_gault_weight("male", kg, cm)[1] == rule
    assert eq.cockcroft_gault(
        age=age, sex="male", weight_kg=kg, height_cm=cm, creatinine_mg_dl=cr
    ) == pytest.approx(expected, abs=0.002)


# --- MELD Na --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cr", "bili", "inr", "na", "dialysis", "expected"),
    [
        # §6 ex 1: MELD(i) = 0.5625 + 0.4397 + 0.5264 + 0.643 = 2.1716 -> 2.2 -> 22 > 11
        #          22 + 1.32*7 - 0.033*22*7 = 26.158 -> 26
        (1.8, 3.2, 1.6, 130, False, 26),
        # §6 ex 2: Cr, bili floored to 1; 1.12 ln 1.1 + 0.643 = 0.7497 -> 0.7 -> 7 <= 11: no sodium term
        (0.8, 0.7, 1.1, 140, False, 7),
        # §6 row-342 working: Cr 4.9 -> 4.0, Na 172 -> 137: MELD(i) 2.6066 -> 26, sodium term 0 -> 26
        (4.9, 1.1, 1.71, 172, False, 26),
        # §6 one_shot_23 working: Cr -> 4.0: MELD(i) 4.2084 -> 42; 42 + 5.28 - 5.544 = 41.7 -> capped 40
        (7.78, 36.1, 2.2, 133, False, 40),
        # all inputs at their floors: 0.643 -> 0.6 -> 6 (the lowest possible score)
        (1.0, 1.0, 1.0, 137, False, 6),
        # dialysis sets Cr to 4.0 (same as the first case with Cr 4.0):
        # 0.957 ln4 + 0.378 ln3.2 + 1.12 ln1.6 + 0.643 = 1.3267+0.4397+0.5264+0.643 = 2.9358 -> 2.9 -> 29
        # 29 + 9.24 - 0.033*29*7 = 29 + 9.24 - 6.699 = 31.541 -> 32
        (1.8, 3.2, 1.6, 130, True, 32),
    ],
)
def test_meld_na(cr, bili, inr, na, dialysis, expected):
    assert eq.meld_na(creatinine=cr, bilirubin=bili, inr=inr, sodium=na, dialysis=dialysis) == expected


# --- equations ------------------------------------------------------------------------------------


def test_anion_gap_and_corrected_calcium():
    assert eq.anion_gap(138, 102, 20) == 16  # §7: 138 - (102 + 20)
    assert eq.anion_gap(137, 92, 6) == 39  # §7 row-496 working
    # §8: Ca 2.05 mmol/L * 4.008 = 8.216 mg/dL; albumin 25 g/L = 2.5 g/dL; 8.216 + 0.8 * 1.5 = 9.416
    assert eq.corrected_calcium(eq.calcium_mmol_to_mg_dl(2.05), 25 / 10) == pytest.approx(9.416, abs=1e-3)
    assert eq.corrected_calcium(10.3, 2.9) == pytest.approx(11.18)  # 10.3 + 0.8 * 1.1
    assert eq.corrected_calcium(9.0, 4.5) == pytest.approx(8.6)  # albumin above 4 corrects downward


def test_qtc_formulas():
    # §9: HR 88 -> RR 0.68182 s; Bazett 380 / 0.82573 = 460.20; Fridericia 380 / 0.88016 = 431.74
    assert eq.qtc_bazett(380, 88) == pytest.approx(460.20, abs=0.01)
    assert eq.qtc_fridericia(380, 88) == pytest.approx(431.74, abs=0.01)
    # HR 75 -> RR exactly 0.8; 330 / sqrt(0.8) = 368.951
    assert eq.qtc_bazett(330, 75) == pytest.approx(368.951, abs=1e-3)
    assert eq.qtc_bazett(400, 60) == pytest.approx(400)  # RR 1 s: no correction


def test_map_and_bmi():
    assert eq.mean_arterial_pressure(142, 88) == pytest.approx(106.0)  # 47.333 + 58.667
    assert eq.mean_arterial_pressure(125, 75) == pytest.approx(91.667, abs=1e-3)
    # §11: 5 ft 4 in = 64 in = 162.56 cm, 150 lb = 68.039 kg -> 68.039 / 1.6256^2 = 25.747
    assert eq.bmi(eq.lb_to_kg(150), 64 * 2.54) == pytest.approx(25.747, abs=1e-3)


# --- generator ------------------------------------------------------------------------------------


def test_generation_is_deterministic_and_seed_dependent():
    assert generate_cases(seed=7, count=30) == generate_cases(seed=7, count=30)
    assert [c.context for c in generate_cases(seed=7, count=12)] != [
        c.context for c in generate_cases(seed=8, count=12)
    ]
    first = generate_cases(seed=7, count=30)
    assert generate_cases(seed=7, count=10) == first[:10]  # a longer stream extends a shorter one
    assert len({c.id for c in first}) == 30


def test_generation_covers_every_calculator_and_filters():
    cases = generate_cases(seed=0, count=len(CALCULATORS))
    assert {c.subgroups["calculator"] for c in cases} == set(BY_KEY)
    only = generate_cases(seed=0, count=5, calculators=["anion_gap"])
    assert {c.subgroups["calculator"] for c in only} == {"anion_gap"}
    with pytest.raises(ValueError, match="unknown calculators"):
        generate_cases(calculators=["apgar"])
    assert len(CALCULATORS) >= 10


def test_grading_rules_follow_medcalc():
    cases = generate_cases(seed=3, count=240)
    for case in cases:
        grading = BY_KEY[case.subgroups["calculator"]].grading
        if grading == "exact_integer":
            assert case.answer_type == "exact" and re.fullmatch(r"\d+", case.reference)
        elif grading == "exact_limits":
            assert case.lower == case.upper == float(case.reference)
        else:
            truth = float(case.reference)
            assert case.lower == pytest.approx(truth * 0.95) and case.upper == pytest.approx(truth * 1.05)


def _num(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    assert found, f"{pattern!r} not in {text!r}"
    return float(found.group(1))


def _check_note(case) -> None:
    """Recompute the key from the numbers *as printed in the note*: the note and the key must agree."""
    note, key = case.context, case.subgroups["calculator"]
    if key == "mean_arterial_pressure":
        found = re.search(r"(\d+)/(\d+) mm ?Hg", note)
        value = eq.mean_arterial_pressure(float(found.group(1)), float(found.group(2)))
    elif key == "anion_gap":
        value = eq.anion_gap(
            _num(r"sodium (\d+)", note), _num(r"chloride (\d+)", note), _num(r"bicarbonate (\d+)", note)
        )
    elif key in ("qtc_bazett", "qtc_fridericia"):
        hr = _num(r"(?:at|rate of|rate is) (\d+)", note)
        qt = _num(r"QT(?: interval)?(?: of| is)? (\d+)", note)
        value = (eq.qtc_bazett if key == "qtc_bazett" else eq.qtc_fridericia)(qt, hr)
    elif key == "calcium_correction":
        ca_found = re.search(r"calcium is ([\d.]+) (mmol/L|mg/dL)", note)
        ca = float(ca_found.group(1)) * (eq.CALCIUM_MMOL_TO_MG_DL if ca_found.group(2) == "mmol/L" else 1)
        alb_found = re.search(r"albumin is ([\d.]+) (g/L|g/dL)", note)
        alb = float(alb_found.group(1)) / (10 if alb_found.group(2) == "g/L" else 1)
        value = eq.corrected_calcium(ca, alb)
    elif key == "curb_65":
        value = scores.curb_65(
            confusion="confus" in note and "alert and fully oriented" not in note,
            bun_mg_dl=_num(r"(?:BUN|nitrogen) is ([\d.]+)", note),
            respiratory_rate=_num(r"Respiratory rate is (\d+)", note),
            systolic_bp=_num(r"pressure is (\d+)/", note),
            diastolic_bp=_num(r"pressure is \d+/(\d+)", note),
            age=int(_num(r"(\d+)[- ]?(?:year|F |M )", note)),
        )
    else:
        inputs = json.loads(case.meta["inputs"])
        assert str(inputs["age"]) in note
        return
    assert value == pytest.approx(float(case.reference), abs=1e-3)


def test_notes_state_the_values_the_key_is_computed_from():
    for case in generate_cases(seed=11, count=360):
        _check_note(case)
