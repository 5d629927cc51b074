"""Exports: JSON round trip keeps the hash, CSVs neutralise formulas, the HTI-1 sheet, the CHAI card."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET

import pytest

from evaluator.evidence.record import published_evidence
from evaluator.inputs.csv_cells import safe_cell
from governance.dossier.store import Store
from reports.chai import NAMESPACE, chai_model_card_xml
from reports.exports import (
    DossierImportError,
    evidence_csv,
    export_json,
    hti1_csv,
    import_json,
    read_dossier_json,
)
from tests.conftest import shared_path
from tests.reports.conftest import local_run_evidence, with_evidence

CHAI_ORDER = ["BasicInfo", "ReleaseInfo", "ModelSummary", "UsesAndDirections", "Warnings", "TrustIngredients",
              "KeyMetrics", "Resources", "Bibliography"]
METRIC_BLOCK = ["MetricGoal", "Results", "Interpretation", "TestType", "TestingDataDescription",
                "ValidationProcessAndJustification"]


def _local(tag: str) -> str:
    return tag.split("}", 1)[1]


# ---- JSON ------------------------------------------------------------------------------------
def test_json_round_trip_keeps_the_hash(base_version, tmp_path):
    text = export_json(base_version)
    assert json.loads(text)["hash"] == base_version.hash
    other = Store.open(tmp_path / "other.duckdb")
    imported = import_json(other, text, author="auditor")
    assert imported.hash == base_version.hash
    assert imported.dossier == base_version.dossier
    # the same content again adds no version
    assert import_json(other, text, author="auditor").version == imported.version
    again = export_json(other.load(base_version.dossier.id))
    assert json.loads(again)["dossier"] == json.loads(text)["dossier"]
    other.close()


def test_json_import_refuses_an_edited_file(base_version):
    doc = json.loads(export_json(base_version))
    doc["dossier"]["title"] = "Quietly renamed"
    with pytest.raises(DossierImportError, match="does not match the file's hash"):
        read_dossier_json(json.dumps(doc))


def test_an_edited_export_of_a_dossier_held_here_never_replaces_its_head(base_version, tmp_path):
    """Issue 25, item 4: an edited export (same id, hash recomputed) was saved as the victim's new head."""
    from governance.dossier.record import Dossier

    store = Store.open(tmp_path / "here.duckdb")
    saved = store.save(base_version.dossier, author="alice")
    doc = json.loads(export_json(saved))
    doc["dossier"]["intended_use"]["human_oversight"] = "none"
    forged = Dossier.model_validate(doc["dossier"])
    doc["dossier"], doc["hash"] = json.loads(forged.canonical_json()), forged.content_hash()
    with pytest.raises(DossierImportError, match="already exists here .* never replaces"):
        import_json(store, json.dumps(doc), author="mallory")
    assert store.load(saved.dossier.id).hash == saved.hash and len(store.history(saved.dossier.id)) == 1
    assert import_json(store, export_json(saved), author="alice").version == saved.version  # same: no-op
    store.close()


@pytest.mark.parametrize("text, message", [
    ("{not json", "not valid JSON"),
    ('{"format": "something-else"}', "not a MedAssure dossier export"),
    ('{"format": "medassure-dossier", "format_version": 99, "dossier": {}}', "format_version 99"),
    ('{"format": "medassure-dossier", "format_version": 1, "dossier": {"title": "x"}}',
     "invalid dossier content"),
])
def test_json_import_errors_name_the_problem(text, message):
    with pytest.raises(DossierImportError, match=message):
        read_dossier_json(text)


# ---- CSV -------------------------------------------------------------------------------------
@pytest.mark.parametrize("cell", ["=1+2", "+SUM(A1)", "-2+3", "@SUM(A1)", "\t=1",
                                  '=HYPERLINK("http://evil.example","x")'])
def test_formula_cells_are_neutralised(cell):
    assert safe_cell(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["ok", "0.5 = half", "", 0.5, -1, None])
def test_other_cells_are_left_alone(cell):
    assert safe_cell(cell) == cell


def test_evidence_csv_neutralises_an_injected_model_name():
    evil = local_run_evidence(model='=HYPERLINK("http://evil.example","click")')
    rows = list(csv.DictReader(io.StringIO(evidence_csv([evil]))))
    assert rows[0]["model"] == "'" + '=HYPERLINK("http://evil.example","click")'
    assert rows[0]["score"] == "0.8" and rows[0]["n"] == "200" and rows[0]["ci_lower"] == "0.74"
    assert [r["subgroup_group"] for r in rows] == ["", "F", "M", "90+"]
    assert rows[3]["subgroup_score"] == "suppressed"


def _cell_starts(text: str) -> list[str]:
    """Where a spreadsheet that breaks rows at any CR or LF would start a cell (quotes ignored)."""
    return [piece for line in re.split(r"[\r\n]", text) for piece in line.split(",")]


@pytest.mark.parametrize("cell", ["a\r=1+1", "\r=1+1", "a\r\n@SUM(A1)", "a\n-2+3", "a\r\r+1"])
def test_a_formula_after_a_line_break_is_quoted_and_neutralised(cell):
    """Issue 25, item 9: a bare CR left the field unquoted and ``=1+1`` opened as a cell."""
    text = evidence_csv([local_run_evidence(model=cell)])
    assert "\r" not in text
    assert not [p for p in _cell_starts(text) if p.startswith(("=", "+", "-", "@"))]
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows[0]["model"].replace("'", "").split("\n") == [p for p in re.split(r"\r\n?|\n", cell)]
    assert [r["subgroup_group"] for r in rows] == ["", "F", "M", "90+"]  # no row was split


def test_evidence_csv_has_provenance_and_interval_columns():
    rows = list(csv.DictReader(io.StringIO(evidence_csv(published_evidence(["MedQA"], ["DeepSeek R1"])))))
    assert rows[0]["provenance"] == "published" and rows[0]["ci_method"].startswith("Wilson")


# ---- HTI-1 -----------------------------------------------------------------------------------
def test_hti1_sheet_has_31_attributes_filled_or_not_provided(base_version):
    rows = list(csv.DictReader(io.StringIO(hti1_csv(base_version.dossier))))
    assert [int(r["number"]) for r in rows] == list(range(1, 32))
    by_number = {int(r["number"]): r for r in rows}
    assert by_number[6]["value"] == base_version.dossier.intended_use.patient_population
    assert by_number[6]["from_field"] == "intended_use.patient_population"
    assert by_number[1]["value"] == "not provided" and by_number[1]["from_field"] == ""
    assert "MedConfInfo" in by_number[23]["value"]
    assert by_number[27]["value"] == "not provided"  # no local runs here


def test_hti1_local_validity_and_neutralised_text(base_version):
    version = with_evidence(base_version, [local_run_evidence()])
    use = version.dossier.intended_use.model_copy(update={"purpose": "=cmd|' /C calc'!A0 drafts replies"})
    dossier = version.dossier.model_copy(update={"intended_use": use})
    rows = list(csv.DictReader(io.StringIO(hti1_csv(dossier))))
    by_number = {int(r["number"]): r for r in rows}
    assert by_number[3]["value"].startswith("'=cmd")
    assert "medication_qa" in by_number[27]["value"] and "sex=F" in by_number[29]["value"]


# ---- CHAI ------------------------------------------------------------------------------------
def test_chai_card_follows_the_v02_sequence(base_version):
    root = ET.fromstring(chai_model_card_xml(base_version).encode())
    assert root.tag == f"{{{NAMESPACE}}}AppliedModelCard"
    assert [_local(c.tag) for c in root] == CHAI_ORDER
    metrics = root.find(f"{{{NAMESPACE}}}KeyMetrics")
    assert [_local(c.tag) for c in metrics] == ["UsefulnessUsabilityEfficacy", "FairnessEquity",
                                                "SafetyReliability"]
    for block in metrics:
        assert [_local(c.tag) for c in block] == METRIC_BLOCK
        assert block.findall(f"{{{NAMESPACE}}}Results/{{{NAMESPACE}}}MetricResult")
    uses = root.find(f"{{{NAMESPACE}}}UsesAndDirections")
    assert [_local(c.tag) for c in uses] == ["IntendedUseAndWorkflow", "PrimaryIntendedUsers", "HowToUse",
                                             "TargetedPatientPopulation", "CautionedOutOfScopeSettings"]
    assert "Paediatric patients" in uses[4].text.splitlines()
    maintenance = root.find(f"{{{NAMESPACE}}}TrustIngredients/{{{NAMESPACE}}}AISystemFacts/"
                            f"{{{NAMESPACE}}}OngoingMaintenance")
    assert maintenance is not None and maintenance.text


def test_chai_metric_values_use_estimate_ci_with_the_interval(base_version):
    root = ET.fromstring(chai_model_card_xml(base_version).encode())
    ns = f"{{{NAMESPACE}}}"
    results = root.findall(f"{ns}KeyMetrics/{ns}UsefulnessUsabilityEfficacy/{ns}Results/{ns}MetricResult")
    assert len(results) == len(base_version.dossier.evidence)
    values = {r.find(f"{ns}Label").text: json.loads(r.find(f"{ns}ValueJson").text) for r in results}
    gpt = next(v for k, v in values.items() if k.startswith("GPT-4o (2024-05-13): MedConfInfo"))
    assert gpt["kind"] == "estimate_ci" and gpt["level"] == 95
    assert gpt["lower"] < gpt["estimate"] == 0.772 < gpt["upper"]
    jury = next(v for k, v in values.items() if "MedicationQA" in k)
    assert jury["kind"] == "single" and jury["unit"].endswith("(1-5)")


def test_chai_fairness_and_safety_from_local_runs(base_version):
    version = with_evidence(base_version, [local_run_evidence()])
    root = ET.fromstring(chai_model_card_xml(version).encode())
    ns = f"{{{NAMESPACE}}}"
    fair = root.findall(f"{ns}KeyMetrics/{ns}FairnessEquity/{ns}Results/{ns}MetricResult")
    assert len(fair) == 2  # the suppressed group is withheld
    assert json.loads(fair[0].find(f"{ns}ValueJson").text)["kind"] == "estimate_ci"
    safety = root.findall(f"{ns}KeyMetrics/{ns}SafetyReliability/{ns}Results/{ns}MetricResult")
    # (3 unparsed + 1 unscored) / 200
    assert json.loads(safety[0].find(f"{ns}ValueJson").text)["value"] == 0.02


# ---- CHAI against the official schema, as plain text ------------------------------------------
def _demo_version(tmp_path):
    from governance.demo.seed import seed_demo

    store = Store.open(tmp_path / "home" / "medassure.duckdb")
    try:
        return store.load(seed_demo(store))
    finally:
        store.close()


def test_chai_card_of_the_demo_validates_against_the_official_v02_schema(tmp_path):
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema is in the test extra")
    schema = xmlschema.XMLSchema(str(shared_path("reference", "chai_mc_v0.2", "schema.xsd")))
    xml = chai_model_card_xml(_demo_version(tmp_path))
    errors = [f"{e.path}: {e.reason}" for e in schema.iter_errors(xml)]
    assert errors == []


def test_chai_text_fields_carry_no_markdown_and_no_control_characters(base_version):
    use = base_version.dossier.intended_use.model_copy(
        update={"out_of_scope_uses": ["Bell\x07 and escape\x1b[31m in a list", "Plain item"]})
    d = base_version.dossier.model_copy(update={"intended_use": use})
    version = base_version.model_copy(update={"dossier": d, "hash": d.content_hash()})
    xml = chai_model_card_xml(version)
    root = ET.fromstring(xml.encode())  # well-formed despite the control characters in the input
    texts = [el.text or "" for el in root.iter()]
    for text in texts:
        for line in text.splitlines():
            assert not line.lstrip().startswith(("- ", "#", "* ")), line
            assert "**" not in line, line
    out_of_scope = next(el.text for el in root.iter() if _local(el.tag) == "CautionedOutOfScopeSettings")
    assert out_of_scope == "Bell and escape[31m in a list\nPlain item"


def test_the_csvs_we_ship_hold_no_line_break_in_a_cell_and_no_formula_start():
    """The templates and the demo cases are our own text, written without ``csv_text``: keep them so."""
    from evaluator.agreement.ratings import ratings_template
    from evaluator.scenarios.template import TEMPLATES, template_csv
    from governance.demo.scenario import demo_cases_csv

    texts = [ratings_template(), demo_cases_csv().decode(), *[template_csv(t).decode() for t in TEMPLATES]]
    for text in texts:
        assert "\r" not in text
        for row in csv.reader(io.StringIO(text)):
            assert not [c for c in row if "\n" in c or c.startswith(("=", "+", "@", "\t"))]


def test_chai_card_names_the_developer_and_version_the_candidate_records(tmp_path):
    # Issue 36 item 12: ModelDeveloper and ReleaseVersion said "not provided" beside a recorded vendor.
    version = _demo_version(tmp_path)
    root = ET.fromstring(chai_model_card_xml(version).encode())
    ns = f"{{{NAMESPACE}}}"
    d = version.dossier
    decided = d.decision.model
    from governance.procurement.candidates import candidate_models

    (chosen,) = [c for c in d.candidates if decided in candidate_models(d, c)]
    assert root.find(f"{ns}BasicInfo/{ns}ModelDeveloper").text == chosen.vendor
    release = root.find(f"{ns}ReleaseInfo/{ns}ReleaseVersion").text
    assert chosen.product in release and (chosen.snapshot or chosen.model_version) in release
    # Undecided, the card names every candidate compared (each vendor once).
    open_d = d.model_copy(update={"decision": None})
    open_root = ET.fromstring(
        chai_model_card_xml(version.model_copy(update={"dossier": open_d})).encode())
    developer = open_root.find(f"{ns}BasicInfo/{ns}ModelDeveloper").text
    assert developer.split("; ") == list(dict.fromkeys(c.vendor for c in d.candidates))
