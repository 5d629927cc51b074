"""The detector on the second fresh set, measured once against the frozen phi-5 rules: the floors.

``tests/data/phi/fresh2_notes.txt`` (220 identifiers in 132 records, 121 clean sentences) was written by
another MedAssure engineer (commit 2aa5469, 2026-12-06) who had not read the detector's rules, in styles
no other set uses. The rules froze at b3178d3 before it was opened; measured once with
``bench/phi_recall.py --file``: phi-5 176/220 identifiers caught (80.0%), 5/121 clean sentences flagged
(4.1%); phi-4 on the same file 157/220 (71.4%), 4/121 (3.3%). The issue's target (95%, at most 3%) is
not met; docs/phi-gate.md lists the misses. These are floors: a later rule version may only do better.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FRESH2 = ROOT / "tests" / "data" / "phi" / "fresh2_notes.txt"
_spec = importlib.util.spec_from_file_location("phi_recall", ROOT / "bench" / "phi_recall.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_second_fresh_set_recall_and_false_alarms_hold_the_measured_floor():
    m = bench.measure(bench.load_marked(FRESH2))
    n, hit = sum(m["n"].values()), sum(m["hit"].values())
    assert (n, m["clean"]) == (220, 121)
    assert hit >= 176, f"second fresh set recall fell to {hit}/{n}: {m['misses']}"
    assert len(m["fps"]) <= 5, f"second fresh set false alarms rose: {m['fps']}"
