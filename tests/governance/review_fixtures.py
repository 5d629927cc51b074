"""A finished MedicationQA run of 14 questions (and optionally its jury) on the local test server, for review
queues: the domain, the CLI, the rating page and the browser walk.

The run uses the real MedicationQA spec and loader (a spreadsheet written here) with a trivial scorer,
so no BERTScore model loads. Each answer holds a number, a negation and a warning sentence, so every
documented perturbation applies. The judges score question k as (k % 5 + 1) on all three criteria
(judges a and b agree; c one point lower, floored at 1), so jury composites vary from case to case.
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
DRUGS = [
    "metformin",
    "aspirin",
    "warfarin",
    "insulin",
    "lisinopril",
    "atorvastatin",
    "amoxicillin",
    "omeprazole",
    "levothyroxine",
    "amlodipine",
    "sertraline",
    "prednisone",
    "ibuprofen",
    "furosemide",
]
QUESTIONS = [f"How should I take {d}?" for d in DRUGS]


def answer_for(question: str) -> str:
    k = QUESTIONS.index(question)
    return (
        f"Take {100 + 50 * k} mg of {DRUGS[k]} once a day with food. Do not double a missed dose. "
        "Avoid alcohol while you take it."
    )


def jury_score(question: str, judge: str) -> int:
    k = QUESTIONS.index(question)
    base = k % 5 + 1
    return max(1, base - 1) if judge == "judge-c" else base


def write_sheet(folder: Path) -> Path:
    """A MedicationQA-format spreadsheet with the 14 questions (ids medicationqa-2..15)."""
    import pandas as pd

    path = folder / "medqa-review.xlsx"
    pd.DataFrame(
        {
            "Question": QUESTIONS,
            "Answer": ["As told."] * len(QUESTIONS),
            "Question Type": ["usage"] * len(QUESTIONS),
        }
    ).to_excel(path, index=False)
    return path


def answer(request: dict) -> str:
    """Candidate: the answer above; judges: their score on every criterion, with an explanation."""
    text = prompt_text(request)
    question = next(q for q in QUESTIONS if q in text)
    if "CANDIDATE" not in text:
        return answer_for(question)
    score = jury_score(question, str(request.get("model")))
    return json.dumps(
        {c: {"score": score, "explanation": "why"} for c in ("accuracy", "completeness", "clarity")}
    )


def review_run(store, server, folder: Path) -> tuple[str, Path]:
    """Run the 14 questions on ``openai/cand``; returns (run id, dataset path)."""
    server.configure(answer=answer)
    path = write_sheet(folder)
    spec = get_benchmark("medication_qa")
    instances = load_instances(spec, path)
    endpoint = ModelEndpoint(name="cand", model="openai/cand", api_base=server.url)
    summary = run_benchmark(
        store,
        spec,
        instances,
        endpoint,
        score=lambda s, i, t: SimpleNamespace(parsed=t, score=None, unparsed=False, metrics={}),
    )
    assert summary.status == "completed"
    return summary.run_id, path


def judge_run(store, server, run_id: str, path: Path) -> str:
    """A completed jury over the run (strict method); returns the jury id."""
    from evaluator.runs.jobs import JobManager
    from governance.runs.operations.juries import JuryRequest, start_jury

    request = JuryRequest(
        run_id=run_id,
        judges=JUDGES,
        api_base=server.url,
        dataset_path=str(path),
        phi_approved=True,
        method="strict",
    )
    progress = start_jury(store, request, JobManager()).join(120)
    assert progress.state == "completed", progress.error
    return progress.brief["jury_id"]
