"""The one PHI gate: no case or model output with likely identifiers reaches an endpoint not cleared for it.

Why one gate, in the run manager: cases reach endpoints by four paths (a benchmark run on a user's
file, a local-scenario run, a re-evaluation re-run, a jury pass whose judges read the cases *and*
the candidate's outputs). Each path calls ``require_phi_clearance`` before it starts anything, so a
block is immediate, explained, and nothing is sent; and the runner (``evaluator.runs.runner``) calls
``check_phi`` again on the cases of every run that does not carry an allowed check from its caller,
so a path added later cannot forget it. The rule is the same everywhere:

* no likely identifier found (``evaluator.phi``): the run goes ahead;
* found, and every endpoint that would receive them is approved for PHI
  (``ModelEndpoint.phi_approved``: on premises, or covered by a business associate agreement): goes ahead;
* found, and the cases carry a recorded de-identification attestation
  (``evaluator.phi.attestation``, bound to the file's SHA-256): goes ahead, and the check names it;
* otherwise blocked, with the kinds found, a few masked examples, and how to proceed.

Cases our own code generated (a benchmark whose ``access`` is ``builtin``) are not patient data and
are not scanned; a jury still scans the outputs made on them.

The fixed texts sent with every case are scanned too (``prompt_texts``): the system message and the
prompt template, with any few-shot examples written into it. A prompt file given to a re-evaluation
("Patient John Smith (MRN 12345678): summarise {context}") would otherwise reach the endpoint with
every case. An attestation is bound to the cases' file, so it never covers identifiers in a prompt:
those go only to an endpoint approved for PHI.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluator.benchmarks.instance import Instance
from evaluator.gateway.llm import ModelEndpoint
from evaluator.phi import SCANNED_FIELDS, PhiCheck, find_identifiers, mask
from evaluator.phi.attestation import DeidentificationAttestation

if TYPE_CHECKING:
    from evaluator.storage.components import ComponentStores

__all__ = ["PhiBlocked", "attestation_for", "benchmark_gate", "check_phi", "prompt_texts",
           "require_phi_clearance", "run_attestation", "runner_gate"]

EXAMPLES = 5
HOW_TO_PROCEED = (
    "To go on, either remove the identifiers (for a local scenario: Redact, a new version with typed "
    "placeholders such as [PHONE]); or use an endpoint approved for PHI (on premises, or covered by a "
    "business associate agreement); or, if the cases are de-identified and these are false alarms, "
    "record a de-identification attestation for this file: who answers for it and the method "
    "(Safe Harbor or expert determination).")
PROMPT_HOW_TO = (
    "The prompt itself (system message, template or few-shot examples) carries likely identifiers: remove "
    "them from the prompt, or use an endpoint approved for PHI; an attestation of the cases does not cover "
    "the prompt.")
PROMPT_ID = ""
"""The case id under which the prompt's own texts are scanned (examples then name the prompt part)."""
_FIELD = re.compile(r"\{(?:context|question|choices)\}")


def prompt_texts(spec: object) -> dict[str, str]:
    """The texts a spec sends with every case: ``{"system prompt": ..., "prompt template": ...}``.

    Placeholders for the case's fields are blanked (the cases are scanned on their own); few-shot
    examples are part of the template, so they are scanned with it.

    Example:
        >>> from evaluator.benchmarks.specs import get_benchmark
        >>> sorted(prompt_texts(get_benchmark("generic")))
        ['prompt template', 'system prompt']
    """
    out = {}
    for attr, label in (("system_prompt", "system prompt"), ("prompt_template", "prompt template")):
        text = getattr(spec, attr, None)
        if isinstance(text, str) and text.strip():
            out[label] = _FIELD.sub("\n", text).replace("{{", "{").replace("}}", "}")
    return out


class PhiBlocked(RuntimeError):
    """A run refused by the PHI gate before anything was sent; ``check`` says what was found and why."""

    def __init__(self, check: PhiCheck):
        super().__init__(check.explanation)
        self.check = check


def _texts(case: Instance) -> Iterable[tuple[str, str]]:
    # Rubric criteria are scanned for every run of the case, though only graders read them: a criterion
    # naming a patient is stopped before any model sees the case (conservative, and one rule).
    for field in SCANNED_FIELDS:
        value = getattr(case, field)
        for item in value if isinstance(value, tuple | list) else (value,):
            yield field, item.criterion if field == "rubric" else item


def _scan(cases: Sequence[Instance], outputs: Mapping[str, str], generated: bool,
          prompts: Mapping[str, str]) -> tuple[Counter[str], set[str], list[str]]:
    items = [(PROMPT_ID, label, text) for label, text in prompts.items()]
    items += [] if generated else [(c.id, field, text) for c in cases for field, text in _texts(c)]
    items += [(case_id, "model output", text) for case_id, text in outputs.items()]
    key = hashlib.sha256(json.dumps(items, ensure_ascii=False).encode()).hexdigest()
    with _LOCK:
        found = _RECENT.get(key)
    if found is None:  # the page estimates, then starts: the same cases are scanned once
        found = _scan_items(items)
        with _LOCK:
            _RECENT[key] = found
            while len(_RECENT) > RECENT_SCANS:
                _RECENT.pop(next(iter(_RECENT)))
    counts, flagged, examples = found
    return Counter(counts), set(flagged), list(examples)


RECENT_SCANS = 16
"""Scans kept (results only, keyed by a hash of the texts), so a second check of the same cases is free."""
_LOCK = threading.Lock()
_RECENT: dict[str, tuple[Counter[str], set[str], list[str]]] = {}


def _scan_items(items: list[tuple[str, str, str]]) -> tuple[Counter[str], set[str], list[str]]:
    counts: Counter[str] = Counter()
    flagged: set[str] = set()
    examples: list[str] = []
    for case_id, field, text in items:
        for kind, start, end in find_identifiers(text or ""):
            counts[kind] += 1
            flagged.add(case_id)
            where = f"case {case_id}, {field}" if case_id != PROMPT_ID else field
            if len(examples) < EXAMPLES and (case_id == PROMPT_ID or not any(
                    e.endswith(f"({kind})") for e in examples)):
                examples.append(f"{where}: {mask(text[start:end])} ({kind})")
    return counts, flagged, examples


Attestation = DeidentificationAttestation | Callable[[], DeidentificationAttestation | None] | None
"""An attestation, or a function that looks one up (called only when identifiers are found)."""


def check_phi(cases: Sequence[Instance], endpoints: Sequence[ModelEndpoint], *,
              outputs: Mapping[str, str] | None = None, attestation: Attestation = None,
              generated: bool = False, prompts: Mapping[str, str] | None = None) -> PhiCheck:
    """Whether these cases (and outputs) may go to these endpoints; see the module docstring.

    Args:
        cases: exactly the cases that would be sent.
        endpoints: every endpoint that would receive them (a jury's judges).
        outputs: model outputs that would be sent too, by case id (a jury pass).
        attestation: a de-identification attestation covering the cases' file, if one is recorded, or
            a function that looks it up (called only when identifiers bound for an unapproved endpoint
            are found, so a clean run never reads the store).
        generated: the cases were generated by our code (not scanned; outputs and prompts still are).
        prompts: the texts sent with every case (``prompt_texts(spec)``), by label; an attestation
            does not cover identifiers found in them.

    Example:
        >>> ep = ModelEndpoint(name="vendor API", model="gpt-4o")
        >>> check = check_phi([Instance(id="1", context="Call 555-867-5309", reference="x")], [ep])
        >>> check.allowed, check.basis, check.counts, check.examples
        (False, 'blocked', {'phone': 1}, ['case 1, context: 5**-***-***9 (phone)'])
    """
    outputs = dict(outputs or {})
    prompts = dict(prompts or {})
    counts, flagged, examples = _scan(cases, outputs, generated, prompts)
    total = sum(counts.values())
    in_prompt = PROMPT_ID in flagged
    flagged.discard(PROMPT_ID)
    what = f"{len(cases)} cases" + (" and their model outputs" if outputs else "")
    found = (f"{total} likely identifier(s) in {len(flagged)} of {what}"
             + (" and in the prompt" if in_prompt else "") + " ("
             + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + ")")
    common = {"n_identifiers": total, "counts": dict(counts), "examples": examples}
    if not total:
        basis = "generated" if generated else "no_identifiers"
        note = " (cases generated by MedAssure are not scanned)" if generated else ""
        return PhiCheck(allowed=True, basis=basis, **common,
                        explanation=f"PHI scan: no likely identifiers in {what}{note}.")
    unapproved = [e.name for e in endpoints if not e.phi_approved]
    if not unapproved:
        names = ", ".join(e.name for e in endpoints)
        return PhiCheck(allowed=True, basis="approved_endpoint", **common, explanation=(
            f"PHI scan: {found}. {names} {'is' if len(endpoints) == 1 else 'are'} approved for PHI "
            "(on premises, or covered by an agreement), so they may be sent as they are."))
    if callable(attestation) and not in_prompt:
        attestation = attestation()
    if attestation is not None and not in_prompt:
        return PhiCheck(allowed=True, basis="attested", attestation=attestation, **common, explanation=(
            f"PHI scan: {found}; sent because the cases are attested de-identified: "
            f"{attestation.describe()}."))
    names = ", ".join(unapproved)
    return PhiCheck(allowed=False, basis="blocked", **common, explanation=(
        f"Blocked: {found}, and {names} {'is' if len(unapproved) == 1 else 'are'} not approved for protected "
        f"health information. Nothing was sent. Masked examples: {'; '.join(examples)}. "
        f"{PROMPT_HOW_TO if in_prompt else HOW_TO_PROCEED}"))


def require_phi_clearance(cases: Sequence[Instance], endpoints: Sequence[ModelEndpoint],
                          **kwargs: Any) -> PhiCheck:
    """``check_phi``, raising ``PhiBlocked`` when the run may not go ahead; returns the allowed check.

    Raises:
        PhiBlocked: likely identifiers bound for an endpoint not approved for PHI, and no attestation.
    """
    check = check_phi(cases, endpoints, **kwargs)
    if not check.allowed:
        raise PhiBlocked(check)
    return check


def runner_gate(spec: object, cases: Sequence[Instance], endpoint: ModelEndpoint,
                caller_check: PhiCheck | None) -> PhiCheck:
    """The runner's own gate, just before anything is stored or sent: what the run will actually send.

    Without an allowed check from the caller, the cases and the prompt are checked here. With one
    (an attestation, or a jury's outputs checked), the prompt is still checked, since a caller's
    check may predate a prompt change and an attestation never covers the prompt.

    Raises:
        PhiBlocked: likely identifiers bound for an endpoint not approved for PHI.
    """
    prompts = prompt_texts(spec)
    if caller_check is None or not caller_check.allowed:
        return require_phi_clearance(cases, [endpoint], generated=getattr(spec, "access", None) == "builtin",
                                     prompts=prompts)
    require_phi_clearance([], [endpoint], prompts=prompts)
    return caller_check


def attestation_for(stores: ComponentStores, *hashes: str | None) -> DeidentificationAttestation | None:
    """The newest recorded attestation covering any of these SHA-256 values (file or scenario version)."""
    return stores.attestations.find(hashes)


def benchmark_gate(stores: ComponentStores, spec: object, cases: Sequence[Instance], endpoint: ModelEndpoint,
                   dataset_path: str | None) -> PhiCheck:
    """The gate for a benchmark run on a dataset file, with the file's recorded attestation, if any.

    An attestation is bound to the SHA-256 of the file as it is when the gate looks, which is after
    the cases were read. So when one is found, the file is read again and must still give exactly
    these cases; a file swapped or rewritten in between is refused (the cases being sent are not
    the attested ones), with a message saying so.
    """
    from evaluator.runs.request import file_sha256

    swapped: list[str] = []

    def attestation() -> DeidentificationAttestation | None:
        sha = file_sha256(dataset_path)
        found = attestation_for(stores, sha)
        if found is not None and not _file_gives(spec, dataset_path, cases):
            swapped.append(sha or "")
            return None
        return found

    check = check_phi(cases, [endpoint], generated=getattr(spec, "access", None) == "builtin",
                      attestation=attestation, prompts=prompt_texts(spec))
    if swapped:
        name = Path(dataset_path or "").name
        return check.model_copy(update={"explanation": (
            f"Blocked: the dataset file {name} changed after its cases were read. The attestation recorded "
            f"for the file as it is now (SHA-256 {swapped[0][:12]}) does not cover the cases that would be "
            f"sent. Nothing was sent; estimate again on the file as it is. {check.explanation}")})
    return check


def _file_gives(spec: object, path: str | None, cases: Sequence[Instance]) -> bool:
    """Whether the file at ``path`` still gives exactly ``cases`` (by id; a limit may have cut the rest)."""
    from evaluator.loaders import DatasetError, load_instances

    try:
        now = {c.id: c for c in load_instances(spec, path)}  # type: ignore[arg-type]
    except (DatasetError, OSError, ValueError):
        return False
    return all(now.get(c.id) == c for c in cases)


def run_attestation(stores: ComponentStores, run_id: str, dataset_path: str | None = None
                    ) -> DeidentificationAttestation | None:
    """The attestation covering the cases a stored run was made on (for a jury pass over its outputs).

    Looks for the dataset file given now, the file recorded with the run's request, and, for a local
    scenario run, the scenario version's content hash and source file.
    """
    from evaluator.runs.request import file_sha256

    request = stores.runs.stored_request(run_id=run_id) or {}
    hashes = [file_sha256(dataset_path), request.get("dataset_sha256")]
    scenario = request.get("scenario") or {}
    if scenario.get("scenario_id"):
        try:
            version = stores.scenarios.get(scenario["scenario_id"], scenario.get("version"))
            hashes += [version.hash, version.source_sha256]
        except KeyError:
            pass
    return attestation_for(stores, *hashes)
