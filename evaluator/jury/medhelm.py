"""MedHELM's jury arithmetic in two versions, so a local jury score can stand beside a published one.

Why a second reading of the same replies: our ``strict`` method (``evaluator.jury.prompt``) leaves an
unusable reply unscored and drops an instance without a valid judgement from the mean. MedHELM
does neither, so its published jury scores are not comparable with ours: 10% empty candidate
answers give 4.50 under ``strict`` and 4.15 in MedHELM. And MedHELM's own arithmetic changed between
releases, so each method names the package version it reproduces (``METHOD_VERSIONS``; the table in
``docs/statistics.md`` is the one place the difference is written down):

* ``medhelm``: the ``medhelm`` package 0.8.0, where MedHELM now lives;
* ``helm-0.5``: crfm-helm 0.5.16, for runs compared with older leaderboards.

Both read each judge's *first* reply (HELM sends no repair request) as HELM's
``annotation/model_as_judge.py`` (``LLMAsJuryAnnotator``) and ``metrics/llm_jury_metrics.py``
(``LLMJuryMetric``) do, with the MedHELM metrics' ``default_score=1.0`` and the leaderboard's
``fix_jury_scores.py`` (per-instance values below 1 raised to 1):

1. The text from the first ``{`` to the last ``}`` is taken (prose around it is dropped; with no
   such span the whole reply is parsed).
2. ``json.loads``; when it fails with exactly "Expecting ',' delimiter", one ``}`` is appended and
   it is parsed once more (a missing closing brace is repaired); any other failure: no judgement.
3. Every criterion must be present (Python ``in``). ``helm-0.5`` also requires ``score`` and
   ``explanation`` in each (key presence for an object; the explanation may be empty);
   ``medhelm`` does not check them (0.8.0's validation only knows dict, list and type schemas,
   and medication_qa's criteria are sets). Otherwise: no judgement.
4. Every key of the reply, the rubric's and any extra one, contributes its ``score`` read with
   ``int()`` under ``helm-0.5`` (4.5 → 4, "4" → 4, true → 1) and ``float()`` under ``medhelm``
   (4.5 → 4.5, "4.5" → 4.5); no range check. A value that raises there (``int("4.5")``, a missing
   ``score``, a non-object) stops HELM's whole run; here such a judgement counts as no judgement
   and is counted apart (``n_helm_errors``), since MedHELM could publish no figure for that run.
5. The instance value is the mean of all those numbers over all judges; with none (every judge
   failed, or the candidate answer was empty, which HELM never sends) it is the default score,
   the scale's lowest (1.0 on MedHELM's 1-5). Values below the lowest are raised to it (the
   leaderboard's post-processing). The benchmark figure is the plain mean over *all* instances.

Known answers: ``tests/evaluator/jury/medhelm_known_answers.json``, produced by running each package's
own annotator and metric (``tests/evaluator/jury/make_medhelm_known_answers.py``). HELM's judge calls
allow 4,096 output tokens; its judges are the deployments in MedHELM's ``judges.yaml``
(``MEDHELM_JUDGES``), which our endpoints stand in for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

JuryMethod = Literal["medhelm", "helm-0.5", "strict"]
METHODS: tuple[str, ...] = ("medhelm", "helm-0.5", "strict")
HELM_METHODS: tuple[str, ...] = ("medhelm", "helm-0.5")
"""The methods that reproduce a MedHELM package's arithmetic."""
METHOD_VERSIONS: dict[str, str | None] = {"medhelm": "medhelm 0.8.0", "helm-0.5": "crfm-helm 0.5.16",
                                          "strict": None}
"""The package version each method reproduces (None: ours, no package's)."""
MEDHELM_MAX_TOKENS = 4096
STRICT_MAX_TOKENS = 1024
DEFAULT_SCORE = 1.0
"""MedHELM's ``default_score``: the rubric's lowest value on its 1-5 scale."""

MEDHELM_JUDGES: tuple[dict[str, str], ...] = (
    {"name": "gpt", "model": "openai/gpt-4o-2024-05-13",
     "model_deployment": "stanfordhealthcare/gpt-4o-2024-05-13"},
    {"name": "llama", "model": "meta/llama-3.3-70b-instruct",
     "model_deployment": "stanfordhealthcare/llama-3.3-70b-instruct"},
    {"name": "claude", "model": "anthropic/claude-3-7-sonnet-20250219",
     "model_deployment": "stanfordhealthcare/claude-3-7-sonnet-20250219"},
)
"""MedHELM's default jury (``src/helm/benchmark/scenarios/medhelm/judges.yaml``)."""

_SPAN = re.compile(r"\{.*\}", re.S)
_SUBKEYS = ("score", "explanation")


class MedhelmReading(BaseModel):
    """One judge reply as one HELM version reads it: the numbers it contributes, or why none."""

    model_config = ConfigDict(frozen=True)

    values: list[float] | None = None
    """Every key's score in reply order (``int()`` under ``helm-0.5``, ``float()`` under ``medhelm``);
    None when the reply gives no judgement."""
    keys: list[str] = []
    """The keys those values come from (extra keys included)."""
    reason: str | None = None
    """Why there is no judgement; None when there is one."""
    helm_error: bool = False
    """True when HELM's metric would raise on this reply (and stop its run)."""
    repaired_brace: bool = False
    """True when a missing closing brace was added, as HELM does."""


def _has(container: Any, key: str) -> bool:
    """Python's ``key in container``, as HELM's validation applies it; TypeError means "no"."""
    try:
        return key in container
    except TypeError:
        return False


def _parse(text: str | None) -> tuple[Any, bool, str | None]:
    """Steps 1-2: the reply's JSON, whether a brace was added, or why there is none."""
    body = text or ""
    span = _SPAN.search(body)
    if span:
        body = span.group(0)
    try:
        return json.loads(body), False, None
    except json.JSONDecodeError as exc:
        if exc.msg != "Expecting ',' delimiter":
            return None, False, f"not valid JSON ({exc.msg})"
        try:
            return json.loads(body + "}"), True, None
        except json.JSONDecodeError as again:
            return None, False, f"not valid JSON after adding a closing brace ({again.msg})"


def read_medhelm_reply(text: str | None, criteria: Sequence[str], method: str) -> MedhelmReading:
    """Read one judge reply with the rules of ``method`` (``medhelm`` or ``helm-0.5``; module docstring).

    Example:
        >>> r = read_medhelm_reply('Sure. {"a": {"score": 4.5, "explanation": ""}} Done.', ["a"], "helm-0.5")
        >>> r.values, r.reason
        ([4.0], None)
        >>> read_medhelm_reply('{"a": {"score": 4.5}}', ["a"], "medhelm").values
        [4.5]
        >>> read_medhelm_reply('{"a": {"score": 4}}', ["a"], "helm-0.5").reason
        "criterion 'a' has no 'explanation'"
    """
    if method not in HELM_METHODS:
        raise ValueError(f"not a MedHELM method: {method!r}; known: {', '.join(HELM_METHODS)}")
    data, repaired, why = _parse(text)
    if why is not None:
        return MedhelmReading(reason=why)
    if not isinstance(data, dict):
        return MedhelmReading(reason="reply is not a JSON object")
    for name in criteria:
        if name not in data:
            return MedhelmReading(reason=f"criterion {name!r} is missing")
        for sub in _SUBKEYS if method == "helm-0.5" else ():
            if not _has(data[name], sub):
                return MedhelmReading(reason=f"criterion {name!r} has no {sub!r}")
    number = int if method == "helm-0.5" else float
    values = []
    for key, value in data.items():
        try:
            values.append(float(number(value["score"])))
        except (TypeError, KeyError, ValueError, OverflowError, IndexError) as exc:
            shown = json.dumps(value, ensure_ascii=False)[:40]
            return MedhelmReading(
                reason=f"HELM's metric would stop its run here: {number.__name__}({key}.score) raises "
                f"{type(exc).__name__} on {shown}",
                helm_error=True,
            )
    return MedhelmReading(values=values, keys=list(data), repaired_brace=repaired)


def read_reply_both_ways(text: str | None, criteria: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The stored form of one first reply: its reading under each MedHELM method, keyed by method."""
    return {m: read_medhelm_reply(text, criteria, m).model_dump(mode="json") for m in HELM_METHODS}


def stored_readings(stored: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """A judgement's stored ``medhelm`` column, keyed by method.

    Juries made before there were two MedHELM methods stored one reading (``values``, ``reason``…),
    crfm-helm 0.5.16's; it is read back as ``helm-0.5``, and such a judgement has no 0.8.0 reading.

    Example:
        >>> stored_readings({"values": [4, 3, 5], "keys": ["a", "b", "c"]})
        {'helm-0.5': {'values': [4, 3, 5], 'keys': ['a', 'b', 'c']}}
        >>> stored_readings(None)
        {}
    """
    if not stored:
        return {}
    if "values" in stored or "reason" in stored:
        return {"helm-0.5": stored}
    return {m: r for m, r in stored.items() if m in HELM_METHODS}


def stored_jury_method(method: str | None, judgements: Sequence[dict[str, Any]]) -> str:
    """The method a stored jury's ``method`` column means: ``medhelm`` recorded by a jury whose
    judgements hold only crfm-helm 0.5.16's reading was that version's arithmetic, so ``helm-0.5``.

    Example:
        >>> stored_jury_method("medhelm", [{"medhelm": {"values": [4], "keys": ["a"]}}])
        'helm-0.5'
        >>> stored_jury_method(None, [])
        'strict'
    """
    if method == "medhelm" and any("medhelm" not in stored_readings(j.get("medhelm")) for j in judgements):
        return "helm-0.5"
    return method or "strict"


def medhelm_instance_score(
    readings: Sequence[MedhelmReading | dict[str, Any] | None], lowest: float = DEFAULT_SCORE
) -> tuple[float, bool]:
    """An instance's value and whether it is the default (no valid judgement); see step 5.

    Example:
        >>> medhelm_instance_score([MedhelmReading(values=[4, 5, 3]), MedhelmReading(reason="x")])
        (4.0, False)
        >>> medhelm_instance_score([])
        (1.0, True)
    """
    values = [
        v
        for r in readings
        if r is not None
        for v in ((r.values if isinstance(r, MedhelmReading) else r.get("values")) or [])
    ]
    if not values:
        return float(lowest), True
    return max(sum(values) / len(values), float(lowest)), False


def default_jury_method(benchmark_id: str) -> JuryMethod:
    """``medhelm`` for a benchmark that reproduces a MedHELM one (it has a ``medhelm_id``), else ``strict``.

    Example:
        >>> [default_jury_method(b) for b in ("aci_bench", "calc_builtin", "my_scenario")]
        ['medhelm', 'strict', 'strict']
    """
    from evaluator.benchmarks.specs import BenchmarkError, get_benchmark

    try:
        return "medhelm" if get_benchmark(benchmark_id).medhelm_id else "strict"
    except BenchmarkError:
        return "strict"


def max_tokens_for(method: str) -> int:
    """Judge output budget of a method: HELM's 4,096 for both MedHELM methods, our 1,024 for ``strict``."""
    return MEDHELM_MAX_TOKENS if method in HELM_METHODS else STRICT_MAX_TOKENS
