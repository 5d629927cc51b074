"""PHI guard: what it finds (true positives, the forms clinicians write, the labelled notes), what
it must not flag (doses, lab values, eponyms, drug names), masking, whole-span redaction, the run
gate, and the permissions of the database that holds the cases."""

import json
import os
import stat
from pathlib import Path

import pytest

from evaluator.benchmarks.instance import Instance
from evaluator.gateway.llm import ModelEndpoint
from evaluator.phi import (
    PLACEHOLDERS,
    check_phi_for_run,
    find_identifiers,
    mask,
    redact_instances,
    redact_text,
    scan_instances,
)
from evaluator.phi.names import name_lists
from evaluator.scenarios.run import phi_gate
from governance.dossier.store import Store

DATA = Path(__file__).resolve().parents[2] / "data" / "phi"

TRUE_POSITIVES = [
    ("MRN: 12345678", "mrn", "12345678"),
    ("MRN#A1234567 on file", "mrn", "A1234567"),
    ("medical record number 7654321", "mrn", "7654321"),
    ("Patient ID: 00123456", "mrn", "00123456"),
    ("chart 4455667788 reviewed", "mrn", "4455667788"),
    ("SSN 123-45-6789", "ssn", "123-45-6789"),
    ("social security number 123456789", "ssn", "123456789"),
    ("call (555) 123-4567 today", "phone", "(555) 123-4567"),
    ("cell 555-123-4567", "phone", "555-123-4567"),
    ("555.123.4567", "phone", "555.123.4567"),
    ("+1 555 123 4567", "phone", "+1 555 123 4567"),
    ("UK mobile +44 20 7946 0958", "phone", "+44 20 7946 0958"),
    ("write to jane.doe@example.org please", "email", "jane.doe@example.org"),
    ("DOB: 01/02/1960", "dob", "01/02/1960"),
    ("date of birth 1960-02-01", "dob", "1960-02-01"),
    ("born on March 3, 1955", "dob", "March 3, 1955"),
    ("admitted 03/14/2023 with chest pain", "date", "03/14/2023"),
    ("seen on 4 July 2021", "date", "4 July 2021"),
    ("lives at 12 Oak Street", "address", "12 Oak Street"),
    ("450 Maple Avenue, apt 2", "address", "450 Maple Avenue, apt 2"),
    ("P.O. Box 123", "address", "P.O. Box 123"),
    ("Mr. Smith reports", "name", "Mr. Smith"),
    ("seen by Dr. Anna Lopez", "name", "Dr. Anna Lopez"),
    ("Mrs O'Brien called", "name", "Mrs O'Brien"),
]

NEAR_MISSES = [
    "Metformin 500 mg twice daily", "BP 120/80 mmHg", "Na 138 mmol/L, K 4.1", "WBC 12.3 x10^9/L",
    "take 1/2 tablet", "diagnosed in 2019", "INR 2.3", "benzathine penicillin 2400000 units IM",
    "glucose 5.5", "ICD-10 I21.4", "pain 5/10", "dose 0.5-1 mg/kg", "platelets 250,000",
    "Dr. on call was paged", "2 tablets daily", "follow up in 3-4 weeks", "temp 38.5 C", "HbA1c 7.2%",
    "eGFR 45 mL/min/1.73 m2", "weight 70 kg, height 175 cm", "ratio 1:10", "risk 1 in 1000",
    "LOINC 2345-7", "QTc 450 ms", "heparin 25000 units in 500 mL", "CHA2DS2-VASc 3", "GCS 15",
    "troponin 0.04 ng/mL at 14:30", "vitamin D 25000 IU weekly", "seen 2 times in 2022",
]


@pytest.mark.parametrize("text, kind, value", TRUE_POSITIVES)
def test_true_positive(text, kind, value):
    found = find_identifiers(text)
    assert [(k, text[s:e]) for k, s, e in found] == [(kind, value)]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_miss_is_not_flagged(text):
    assert find_identifiers(text) == []


def test_mask_hides_most_characters_and_keeps_shape():
    assert mask("555-867-5309") == "5**-***-***9"
    assert mask("jane.doe@example.org") == "j***.***@*******.**g"
    assert mask("Lee") == "***"  # short values are hidden entirely


def test_scan_counts_per_row_and_masks_examples():
    cases = [Instance(id="a", context="Call 555-867-5309 or 555-867-0000.", reference="x"),
             Instance(id="b", question="Email jo@clinic.org?", reference="yes"),
             Instance(id="c", context="Na 138, K 4.1", reference="ok"),
             Instance(id="d", question="Which?", choices=("Mr. Smith", "nobody"), reference="B")]
    report = scan_instances(cases)
    assert report.counts == {"phone": 2, "email": 1, "name": 1}
    assert [(r.instance_id, r.counts) for r in report.rows] == [
        ("a", {"phone": 2}), ("b", {"email": 1}), ("d", {"name": 1})]
    assert report.total == 4 and "3 of 4 cases" in report.summary()
    shown = " ".join(e.masked for e in report.examples)
    assert "867" not in shown and "jo@clinic" not in shown and "Smith" not in shown
    assert {e.field for e in report.examples} == {"context", "question", "choices"}


def test_redaction_uses_typed_placeholders_and_leaves_clinical_numbers():
    text, counts = redact_text("Mr. Smith (MRN 12345678, DOB 03/14/1961) on metformin 500 mg; "
                               "call (555) 867-5309 or mail a@b.org; lives at 12 Oak Street; SSN 123-45-6789")
    assert text == ("[NAME] (MRN [MRN], DOB [DATE]) on metformin 500 mg; call [PHONE] or mail [EMAIL]; "
                    "lives at [ADDRESS]; SSN [SSN]")
    assert counts == {"name": 1, "mrn": 1, "dob": 1, "phone": 1, "email": 1, "address": 1, "ssn": 1}


def test_redacted_cases_rescan_clean_and_keep_answer_keys():
    cases = [Instance(id="1", context="Reach Ms. Jones at 555-123-4567.", question="Refill sent?",
                      choices=("yes", "no"), reference="A", answer_type="choice", subgroups={"sex": "F"})]
    redacted, counts = redact_instances(cases)
    assert counts == {"name": 1, "phone": 1}
    assert redacted[0].context == "Reach [NAME] at [PHONE]."
    assert (redacted[0].reference, redacted[0].subgroups, redacted[0].id) == ("A", {"sex": "F"}, "1")
    assert scan_instances(redacted).total == 0


def test_gate_blocks_unapproved_endpoint_and_explains():
    report = scan_instances([Instance(id="1", context="call 555-867-5309", reference="x")])
    blocked = check_phi_for_run(report, "Vendor API", phi_approved=False)
    assert not blocked.allowed and blocked.n_identifiers == 1
    assert "Vendor API is not approved" in blocked.explanation and "redact" in blocked.explanation
    assert check_phi_for_run(report, "On-prem vLLM", phi_approved=True).allowed
    clean = scan_instances([Instance(id="1", context="Na 138", reference="x")])
    assert check_phi_for_run(clean, "Vendor API", phi_approved=False).allowed


def test_phi_gate_reads_the_endpoint_flag():
    cases = [Instance(id="1", context="mail jo@clinic.org", reference="x")]
    assert not phi_gate(cases, ModelEndpoint(name="v", model="gpt-4o")).allowed
    assert phi_gate(cases, ModelEndpoint(name="v", model="gpt-4o", phi_approved=True)).allowed


# The ten forms that all got through the regex guard before issue 19, as a clinician wrote them.
CLINICIAN_VARIANTS = [
    ("Patient John Smith, 67, presented with chest pain.", "name", "John Smith"),
    ("SMITH, JOHN A. admitted via the ED.", "name", "SMITH, JOHN A."),
    ("Spoke with mrs. garcia about the plan.", "name", "mrs. garcia"),
    ("DOB 3/4/52, here for follow-up.", "dob", "3/4/52"),
    ("Colonoscopy 03-Mar-2024, no polyps.", "date", "03-Mar-2024"),
    ("Daughter reachable at 555-0142.", "phone", "555-0142"),
    ("SS# 123 45 6789 on the form.", "ssn", "123 45 6789"),
    ("Med Rec # 44-71-223, bed 4B.", "mrn", "44-71-223"),
    ("Lives at 1420 Birchwood Drive, Dayton, OH 45402.", "address", "1420 Birchwood Drive, Dayton, OH 45402"),
    ("A 94-year-old woman after a fall.", "age", "94"),
]


@pytest.mark.parametrize("text, kind, value", CLINICIAN_VARIANTS)
def test_clinician_written_variant_is_caught_whole(text, kind, value):
    assert [(k, text[s:e]) for k, s, e in find_identifiers(text)] == [(kind, value)]


def test_age_over_89_only():
    assert [k for k, _, _ in find_identifiers("Patient John Smith, 97, on hospice.")] == ["name", "age"]
    for text in ("An 89-year-old man", "Infant aged 90 days with fever", "weight 95 kg", "SpO2 92% on RA",
                 "90 pack-year smoking history", "age 34, G2P1"):
        assert all(k != "age" for k, _, _ in find_identifiers(text)), text


@pytest.mark.parametrize("text", [
    "Wells score 4, D-dimer positive.", "Parkinson disease on carbidopa-levodopa.", "Glasgow Coma Scale 14.",
    "Foley catheter placed.", "Bence Jones protein in urine.", "Ramsay Hunt syndrome.",
    "Austin Flint murmur.",
    "Stevens-Johnson syndrome after lamotrigine.", "Will start amiodarone 200 mg.", "May need dialysis.",
    "Switched from Coumadin to Eliquis 5 mg BID.", "Na 131, K 5.6 after Kayexalate.", "MR 3+ on echo.",
    "Dr. on call was paged.", "Patient Controlled Analgesia started.", "Tommy John surgery in 2015.",
    "titrate 250-1000 mg", "Visit 2 of 6 completed.", "PT 12.5 sec, INR 1.1",
    "QRS duration 90 ms. Hemoglobin is 14.6 g/dL.", "QT 450 ms.\n\nTask: compute QTc.",
])
def test_eponyms_drugs_and_lab_values_are_not_names_or_identifiers(text):
    assert find_identifiers(text) == []


@pytest.mark.parametrize("text, expected", [
    ("Mr. Smith-Jones was seen.", "[NAME] was seen."),
    ("Mrs. Mary Lee reports pain.", "[NAME] reports pain."),
    ("Dr. Anna Lopez-Rivera reviewed.", "[NAME] reviewed."),
    ("mrs. o'brien fell.", "[NAME] fell."),
    ("BROWN, PATRICIA M presented.", "[NAME] presented."),
    ("Called her son, David Nguyen, at 617.555.0123.", "Called her son, [NAME], at [PHONE]."),
    ("Attending: Dr. K. Patel.", "Attending: [NAME]."),
    ("Seen with J. Smith from social work.", "Seen with [NAME] from social work."),
])
def test_redaction_replaces_the_whole_span(text, expected):
    assert redact_text(text)[0] == expected


def test_every_kind_has_a_placeholder_and_the_names_come_from_faker():
    kinds = {json.loads(line)["spans"][0]["kind"] for line in (DATA / "labelled_notes.jsonl").open()
             if json.loads(line)["spans"]}
    assert kinds <= set(PLACEHOLDERS) and len(kinds) == 20
    first, last = name_lists()
    assert len(first) > 10_000 and len(last) > 10_000
    assert {"john", "maria"} <= first and {"smith", "garcia", "nguyen"} <= last


def _measure(path: Path) -> tuple[int, int, int, int]:
    """(identifiers, caught whole, clean sentences, clean sentences flagged)."""
    n = hit = clean = flagged = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        found = find_identifiers(rec["text"])
        if not rec["spans"]:
            clean, flagged = clean + 1, flagged + bool(found)
        for span in rec["spans"]:
            covered = {i for _, s, e in found for i in range(s, e)}
            n += 1
            hit += all(i in covered for i in range(span["start"], span["end"]) if rec["text"][i].isalnum())
    return n, hit, clean, flagged


@pytest.mark.parametrize("name", ["labelled_notes.jsonl", "heldout_notes.jsonl"])
def test_labelled_notes_recall_and_false_positives(name):
    n, hit, clean, flagged = _measure(DATA / name)
    assert n >= 40 and clean >= 25
    assert hit / n >= 0.95, f"recall {hit}/{n}"
    assert flagged <= 1, f"{flagged} of {clean} identifier-free sentences flagged"


def test_labelled_set_is_big_enough():
    n, _, clean, _ = _measure(DATA / "labelled_notes.jsonl")
    assert n >= 100 and clean >= 50


def test_store_home_is_0700_and_database_0600(tmp_path, monkeypatch):
    home = tmp_path / "medassure-home"
    monkeypatch.setenv("MEDASSURE_HOME", str(home))
    store = Store.open()
    try:
        assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(home / "medassure.duckdb").st_mode) == 0o600
    finally:
        store.close()
    home.chmod(0o755)  # an existing home that was too open is tightened on the next open
    (home / "medassure.duckdb").chmod(0o644)
    Store.open().close()
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(home / "medassure.duckdb").st_mode) == 0o600


@pytest.mark.parametrize("text, expected", [
    ("Seen on the 3rd of March.", [("date", "the 3rd of March")]),  # phi-5: "the" goes with the date
    ("Visit: 4/5/2024 10:30", [("date", "4/5/2024")]),  # a date after a keyword is not an account number
    ("93M with pneumonia.", [("age", "93")]),
    ("Temp 101F overnight, now afebrile.", []),
    ("Her husband (Carlos) is at bedside.", [("name", "Carlos")]),
    ("Aadhaar 1234 5678 9012", [("id", "1234 5678 9012")]),
    ("E. coli and S. Aureus in culture.", []),
])
def test_more_written_forms(text, expected):
    assert [(k, text[s:e]) for k, s, e in find_identifiers(text)] == expected


def test_rubric_criteria_are_scanned_and_redacted():
    """Issue 34: a grader reads each criterion beside the case; an identifier in one was never seen."""
    from evaluator.benchmarks.instance import Instance, RubricCriterion
    from evaluator.gateway.llm import ModelEndpoint
    from evaluator.phi import redact_instances, scan_instances
    from evaluator.runs.phi_gate import check_phi

    case = Instance(id="r1", question="Write the discharge summary.", reference="",
                    answer_type="free_text",
                    rubric=(RubricCriterion(criterion="Says Mr. Delgado's apixaban was started", points=5),
                            RubricCriterion(criterion="States the follow-up", points=3)))
    report = scan_instances([case])
    assert report.counts == {"name": 1} and report.examples[0].field == "rubric"
    (clean,), counts = redact_instances([case])
    assert counts == {"name": 1} and "Delgado" not in clean.rubric[0].criterion
    assert clean.rubric[0].points == 5 and clean.rubric[1] == case.rubric[1]
    grader = ModelEndpoint(name="g", model="openai/g", api_base="http://127.0.0.1:9/v1")
    assert not check_phi([case], [grader]).allowed and check_phi([clean], [grader]).allowed
