"""Both MedHELM methods against the packages they reproduce, on crafted judge replies.

Where the expected values come from: ``medhelm_known_answers.json`` was made by
``make_medhelm_known_answers.py``, which runs each package's *own* ``MedicationQAAnnotator.annotate``
and ``LLMJuryMetric.evaluate_generation`` (``default_score=1.0``) on every case, once in a venv with
``medhelm==0.8.0`` and once with ``crfm-helm==0.5.16`` (the commands are in the file's ``made_with``).
Nothing here is derived by hand. Two steps are ours, not the packages': the leaderboard's
``fix_jury_scores.py`` raises instance values below 1 to 1, and a reply on which the package's metric
raises (its run would stop, no figure at all) is counted as no judgement with ``helm_error`` set.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.jury.medhelm import METHOD_VERSIONS, medhelm_instance_score, read_medhelm_reply

KNOWN = json.loads(Path(__file__).with_name("medhelm_known_answers.json").read_text())
CASES = {c["name"]: c for c in KNOWN["cases"]}
LEADERBOARD_FLOOR = 1.0


def test_the_file_holds_both_packages_answers_for_every_case():
    assert set(KNOWN["made_with"]) == {"medhelm 0.8.0", "crfm-helm 0.5.16"}
    assert all(set(c["expected"]) == set(KNOWN["made_with"]) for c in CASES.values())
    assert len(CASES) >= 22


@pytest.mark.parametrize("method", ["medhelm", "helm-0.5"])
@pytest.mark.parametrize("name", list(CASES))
def test_method_agrees_with_its_package(method, name):
    case = CASES[name]
    expected = case["expected"][METHOD_VERSIONS[method]]
    readings = [read_medhelm_reply(r, KNOWN["criteria"], method) for r in case["replies"]]
    if "raises" in expected:  # the package's metric raises: its run stops; we flag the judgement
        assert any(r.helm_error for r in readings), (name, expected, readings)
        return
    assert not any(r.helm_error for r in readings), readings
    value, default = medhelm_instance_score(readings)
    assert value == pytest.approx(max(expected["value"], LEADERBOARD_FLOOR), abs=1e-9), name
    assert default == all(r.values is None for r in readings)


def test_the_issues_figures_are_among_the_known_answers():
    """Issue 38: 4.5/3.5/4.9 give 4.322 in 0.8.0 and 4.111 in 0.5.16; a string "4.5" gives 4.278 in 0.8.0
    (0.5.16's int("4.5") stops its run)."""
    floats = CASES["floats"]["expected"]
    assert floats["medhelm 0.8.0"]["value"] == pytest.approx(4.322, abs=5e-4)
    assert floats["crfm-helm 0.5.16"]["value"] == pytest.approx(4.111, abs=5e-4)
    assert CASES["string_float"]["expected"]["medhelm 0.8.0"]["value"] == pytest.approx(4.278, abs=5e-4)
    assert CASES["string_float"]["expected"]["crfm-helm 0.5.16"] == {"raises": "ValueError"}
    assert CASES["no_explanations"]["expected"]["medhelm 0.8.0"]["value"] == pytest.approx(3.778, abs=5e-4)


def test_the_versions_differ_on_a_third_of_the_cases():
    differ = [n for n, c in CASES.items() if len({json.dumps(v) for v in c["expected"].values()}) > 1]
    assert differ == ["floats", "float_one", "string_float", "no_explanations", "no_explanation_any_judge",
                      "no_score", "criterion_is_number"]


def test_a_jury_stored_before_the_split_keeps_meaning_crfm_helm_0516():
    """Juries made before this change recorded method "medhelm" and one reading per judgement (0.5.16's
    integers, at the top level of the ``medhelm`` column); read back they are ``helm-0.5`` juries."""
    import duckdb

    from evaluator.jury.panel import load_jury_summary
    from evaluator.jury.store import JuryStore

    store = JuryStore(duckdb.connect())
    jury_id = store.create(run_id="run-1", benchmark_id="medication_qa", candidate_model="m",
                           rubric_id="default", rubric_hash="h" * 64, criteria=list(KNOWN["criteria"]),
                           judges=["a", "b", "c"], method="medhelm")
    store.add_instances(jury_id, [{"instance_id": "i1", "response": "r"}])
    old_shape = [{"values": [4, 4, 5], "keys": list(KNOWN["criteria"]), "reason": None, "helm_error": False,
                  "repaired_brace": False},
                 {"values": [4, 3, 4], "keys": list(KNOWN["criteria"]), "reason": None, "helm_error": False,
                  "repaired_brace": False},
                 {"values": None, "reason": "criterion 'clarity' has no 'explanation'"}]
    for judge, reading in zip(["a", "b", "c"], old_shape, strict=True):
        store.add_judgements(jury_id, judge, ["jr"], [{"instance_id": "i1", "scores": None, "reason": "x",
                                                       "repaired": False, "calls": 1, "medhelm": reading}])
    s = load_jury_summary(store, jury_id)
    assert (s.method, s.method_version) == ("helm-0.5", "crfm-helm 0.5.16")
    assert set(s.by_method) == {"strict", "helm-0.5"}  # no 0.8.0 reading was recorded
    assert s.mean == pytest.approx(24 / 6) and s.instances[0].helm05_score == pytest.approx(4.0)
    assert s.instances[0].medhelm_score is None
