"""Issue 36 item 1 on the command line: "reviewer" (the app's old placeholder) is never recorded as who acted.

Before: in a local deployment `medassure signoff --name reviewer` and `--name " Reviewer "` each
recorded a sign-off (exit 0; the dossier's signers read ['reviewer', 'Reviewer']), and
`decide --by reviewer` recorded the committee's decision under the placeholder.
"""

from __future__ import annotations

import pytest

from tests.cli.test_cli_policy import dossier_id, latest, run  # noqa: F401  (fixture)


@pytest.fixture
def decided(home, capsys, dossier_id):  # noqa: F811
    run(capsys, "rules", dossier_id, "--init", "--lock", "--by", "chair")
    code, _, _ = run(capsys, "decide", dossier_id, "--decision", "approve_with_conditions", "--model", "m2",
                     "--rationale", "Cheaper and no failed rule.", "--condition", "Review every draft.",
                     "--by", "chair", "--override-gaps", "Pilot only; cost and plan follow before go-live.")
    assert code == 0
    return dossier_id


@pytest.mark.parametrize("name", ["reviewer", " Reviewer ", "REVIEWER"])
def test_a_sign_off_under_the_placeholder_is_refused_and_nothing_is_saved(home, capsys, decided, name):
    before = latest(home, decided).version
    code, out, err = run(capsys, "signoff", decided, "--role", "clinical lead", "--name", name)
    assert code == 2 and out is None
    assert "placeholder" in err and "Nothing was saved" in err
    after = latest(home, decided)
    assert after.version == before and after.dossier.signoffs == []


def test_a_decision_by_the_placeholder_is_refused(home, capsys, decided, monkeypatch):
    before = latest(home, decided).version
    code, _, err = run(capsys, "decide", decided, "--decision", "reject", "--rationale",
                       "Vendor withdrew it.", "--by", "reviewer")
    assert code == 2 and "placeholder" in err
    monkeypatch.setenv("MEDASSURE_USER", "Reviewer")  # no --by: the environment's name is the placeholder
    code, _, err = run(capsys, "decide", decided, "--decision", "reject", "--rationale",
                       "Vendor withdrew it.")
    assert code == 2 and "placeholder" in err
    assert latest(home, decided).version == before


def test_a_person_still_signs(home, capsys, decided):
    code, out, _ = run(capsys, "signoff", decided, "--role", "clinical lead", "--name", "Dr. Reviewer-Lee")
    assert code == 0 and [s.name for s in latest(home, decided).dossier.signoffs] == ["Dr. Reviewer-Lee"]
