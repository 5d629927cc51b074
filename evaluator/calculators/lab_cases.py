"""Synthetic cases for the equation-based values (CrCl, MELD Na, anion gap, Ca, QTc, MAP, BMI).

Units vary the way real notes do (lb or kg, ft/in or cm, µmol/L or mg/dL creatinine, mmol/L or
mg/dL calcium, g/L or g/dL albumin) and the answer is computed from the value as written. Draws
that would sit on a rule boundary a model cannot see precisely (a BMI within 0.2 of the
Cockcroft-Gault weight cut-offs; dialysis with creatinine below 1.0, where MedCalc's code and
UNOS disagree) are redrawn, so that the key is unambiguous.
"""

from __future__ import annotations

import math
import random

from evaluator.calculators import equations as eq
from evaluator.calculators.notes import assemble, fill, height_text, item, opening, weight_text
from evaluator.calculators.scores import Sex

Drawn = tuple[dict[str, object], str, float]


def _patient(rng: random.Random, low: int = 18, high: int = 90) -> tuple[int, Sex]:
    return rng.randint(low, high), rng.choice(("female", "male"))


def _creatinine_text(rng: random.Random, mg_dl: float) -> tuple[str, float]:
    if rng.random() < 0.3:
        umol = round(mg_dl * eq.CREATININE_UMOL_PER_MG_DL)
        return f"{umol} µmol/L", eq.creatinine_umol_to_mg_dl(umol)
    value = round(mg_dl, 2)
    return f"{value:g} mg/dL", value


def _body_size(rng: random.Random, sex: Sex) -> tuple[str, str, float, float]:
    """Height and weight sentences' values; BMI kept clear of 18.5 and 24.9 by at least 0.2."""
    while True:
        height_words, cm = height_text(rng, rng.gauss(163 if sex == "female" else 176, 8))
        weight_words, kg = weight_text(rng, rng.uniform(16, 40) * (cm / 100) ** 2)
        index = eq.bmi(kg, cm)
        if abs(index - 18.5) >= 0.2 and abs(index - 24.9) >= 0.2:
            return height_words, weight_words, cm, kg


def cockcroft_gault_case(rng: random.Random) -> Drawn:
    """A creatinine-clearance case for renal dose adjustment."""
    age, sex = _patient(rng, 20, 90)
    height_words, weight_words, cm, kg = _body_size(rng, sex)
    cr_words, cr = _creatinine_text(rng, rng.uniform(0.6, 4.0))
    body = [f"Height is {height_words} and weight is {weight_words}.", f"Serum creatinine is {cr_words}."]
    note = assemble(
        rng,
        opening(rng, age, sex, "a urinary tract infection, before choosing an antibiotic dose"),
        body,
        rng.randint(1, 3),
        sex,
    )
    value = eq.cockcroft_gault(age=age, sex=sex, weight_kg=kg, height_cm=cm, creatinine_mg_dl=cr)
    return {"age": age, "sex": sex, "height_cm": cm, "weight_kg": kg, "creatinine_mg_dl": cr}, note, value


def bmi_case(rng: random.Random) -> Drawn:
    """A body-mass-index case."""
    age, sex = _patient(rng)
    height_words, weight_words, cm, kg = _body_size(rng, sex)
    note = assemble(
        rng,
        opening(rng, age, sex, "a routine health check"),
        [f"{fill('{P}', sex)} is {height_words} tall and weighs {weight_words}."],
        rng.randint(1, 3),
        sex,
    )
    return {"age": age, "sex": sex, "height_cm": cm, "weight_kg": kg}, note, eq.bmi(kg, cm)


def meld_na_case(rng: random.Random) -> Drawn:
    """A MELD Na case for a patient with cirrhosis; dialysis only with creatinine >= 1.5."""
    age, sex = _patient(rng, 30, 75)
    dialysis = rng.random() < 0.15
    # Log-uniform draws spread the scores over the whole 6-40 range instead of piling up at the cap.
    cr = round(math.exp(rng.uniform(math.log(1.5 if dialysis else 0.6), math.log(5.0))), 1)
    bili = round(math.exp(rng.uniform(math.log(0.4), math.log(15.0))), 1)
    inr = round(rng.uniform(0.9, 3.0), 1)
    na = rng.randint(118, 145)
    labs = [
        f"creatinine {cr:g} mg/dL",
        f"total bilirubin {bili:g} mg/dL",
        f"INR {inr:g}",
        f"sodium {na} mmol/L",
    ]
    rng.shuffle(labs)
    body = [
        f"Laboratory results: {', '.join(labs)}.",
        item(
            rng,
            dialysis,
            ["{P} required hemodialysis three times in the past week."],
            ["{P} has not received dialysis."],
            sex,
        ),
    ]
    note = assemble(
        rng,
        opening(rng, age, sex, "decompensated cirrhosis, under evaluation for transplant listing"),
        body,
        rng.randint(0, 2),
        sex,
    )
    value = eq.meld_na(creatinine=cr, bilirubin=bili, inr=inr, sodium=na, dialysis=dialysis)
    return (
        {
            "age": age,
            "sex": sex,
            "creatinine": cr,
            "bilirubin": bili,
            "inr": inr,
            "sodium": na,
            "dialysis": dialysis,
        },
        note,
        float(value),
    )


def anion_gap_case(rng: random.Random) -> Drawn:
    """An anion-gap case with one electrolyte panel (potassium and glucose are distractors)."""
    age, sex = _patient(rng)
    while True:
        na, cl, hco3 = rng.randint(128, 150), rng.randint(88, 115), rng.randint(8, 30)
        if eq.anion_gap(na, cl, hco3) >= 4:
            break
    panel = [
        f"sodium {na} mEq/L",
        f"potassium {round(rng.uniform(3.1, 5.6), 1)} mEq/L",
        f"chloride {cl} mEq/L",
        f"bicarbonate {hco3} mEq/L",
        f"glucose {rng.randint(70, 420)} mg/dL",
    ]
    reason = rng.choice(("vomiting and abdominal pain", "confusion and polyuria", "two days of diarrhea"))
    body = [rng.choice(("Admission chemistry shows ", "Basic metabolic panel: ")) + ", ".join(panel) + "."]
    note = assemble(rng, opening(rng, age, sex, reason), body, rng.randint(0, 2), sex)
    return (
        {"age": age, "sex": sex, "sodium": na, "chloride": cl, "bicarbonate": hco3},
        note,
        float(eq.anion_gap(na, cl, hco3)),
    )


def corrected_calcium_case(rng: random.Random) -> Drawn:
    """A calcium-correction case; calcium and albumin in either unit system."""
    age, sex = _patient(rng)
    if rng.random() < 0.35:
        mmol = round(rng.uniform(1.6, 2.7), 2)
        ca_words, ca = f"{mmol:g} mmol/L", eq.calcium_mmol_to_mg_dl(mmol)
    else:
        ca = round(rng.uniform(6.5, 10.8), 1)
        ca_words = f"{ca:g} mg/dL"
    if rng.random() < 0.35:
        g_l = rng.randint(15, 48)
        alb_words, alb = f"{g_l} g/L", g_l / 10
    else:
        alb = round(rng.uniform(1.5, 4.8), 1)
        alb_words = f"{alb:g} g/dL"
    body = [f"Total serum calcium is {ca_words} and albumin is {alb_words}."]
    note = assemble(
        rng,
        opening(rng, age, sex, rng.choice(("weakness and poor oral intake", "leg edema and proteinuria"))),
        body,
        rng.randint(1, 2),
        sex,
    )
    return (
        {"age": age, "sex": sex, "calcium_mg_dl": ca, "albumin_g_dl": alb},
        note,
        eq.corrected_calcium(ca, alb),
    )


def _ecg(rng: random.Random) -> tuple[int, int, str]:
    hr = rng.randint(45, 150)
    qt = 2 * round(rng.uniform(0.88, 1.22) * 205 * math.sqrt(60 / hr))  # QT shortens as the rate rises
    words = rng.choice(
        (
            "The ECG shows sinus rhythm at {hr} bpm with a QT interval of {qt} ms.",
            "Patient has a heart rate of {hr} bpm and a QT interval of {qt} msec.",
            "On the 12-lead ECG the rate is {hr} beats per minute and the measured QT is {qt} ms.",
        )
    ).format(hr=hr, qt=qt)
    return hr, qt, words


def qtc_bazett_case(rng: random.Random) -> Drawn:
    """A QTc (Bazett) case."""
    age, sex = _patient(rng)
    hr, qt, words = _ecg(rng)
    note = assemble(
        rng, opening(rng, age, sex, "palpitations after starting a new medication"), [words], 1, sex
    )
    return {"age": age, "sex": sex, "heart_rate": hr, "qt_ms": qt}, note, eq.qtc_bazett(qt, hr)


def qtc_fridericia_case(rng: random.Random) -> Drawn:
    """A QTc (Fridericia) case."""
    age, sex = _patient(rng)
    hr, qt, words = _ecg(rng)
    note = assemble(rng, opening(rng, age, sex, "a syncopal episode"), [words], 1, sex)
    return {"age": age, "sex": sex, "heart_rate": hr, "qt_ms": qt}, note, eq.qtc_fridericia(qt, hr)


def map_case(rng: random.Random) -> Drawn:
    """A mean-arterial-pressure case (exactly one blood-pressure reading in the note)."""
    age, sex = _patient(rng)
    sbp = rng.randint(85, 200)
    dbp = rng.randint(45, min(120, sbp - 20))
    vitals = rng.choice(
        (
            "Vital signs: blood pressure {s}/{d} mmHg, heart rate {hr} bpm, temperature {t} °C.",
            "Blood pressure is {s}/{d} mm Hg with a pulse of {hr}/min and temperature of {t} °C.",
        )
    ).format(s=sbp, d=dbp, hr=rng.randint(55, 120), t=round(rng.uniform(36.2, 38.9), 1))
    note = assemble(
        rng,
        opening(rng, age, sex, rng.choice(("dizziness", "headache", "a fall at home"))),
        [vitals],
        rng.randint(0, 2),
        sex,
    )
    return (
        {"age": age, "sex": sex, "systolic_bp": sbp, "diastolic_bp": dbp},
        note,
        eq.mean_arterial_pressure(sbp, dbp),
    )
