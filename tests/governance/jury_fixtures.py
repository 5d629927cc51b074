"""A finished MedicationQA run on the local test server, for jury tests of the domain and the page.

The run is made with the real MedicationQA spec and loader (a three-row spreadsheet written here)
but a trivial scorer, so no BERTScore model is loaded; the jury only needs the stored responses.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from evaluator.benchmarks.specs import get_benchmark
from evaluator.gateway.llm import ModelEndpoint
from evaluator.loaders import load_instances
from evaluator.runs.runner import run_benchmark
from tests.fakes import prompt_text

JUDGES = ("openai/judge-a", "openai/judge-b", "openai/judge-c")
# question -> the rubric scores judges a and b give its answer (judge-c's reply is empty). MedicationQA
# is MedHELM's, so its jury's headline is the medhelm method: (4 + 7/3 + 14/3 + 1.0) / 4 = 3.00 with the
# empty answer at the lowest score; strict: (4 + 7/3 + 14/3) / 3 = 3.67 over the 3 scored.
QUESTIONS = {
    "How should I take metformin?": (4, 3, 5),
    "Can I crush my aspirin?": None,  # the candidate's reply is empty: not sent to the judges
    "Is ibuprofen safe with warfarin?": (2, 2, 3),
    "When do I inject insulin?": (5, 4, 5),
}


def rubric_reply(scores: tuple[int, int, int]) -> str:
    """A valid reply on the default rubric, with the explanations MedHELM's reading requires."""
    return json.dumps({k: {"score": v, "explanation": "why"}
                       for k, v in zip(("accuracy", "completeness", "clarity"), scores, strict=True)})


def write_sheet(folder: Path) -> Path:
    """A MedicationQA-format spreadsheet with the four answered questions (ids medicationqa-2..5)."""
    import pandas as pd

    path = folder / "medqa-mini.xlsx"
    answers = ["With meals.", "Not if coated.", "Ask first.", "As told."]
    pd.DataFrame({"Question": list(QUESTIONS), "Answer": answers,
                  "Question Type": ["usage", "usage", "interaction", "usage"]}).to_excel(path, index=False)
    return path


def answer(request: dict) -> str:
    """Candidate: a short answer (empty for aspirin); judges a and b: the scores above; judge-c: empty."""
    text = prompt_text(request)
    question = next(q for q in QUESTIONS if q in text)
    if "CANDIDATE" not in text:
        return "" if QUESTIONS[question] is None else "Take it as your doctor told you."
    return "" if request.get("model") == "judge-c" else rubric_reply(QUESTIONS[question])


def free_text_run(store, server, folder: Path) -> tuple[str, Path]:
    """Run the four questions on ``openai/cand`` at the test server; returns (run id, dataset path)."""
    path = write_sheet(folder)
    spec = get_benchmark("medication_qa")
    instances = load_instances(spec, path)
    endpoint = ModelEndpoint(name="cand", model="openai/cand", api_base=server.url)
    summary = run_benchmark(store, spec, instances, endpoint,
                            score=lambda s, i, t: SimpleNamespace(parsed=t, score=None, unparsed=False,
                                                                  metrics={}))
    assert summary.status == "completed"
    return summary.run_id, path
