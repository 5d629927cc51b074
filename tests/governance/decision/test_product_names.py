"""Candidates are named by their product, never the model slug (issue 36 item 5): the memo said "Reject,
for openai/discharge-llm (the only candidate)" with two vendors recorded."""

from __future__ import annotations

from governance.decision.memo import decision_memo
from governance.decision.model_facts import model_facts
from governance.procurement import candidate_names
from governance.rules.assessment import assessment_and_recommendation
from tests.governance.candidate_fixtures import base_dossier


def test_memo_and_label_name_the_product():
    d = base_dossier()
    names = candidate_names(d)
    assert names and set(names.values()) <= {c.label for c in d.candidates}
    assessment, rec = assessment_and_recommendation(d)
    memo = decision_memo(d, assessment, rec)
    best = rec.models[0]
    assert names[best] in memo.answer and best not in memo.answer.replace(names[best], "")
    assert all(c.label in memo.question for c in d.candidates)
    facts = model_facts(d, rec, version=1, version_hash="0" * 64)
    assert facts.approved_version.startswith(names[best])
