import pytest
from pydantic import ValidationError

from governance.intended_use.records import IntendedUse, example_intended_use
from governance.intended_use.risk import assess_risk


def use(**changes) -> IntendedUse:
    return example_intended_use().model_copy(update=changes)


@pytest.mark.parametrize(
    "severity, role, oversight, tier",
    [
        ("negligible", "informs", "every_output", "low"),  # 0+0-1 = -1
        ("minor", "augments", "every_output", "low"),  # 1+1-1 = 1
        ("moderate", "augments", "every_output", "moderate"),  # 2+1-1 = 2
        ("moderate", "replaces", "sampled", "high"),  # 2+2+0 = 4
        ("serious", "informs", "every_output", "high"),  # 3+0-1 = 2 -> floor high (serious harm)
        ("critical", "informs", "every_output", "high"),  # 4+0-1 = 3 -> floor high
        ("critical", "replaces", "none", "critical"),  # 4+2+1 = 7
        ("minor", "replaces", "none", "high"),  # 1+2+1 = 4
        ("negligible", "replaces", "none", "high"),  # 0+2+1 = 3 -> floor high
    ],
)
def test_risk_tier_rule(severity, role, oversight, tier):
    result = assess_risk(use(error_severity=severity, decision_role=role, human_oversight=oversight))
    assert result.tier == tier
    assert any(severity in r for r in result.reasons)


def test_floor_is_explained():
    result = assess_risk(
        use(error_severity="critical", decision_role="informs", human_oversight="every_output")
    )
    assert result.points == 3
    assert result.reasons[-1].startswith("Raised to high")


def test_validation_names_field_and_reason():
    raw = example_intended_use().model_dump()
    raw["decision_role"] = "decides"
    raw["purpose"] = ""
    with pytest.raises(ValidationError) as err:
        IntendedUse.model_validate(raw)
    fields = {e["loc"][0] for e in err.value.errors()}
    assert fields == {"decision_role", "purpose"}


def test_unknown_field_rejected():
    raw = example_intended_use().model_dump() | {"purpse": "typo"}
    with pytest.raises(ValidationError, match="purpse"):
        IntendedUse.model_validate(raw)


def test_large_free_text_accepted_and_oversize_rejected():
    big = "x" * 100 * 1024
    assert len(use(purpose=big).purpose) == 100 * 1024
    raw = example_intended_use().model_dump() | {"workflow": "y" * 100 * 1024}
    assert IntendedUse.model_validate(raw).workflow == "y" * 100 * 1024
    raw["workflow"] = "y" * 300_000
    with pytest.raises(ValidationError, match="workflow"):
        IntendedUse.model_validate(raw)


def test_blank_list_items_rejected():
    raw = example_intended_use().model_dump() | {"intended_users": ["nurses", "  "]}
    with pytest.raises(ValidationError, match="intended_users"):
        IntendedUse.model_validate(raw)
