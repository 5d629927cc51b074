"""A dossier change in words a committee member reads: "Human oversight: every output → sampled".

Why a separate module: the diff (``history``) works on canonical JSON paths such as
``intended_use.human_oversight`` or ``policy.rules[score.privacydetection]``; a History page
that shows those paths and raw JSON needs a glossary. Here each path becomes the labels of
its fields, each coded value its label, and a whole record added or removed is summarised
by what names it (a benchmark, a model, a role) instead of being dumped.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from governance.intended_use.records import (
    DECISION_ROLE_LABELS,
    PHI_LABELS,
    SEVERITY_LABELS,
)

FIELD_LABELS = {
    "intended_use": "Intended use", "human_oversight": "Human oversight", "decision_role": "Decision role",
    "error_severity": "Severity of an uncaught error", "phi_exposure": "Patient data exposure",
    "expected_monthly_volume": "Expected requests per month", "intended_users": "Intended users",
    "care_setting": "Care setting", "patient_population": "Patient population",
    "out_of_scope_uses": "Out-of-scope uses", "candidate_models": "Candidate models",
    "mapping": "Task mapping", "decisions": "Mapping decisions", "local_tasks": "Local tasks",
    "evidence": "Evidence", "policy": "Acceptance rules", "rules": "Rule", "lock": "Rules lock",
    "changes": "Rule change log", "judge_agreement": "Judge agreement",
    "grader_agreements": "Grader agreement", "candidates": "Candidates",
    "cost": "Cost settings", "oversight": "Human review and monitoring plan", "decision": "Decision",
    "signoffs": "Sign-offs", "status": "Status", "reevaluations": "Re-evaluations",
    "monitoring": "Monitoring",
    "deidentification": "De-identification attestations",
    "evidence_plan": "Frozen evidence plan", "title": "Title", "owner": "Owner", "purpose": "Purpose",
    "workflow": "Workflow", "lower_tier_reason": "Why this use is not tier high",
    "threshold": "Threshold", "min_n": "Minimum n", "note": "Note",
    "rationale": "Rationale", "conditions": "Conditions", "outcome": "Outcome", "model": "Model",
}
VALUE_LABELS = {
    **{k: v.split(":")[0] for k, v in DECISION_ROLE_LABELS.items()},
    **{k: v.split(":")[0] for k, v in SEVERITY_LABELS.items()},
    "every_output": "every output reviewed", "sampled": "a sample reviewed", "none": "none",
    **{k: v for k, v in PHI_LABELS.items() if k != "none"},
    "approve": "approve", "approve_with_conditions": "approve with conditions", "reject": "reject",
    "in_review": "in review", "re_evaluation": "re-evaluation",
}
NAME_KEYS = ("title", "name", "benchmark", "model", "role", "subcategory_id", "id")
MAX_CHARS = 160
# a field name, then an optional [key] (keys such as rule ids may contain dots)
_SEGMENT = re.compile(r"(?P<field>[^.\[\]]+)(?:\[(?P<key>[^\]]*)\])?")


def field_label(path: str) -> str:
    """``intended_use.human_oversight`` → ``Intended use › Human oversight``.

    Example:
        >>> field_label("policy.rules[score.privacydetection].threshold")
        'Acceptance rules › Rule “score.privacydetection” › Threshold'
    """
    parts = []
    for m in _SEGMENT.finditer(path):
        name, key = m["field"], m["key"]
        label = FIELD_LABELS.get(name, name.replace("_", " ").capitalize())
        parts.append(f"{label} “{key}”" if key is not None else label)
    return " › ".join(parts)


def value_text(raw: Any) -> str:
    """A stored value (as parsed from the canonical JSON, or JSON text) in words.

    Example:
        >>> value_text('"every_output"')
        'every output reviewed'
        >>> value_text('[{"benchmark": "MedConfInfo"}, {"benchmark": "ProxySender"}]')
        '2 records: MedConfInfo, ProxySender'
    """
    if raw == "" or raw is None:
        return "—"
    value = raw
    if isinstance(raw, str) and raw[:1] in '["{':
        with contextlib.suppress(ValueError):  # text that merely starts like JSON stays text
            value = json.loads(raw)
    return _words(value)


def _name(record: dict) -> str | None:
    for key in NAME_KEYS:
        if isinstance(record.get(key), str) and record[key]:
            return record[key]
    return None


def _words(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        text = VALUE_LABELS.get(value, value)
    elif isinstance(value, int | float):
        text = f"{value:,}" if isinstance(value, int) else f"{value:g}"
    elif isinstance(value, list):
        if not value:
            return "none"
        if all(isinstance(v, str) for v in value):
            text = "; ".join(value)
        else:
            names = [n for v in value if isinstance(v, dict) and (n := _name(v))]
            text = f"{len(value)} record{'s' if len(value) != 1 else ''}"
            text += f": {', '.join(dict.fromkeys(names))}" if names else ""
    elif isinstance(value, dict):
        name = _name(value)
        text = f"a record ({name})" if name else f"a record with {', '.join(sorted(value)[:4])}"
    else:
        text = str(value)
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def change_sentence(path: str, kind: str, old: Any, new: Any) -> str:
    """One line: "Human oversight: every output reviewed → a sample reviewed".

    Example:
        >>> change_sentence("intended_use.human_oversight", "changed", "every_output", "sampled")
        'Intended use › Human oversight: every output reviewed → a sample reviewed'
    """
    label = field_label(path)
    if kind == "added":
        return f"{label}: added ({value_text(new)})"
    if kind == "removed":
        return f"{label}: removed (was {value_text(old)})"
    return f"{label}: {value_text(old)} → {value_text(new)}"
