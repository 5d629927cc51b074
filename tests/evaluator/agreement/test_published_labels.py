"""Issue 38 §4, for the baselines too: a published figure sits only beside the row it was computed on.

MedHELM's abstract sets its jury's 0.47 against clinician-clinician 0.43 and the reference-based
baselines ROUGE-L 0.36 and BERTScore-F1 0.44, one comparison on one selection (aci_bench + medi_qa).
Before: the baselines' figures sat beside every dataset row that had a baseline, including one
dataset of the committee's own ("pharmacy") and the pool of two datasets MedHELM never rated.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evaluator.agreement.analysis import compute_agreement

CRITERIA = ["accuracy", "completeness", "clarity"]
REFERENCE = "Take one tablet twice daily with food and stop if you notice a rash."


def _rows(values: dict[tuple[str, str], float], rater: str) -> list[dict]:
    return [{"dataset": d, "instance_id": i, "rater": rater, **{c: v for c in CRITERIA}}
            for (d, i), v in values.items()]


def _report(names: tuple[str, ...]):
    rng = np.random.default_rng(11)
    keys = [(names[k % len(names)], f"k{k}") for k in range(48)]
    t = {k: float(rng.integers(1, 6)) for k in keys}
    clin = pd.DataFrame(_rows(t, "dr_a") + _rows(t, "dr_b"))
    jury = pd.DataFrame(_rows(t, "j1") + _rows(t, "j2"))
    words = REFERENCE.split()
    outputs = pd.DataFrame([{"dataset": d, "instance_id": i, "reference": REFERENCE,
                             "response": " ".join(words[: int(2 + 3 * v)])} for (d, i), v in t.items()])
    return compute_agreement(clin, jury, outputs=outputs, bertscore=False, n_boot=30)


def test_rouge_l_figure_sits_beside_no_row_of_a_committees_own_datasets():
    table = _report(("pharmacy", "wards")).table()
    assert "ROUGE-L vs clinicians" in set(table["comparison"])
    assert table["medhelm"].isna().all(), table.dropna(subset=["medhelm"])[["dataset", "comparison"]]


def test_on_medhelms_selection_every_figure_sits_beside_the_pooled_row_only():
    table = _report(("aci_bench", "medi_qa")).table()
    labelled = table.dropna(subset=["medhelm"])
    assert set(labelled["dataset"]) == {"ALL"}
    assert sorted(labelled["medhelm"]) == [0.36, 0.43, 0.47]
    rouge = labelled[labelled["comparison"] == "ROUGE-L vs clinicians"]
    assert "aci_bench + medi_qa" in rouge["note"].iloc[0]
