"""The three-way merge of the Intended-use form (issue 27, item 2), worked by hand."""

from __future__ import annotations

import pytest

from governance.dossier.record import Dossier
from governance.intended_use.form_merge import FORM_FIELDS, apply_merge, form_values, plan_merge
from governance.intended_use.records import example_intended_use


@pytest.fixture
def base() -> dict:
    d = Dossier(title="Portal replies", owner="Committee", intended_use=example_intended_use())
    return form_values(d)


def test_the_form_holds_title_owner_and_every_intended_use_field(base):
    assert tuple(base) == FORM_FIELDS
    assert set(FORM_FIELDS[2:]) == set(example_intended_use().model_dump())


def test_each_side_keeps_what_only_it_changed(base):
    mine = {**base, "title": "Portal replies (pilot)", "intended_users": ["nurses", "physicians"]}
    theirs = {**base, "owner": "Pharmacy", "human_oversight": "sampled"}
    plan = plan_merge(base, mine, theirs)
    assert [c.theirs_line() for c in plan.theirs] == [
        "Owner: Committee → Pharmacy", "Human oversight: every output reviewed → a sample reviewed"]
    assert [c.mine_line() for c in plan.mine] == ["Title: Portal replies → Portal replies (pilot)",
                                                  f"Intended users: {'; '.join(base['intended_users'])} → "
                                                  "nurses; physicians"]
    assert plan.conflicts == []
    merged = apply_merge(base, mine, theirs)
    assert merged == {**base, "title": "Portal replies (pilot)", "intended_users": ["nurses", "physicians"],
                      "owner": "Pharmacy", "human_oversight": "sampled"}


def test_both_changing_one_field_needs_a_pick(base):
    mine, theirs = {**base, "title": "Mine"}, {**base, "title": "Theirs", "expected_monthly_volume": 9000}
    (conflict,) = plan_merge(base, mine, theirs).conflicts
    assert (conflict.label, conflict.base, conflict.mine, conflict.theirs) == ("Title", "Portal replies",
                                                                               "Mine", "Theirs")
    with pytest.raises(ValueError, match="choose whose value to keep for: Title"):
        apply_merge(base, mine, theirs)
    assert apply_merge(base, mine, theirs, {"title": "mine"})["title"] == "Mine"
    kept = apply_merge(base, mine, theirs, {"title": "theirs"})
    assert kept["title"] == "Theirs" and kept["expected_monthly_volume"] == 9000


def test_the_same_change_on_both_sides_is_no_conflict_and_whitespace_is_no_change(base):
    mine = {**base, "title": "Same ", "purpose": base["purpose"] + "  "}
    theirs = {**base, "title": "Same"}
    plan = plan_merge(base, mine, theirs)
    assert plan.conflicts == [] and [c.field for c in plan.mine] == ["title"]


def test_no_typed_change_means_nothing_of_mine(base):
    plan = plan_merge(base, dict(base), {**base, "owner": "X"})
    assert not plan.has_my_changes and apply_merge(base, dict(base), {**base, "owner": "X"})["owner"] == "X"
