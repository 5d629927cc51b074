"""Issue 27 item 10: the committee's recorded reason for a serious use below tier high is in the report."""

from governance.dossier.record import Dossier
from governance.intended_use.records import example_intended_use
from reports.sections_core import intended_use_section

PHARMACIST = {"error_severity": "serious", "decision_role": "informs", "human_oversight": "every_output"}


def test_the_recorded_reason_is_in_the_report_facts_and_the_tier_follows_it():
    use = example_intended_use().model_copy(update={**PHARMACIST, "lower_tier_reason": "Two checks."})
    section = intended_use_section(Dossier(title="Dosing", owner="me", intended_use=use))
    assert {f.label: f.value for f in section.facts}["Why this use is not tier high"] == "Two checks."
    assert section.subsections[0].title == "Risk tier: moderate"
    plain = Dossier(title="Dosing", owner="me", intended_use=use.model_copy(update={"lower_tier_reason": ""}))
    section = intended_use_section(plain)
    assert "Why this use is not tier high" not in {f.label for f in section.facts}
    assert section.subsections[0].title == "Risk tier: high"
