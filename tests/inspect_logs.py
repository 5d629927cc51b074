"""Real Inspect logs for the importer tests: small tasks run on Inspect's ``mockllm/model``.

Offline: Inspect counts tokens with tiktoken, whose ``o200k_base`` file ships inside litellm
(``litellm_core_utils/tokenizers``, named by the SHA-1 of its download URL), so
``TIKTOKEN_CACHE_DIR`` points there; without it Inspect tries the network and the eval errors.
Inspect's data, cache and log folders are pointed into the test's temporary folder, so nothing is
written outside it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ANSWERS = {"q0": "0", "q1": "2", "q2": "5", "q3": "6"}
"""Mock answers to "What is i+i?": q2 is wrong, so match scores 3 of 4 correct."""
BY_QUESTION = {f"What is {i}+{i}?": ANSWERS[f"q{i}"] for i in range(4)}
"""The same answers keyed by the question the mock model is asked."""
NUMERIC = {"n0": 0.2, "n1": 0.4, "n2": 0.9, "n3": 0.5, "n4": {"a": 1.0}}
"""Per-sample values of the numeric scorer; n4's dict is not one score and must be unscored."""


def _offline_env(root: Path) -> dict[str, str]:
    import litellm

    tokenizers = Path(litellm.__file__).parent / "litellm_core_utils" / "tokenizers"
    return {"TIKTOKEN_CACHE_DIR": str(tokenizers), "XDG_DATA_HOME": str(root / "xdg-data"),
            "XDG_CACHE_HOME": str(root / "xdg-cache"), "XDG_CONFIG_HOME": str(root / "xdg-config"),
            "XDG_STATE_HOME": str(root / "xdg-state"), "INSPECT_LOG_DIR": str(root / "inspect-logs"),
            "INSPECT_TRACE_FILE": str(root / "inspect-trace.log"), "INSPECT_DISPLAY": "none",
            "INSPECT_EVAL_LOG_FILE_PATTERN": "{task}_{id}"}


def make_logs(root: Path, names: tuple[str, ...] | None = None) -> dict[str, Path]:
    """Run the tasks and return their log files by name.

    ``match_eval`` / ``match_json``: 4 samples, exact match, 3 correct (``.eval`` and ``.json``).
    ``numeric``: 5 samples, a scorer returning numbers (and one dict). ``unscored``: 3 samples whose
    scores are all dicts, so none is one score. ``failed``: a solver that
    raises on one sample, so the log ends with status ``error``; ``partial``: the same with
    ``fail_on_error=False``, so the log succeeds with q2 errored. ``names`` runs only those.
    """
    pytest.importorskip("inspect_ai", reason="inspect_ai not installed (pip install 'medassure[inspect]')")
    with pytest.MonkeyPatch.context() as mp:
        for key, value in _offline_env(root).items():
            mp.setenv(key, value)
        return _run_tasks(root, names)


def _run_tasks(root: Path, names: tuple[str, ...] | None) -> dict[str, Path]:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, get_model
    from inspect_ai.scorer import Score, match, mean, scorer, stderr
    from inspect_ai.solver import generate, solver

    def addition(name: str) -> Task:
        samples = [Sample(input=f"What is {i}+{i}?", target=str(2 * i), id=f"q{i}") for i in range(4)]
        return Task(dataset=samples, solver=generate(), scorer=match(), name=name, version=3)

    def mock(answers: dict[str, str]) -> object:
        """The mock model answering by the question asked (samples may run in any order)."""
        def respond(messages, tools, tool_choice, config):
            return ModelOutput.from_content("mockllm/model", answers.get(messages[-1].text, "ok"))
        return get_model("mockllm/model", memoize=False, custom_outputs=respond)

    @scorer(metrics=[mean(), stderr()])
    def lookup():
        async def score(state, target):
            return Score(value=NUMERIC[str(state.sample_id)], answer=state.output.completion)
        return score

    @scorer(metrics=[mean(), stderr()])
    def no_single_value():
        async def score(state, target):
            return Score(value={"a": 1.0, "b": 0.0}, answer=state.output.completion)
        return score

    @solver
    def breaks_on_q2():
        async def solve(state, generate_):
            if state.sample_id == "q2":
                raise RuntimeError("deliberate failure on q2")
            return state
        return solve

    logs: dict[str, Path] = {}
    runs = {
        "match_eval": (addition("addition"), BY_QUESTION, "eval", {}),
        "match_json": (addition("addition"), BY_QUESTION, "json", {}),
        "numeric": (Task(dataset=[Sample(input=f"Rate {k}", target="x", id=k) for k in NUMERIC],
                         solver=generate(), scorer=lookup(), name="rating", version=1),
                    {}, "eval", {}),
        "unscored": (Task(dataset=[Sample(input=f"Rate {k}", target="x", id=k) for k in ("u0", "u1", "u2")],
                          solver=generate(), scorer=no_single_value(), name="unscorable", version=1),
                     {}, "eval", {}),
        "failed": (Task(dataset=[Sample(input=f"What is {i}+{i}?", target=str(2 * i), id=f"q{i}")
                                 for i in range(4)], solver=[breaks_on_q2(), generate()], scorer=match(),
                        name="broken"), BY_QUESTION, "eval", {"fail_on_error": True}),
        "partial": (Task(dataset=[Sample(input=f"What is {i}+{i}?", target=str(2 * i), id=f"q{i}")
                                  for i in range(4)], solver=[breaks_on_q2(), generate()], scorer=match(),
                         name="partial"), BY_QUESTION, "eval",
                    {"fail_on_error": False}),
    }
    for name, (task, answers, fmt, options) in runs.items():
        if names is not None and name not in names:
            continue
        folder = root / "logs" / name
        (log,) = eval(task, model=mock(answers), log_dir=str(folder), log_format=fmt, display="none",
                      max_samples=1, **options)
        logs[name] = Path(log.location)
    assert os.path.commonpath([root, *logs.values()]) == str(root)
    return logs
