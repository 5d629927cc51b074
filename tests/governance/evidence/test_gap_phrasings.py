"""Issue 34 item 5 in other words: how a hospital writes the two free-text activities in its intended use.

Found by trying purposes an acceptance check would write: "responding to patient inbox messages",
"in-basket replies", "messages from patients", "summarize hospital stays", "summaries of inpatient stays"
named no activity, so no gap was raised and no rubric template offered. A use that only mentions a
hospital stay (length-of-stay prediction) still names none.
"""

from __future__ import annotations

import pytest

from governance.dossier.record import Dossier
from governance.evidence.gaps import activity_gaps
from governance.intended_use.records import example_intended_use


def gaps_for(purpose: str) -> list[str]:
    update = {"purpose": purpose, "workflow": "A clinician reviews it."}
    use = example_intended_use().model_copy(update=update)
    return [g.activity.id for g in activity_gaps(Dossier(title="Local use", owner="me", intended_use=use))]


@pytest.mark.parametrize("purpose", [
    "Responding to patient inbox messages; a nurse edits every draft.",
    "Draft in-basket replies for primary care physicians.",
    "Reply to messages from patients about their test results.",
    "Draft answers to patients' messages sent through the portal app.",
])
def test_replies_to_patients_in_other_words(purpose):
    assert gaps_for(purpose) == ["patient_replies"]


@pytest.mark.parametrize("purpose", [
    "Summarize hospital stays at discharge for the GP.",
    "Draft summaries of inpatient stays for the receiving physician.",
    "Summarise the hospital stay for the family doctor.",
])
def test_discharge_summaries_in_other_words(purpose):
    assert gaps_for(purpose) == ["discharge_summary"]


def test_a_hospital_stay_alone_is_not_a_summary():
    assert gaps_for("Predict the length of hospital stay from admission notes.") == []
