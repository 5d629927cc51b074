"""The detector on our varied labelled set (issue 25 item 8), measured on the part kept out of tuning.

``tests/data/phi/varied_notes.txt`` holds 383 identifiers and 256 clean clinical sentences (issue
35 item 5 added 77 and 51 at the end, written by the engineer who tuned phi-4); every third record
is held out (the rule is in the file). The detector was tuned on the other two thirds only. The floors
asserted are the figures measured on the held-out part with PATTERNS_VERSION phi-5 and phi-6: 117/125
identifiers (93.6%), 2/86 clean sentences flagged (phi-4 when its rules froze: 116/125, 3/86; phi-3:
99/125, 3/86). phi-5 was tuned on issue 35's fresh set and its own tuning file, never on this part's
misses (phi-6 on the second fresh set), but the part has now been measured against five rule versions.
Issue 25's target was >= 90% recall at <= 5% false alarms on text the detector was not tuned on
(issue 35 raises it to 95% and 3%, measured on a fresh set: test_fresh_set.py); our held-out part
was written by the same hands as the tuning part, so real notes will do worse.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from evaluator.phi import PLACEHOLDERS, find_identifiers, redact_text

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("phi_recall", ROOT / "bench" / "phi_recall.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)
RECORDS = bench.load_marked()
HELD_OUT = [r for r in RECORDS if r["split"] == "held_out"]
TUNING = [r for r in RECORDS if r["split"] == "tuning"]


def test_the_set_is_as_large_as_the_issue_asks_and_the_split_is_fixed():
    n_ids = sum(len(r["spans"]) for r in RECORDS)
    n_clean = sum(1 for r in RECORDS if not r["spans"])
    assert n_ids >= 300 and n_clean >= 150
    assert [r["split"] == "held_out" for r in RECORDS[:6]] == [False, False, True, False, False, True]
    assert len(HELD_OUT) == len(RECORDS) // 3
    for r in RECORDS:
        for span in r["spans"]:
            assert r["text"][span["start"]:span["end"]] == span["text"] and span["kind"] in PLACEHOLDERS


def test_held_out_recall_and_false_alarms_meet_the_measured_floor():
    m = bench.measure(HELD_OUT)
    n, hit = sum(m["n"].values()), sum(m["hit"].values())
    recall, false_alarms = hit / n, len(m["fps"]) / m["clean"]
    assert (n, m["clean"]) == (125, 86)
    assert hit >= 117, f"held-out recall fell to {hit}/{n}: {m['misses']}"
    assert len(m["fps"]) <= 2, f"held-out false alarms rose: {m['fps']}"
    assert recall >= 0.90 and false_alarms <= 0.05  # the issue's target, reached on this part


def test_tuning_part_figures():
    m = bench.measure(TUNING)
    assert sum(m["hit"].values()) >= 257 and sum(m["n"].values()) == 258
    assert len(m["fps"]) == 0 and m["clean"] == 170


@pytest.mark.parametrize("text", [
    "[AGE 90+] woman, [NAME], DOB [DATE], lives at [ADDRESS], call [PHONE], SSN [SSN], MRN [MRN].",
    "Seen with [NAME] ([AGE 90+]); IBAN [ACCOUNT]; reg [VEHICLE ID]; email [EMAIL].",
])
def test_our_placeholders_are_not_flagged_again(text):
    assert find_identifiers(text) == []


def test_a_redacted_record_scans_clean_and_keeps_no_fragment_of_what_was_caught():
    """Redaction replaces whole spans; the redacted text is not blocked again by its own placeholders."""
    for r in RECORDS:
        redacted, _ = redact_text(r["text"])
        assert find_identifiers(redacted) == [], (r["text"], redacted)
        for span in r["spans"]:
            whole, _ = bench.caught(r["text"], span, find_identifiers(r["text"]))
            if whole:
                assert span["text"] not in redacted, (span, redacted)
