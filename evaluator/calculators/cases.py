"""The built-in calculator benchmark: deterministic synthetic cases as ``Instance`` objects.

A newcomer can run an evaluation with no dataset at hand: ``generate_cases(seed, count)`` always
returns the same cases for the same arguments (each case has its own ``random.Random`` seeded from
a string, which Python hashes deterministically across processes and platforms).

Grading follows MedCalc-Bench's ``evaluate.py`` and its README:

- integer scores graded exactly (HAS-BLED, CHA2DS2-VASc, CURB-65) → ``answer_type="exact"`` with an
  integer reference; the exact-match metric rounds a numeric reply to the nearest integer first.
- Wells PE (rule-based, decimal steps) → ``numeric_range`` with lower = upper = the score.
- equation-based decimals and MELD Na → ``numeric_range`` with 0.95 × / 1.05 × the ground truth.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from evaluator.benchmarks.instance import Instance
from evaluator.calculators import lab_cases, risk_cases

Grading = Literal["exact_integer", "exact_limits", "five_percent"]


@dataclass(frozen=True)
class Calculator:
    """One built-in calculator: how its cases are drawn, asked and graded."""

    key: str
    name: str
    medcalc_id: int
    question: str
    grading: Grading
    draw: Callable[[random.Random], tuple[dict[str, object], str, float]]


CALCULATORS: tuple[Calculator, ...] = (
    Calculator(
        "has_bled",
        "HAS-BLED Score for Major Bleeding Risk",
        25,
        "What is the patient's HAS-BLED score?",
        "exact_integer",
        risk_cases.has_bled_case,
    ),
    Calculator(
        "cha2ds2_vasc",
        "CHA2DS2-VASc Score for Atrial Fibrillation Stroke Risk",
        4,
        "What is the patient's CHA2DS2-VASc score?",
        "exact_integer",
        risk_cases.cha2ds2_vasc_case,
    ),
    Calculator(
        "curb_65",
        "CURB-65 Score for Pneumonia Severity",
        45,
        "What is the patient's CURB-65 score?",
        "exact_integer",
        risk_cases.curb_65_case,
    ),
    Calculator(
        "wells_pe",
        "Wells' Criteria for Pulmonary Embolism",
        8,
        "What is the patient's score on Wells' criteria for pulmonary embolism?",
        "exact_limits",
        risk_cases.wells_pe_case,
    ),
    Calculator(
        "creatinine_clearance",
        "Creatinine Clearance (Cockcroft-Gault Equation)",
        2,
        "Using the Cockcroft-Gault equation, what is the patient's creatinine clearance in mL/min? "
        "Take the weight from the patient's BMI: actual weight if underweight (BMI < 18.5), the lower "
        "of ideal and actual weight if BMI is normal, and adjusted body weight if overweight or obese.",
        "five_percent",
        lab_cases.cockcroft_gault_case,
    ),
    Calculator(
        "meld_na",
        "MELD Na (UNOS/OPTN)",
        23,
        "What is the patient's MELD Na score (UNOS/OPTN)?",
        "five_percent",
        lab_cases.meld_na_case,
    ),
    Calculator(
        "anion_gap",
        "Anion Gap",
        39,
        "What is the patient's anion gap in mEq/L?",
        "five_percent",
        lab_cases.anion_gap_case,
    ),
    Calculator(
        "calcium_correction",
        "Calcium Correction for Hypoalbuminemia",
        7,
        "Taking a normal albumin of 4 g/dL, what is the patient's calcium corrected for albumin, in mg/dL?",
        "five_percent",
        lab_cases.corrected_calcium_case,
    ),
    Calculator(
        "qtc_bazett",
        "QTc Bazett Calculator",
        11,
        "Using the Bazett formula, what is the patient's corrected QT interval in ms?",
        "five_percent",
        lab_cases.qtc_bazett_case,
    ),
    Calculator(
        "qtc_fridericia",
        "QTc Fridericia Calculator",
        56,
        "Using the Fridericia formula, what is the patient's corrected QT interval in ms?",
        "five_percent",
        lab_cases.qtc_fridericia_case,
    ),
    Calculator(
        "mean_arterial_pressure",
        "Mean Arterial Pressure (MAP)",
        5,
        "What is the patient's mean arterial pressure in mmHg?",
        "five_percent",
        lab_cases.map_case,
    ),
    Calculator(
        "bmi",
        "Body Mass Index (BMI)",
        6,
        "What is the patient's body mass index in kg/m²?",
        "five_percent",
        lab_cases.bmi_case,
    ),
)

BY_KEY = {c.key: c for c in CALCULATORS}


def _age_band(age: object) -> str:
    years = int(age) if isinstance(age, int) else -1
    return "18-44" if years < 45 else "45-64" if years < 65 else "65-79" if years < 80 else "80+"


def _graded(calc: Calculator, value: float) -> dict[str, object]:
    """Reference, answer type and limits for a computed value."""
    if calc.grading == "exact_integer":
        return {"reference": str(int(round(value))), "answer_type": "exact"}
    if calc.grading == "exact_limits":
        return {"reference": f"{value:g}", "answer_type": "numeric_range", "lower": value, "upper": value}
    truth = round(value, 3)
    low, high = sorted((round(truth * 0.95, 5), round(truth * 1.05, 5)))
    return {"reference": f"{truth:g}", "answer_type": "numeric_range", "lower": low, "upper": high}


def make_case(calc: Calculator, seed: int, index: int) -> Instance:
    """Case ``index`` of the stream for ``seed``, drawn with calculator ``calc``.

    Example:
        >>> make_case(BY_KEY["bmi"], 0, 0) == make_case(BY_KEY["bmi"], 0, 0)
        True
    """
    rng = random.Random(f"medassure-calc:{seed}:{index}:{calc.key}")
    inputs, note, value = calc.draw(rng)
    return Instance(
        id=f"calc-{seed}-{index:05d}-{calc.key}",
        context=note,
        question=calc.question,
        subgroups={"calculator": calc.key, "sex": str(inputs["sex"]), "age_band": _age_band(inputs["age"])},
        meta={
            "calculator": calc.name,
            "medcalc_calculator_id": str(calc.medcalc_id),
            "grading": calc.grading,
            "inputs": json.dumps(inputs, sort_keys=True),
            "value_full_precision": repr(float(value)),
        },
        **_graded(calc, value),
    )


def generate_cases(seed: int = 0, count: int = 120, calculators: list[str] | None = None) -> list[Instance]:
    """``count`` cases cycling through the chosen calculators (all by default) in a fixed order.

    Args:
        seed: the stream; the same seed always gives the same cases.
        count: how many cases.
        calculators: keys from ``BY_KEY`` to restrict to; unknown keys raise ``ValueError``.

    Example:
        >>> [c.subgroups["calculator"] for c in generate_cases(seed=1, count=2)]
        ['has_bled', 'cha2ds2_vasc']
    """
    if count < 0:
        raise ValueError("count must be >= 0")
    unknown = sorted(set(calculators or ()) - set(BY_KEY))
    if unknown:
        raise ValueError(f"unknown calculators {unknown}; known: {', '.join(BY_KEY)}")
    chosen = [BY_KEY[k] for k in calculators] if calculators else list(CALCULATORS)
    return [make_case(chosen[i % len(chosen)], seed, i) for i in range(count)]
