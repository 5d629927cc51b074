"""Replies kept out of tuning: written after the parser of issue 24 §3 was frozen, never tuned on.

The parser's rules were tuned on tests/evaluator/scoring/test_answers.py and on the ground truth of
the shared samples sent back (test_ground_truth_as_answer.py). These replies, in styles real models
use, were written afterwards and run once; a miss is recorded as a strict xfail with its reason
rather than fixed here, so the rate below stays an honest out-of-tuning figure.
"""

from __future__ import annotations

import pytest

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import get_benchmark
from evaluator.scoring.responses import score_response

NUMERIC = Instance(id="n", reference="31.7", answer_type="numeric_range", lower=30.115, upper=33.285)
SCORE = Instance(id="s", reference="3", answer_type="exact")
GA = Instance(id="g", reference="('12 weeks', '1 days')", answer_type="exact")
DATE = Instance(id="d", reference="03/14/2021", answer_type="exact")
SPEC = get_benchmark("medcalc_bench")

# (instance, reply, expected score, expected unparsed)
HELD_OUT = [
    (NUMERIC, "**Final answer:** 31.7 kg/m²", 1.0, False),
    (NUMERIC, "BMI = 88 kg / (1.666 m)^2 = 31.7 kg/m^2", 1.0, False),
    (NUMERIC, '```json\n{"step_by_step_thinking": "Weight 88 kg, height 166.6 cm.", "answer": "31.7"}\n```',
     1.0, False),
    (NUMERIC, "The patient's body mass index is approximately 31.7.", 1.0, False),
    (NUMERIC, "31.7", 1.0, False),
    (NUMERIC, "I'm unable to calculate the BMI because the height is not documented.", 0.0, True),
    (NUMERIC, '{"answer": "Cannot be determined"}', 0.0, True),
    (NUMERIC, "Answer: 28", 0.0, False),
    (SCORE, "The patient's CHA2DS2-VASc score is 3 points.", 1.0, False),
    (SCORE, "CURB-65: 3", 1.0, False),
    (SCORE, "Total HAS-BLED = 1 + 1 + 1 = 3", 1.0, False),
    (SCORE, '{"answer": 3}', 1.0, False),
    (SCORE, "Score: 3/5", 1.0, False),
    (SCORE, "We cannot determine the Centor score without the temperature.", 0.0, True),
    (SCORE, "N.A.", 0.0, True),
    (GA, "(12, 1)", 1.0, False),
    (GA, '{"answer": "(12 weeks, 1 day)"}', 1.0, False),
    (GA, "Estimated gestational age: 12 weeks and 1 day.", 1.0, False),
    (GA, "12 weeks, 1 day", 1.0, False),
    (GA, "12+1 weeks", 1.0, False),
    (GA, "(12, 2)", 0.0, False),
    (DATE, "Estimated due date: 03/14/2021", 1.0, False),
    (DATE, '{"answer": "3/14/2021"}', 1.0, False),
    (DATE, "The due date is 03/15/2021.", 0.0, False),
]
KNOWN_MISSES = {  # the single run: 22 of 24 (the parser before issue 24 §3: 18 of 24)
    12: '"3/5" reads as 5: a score written over its maximum is not recognised (only "3 out of 5" is)',
    19: '"12+1 weeks", the obstetric notation, is not read as weeks+days (unparsed, so wrong)',
}


@pytest.mark.parametrize(("index", "case"), list(enumerate(HELD_OUT)))
def test_held_out_reply(index, case):
    instance, reply, score, unparsed = case
    if index in KNOWN_MISSES:
        pytest.xfail(KNOWN_MISSES[index])
    result = score_response(SPEC, instance, reply)
    assert (result.score, result.unparsed) == (score, unparsed), reply
