"""The detector on a fresh set it was never tuned on (issue 35 item 5): the measured floors.

``tests/data/phi/fresh_notes.txt`` (195 identifiers in 125 records, 115 clean sentences) was
written by another MedAssure engineer, commit 3126002 "Fresh held-out PHI set" (author "Seed
6cfcc519 maintainers", 2026-12-06 16:08 UTC), who had not read the detector's rules. It was
committed while phi-4 was still being tuned, but it was not opened here until the rules froze
(commit 28763b3, "rules frozen", 16:27 UTC), and no rule was changed after it was read. Its
styles (ICU handoff shorthand, bed boards, dictation without punctuation, French and Canadian
referral letters, portal chat with typos, ambulance run sheets) are unlike the tuning set's.

Measured once with PATTERNS_VERSION phi-4 (``bench/phi_recall.py --file``): 125/195 identifiers
caught (64.1%), 2/115 clean sentences flagged (1.7%). The issue's target (>= 95% at <= 3%) is not
met; the floors below are what was reached, so a change that loses ground fails here. All of the
file is held out: its misses may be reported, never tuned on.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FRESH = ROOT / "tests" / "data" / "phi" / "fresh_notes.txt"
_spec = importlib.util.spec_from_file_location("phi_recall", ROOT / "bench" / "phi_recall.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_fresh_set_recall_and_false_alarms_meet_the_measured_floor():
    m = bench.measure(bench.load_marked(FRESH))
    n, hit = sum(m["n"].values()), sum(m["hit"].values())
    assert (n, m["clean"]) == (195, 115)
    assert hit >= 125, f"fresh-set recall fell to {hit}/{n}"
    assert len(m["fps"]) <= 2, f"fresh-set false alarms rose: {m['fps']}"
