"""Regenerate ``medhelm_known_answers.json``: crafted judge replies through each MedHELM package's own code.

Why run the packages rather than derive by hand: MedHELM's arithmetic changed between releases
(crfm-helm 0.5.16 truncates with ``int()`` and requires ``score`` and ``explanation``; the ``medhelm``
package 0.8.0 uses ``float()`` and checks neither key for medication_qa's criteria), and only the
packages themselves settle what they do. Each case is one medication_qa instance judged by three
judges; this script builds HELM's ``MedicationQAAnnotator`` with a fake client that answers each judge
with the case's reply, calls its ``annotate``, then HELM's ``LLMJuryMetric.evaluate_generation`` with
``default_score=1.0`` (as MedHELM's run spec does) and records the instance value, or the exception
that stops HELM's run. The leaderboard's raise-to-1 step (``fix_jury_scores.py``) is not in either
package and is applied by the test.

The packages cannot share our environment (they pin pandas 2), so each runs in a venv of its own;
run once per package, each run fills in its own version's answers::

    python3 -m venv /tmp/mh && /tmp/mh/bin/pip install --no-deps medhelm==0.8.0 \\
        attrs cattrs colorlog dacite filelock mako pillow pyhocon pyyaml retrying sqlitedict tqdm zstandard
    python3 -m venv /tmp/h05 && /tmp/h05/bin/pip install --no-deps crfm-helm==0.5.16 <the same list>
    /tmp/mh/bin/python tests/evaluator/jury/make_medhelm_known_answers.py
    /tmp/h05/bin/python tests/evaluator/jury/make_medhelm_known_answers.py

Without a HELM package installed it says so and exits 0 without touching the file.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

OUT = Path(__file__).with_name("medhelm_known_answers.json")
CRITERIA = ("accuracy", "completeness", "clarity")
JUDGES = ("gpt", "llama", "claude")


def reply(a, b, c, *, explain=True, **extra) -> str:
    """A judge reply with scores a, b, c written as given (ints, floats, strings, null)."""
    body = {name: {"score": v, **({"explanation": "why"} if explain else {})}
            for name, v in zip(CRITERIA, (a, b, c), strict=True)}
    return json.dumps({**body, **extra})


BASE = reply(4, 4, 5)
CLEAN = reply(4, 3, 5)
# name: the third judge's reply (the first two answer BASE), or a list of all three replies.
CASES: dict[str, str | list[str]] = {
    "clean": CLEAN,
    "floats": reply(4.5, 3.5, 4.9),
    "float_one": reply(4.5, 3, 5),
    "string_int": reply("4", "3", "5"),
    "string_float": reply("4.5", 4, 4),
    "no_explanations": reply(2, 3, 3, explain=False),
    "no_explanation_any_judge": [reply(4, 3, 5, explain=False)] * 3,
    "no_score": json.dumps({c: {"explanation": "why"} for c in CRITERIA}),
    "null_score": reply(None, 3, 5),
    "bool_score": reply(True, 3, 5),
    "criterion_missing": json.dumps({"accuracy": {"score": 4, "explanation": "a"},
                                     "clarity": {"score": 4, "explanation": "c"}}),
    "criterion_is_number": json.dumps({"accuracy": 4, "completeness": 3, "clarity": 5}),
    "extra_key": reply(4, 3, 5, overall={"score": 1, "explanation": "x"}),
    "extra_key_without_score": reply(4, 3, 5, note="fine"),
    "out_of_range_high": reply(7, 3, 5),
    "zeros_all_judges": [reply(0, 0, 0)] * 3,
    "prose_around": f"Here is my assessment:\n{CLEAN}\nI hope this helps.",
    "fenced": f"```json\n{CLEAN}\n```",
    "no_closing_brace": CLEAN[:-1],
    "truncated": CLEAN[:40],
    "two_objects": f"{CLEAN}\nOr, more leniently:\n{reply(5, 5, 5)}",
    "not_json": "Accuracy 4, completeness 3, clarity 5.",
    "empty_reply_all_judges": [""] * 3,
}


def _installed() -> str | None:
    for dist in ("medhelm", "crfm-helm"):
        try:
            return f"{dist} {metadata.version(dist)}"
        except metadata.PackageNotFoundError:
            continue
    return None


def _value(annotator_cls, metric_cls, model_info, replies: list[str]) -> dict:
    """One instance through the package's annotator and metric: ``{"value": x}`` or ``{"raises": name}``."""
    models = {name: model_info(model_name=f"m/{name}", model_deployment=f"d/{name}") for name in JUDGES}
    by_deployment = {f"d/{name}": text for name, text in zip(JUDGES, replies, strict=True)}

    class Client:
        def make_request(self, request):
            text = by_deployment[request.model_deployment]
            return SimpleNamespace(success=True, completions=[SimpleNamespace(text=text)])

    state = SimpleNamespace(
        instance=SimpleNamespace(input=SimpleNamespace(text="Can I take it with food?"),
                                 references=[SimpleNamespace(output=SimpleNamespace(text="Yes."))]),
        result=SimpleNamespace(completions=[SimpleNamespace(text="Take the tablets with food.")]),
    )
    annotations = annotator_cls(auto_client=Client(), annotator_models=models).annotate(state)
    metric = metric_cls(metric_name="medication_qa_accuracy", scenario_name="medication_qa",
                        annotator_models=models, default_score=1.0)
    try:
        state = SimpleNamespace(annotations={"medication_qa": annotations})
        (stat,) = metric.evaluate_generation(None, state, None, "")
    except Exception as exc:  # noqa: BLE001 - the package's own failure is the answer
        return {"raises": type(exc).__name__}
    return {"value": stat.mean}


def main() -> int:
    version = _installed()
    if version is None:
        print("no MedHELM package (medhelm or crfm-helm) installed here; nothing regenerated")
        return 0
    from helm.benchmark.annotation.medication_qa_annotator import MedicationQAAnnotator
    from helm.benchmark.annotation.model_as_judge import AnnotatorModelInfo
    from helm.benchmark.metrics.llm_jury_metrics import LLMJuryMetric

    doc = json.loads(OUT.read_text()) if OUT.exists() else {}
    doc["about"] = ("Crafted medication_qa judge replies and the instance value each MedHELM package's own "
                    "MedicationQAAnnotator.annotate + LLMJuryMetric(default_score=1.0) gives; the first two "
                    "judges answer `base`, the third the case's reply unless three replies are given. "
                    "Regenerate with tests/evaluator/jury/make_medhelm_known_answers.py (its docstring).")
    doc["criteria"] = list(CRITERIA)
    doc["base"] = BASE
    made = doc.setdefault("made_with", {})
    made[version] = {"command": f"{Path(sys.executable)} tests/evaluator/jury/make_medhelm_known_answers.py",
                     "date": f"{datetime.now(UTC):%Y-%m-%d}"}
    cases = {c["name"]: c for c in doc.get("cases", [])}
    for name, given in CASES.items():
        replies = given if isinstance(given, list) else [BASE, BASE, given]
        case = cases.setdefault(name, {"name": name})
        case["replies"] = replies
        case.setdefault("expected", {})[version] = _value(MedicationQAAnnotator, LLMJuryMetric,
                                                         AnnotatorModelInfo, replies)
    doc["cases"] = list(cases.values())
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{version}: {len(CASES)} cases written to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
