"""PHI guard: find likely patient identifiers in local cases, mask them for display, redact them.

Why regexes and not a model: the guard must run offline, instantly, on every upload, and a
committee must be able to read exactly what it looks for. It errs towards flagging (a false alarm
costs a click on "redact"; a miss sends an identifier to a vendor), but it is tuned not to fire on
the numbers clinical text is full of: doses ("500 mg"), lab values ("Na 138", "WBC 12.3"), blood
pressures ("120/80"), fractions, years on their own and short ids. What it looks for:

- ``mrn``: a number after a record keyword (MRN, medical record no., patient/hospital/chart id),
  or any bare run of 8-12 digits (too long for a dose or a lab value);
- ``ssn``: ``123-45-6789``, or nine digits after "SSN"/"social security";
- ``phone``: 10-digit North-American numbers with separators and ``+<country>`` numbers;
- ``email``; ``dob`` (a date after "DOB"/"date of birth"/"born"); ``date``: any full calendar
  date (HIPAA Safe Harbor treats every date more precise than a year as an identifier);
- ``address``: house number + street name + street suffix, and "P.O. Box n";
- ``name``: a capitalised name after Mr./Mrs./Ms./Miss/Dr./Prof.

Redaction replaces only the identifying part (``MRN: [MRN]``, ``Mr. [NAME]``) with a typed
placeholder, so the case still reads naturally, and the caller records that it did.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

from pydantic import BaseModel, ConfigDict

from evaluator.instance import Instance

PLACEHOLDERS = {
    "mrn": "[MRN]",
    "ssn": "[SSN]",
    "phone": "[PHONE]",
    "email": "[EMAIL]",
    "dob": "[DATE]",
    "date": "[DATE]",
    "address": "[ADDRESS]",
    "name": "[NAME]",
}
SCANNED_FIELDS = ("context", "question", "reference", "choices")
PATTERNS_VERSION = "phi-regex-1"
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_DATE = (
    rf"(?:\d{{1,2}}[/.-]\d{{1,2}}[/.-](?:19|20)\d{{2}}|(?:19|20)\d{{2}}-\d{{1,2}}-\d{{1,2}}"
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+(?:19|20)\d{{2}}|\d{{1,2}}\s+{_MONTH},?\s+(?:19|20)\d{{2}})"
)
_SUFFIX = (
    r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|"
    r"Terrace|Circle|Cir|Highway|Hwy|Parkway|Pkwy|Square|Sq)"
)

# Order matters: earlier kinds win where matches overlap (an SSN is not also a phone or an MRN).
PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("email", re.compile(r"(?<![\w.+-])(?P<v>[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})")),
    (
        "ssn",
        re.compile(
            r"(?<![\d-])(?P<v>(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4})(?![\d-])"
            r"|\b(?:SSN|social security(?: number| no\.?)?)\s*[:#]?\s*(?P<v2>\d{9})\b",
            re.I,
        ),
    ),
    ("dob", re.compile(rf"\b(?:DOB|D\.O\.B\.?|date of birth|born(?: on)?)\s*[:#-]?\s*(?P<v>{_DATE})", re.I)),
    (
        "mrn",
        re.compile(
            r"\b(?:MRN|medical record(?: number| no\.?| #)?|record (?:number|no\.?)|"
            r"(?:patient|hospital|chart) (?:id|number|no\.?|#))\s*[:#]?\s*(?P<v>[A-Z]{0,3}\d{4,12})\b",
            re.I,
        ),
    ),
    (
        "phone",
        re.compile(
            r"(?<![\w/.-])(?P<v>(?:\+1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}"
            r"|\+(?:[2-9]\d{0,2})(?:[\s.-]?\d){7,12})(?![\w/.-]*\d)"
        ),
    ),
    ("date", re.compile(rf"(?<![\d/.-])(?P<v>{_DATE})(?![\d/])", re.I)),
    (
        "address",
        re.compile(
            rf"(?P<v>\b\d{{1,5}}\s+(?:[A-Z][a-z]+\s+){{1,3}}{_SUFFIX}\b\.?"
            r"|\bP\.?\s?O\.?\s+Box\s+\d+\b)"
        ),
    ),
    (
        "name",
        re.compile(
            r"\b(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+(?P<v>[A-Z][A-Za-z'’]*[a-z](?:[\s-][A-Z][A-Za-z'’]*[a-z])?)"
        ),
    ),
    ("mrn", re.compile(r"(?<![\d.,/-])(?P<v>\d{8,12})(?![\d.,/]|\s*(?:mg|mcg|µg|g|ml|units?|iu)\b)", re.I)),
]

# Cheap necessary conditions, checked first: most clinical text has digits but no date, no
# identifier keyword and no title, and the full patterns cost ~10-60 µs per text each. Substring
# tests on the (lower-cased) text are far cheaper than case-insensitive regex alternations.
_SUFFIX_WORDS = ("Street", "St", "Ave", "Road", "Rd", "Blvd", "Boulevard", "Lane", "Ln", "Drive", "Dr",
                 "Court", "Ct", "Way", "Place", "Pl", "Terrace", "Circle", "Cir", "Highway", "Hwy", "Parkway",
                 "Pkwy", "Square", "Sq", "Box")
_FOUR_DIGITS = re.compile(r"\d{4}")
_PHONE_SHAPE = re.compile(r"\d{3}[\s.-]\d{4}|\+\d")
TRIGGERS: dict[str, Callable[[str, str], bool]] = {
    "email": lambda text, low: "@" in text,
    "ssn": lambda text, low: "ssn" in low or "social security" in low or "-" in text and bool(
        _FOUR_DIGITS.search(text)),
    "dob": lambda text, low: "dob" in low or "d.o.b" in low or "birth" in low or "born" in low,
    "mrn": lambda text, low: bool(_FOUR_DIGITS.search(text)),
    "phone": lambda text, low: bool(_PHONE_SHAPE.search(text)),
    "date": lambda text, low: "19" in text or "20" in text,
    "address": lambda text, low: any(w in text for w in _SUFFIX_WORDS) or "box" in low,
    "name": lambda text, low: any(t in text for t in ("Mr", "Ms", "Miss", "Dr", "Prof")),
}


class PhiMatch(BaseModel):
    """One likely identifier in one field of one case."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    instance_id: str
    """Id of the case."""
    field: str
    """Which field: context, question, reference or choices."""
    kind: str
    """Identifier kind: mrn, ssn, phone, email, dob, date, address or name."""
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


def find_identifiers(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of the identifying parts of ``text``, non-overlapping, in text order.

    Example:
        >>> find_identifiers("Call 555-867-5309. Metformin 500 mg, BP 120/80.")
        [('phone', 5, 17)]
    """
    taken: list[tuple[str, int, int]] = []
    low = text.lower()
    for kind, pattern in PATTERNS:
        if not TRIGGERS[kind](text, low):
            continue
        for m in pattern.finditer(text):
            group = "v" if m.group("v") is not None else "v2"
            start, end = m.span(group)
            if any(start < e and s < end for _, s, e in taken):
                continue
            taken.append((kind, start, end))
    return sorted(taken, key=lambda t: t[1])


def _fields(instance: Instance) -> Iterable[tuple[str, str]]:
    yield "context", instance.context
    yield "question", instance.question
    yield "reference", instance.reference
    for choice in instance.choices:
        yield "choices", choice


def scan_instances(instances: Iterable[Instance], examples_per_kind: int = 3) -> PhiReport:
    """Scan contexts, questions, references and choices of every case.

    Example:
        >>> r = scan_instances([Instance(id="1", context="Reach Mr. Doe at jd@mail.com", reference="x")])
        >>> r.counts, r.examples[0].masked
        ({'name': 1, 'email': 1}, '***')
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


def redact_text(text: str) -> tuple[str, Counter[str]]:
    """``text`` with each identifier replaced by its placeholder, and what was replaced.

    Example:
        >>> redact_text("DOB: 03/14/1961, call (555) 867-5309")[0]
        'DOB: [DATE], call [PHONE]'
    """
    out, last, counts = [], 0, Counter()
    for kind, start, end in find_identifiers(text):
        out += [text[last:start], PLACEHOLDERS[kind]]
        last = end
        counts[kind] += 1
    out.append(text[last:])
    return "".join(out), counts


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
