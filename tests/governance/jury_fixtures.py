"""A finished MedicationQA run on the local test server, for jury tests of the domain and the page.

The run is made with the real MedicationQA spec and loader (a three-row spreadsheet written here)
but a trivial scorer, so no BERTScore model is loaded; the jury only needs the stored responses.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from evaluator.benchmarks import get_benchmark
from evaluator.gateway.llm import ModelEndpoint
from evaluator.loaders import load_instances
from evaluator.runs.runner import run_benchmark
from tests.fakes import prompt_text

JUDGES = ("openai/judge-a", "openai/judge-b", "openai/judge-c")
GOOD = json.dumps({"accuracy": {"score": 4}, "completeness": {"score": 3}, "clarity": {"score": 5}})
QUESTIONS = ["How should I take metformin?", "Can I crush my aspirin?", "Is ibuprofen safe with warfarin?"]


def write_sheet(folder: Path) -> Path:
    """A MedicationQA-format spreadsheet with three answered questions."""
    import pandas as pd

    path = folder / "medqa-mini.xlsx"
    pd.DataFrame({"Question": QUESTIONS, "Answer": ["With meals.", "Not if enteric coated.", "Ask first."],
                  "Question Type": ["usage", "usage", "interaction"]}).to_excel(path, index=False)
    return path


def answer(request: dict) -> str:
    """Candidate: a short answer; judges: a valid rubric reply, except judge-c, whose reply is empty."""
    if "CANDIDATE" not in prompt_text(request):
        return "Take it with food."
    return "" if request.get("model") == "judge-c" else GOOD


def free_text_run(store, server, folder: Path) -> tuple[str, Path]:
    """Run the three questions on ``openai/cand`` at the test server; returns (run id, dataset path)."""
    path = write_sheet(folder)
    spec = get_benchmark("medication_qa")
    instances = load_instances(spec, path)
    endpoint = ModelEndpoint(name="cand", model="openai/cand", api_base=server.url)
    summary = run_benchmark(store, spec, instances, endpoint,
                            score=lambda s, i, t: SimpleNamespace(parsed=t, score=None, unparsed=False,
                                                                  metrics={}))
    assert summary.status == "completed"
    return summary.run_id, path
