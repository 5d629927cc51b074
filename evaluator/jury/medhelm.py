"""MedHELM's jury arithmetic, reproduced, so a local jury score can stand beside a published one.

Why a second reading of the same replies: our ``strict`` method (``evaluator.jury.prompt``) leaves an
unusable reply unscored and drops an instance without a valid judgement from the mean. MedHELM
does neither, so its published jury scores are not comparable with ours: 10% empty candidate
answers give 4.50 under ``strict`` and 4.15 in MedHELM. The ``medhelm`` method reads each judge's
*first* reply (HELM sends no repair request) the way HELM does, as read in HELM's
``annotation/model_as_judge.py`` (``LLMAsJuryAnnotator``), ``metrics/llm_jury_metrics.py``
(``LLMJuryMetric``), the MedHELM metrics (``default_score=1.0``) and the leaderboard's
``fix_jury_scores.py`` (per-instance values below 1 raised to 1):

1. The text from the first ``{`` to the last ``}`` is taken (prose around it is dropped; with no
   such span the whole reply is parsed).
2. ``json.loads``; when it fails with exactly "Expecting ',' delimiter", one ``}`` is appended and
   it is parsed once more (a missing closing brace is repaired); any other failure: no judgement.
3. Every criterion must be present and hold both ``score`` and ``explanation`` (Python ``in``:
   key presence for an object; the explanation may be empty). Otherwise: no judgement.
4. Every key of the reply, the rubric's and any extra one, contributes ``int(value["score"])``:
   4.5 → 4, "4" → 4, true → 1, 7 → 7 (no range check). ``int("4.5")``, a missing ``score`` in an
   extra key or a non-object value raise in HELM's metric and stop HELM's whole run; here such a
   judgement counts as no judgement and is counted apart (``n_helm_errors``), since MedHELM could
   publish no figure for that run at all.
5. The instance value is the mean of all those integers over all judges; with none (every judge
   failed, or the candidate answer was empty, which HELM never sends) it is the default score,
   the scale's lowest (1.0 on MedHELM's 1-5). Values below the lowest are raised to it (the
   leaderboard's post-processing). The benchmark figure is the plain mean over *all* instances.

HELM's judge calls allow 4,096 output tokens; its judges are the deployments in MedHELM's
``judges.yaml`` (``MEDHELM_JUDGES``), which our endpoints stand in for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

JuryMethod = Literal["medhelm", "strict"]
METHODS: tuple[str, ...] = ("medhelm", "strict")
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
    """One judge reply as HELM reads it: the integers it contributes, or why it contributes none."""

    model_config = ConfigDict(frozen=True)

    values: list[int] | None = None
    """``int(score)`` of every key in reply order; None when the reply gives no judgement."""
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


def read_medhelm_reply(text: str | None, criteria: Sequence[str]) -> MedhelmReading:
    """Read one judge reply with HELM's rules (see the module docstring, steps 1-4).

    Example:
        >>> r = read_medhelm_reply('Sure. {"a": {"score": 4.5, "explanation": ""}} Done.', ["a"])
        >>> r.values, r.reason
        ([4], None)
        >>> read_medhelm_reply('{"a": {"score": 4}}', ["a"]).reason
        "criterion 'a' has no 'explanation'"
    """
    body = text or ""
    span = _SPAN.search(body)
    if span:
        body = span.group(0)
    repaired = False
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        if exc.msg != "Expecting ',' delimiter":
            return MedhelmReading(reason=f"not valid JSON ({exc.msg})")
        try:
            data, repaired = json.loads(body + "}"), True
        except json.JSONDecodeError as again:
            return MedhelmReading(reason=f"not valid JSON after adding a closing brace ({again.msg})")
    if not isinstance(data, dict):
        return MedhelmReading(reason="reply is not a JSON object")
    for name in criteria:
        if name not in data:
            return MedhelmReading(reason=f"criterion {name!r} is missing")
        for sub in _SUBKEYS:
            if not _has(data[name], sub):
                return MedhelmReading(reason=f"criterion {name!r} has no {sub!r}")
    values = []
    for key, value in data.items():
        try:
            values.append(int(value["score"]))
        except (TypeError, KeyError, ValueError, OverflowError, IndexError) as exc:
            shown = json.dumps(value, ensure_ascii=False)[:40]
            return MedhelmReading(
                reason=f"HELM's metric would stop its run here: int({key}.score) raises "
                f"{type(exc).__name__} on {shown}",
                helm_error=True,
            )
    return MedhelmReading(values=values, keys=list(data), repaired_brace=repaired)


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
    """Judge output budget of a method: HELM's 4,096 for ``medhelm``, our 1,024 for ``strict``."""
    return MEDHELM_MAX_TOKENS if method == "medhelm" else STRICT_MAX_TOKENS
