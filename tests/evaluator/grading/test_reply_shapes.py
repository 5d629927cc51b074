"""Grader replies in the shapes graders write them: which are read, which are unparsed (and why)."""

from __future__ import annotations

import pytest

from evaluator.grading.prompt import read_grader_reply


@pytest.mark.parametrize(("reply", "met"), [
    ('{"explanation": "dose stated", "criteria_met": false}', False),
    ('```json\n{"explanation": "x", "criteria_met": true}\n```', True),
    ('```JSON\n{"explanation": "x", "criteria_met": true}\n```', True),
    ('```\n{"criteria_met": false, "explanation": "x"}\n```', False),
    ('Here is my grade: {"explanation": "has {braces}", "criteria_met": true} Done.', True),
])
def test_readable_replies(reply, met):
    assert read_grader_reply(reply).met is met


@pytest.mark.parametrize(("reply", "reason"), [
    ('{"explanation": "x", "criteria_met": "true"}', "criteria_met is 'true', not true or false"),
    ('{"explanation": "x", "criteria_met": 1}', "criteria_met is 1, not true or false"),
    ('{"explanation": "x", "criteria_met": null}', "criteria_met is None, not true or false"),
    ('{"explanation": "x"}', "the grader reply has no criteria_met"),
    ('[{"criteria_met": true}]', "the grader reply has no criteria_met"),
    ('{"criteria_met": false} and then {"criteria_met": true}', "no JSON object in the grader reply"),
    ("Yes, the response meets the criterion.", "no JSON object in the grader reply"),
    ("   ", "empty grader reply"),
    (None, "empty grader reply"),
])
def test_unreadable_replies_are_never_met_and_say_why(reply, reason):
    reading = read_grader_reply(reply)
    assert (reading.met, reading.reason) == (None, reason)
