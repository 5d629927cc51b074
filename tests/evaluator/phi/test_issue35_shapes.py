"""Shapes the detector missed on issue 35's fresh snippets, in new wording (item 5, rules phi-4).

Each case fails on phi-3. A case is caught when every letter and digit of the identifier is
covered (bench/phi_recall.py's rule), so a partial address redaction fails too.
"""

from __future__ import annotations

import pytest

from evaluator.phi import find_identifiers, redact_text


def _covered(text: str, value: str) -> bool:
    start = text.index(value)
    spans = [(s, e) for _, s, e in find_identifiers(text)]
    wanted = [i for i in range(start, start + len(value)) if text[i].isalnum()]
    return all(any(s <= i < e for s, e in spans) for i in wanted)


@pytest.mark.parametrize(("text", "value"), [
    ("Tamatea Ruru, DOB 02/02/1950, for the diabetic eye screen.", "Tamatea Ruru"),
    ("Losa Faleolo was reviewed on the ward round.", "Losa Faleolo"),
    ("Hello, Mereana. Is the new inhaler helping you?", "Mereana"),
    ("Take one tablet at night, Rawiri, and you can stop the cream.", "Rawiri"),
    ("patient: my name is sitani mahe and the cough started in june.", "sitani mahe"),
    ("His hospital number is 3 3 9 1 0 4 7 2 on the label.", "3 3 9 1 0 4 7 2"),
    ("Post goes to 5 rue du Moulin, 33000 Bordeaux.", "5 rue du Moulin, 33000 Bordeaux"),
    ("She was born feb 21st 1939 in a village by the sea.", "feb 21st 1939"),
    ("Folder ref 41/7720/C was sent to records.", "41/7720/C"),
    ("Specimen 9X-204-771 labelled at the bedside.", "9X-204-771"),
    ("He works as a chef at Pemberton Arms Hotel, nights mostly.", "Pemberton Arms Hotel"),
    ("Her son goes to Oakfield Community School.", "Oakfield Community School"),
    ("Lives at 5 Heron Close, Riverton, apt 4D.", "5 Heron Close, Riverton, apt 4D"),
    ("Next of kin at 17 Banksia Road, Penrith NSW 2750.", "17 Banksia Road, Penrith NSW 2750"),
    ("Home: 3 Elm Court, Ashford, Kent County.", "3 Elm Court, Ashford, Kent County"),
    ("Moved from Kanata ON K2K 1X6 last year.", "Kanata ON K2K 1X6"),
    ("chat: hi losaline, your x-ray is normal.", "losaline"),
    ("Bed 3: Sefo Ulufonua, 61, chest pain settled.", "Sefo Ulufonua"),
    ("Send the copy to t.walker at outlook.com too.", "t.walker at outlook.com"),
    ("Seen 14FEB2023 by the eye team.", "14FEB2023"),
    ("Rx: FALANIKO, Maria, 10 mg once daily.", "FALANIKO, Maria"),  # one part listed (both unlisted: missed)
    ("He is in his early nineties and lives alone.", "early nineties"),
    ("Returned to Willow Bank Nursing Home after the scan.", "Willow Bank Nursing Home"),
    ("Patient: Hinemoa Parata  Ward: 5  Bed: 12", "Hinemoa Parata"),
    ("Bed 9: Tame Horomona, 95M, delirium.", "95"),
    ("Her brother grew up in Rotorua and visits weekly.", "Rotorua"),
    ("Thank you for seeing Sefa Tuilagi, who has had a cough for a month.", "Sefa Tuilagi"),
])
def test_issue_35_shapes_are_caught_whole(text, value):
    assert _covered(text, value), (value, find_identifiers(text))


def test_an_mrn_written_like_a_phone_number_is_redacted_as_a_record_number():
    assert redact_text("MRN: 0161 555 0176 on the wristband.")[0] == "MRN: [MRN] on the wristband."
    assert redact_text("Call 0161 555 0176 after six.")[0] == "Call [PHONE] after six."


@pytest.mark.parametrize("text", [
    "She works for the NHS as a healthcare assistant.",
    "Works at night on a hospital ward and sleeps in the day.",
    "Attends primary school; vaccinations up to date.",
    "Lab results from 2019 were normal.",
    "Thank you for seeing this gentleman with chest pain.",
    "Jan to March is the busiest period for the respiratory ward.",
    "Physiotherapy Team reviewed the patient after lunch.",
    "T2N1M0 adenocarcinoma, staged at the MDT.",
    "Good morning round completed at 08:15 with the registrar.",
    "Sample 3 of 4 was haemolysed.",
    "Heart Rate, 88, regular; Respiratory Rate, 18.",
    "Acute Medicine reports no bed until the afternoon.",
    "Leaflet available at nhs.uk for the family.",
    "Originally from Ghana, in the UK since 2010.",
    "Saturations in the nineties on room air.",
    "Discharged to a nursing home in the same town.",
])
def test_clean_sentences_near_the_new_rules_stay_clean(text):
    assert find_identifiers(text) == []
