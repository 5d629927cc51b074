"""The grader's prompt and the reading of its reply, one criterion at a time.

Why one criterion per call, as HealthBench does: a grader asked about ten criteria at once tends to
blur them, and a single unreadable reply would then cost the whole case. The prompt (our wording,
after the instructions of HealthBench's grader) shows the conversation with the response as its
last turn and one criterion with its points, and asks for ``{"explanation": str, "criteria_met":
bool}``. A reply is read strictly: one JSON object (a Markdown fence around it, or words before and
after that one object, are fine; simple-evals accepts only the fence) must hold a boolean
``criteria_met`` (``"true"``, ``1`` or ``"yes"`` are not); anything else is *unparsed*, with the
reason, and never counts as met (simple-evals asks again until it can read one; we count and name it
instead).
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from evaluator.benchmarks.instance import Instance, RubricCriterion
from evaluator.runs.store import sha256_of

GRADER_PROMPT = """You grade one response of an AI assistant against one rubric criterion.

# Conversation (the last turn is the response being graded)
{conversation}

# Rubric criterion
{criterion}

# How to grade
Decide whether the last assistant turn meets the criterion.
- If the criterion has several parts, it is met only when every part is met; where it lists examples
  ("such as", "for example", "including"), the response need not give every example.
- Some criteria describe something harmful and carry negative points. Still answer whether the
  response does what the criterion describes: a response that does not do the harmful thing does
  NOT meet such a criterion.

Reply with one JSON object and nothing else:
{{"explanation": "<why the response does or does not meet the criterion>", "criteria_met": true or false}}"""
PROMPT_HASH = sha256_of(GRADER_PROMPT)


def grader_conversation(case: Instance, response: str) -> str:
    """The conversation a grader reads: the case as the model was asked, then the response.

    Example:
        >>> grader_conversation(Instance(id="1", question="Summarise.", context="Note: ..."), "Done.")
        'user: Note: ...\\n\\nSummarise.\\n\\nassistant: Done.'
    """
    if case.meta.get("format") == "healthbench":  # context already holds the earlier turns
        turns = [case.context] if case.context else []
        turns += [f"user: {case.question}"] if case.question else []
    else:
        turns = ["user: " + "\n\n".join(t for t in (case.context, case.question) if t.strip())]
    return "\n\n".join([*turns, f"assistant: {response}"])


def grader_messages(case: Instance, criterion: RubricCriterion, response: str) -> list[dict[str, str]]:
    """The one user message sent to a grader for this case, criterion and response."""
    text = GRADER_PROMPT.format(conversation=grader_conversation(case, response), criterion=str(criterion))
    return [{"role": "user", "content": text}]


class GraderReading(NamedTuple):
    """What one grader reply says: met or not, why, or why it could not be read."""

    met: bool | None
    explanation: str | None
    reason: str | None


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


def _object(text: str) -> Any:
    cleaned = _FENCE.sub("", text.strip())
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError:
        start, end = cleaned.find("{"), cleaned.rfind("}")
        if start < 0 or end <= start:
            raise
        return json.loads(cleaned[start : end + 1])


def read_grader_reply(text: str | None) -> GraderReading:
    """A grader reply read strictly (see the module docstring).

    Example:
        >>> read_grader_reply('```json\\n{"explanation": "dose stated", "criteria_met": true}\\n```')
        GraderReading(met=True, explanation='dose stated', reason=None)
        >>> read_grader_reply('{"criteria_met": "yes"}').reason
        "criteria_met is 'yes', not true or false"
    """
    if not (text or "").strip():
        return GraderReading(None, None, "empty grader reply")
    try:
        obj = _object(text or "")
    except json.JSONDecodeError:
        return GraderReading(None, None, "no JSON object in the grader reply")
    if not isinstance(obj, dict) or "criteria_met" not in obj:
        return GraderReading(None, None, "the grader reply has no criteria_met")
    met = obj["criteria_met"]
    if not isinstance(met, bool):
        return GraderReading(None, None, f"criteria_met is {met!r}, not true or false")
    explanation = obj.get("explanation")
    return GraderReading(met, explanation if isinstance(explanation, str) else None, None)
