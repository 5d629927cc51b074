"""A HealthBench conversation is not flagged as PHI for the word "doctor" ending a turn.

Found by importing multi-turn HealthBench lines (issue 34 item 1): the conversation is stored as
``role: content`` paragraphs, so an assistant turn ending "...should be checked by a doctor." is
followed by "\\n\\nuser: ...", and the title rule read "doctor.\\n\\nuser" as a titled name. 4 of 12
ordinary conversations of our own were flagged, so their run and grading were blocked by the PHI gate
(exit 5) for no identifier at all. Titled names stay found (last test).
"""

from __future__ import annotations

import json

import pytest

from evaluator.phi import find_identifiers
from evaluator.scenarios import preview_import
from evaluator.scenarios.rubric_cases import conversation_text

CHATS = [
    [("system", "You are a helpful assistant."), ("user", "I have had a cough for three weeks."),
     ("assistant", "Do you smoke? A cough lasting over three weeks should be checked by a doctor."),
     ("user", "I quit last year.")],
    [("user", "my baby has a fever of 39"),
     ("assistant", "How old is your baby? Under 3 months, any fever needs a doctor."), ("user", "5 months")],
    [("user", "Thank you doctor."), ("assistant", "You're welcome."), ("user", "Can I drink alcohol?")],
    [("user", "I am a doctor. Summarise the sepsis bundle."), ("assistant", "Sure."), ("user", "Add fluids")],
    [("user", "Should I ask my doctor\nabout statins?"), ("assistant", "Yes."), ("user", "ok")],
]


@pytest.mark.parametrize("chat", CHATS)
def test_a_turn_ending_with_doctor_is_not_a_name(chat):
    text = conversation_text([{"role": r, "content": c} for r, c in chat])
    assert find_identifiers(text) == []


def test_a_healthbench_file_of_such_chats_imports_with_no_likely_identifier():
    lines = [
        json.dumps({"prompt": [{"role": r, "content": c} for r, c in chat],
                    "rubrics": [{"criterion": "Advises seeing a clinician", "points": 5, "tags": []}],
                    "example_tags": [], "prompt_id": f"hb-{k}"})
        for k, chat in enumerate(CHATS)
    ]
    preview = preview_import("hb.jsonl", ("\n".join(lines) + "\n").encode())
    assert preview.ok and len(preview.instances) == len(CHATS)
    assert preview.phi.counts == {}


@pytest.mark.parametrize(
    ("text", "name"),
    [("I told Dr.\nSmith about it", "Dr.\nSmith"), ("seen by dr smith today", "dr smith"),
     ("Doctor. Patel will see you", "Doctor. Patel"), ("Ask Doctor Evans first.", "Doctor Evans")],
)
def test_titled_names_are_still_found(text, name):
    assert [text[s:e] for kind, s, e in find_identifiers(text) if kind == "name"] == [name]
