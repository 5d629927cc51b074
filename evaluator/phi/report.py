"""What a PHI scan reports, how cases are redacted, and the gate a run passes before sending cases.

The models and the gate are unchanged by the move to several recognizers: callers (the scenario
importer, the run gate, the Local scenarios page and the CLI) read counts by kind, masked examples
and one explanation, whatever found the identifiers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from evaluator.benchmarks.instance import Instance
from evaluator.phi.attestation import DeidentificationAttestation
from evaluator.phi.detect import PATTERNS_VERSION, find_identifiers, redact_text

SCANNED_FIELDS = ("context", "question", "reference", "choices", "rubric")
"""The case fields scanned; ``rubric`` is the text of each rubric criterion (a grader reads it beside the
case and the output)."""


class PhiMatch(BaseModel):
    """One likely identifier in one field of one case."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    instance_id: str
    """Id of the case."""
    field: str
    """Which field: context, question, reference, choices or rubric (a criterion's text)."""
    kind: str
    """Identifier kind, one of ``PLACEHOLDERS`` (name, address, date, dob, age, phone, mrn, ...)."""
    start: int
    """Start offset of the identifying text within the field."""
    end: int
    """End offset (exclusive)."""
    masked: str
    """The identifying text with most characters hidden, safe to show."""


class PhiRow(BaseModel):
    """Counts of likely identifiers in one case."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    instance_id: str
    """Id of the case."""
    counts: dict[str, int]
    """Identifier kind → how many in this case."""


class PhiReport(BaseModel):
    """What the scan found over a set of cases: totals, per-case counts, masked examples."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n_cases: int
    """Cases scanned."""
    counts: dict[str, int]
    """Identifier kind → total found."""
    rows: list[PhiRow]
    """Cases with at least one finding, in case order."""
    examples: list[PhiMatch]
    """Up to a few masked examples per kind."""
    patterns_version: str = PATTERNS_VERSION
    """Version of the pattern set, recorded with every scan and redaction."""

    @property
    def total(self) -> int:
        """Number of likely identifiers found."""
        return sum(self.counts.values())

    def summary(self) -> str:
        """``"3 likely identifiers in 2 of 40 cases (phone 2, email 1)"``."""
        if not self.total:
            return f"no likely identifiers in {self.n_cases} cases"
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        return f"{self.total} likely identifier(s) in {len(self.rows)} of {self.n_cases} cases ({kinds})"


def mask(text: str) -> str:
    """Hide an identifier: keep the first and the last character of longer values and punctuation.

    Example:
        >>> mask("555-867-5309"), mask("jane@x.org"), mask("Lee")
        ('5**-***-***9', 'j***@*.**g', '***')
    """
    alnum = [i for i, c in enumerate(text) if c.isalnum()]
    keep = {alnum[0], alnum[-1]} if len(alnum) > 4 else set()
    return "".join(c if (not c.isalnum() or i in keep) else "*" for i, c in enumerate(text))


def _fields(instance: Instance) -> Iterable[tuple[str, str]]:
    yield "context", instance.context
    yield "question", instance.question
    yield "reference", instance.reference
    for choice in instance.choices:
        yield "choices", choice
    for criterion in instance.rubric:
        yield "rubric", criterion.criterion


def scan_instances(instances: Iterable[Instance], examples_per_kind: int = 3) -> PhiReport:
    """Scan contexts, questions, references, choices and rubric criteria of every case.

    Example:
        >>> r = scan_instances([Instance(id="1", context="Reach Mr. Doe at jd@mail.com", reference="x")])
        >>> r.counts, r.examples[0].masked
        ({'name': 1, 'email': 1}, 'M*. **e')
    """
    cases = list(instances)
    totals: Counter[str] = Counter()
    rows, examples = [], []
    for inst in cases:
        found: Counter[str] = Counter()
        for field, text in _fields(inst):
            for kind, start, end in find_identifiers(text):
                found[kind] += 1
                if sum(1 for e in examples if e.kind == kind) < examples_per_kind:
                    examples.append(
                        PhiMatch(
                            instance_id=inst.id,
                            field=field,
                            kind=kind,
                            start=start,
                            end=end,
                            masked=mask(text[start:end]),
                        )
                    )
        if found:
            rows.append(PhiRow(instance_id=inst.id, counts=dict(found)))
            totals.update(found)
    return PhiReport(n_cases=len(cases), counts=dict(totals), rows=rows, examples=examples)


def redact_instances(instances: Iterable[Instance]) -> tuple[list[Instance], dict[str, int]]:
    """Redacted copies of the cases (ids, tags and answer keys kept) and counts by kind.

    A choice reference is the option letter, so redacting option texts never breaks the key.

    Example:
        >>> cases, counts = redact_instances([Instance(id="1", question="Email a@b.org?", reference="no")])
        >>> cases[0].question, counts
        ('Email [EMAIL]?', {'email': 1})
    """
    total: Counter[str] = Counter()
    out = []
    for inst in instances:
        changes: dict[str, object] = {}
        for field in ("context", "question", "reference"):
            text, counts = redact_text(getattr(inst, field))
            total.update(counts)
            changes[field] = text
        choices = []
        for choice in inst.choices:
            text, counts = redact_text(choice)
            total.update(counts)
            choices.append(text)
        changes["choices"] = tuple(choices)
        criteria = []
        for criterion in inst.rubric:
            text, counts = redact_text(criterion.criterion)
            total.update(counts)
            criteria.append(criterion.model_copy(update={"criterion": text}))
        changes["rubric"] = tuple(criteria)
        out.append(inst.model_copy(update=changes))
    return out, dict(total)


class PhiCheck(BaseModel):
    """Whether cases may be sent to an endpoint, and why (shown to the user as is)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    allowed: bool
    """False when likely identifiers would go to an endpoint not approved for PHI."""
    explanation: str
    """One paragraph for the committee: what was found, where it would go, what to do."""
    n_identifiers: int
    """Likely identifiers in the cases."""
    basis: str = ""
    """Why: ``no_identifiers``, ``approved_endpoint``, ``attested``, ``generated`` or ``blocked``."""
    counts: dict[str, int] = {}
    """Identifier kind → how many were found (what was scanned: cases, and outputs for a jury)."""
    examples: list[str] = []
    """A few masked examples, e.g. ``case 3, context: 5**-***-***9 (phone)``."""
    attestation: DeidentificationAttestation | None = None
    """The de-identification attestation that let the cases through, when one did."""


def check_phi_for_run(report: PhiReport, endpoint_name: str, phi_approved: bool) -> PhiCheck:
    """The PHI gate every scenario run passes before the runner is called (page and CLI alike).

    Args:
        report: the scan of exactly the cases that would be sent.
        endpoint_name: the endpoint's label, for the explanation.
        phi_approved: ``ModelEndpoint.phi_approved`` (on-prem, or covered by an agreement).

    Example:
        >>> r = scan_instances([Instance(id="1", context="call 555-867-5309", reference="x")])
        >>> check_phi_for_run(r, "vendor API", phi_approved=False).allowed
        False
    """
    if not report.total:
        return PhiCheck(allowed=True, n_identifiers=0, explanation=f"PHI scan: {report.summary()}.")
    if phi_approved:
        return PhiCheck(
            allowed=True,
            n_identifiers=report.total,
            explanation=(
                f"PHI scan: {report.summary()}. {endpoint_name} is approved for PHI (on-premises or "
                "covered by an agreement), so the cases may be sent as they are."
            ),
        )
    return PhiCheck(
        allowed=False,
        n_identifiers=report.total,
        explanation=(
            f"Blocked: {report.summary()}, and {endpoint_name} is not approved for protected health "
            "information. Nothing was sent. Either redact the scenario (a new version with typed "
            "placeholders such as [PHONE]) or run it on an endpoint approved for PHI (on-premises, or "
            "covered by a business associate agreement)."
        ),
    )
