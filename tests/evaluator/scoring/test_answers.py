"""Answer extraction: every documented decision of evaluator/scoring/answers.py, one case per line."""

from __future__ import annotations

import pytest

from evaluator.benchmarks.instance import Instance
from evaluator.scoring.answers import (
    extract_answer,
    extract_choice,
    extract_date,
    extract_exact,
    extract_number,
    extract_weeks_days,
    reference_letter,
)

OPTIONS = ["Fibronectin", "Collagen", "Integrins", "Proteoglycans"]
YES_NO = ["yes", "no", "maybe"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("B", "B"),
        ("(B)", "B"),
        ("B.", "B"),
        ("B) Collagen", "B"),
        ("Answer: B", "B"),
        ("the answer is b.", "B"),
        ("The correct option is C: Integrins", "C"),
        ("**B**", "B"),
        ("b", "B"),
        ("Option B is correct", "B"),
        ("I think (b) is right", "B"),
        ("<think>Maybe A? No.</think>D", "D"),
        ("Collagen", "B"),
        ("collagen.", "B"),
        ("Answer: Collagen", "B"),
        ("A is wrong, but the final answer is D.", "D"),
    ],
)
def test_choice_letters_and_option_text(reply, expected):
    assert extract_choice(reply, OPTIONS) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "A 65-year-old patient usually has these.",  # the article "A" is not an option label
        "Both collagen and fibronectin form fibres.",  # two options named
        "E",  # outside the four options
        "I don't know.",
        "(A) or (B)",
    ],
)
def test_choice_unparsed(reply):
    assert extract_choice(reply, OPTIONS) is None


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Yes.", "A"),
        ("No, the trial shows no effect.", "B"),
        ("Maybe", "C"),
        ("The answer is no.", "B"),
        ("Answer: maybe", "C"),
    ],
)
def test_yes_no_maybe(reply, expected):
    assert extract_choice(reply, YES_NO) == expected


def test_not_is_not_no():
    assert extract_choice("Not enough evidence to say.", YES_NO) is None


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("25.2 mL/min", 25.2),
        ("The answer is 1,234.5 mL/min", 1234.5),
        ("Answer: 12,000", 12000.0),
        ("Answer: -5", -5.0),
        ("\u22123.5", -3.5),  # Unicode minus
        (".5", 0.5),
        ('{"answer": "12.5"}', 12.5),
        ("**Answer:** 4 points", 4.0),
        ("CrCl = (140-87)*48/(72*1.4) = 25.24 mL/min", 25.24),  # number after the last "="
        ("The anion gap is 16 mEq/L (normal 8-12)", 16.0),  # asides in brackets ignored
        ("The eGFR is 45 mL/min/1.73 m2", 45.0),  # unit fragment ignored
        ("WBC 4.2 x 10^9/L", 4.2),
        ("Score of 4 out of 9", 4.0),
        ("Using age 87 and weight 48 kg, the CrCl is 25.2", 25.2),  # last number without a marker
        ("HCO3 is 24", 24.0),  # digits glued to a word are not numbers
        ("The answer is (140-87)*48/(72*1.4) = 25.24", 25.24),  # calculation after the marker
        ("Answer: 25.2 (reference range 20-30)", 25.2),
        ("Answer: (25.2)", 25.2),
    ],
)
def test_numbers(reply, expected):
    assert extract_number(reply) == pytest.approx(expected)


@pytest.mark.parametrize(
    "reply",
    [
        "between 3 and 4",
        "Answer: 3-4",
        "3 to 4",
        "The range 3\u20134",
        "Answer: between -3 and -1",
        "",
        "unknown",
    ],
)
def test_ranges_and_missing_numbers_are_unparsed(reply):
    assert extract_number(reply) is None


def test_dates_and_weeks_days():
    assert extract_date("Estimated due date: 1/9/2007.") == "01/09/2007"
    assert extract_date("no date here") is None
    assert extract_weeks_days("('35 weeks', '3 days')") == "(35, 3)"
    assert extract_weeks_days("4 weeks and 3 days") == "(4, 3)"


def test_exact_follows_the_shape_of_the_reference():
    assert extract_exact("Score: 4 points", "4") == "4"
    assert extract_exact("Due 3/5/2020", "03/05/2020") == "03/05/2020"
    assert extract_exact("(0 weeks, 6 days)", "('0 weeks', '6 days')") == "(0, 6)"
    assert (
        extract_exact("Answer: Atrial fibrillation.\nBecause ...", "atrial fibrillation")
        == "Atrial fibrillation"
    )
    assert extract_exact("   ", "x") is None


def test_extract_answer_dispatches_on_answer_type():
    choice = Instance(id="1", choices=tuple(YES_NO), reference="A", answer_type="choice")
    numeric = Instance(id="2", reference="25.2", answer_type="numeric_range", lower=24, upper=26)
    free = Instance(id="3", reference="Note.", answer_type="free_text")
    assert extract_answer(choice, "yes") == "A"
    assert extract_answer(numeric, "CrCl 25.20 mL/min") == "25.2"
    assert extract_answer(free, "<think>x</think>  A note. ") == "A note."
    assert extract_answer(free, "   ") is None
    assert extract_answer(numeric, None) is None


def test_reference_letter_accepts_letter_or_text():
    assert (
        reference_letter(Instance(id="1", choices=tuple(OPTIONS), reference="Collagen", answer_type="choice"))
        == "B"
    )
    assert (
        reference_letter(Instance(id="1", choices=tuple(OPTIONS), reference="c", answer_type="choice")) == "C"
    )
    assert (
        reference_letter(Instance(id="1", choices=tuple(OPTIONS), reference="Elastin", answer_type="choice"))
        is None
    )


# --- issue 24 §3: numbers that are not answers, gestational age, JSON answers ---------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("BMI is 22.32 kg/m^2.", 22.32),  # the exponent is part of the unit
        ("The patient's BMI is 22.32 kg/m^ 2", 22.32),
        ("The eGFR is 45 mL/min per 1.73 m2", 45.0),
        ("The CURB-65 score is 2.", 2.0),  # a number in a calculator's name is not the answer
        ("Answer: CURB-65 score of 2", 2.0),
        ("The FIB-4 index is 1.23", 1.23),
        ('{"step_by_step_thinking": "Age 87, creatinine 1.4, so 25.238.", "answer": "25.2"}', 25.2),
        ('{"answer": 25.2}', 25.2),
        ("I cannot be certain, but the answer is 4.", 4.0),
    ],
)
def test_units_exponents_and_names_are_not_the_answer(reply, expected):
    assert extract_number(reply) == pytest.approx(expected)


@pytest.mark.parametrize(
    "reply",
    [
        "I cannot calculate the CURB-65 score without the BUN.",
        "Unable to determine the HAS-BLED score: the note gives no INR history (age 72).",
        "There is not enough information to compute the CrCl; the patient is 72 years old.",
        "N/A",
        "Answer: N/A",
        '{"answer": "N/A"}',
        '{"step_by_step_thinking": "Age 72, BUN 30 mg/dL.", "answer": "unknown"}',
        '{"answer": "Not Found"}',
    ],
)
def test_refusals_and_non_answers_are_unparsed(reply):
    assert extract_number(reply) is None
    numeric = Instance(id="n", reference="2", answer_type="numeric_range", lower=2, upper=2)
    text = Instance(id="t", reference="atrial fibrillation", answer_type="exact")
    assert extract_answer(numeric, reply) is None and extract_answer(text, reply) is None


def test_na_is_not_a_free_text_answer_but_a_refusal_is():
    free = Instance(id="f", reference="CORRECT", answer_type="free_text")
    assert extract_answer(free, "N/A") is None
    assert extract_answer(free, "I cannot give medical advice.") == "I cannot give medical advice."


def test_json_answer_values_pick_options():
    assert extract_choice('{"answer": "B"}', OPTIONS) == "B"
    assert extract_choice('{"answer": "Collagen"}', OPTIONS) == "B"
    assert extract_choice('{"answer": "\\u03c3 (sigma)."}', ["\u03b1 (alpha).", "\u03c3 (sigma)."]) == "B"
    assert extract_choice('{"step_by_step_thinking": "Not (A).", "answer": "D"}', OPTIONS) == "D"


GESTATION = ["('30 weeks', '3 days')", "(30, 3)"]  # the dataset's own format; the MedCalc CSV loader's


@pytest.mark.parametrize("reference", GESTATION)
@pytest.mark.parametrize(
    "reply",
    [
        "(30, 3)",
        "('30 weeks', '3 days')",
        '{"answer": "(30, 3)"}',
        "{\"answer\": \"('30 weeks', '3 days')\"}",
        "30 weeks and 3 days",
        "The gestational age is 30 weeks, 3 days.",
        "Answer: 30 weeks 3 days",
        "30w 3d",
        "[30, 3]",
        '{"answer": "30, 3"}',
    ],
)
def test_gestational_age_scores_however_written(reference, reply):
    from evaluator.benchmarks.specs import get_benchmark
    from evaluator.scoring.responses import score_response

    item = Instance(id="ga", reference=reference, answer_type="exact")
    for benchmark in ("medcalc_bench", "generic"):
        assert score_response(get_benchmark(benchmark), item, reply).score == 1.0, (benchmark, reply)


@pytest.mark.parametrize("reference", GESTATION)
def test_gestational_age_wrong_or_half_answers(reference):
    from evaluator.benchmarks.specs import get_benchmark
    from evaluator.scoring.responses import score_response

    item = Instance(id="ga", reference=reference, answer_type="exact")
    spec = get_benchmark("medcalc_bench")
    assert score_response(spec, item, "(30, 4)").score == 0.0
    half = score_response(spec, item, "30 weeks")
    assert (half.score, half.unparsed) == (0.0, True)
    dates = score_response(spec, item, "LMP 01/02/2020 and today 03/04/2020.")
    assert (dates.score, dates.unparsed) == (0.0, True)  # two dates are not weeks and days


def test_refusals_are_wrong_and_counted_apart():
    from evaluator.benchmarks.specs import get_benchmark
    from evaluator.scoring.responses import aggregate, score_responses

    item = Instance(id="c", reference="65", answer_type="numeric_range", lower=65, upper=65)
    scores = score_responses(
        get_benchmark("medcalc_bench"),
        [item] * 3,
        ["I cannot calculate the CURB-65 score.", '{"answer": "N/A"}', "Answer: 65"],
    )
    assert [(s.score, s.unparsed) for s in scores] == [(0.0, True), (0.0, True), (1.0, False)]
    assert aggregate(scores, "numeric_in_range").n_unparsed == 2
