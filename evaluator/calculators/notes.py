"""Building blocks for synthetic patient notes: openings, item phrasing, units and distractors.

The notes must read like varied clinical prose (so a model cannot pattern-match one template)
while leaving no room for interpretation, because the answer key is computed from the generated
inputs. So: one lab panel, explicit wording for each item,
BUN in mg/dL, bilirubin in mg/dL. Values are drawn already rounded to what the note shows, and
every answer is computed from the value *as written* (e.g. pounds converted to kg), never from a
hidden unrounded draw. Distractor sentences come from a pool that no built-in calculator reads.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from evaluator.calculators.equations import lb_to_kg
from evaluator.calculators.scores import Sex

SETTINGS = (
    "emergency department",
    "outpatient clinic",
    "medical ward",
    "pre-operative clinic",
    "urgent care",
)

DISTRACTORS = (
    "Hemoglobin is {hb} g/dL and the platelet count is {plt} x10^9/L.",
    "{P} had an appendectomy as a child.",
    "{P} lives with {poss} daughter and walks most days.",
    "{P} reports a penicillin allergy (rash).",
    "TSH is within normal limits.",
    "{P} quit smoking {years} years ago.",
    "Family history is notable for colon cancer in {poss} father.",
    "{P} received an influenza vaccine this season.",
    "Oxygen saturation is {sat}% on room air.",
    "{P} reports mild fatigue over the past month.",
)


def pronoun(sex: Sex) -> str:
    """'she' or 'he'.

    Example:
        >>> pronoun("female")
        'she'
    """
    return "she" if sex == "female" else "he"


def possessive(sex: Sex) -> str:
    """'her' or 'his'.

    Example:
        >>> possessive("male")
        'his'
    """
    return "her" if sex == "female" else "his"


def fill(template: str, sex: Sex, **values: object) -> str:
    """Fill ``{P}``/``{p}``/``{poss}`` and named values into a sentence template.

    Example:
        >>> fill("{P} takes aspirin.", "male")
        'He takes aspirin.'
    """
    return template.format(P=pronoun(sex).capitalize(), p=pronoun(sex), poss=possessive(sex), **values)


def opening(rng: random.Random, age: int, sex: Sex, reason: str) -> str:
    """A first sentence giving age, sex and the reason for the encounter.

    Example:
        >>> opening(random.Random(1), 70, "female", "cough").startswith(("A ", "70", "The ", "HPI"))
        True
    """
    noun = rng.choice(("woman", "female patient") if sex == "female" else ("man", "male patient"))
    short = "F" if sex == "female" else "M"
    setting = rng.choice(SETTINGS)
    templates = (
        f"A {age}-year-old {noun} presents to the {setting} with {reason}.",
        f"{age}-year-old {noun} seen in the {setting} for {reason}.",
        f"The patient is a {age}-year-old {'woman' if sex == 'female' else 'man'} who came to the {setting} "
        f"because of {reason}.",
        f"HPI: {age}{short} with {reason}, evaluated in the {setting}.",
    )
    return rng.choice(templates)


def item(
    rng: random.Random,
    present: bool,
    yes: Sequence[str],
    no: Sequence[str],
    sex: Sex,
    p_omit: float = 0.5,
    **values: object,
) -> str | None:
    """A sentence stating an item present, or absent (explicitly, or by omission with ``p_omit``).

    Omission is safe because MedCalc counts an unmentioned item as absent.

    Example:
        >>> item(random.Random(0), True, ["{P} has diabetes."], ["No diabetes."], "female")
        'She has diabetes.'
    """
    if present:
        return fill(rng.choice(yes), sex, **values)
    if not no or rng.random() < p_omit:
        return None
    return fill(rng.choice(no), sex, **values)


def distractors(rng: random.Random, sex: Sex, k: int) -> list[str]:
    """``k`` irrelevant sentences from the shared pool.

    Example:
        >>> len(distractors(random.Random(0), "male", 2))
        2
    """
    values = {
        "hb": round(rng.uniform(10.5, 15.5), 1),
        "plt": rng.randint(150, 380),
        "years": rng.randint(2, 30),
        "sat": rng.randint(93, 99),
    }
    return [fill(t, sex, **values) for t in rng.sample(DISTRACTORS, k)]


def assemble(rng: random.Random, first: str, body: Sequence[str | None], k_distract: int, sex: Sex) -> str:
    """Join an opening, the (shuffled) item sentences and some distractors into one note.

    Example:
        >>> assemble(random.Random(0), "A 50-year-old man.", ["He has diabetes.", None], 0, "male")
        'A 50-year-old man. He has diabetes.'
    """
    sentences = [s for s in body if s] + distractors(rng, sex, k_distract)
    rng.shuffle(sentences)
    return " ".join([first, *sentences])


def weight_text(rng: random.Random, kg: float) -> tuple[str, float]:
    """A weight written in kg or lb, and the kg value the note implies.

    Example:
        >>> weight_text(random.Random(3), 70.0)[0].split()[-1] in ("kg", "lb")
        True
    """
    if rng.random() < 0.3:
        pounds = round(kg / 0.453592)
        return f"{pounds} lb", lb_to_kg(pounds)
    value = round(kg, rng.choice((0, 1)))
    return f"{value:g} kg", value


def height_text(rng: random.Random, cm: float) -> tuple[str, float]:
    """A height written in cm or feet and inches, and the cm value the note implies.

    Example:
        >>> height_text(random.Random(3), 170.0)[1] > 150
        True
    """
    if rng.random() < 0.3:
        inches = round(cm / 2.54)
        return f"{inches // 12} ft {inches % 12} in", inches * 2.54
    value = round(cm)
    return f"{value} cm", float(value)
