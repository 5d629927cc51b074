"""Synthetic cases for the rule-based scores (HAS-BLED, CHA2DS2-VASc, CURB-65, Wells PE).

Each generator draws the items (with some cases on the boundaries that trip models: age exactly
65, 8 drinks a week, HR exactly 100, DBP exactly 60), writes a note that states every present
item unambiguously, and returns the inputs plus the score computed by ``scores.py``.
"""

from __future__ import annotations

import random

from evaluator.calculators import scores
from evaluator.calculators.notes import assemble, fill, item, opening
from evaluator.calculators.scores import Sex

Drawn = tuple[dict[str, object], str, float]


def _patient(rng: random.Random, low: int, high: int, edge: int | None = None) -> tuple[int, Sex]:
    age = edge if edge is not None and rng.random() < 0.15 else rng.randint(low, high)
    return age, rng.choice(("female", "male"))


def has_bled_case(rng: random.Random) -> Drawn:
    """A HAS-BLED case for a patient with atrial fibrillation on anticoagulation."""
    age, sex = _patient(rng, 45, 88, edge=65)
    x = {k: rng.random() < 0.35 for k in ("htn", "renal", "liver", "stroke", "bleed", "inr", "drugs")}
    drinks = rng.choice((0, 0, 2, 4, 7, 8, 8, 10, 14, 20)) if rng.random() < 0.9 else rng.randint(0, 25)
    body = [
        item(
            rng,
            x["htn"],
            ["{P} has uncontrolled hypertension; blood pressure today is {s}/{d} mmHg despite two agents."],
            ["Blood pressure is {n}/78 mmHg and {p} has no history of hypertension."],
            sex,
            s=rng.randint(162, 188),
            d=rng.randint(92, 108),
            n=rng.randint(112, 136),
        ),
        item(
            rng,
            x["renal"],
            [
                "{P} receives hemodialysis three times a week for end-stage renal disease.",
                "{P} had a kidney transplant {y} years ago.",
                "Serum creatinine is {cr} mg/dL (over 200 µmol/L) from chronic kidney disease.",
            ],
            ["Renal function is normal."],
            sex,
            y=rng.randint(2, 12),
            cr=round(rng.uniform(2.4, 4.5), 1),
        ),
        item(
            rng,
            x["liver"],
            ["{P} has biopsy-proven cirrhosis.", "{P} has alcohol-related cirrhosis with varices."],
            ["There is no known liver disease."],
            sex,
        ),
        item(
            rng,
            x["stroke"],
            ["{P} had an ischemic stroke {y} years ago.", "Past history includes an embolic stroke."],
            ["There is no history of stroke."],
            sex,
            y=rng.randint(1, 10),
        ),
        item(
            rng,
            x["bleed"],
            [
                "{P} was admitted last year with a gastrointestinal bleed that required transfusion.",
                "There is a history of a major retroperitoneal bleed.",
            ],
            ["{P} has never had a major bleed."],
            sex,
        ),
        item(
            rng,
            x["inr"],
            ["On warfarin, {poss} INR has been labile with time in therapeutic range near {t}%."],
            ["{P} takes warfarin and {poss} INR has been stable in range."],
            sex,
            t=rng.randint(35, 55),
        ),
        item(
            rng,
            x["drugs"],
            [
                "{P} takes aspirin 81 mg daily.",
                "{P} uses ibuprofen most days for knee pain.",
                "Current medications include clopidogrel.",
            ],
            ["{P} takes no antiplatelet drugs or NSAIDs."],
            sex,
        ),
        fill(
            "{P} does not drink alcohol."
            if drinks == 0
            else rng.choice(
                ["{P} drinks about {n} alcoholic drinks per week.", "Alcohol intake is {n} drinks a week."]
            ),
            sex,
            n=drinks,
        ),
    ]
    note = assemble(
        rng,
        opening(rng, age, sex, "atrial fibrillation, for review before continuing anticoagulation"),
        body,
        rng.randint(0, 2),
        sex,
    )
    value = scores.has_bled(
        age=age,
        uncontrolled_hypertension=x["htn"],
        renal_disease=x["renal"],
        liver_disease=x["liver"],
        stroke_history=x["stroke"],
        prior_major_bleeding=x["bleed"],
        labile_inr=x["inr"],
        bleeding_medication=x["drugs"],
        alcohol_drinks_per_week=drinks,
    )
    return {"age": age, "sex": sex, "alcohol_drinks_per_week": drinks, **x}, note, float(value)


def cha2ds2_vasc_case(rng: random.Random) -> Drawn:
    """A CHA2DS2-VASc case for newly found atrial fibrillation."""
    age, sex = _patient(rng, 40, 90, edge=rng.choice((65, 75)))
    x = {k: rng.random() < 0.35 for k in ("chf", "htn", "stroke", "vascular", "diabetes")}
    body = [
        item(
            rng,
            x["chf"],
            [
                "{P} has heart failure with an ejection fraction of {ef}%.",
                "{P} has a history of congestive heart failure.",
            ],
            ["There is no history of heart failure."],
            sex,
            ef=rng.randint(20, 40),
        ),
        item(
            rng,
            x["htn"],
            [
                "{P} has long-standing hypertension treated with amlodipine.",
                "Past medical history includes hypertension.",
            ],
            ["{P} has no history of hypertension."],
            sex,
        ),
        item(
            rng,
            x["stroke"],
            [
                "{P} had a transient ischemic attack {y} years ago.",
                "{P} had an ischemic stroke {y} years ago.",
                "{P} had a systemic arterial embolism to the leg {y} years ago.",
            ],
            ["{P} has never had a stroke or TIA."],
            sex,
            y=rng.randint(1, 9),
        ),
        item(
            rng,
            x["vascular"],
            [
                "{P} had a myocardial infarction {y} years ago.",
                "{P} has peripheral artery disease with calf claudication.",
                "Prior imaging showed complex aortic plaque.",
            ],
            ["There is no known vascular disease."],
            sex,
            y=rng.randint(1, 15),
        ),
        item(
            rng,
            x["diabetes"],
            ["{P} has type 2 diabetes treated with metformin.", "{P} has diabetes mellitus."],
            ["{P} does not have diabetes."],
            sex,
        ),
    ]
    note = assemble(
        rng,
        opening(rng, age, sex, "palpitations and newly diagnosed atrial fibrillation"),
        body,
        rng.randint(1, 2),
        sex,
    )
    value = scores.cha2ds2_vasc(
        age=age,
        sex=sex,
        heart_failure=x["chf"],
        hypertension=x["htn"],
        stroke_tia_thromboembolism=x["stroke"],
        vascular_disease=x["vascular"],
        diabetes=x["diabetes"],
    )
    return {"age": age, "sex": sex, **x}, note, float(value)


def curb_65_case(rng: random.Random) -> Drawn:
    """A CURB-65 case for community-acquired pneumonia; BUN avoids MedCalc's 19.0-19.7 grey zone."""
    age, sex = _patient(rng, 30, 92, edge=65)
    confusion = rng.random() < 0.3
    rr = rng.randint(30, 40) if rng.random() < 0.35 else rng.choice((rng.randint(14, 29), 29))
    if rng.random() < 0.35:
        sbp, dbp = rng.randint(76, 100), rng.choice((60, rng.randint(42, 60)))
    else:
        sbp, dbp = rng.randint(95, 150), rng.randint(61, 92)
    bun = rng.choice((rng.randint(7, 18), 19, rng.randint(20, 60), round(rng.uniform(8, 45), 1)))
    if 19.0 < bun < 19.7:
        bun = 20
    body = [
        item(
            rng,
            confusion,
            [
                "{P} is newly confused and disoriented to time and place.",
                "The family reports new confusion since yesterday.",
            ],
            ["{P} is alert and fully oriented."],
            sex,
            p_omit=0.4,
        ),
        f"Respiratory rate is {rr} breaths per minute and blood pressure is {sbp}/{dbp} mmHg.",
        rng.choice([f"BUN is {bun:g} mg/dL.", f"Blood urea nitrogen is {bun:g} mg/dL."]),
        f"White cell count is {round(rng.uniform(9, 22), 1)} x10^9/L.",
    ]
    note = assemble(
        rng,
        opening(rng, age, sex, "fever, productive cough and a right lower lobe infiltrate"),
        body,
        rng.randint(0, 2),
        sex,
    )
    value = scores.curb_65(
        confusion=confusion, bun_mg_dl=bun, respiratory_rate=rr, systolic_bp=sbp, diastolic_bp=dbp, age=age
    )
    return (
        {
            "age": age,
            "sex": sex,
            "confusion": confusion,
            "bun_mg_dl": bun,
            "respiratory_rate": rr,
            "systolic_bp": sbp,
            "diastolic_bp": dbp,
        },
        note,
        float(value),
    )


def wells_pe_case(rng: random.Random) -> Drawn:
    """A Wells' PE case for acute pleuritic chest pain and dyspnea."""
    age, sex = _patient(rng, 22, 85)
    x = {k: rng.random() < 0.3 for k in ("dvt", "likely", "immob", "prior", "hemoptysis", "cancer")}
    hr = rng.randint(101, 135) if rng.random() < 0.4 else rng.choice((rng.randint(60, 99), 100))
    body = [
        item(
            rng,
            x["dvt"],
            [
                "The left calf is swollen and tender along the deep veins.",
                "Examination shows unilateral leg swelling with pitting edema and calf tenderness.",
            ],
            ["There is no leg swelling or calf tenderness."],
            sex,
        ),
        item(
            rng,
            x["likely"],
            [
                "The team considers pulmonary embolism the most likely diagnosis.",
                "Pulmonary embolism is felt to be the leading diagnosis.",
            ],
            ["Pneumonia is considered more likely than pulmonary embolism."],
            sex,
            p_omit=0.3,
        ),
        f"Heart rate is {hr} beats per minute.",
        item(
            rng,
            x["immob"],
            ["{P} had a total knee replacement {d} days ago.", "{P} has been bedridden for {b} days."],
            [],
            sex,
            d=rng.randint(5, 25),
            b=rng.randint(4, 10),
        ),
        item(
            rng,
            x["prior"],
            ["{P} had a deep vein thrombosis {y} years ago.", "{P} had a pulmonary embolism {y} years ago."],
            ["There is no prior venous thromboembolism."],
            sex,
            y=rng.randint(2, 12),
        ),
        item(
            rng, x["hemoptysis"], ["{P} has coughed up blood twice today."], ["{P} denies hemoptysis."], sex
        ),
        item(
            rng,
            x["cancer"],
            [
                "{P} is receiving chemotherapy for lung cancer.",
                "{P} has metastatic colon cancer under palliative care.",
            ],
            [],
            sex,
        ),
    ]
    note = assemble(
        rng,
        opening(rng, age, sex, "sudden pleuritic chest pain and shortness of breath"),
        body,
        rng.randint(0, 2),
        sex,
    )
    value = scores.wells_pe(
        dvt_signs=x["dvt"],
        pe_most_likely=x["likely"],
        heart_rate=hr,
        immobilization_or_recent_surgery=x["immob"],
        prior_pe_or_dvt=x["prior"],
        hemoptysis=x["hemoptysis"],
        malignancy=x["cancer"],
    )
    return {"age": age, "sex": sex, "heart_rate": hr, **x}, note, value
