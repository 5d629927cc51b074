"""Issue 27 item 10: a use whose uncaught error can cause serious harm is at least tier high, unless the
committee records why not; old dossiers (no recorded reason) load with unchanged hashes."""

import json

import pytest

from governance.dossier.record import Dossier
from governance.intended_use.records import IntendedUse, example_intended_use
from governance.intended_use.risk import TIER_INPUTS, assess_risk, high_floor_applies


def use(**changes) -> IntendedUse:
    return example_intended_use().model_copy(update=changes)


# The walk's pharmacist-verified dosing assistant: serious, informs, every output checked:
# 3 + 0 - 1 = 2 points, "moderate" by points; serious harm lifts it to high.
PHARMACIST = {"error_severity": "serious", "decision_role": "informs", "human_oversight": "every_output"}


def test_serious_harm_is_high_even_with_every_output_reviewed():
    risk = assess_risk(use(**PHARMACIST))
    assert (risk.points, risk.tier) == (2, "high")
    assert risk.reasons[-1].startswith("Raised to high: an uncaught error can cause serious harm")
    assert high_floor_applies(use(**PHARMACIST))


def test_a_recorded_reason_lets_a_serious_use_follow_its_points_but_never_below_moderate():
    reasoned = use(**PHARMACIST, lower_tier_reason="A second pharmacist double-checks every dose.")
    risk = assess_risk(reasoned)
    assert risk.tier == "moderate"  # 2 points: moderate; the old floor (moderate) holds
    assert "committee recorded why" in risk.reasons[-1]
    assert not high_floor_applies(reasoned)


def test_critical_severity_stays_high_whatever_is_recorded():
    risk = assess_risk(use(error_severity="critical", decision_role="informs", human_oversight="every_output",
                           lower_tier_reason="we disagree"))
    assert risk.tier == "high"


@pytest.mark.parametrize("severity, role, oversight, tier", [
    ("serious", "augments", "sampled", "high"),  # 3 + 1 + 0 = 4: high by points, no floor needed
    ("serious", "replaces", "none", "critical"),  # 3 + 2 + 1 = 6
    ("moderate", "informs", "every_output", "low"),  # 2 + 0 - 1 = 1: no serious harm, no floor
])
def test_floor_only_lifts(severity, role, oversight, tier):
    chosen = use(error_severity=severity, decision_role=role, human_oversight=oversight)
    assert assess_risk(chosen).tier == tier
    assert not high_floor_applies(chosen)


def test_reasons_use_labels_not_keys():
    text = " ".join(assess_risk(use(**PHARMACIST)).reasons)
    assert "every_output" not in text and "every output is reviewed" in text


def test_tier_inputs_are_fields_of_the_intended_use():
    assert set(TIER_INPUTS) <= set(IntendedUse.model_fields)
    assert "phi_exposure" not in TIER_INPUTS


def test_old_dossiers_load_and_keep_their_hash():
    dossier = Dossier(title="Portal replies", owner="me", intended_use=example_intended_use())
    doc = json.loads(dossier.canonical_json())
    assert "lower_tier_reason" not in doc["intended_use"]  # not written while blank: old hashes stand
    reloaded = Dossier.model_validate(doc)
    assert reloaded.content_hash() == dossier.content_hash()
    reasoned = dossier.model_copy(update={"intended_use": use(lower_tier_reason="why")})
    assert json.loads(reasoned.canonical_json())["intended_use"]["lower_tier_reason"] == "why"
    assert reasoned.content_hash() != dossier.content_hash()

