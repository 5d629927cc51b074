"""The memo never calls a candidate "the only candidate" while others are recorded (issue 36 item 5).

Before: three vendors recorded, evidence for one of them only (the others' runs not made yet), and the
memo read "Not decided yet. The verdicts support: Insufficient evidence, for Vendor gpt · Product gpt
(the only candidate)."
"""

from __future__ import annotations

from governance.decision.memo import decision_memo
from governance.rules.assessment import assessment_and_recommendation
from governance.rules.outcome_text import headline
from tests.governance.candidate_fixtures import GPT4O, LLAMA, base_dossier


def _memo(keep: set[str]):
    d = base_dossier()
    d = d.model_copy(update={"evidence": [e for e in d.evidence if e.model in keep]})
    assessment, rec = assessment_and_recommendation(d)
    return d, rec, decision_memo(d, assessment, rec)


def test_one_candidate_with_evidence_of_three_recorded():
    d, rec, memo = _memo({GPT4O})
    assert len(d.candidates) == 3 and len(rec.candidates) == 1
    assert "the only candidate)" not in memo.answer
    assert "Vendor gpt · Product gpt (the only candidate with evidence; 3 are recorded)" in memo.answer


def test_two_with_evidence_of_three_recorded_and_the_plain_case_unchanged():
    _, rec, memo = _memo({GPT4O, LLAMA})
    assert "of 2 candidates with evidence; 3 are recorded" in memo.answer
    assert headline(rec).endswith("of 2 candidates; each one's outcome is below).")  # no count given

