"""One pass over a text: every recognizer and the name finder, overlaps resolved, typed placeholders.

Kept apart from the report models so that the bench and the tests can call ``find_identifiers``
on plain strings. Where spans overlap, the recognizer earlier in ``RECOGNIZERS`` wins (an SSN is
not also a phone), names come after the keyed and shaped identifiers, and a bare 8-12 digit run
(an unlabelled record number) comes last. Overlapping names are merged, so that a title and the
whole name it introduces ("Mr. Robert Chen-Morales") are one span and redact to one ``[NAME]``.
"""

from __future__ import annotations

import re
from collections import Counter

from evaluator.phi.abroad import CHECKS as PROSE_CHECKS
from evaluator.phi.local_forms import local_names
from evaluator.phi.name_forms import NICKNAME_BEFORE
from evaluator.phi.names import listed_names, lower_case_only, without_scale_names
from evaluator.phi.recognizers import DATE_SHAPE, KEYED, MIN_DIGITS, RECOGNIZERS, TRIGGERS
from evaluator.phi.shapes import CHECKS
from evaluator.phi.shorthand import english_words
from evaluator.phi.structured import CHECKS as STRUCTURED_CHECKS
from evaluator.phi.structured import not_identifier, script_names, structured_spans

PLACEHOLDERS = {
    "name": "[NAME]",
    "address": "[ADDRESS]",
    "date": "[DATE]",
    "dob": "[DATE]",
    "age": "[AGE 90+]",
    "phone": "[PHONE]",
    "fax": "[FAX]",
    "email": "[EMAIL]",
    "ssn": "[SSN]",
    "mrn": "[MRN]",
    "health_plan": "[HEALTH PLAN ID]",
    "account": "[ACCOUNT]",
    "license": "[LICENSE]",
    "vehicle": "[VEHICLE ID]",
    "device": "[DEVICE ID]",
    "url": "[URL]",
    "ip": "[IP ADDRESS]",
    "biometric": "[BIOMETRIC ID]",
    "photo": "[PHOTO]",
    "id": "[ID]",
}
"""Identifier kind → placeholder. The kinds follow HIPAA Safe Harbor's 18 identifiers (45 CFR
164.514(b)(2)); ``dob`` is a date of birth, ``id`` any other unique identifying number."""
PATTERNS_VERSION = "phi-8"
"""Version of the recognizers and name lists, recorded with every scan and redaction."""

_LAST_KINDS = 1  # the bare-digits record number runs after the names
_AGE_AFTER_NAME = re.compile(r"(?:,|\s*[|;\t]|\s(?=\d+[MF]\b))\s*(?P<v>9\d|1[01]\d)(?:(?=[MF]\b)|"
                             r"(?![\w.]|\s*(?:%|mg|kg|mm|cm|lb)\b))")


# A hospital's own policy ("follows hospital policy 4021") and a terminology code ("SNOMED concept
# 22298006") are numbers about care, not about the patient.
_NOT_PATIENT = {
    "health_plan": re.compile(r"(?i)\b(?:hospital|trust|as per|per|follows?|in line with|under|clinical|"
                              r"infection|institutional|our)\b[^.;]{0,20}\bpolicy\W*(?:number|no\.?|#)?\W*$"),
    "mrn": re.compile(r"(?i)\b(?:snomed|loinc|icd|cpt|ndc|concept|code)\b\W*(?:\w+\W+)?$"),
    "id": re.compile(r"(?i)\b(?:hospital|trust|as per|per|follows?|in line with|under|clinical|"
                     r"infection|institutional|our)\b[^.;]{0,20}\bpolicy\W*(?:number|no\.?|#)?\W*$"),
}
# phi-6: a drug lot's expiry ("exp 08/2028") is a date about the product, not the patient
_NOT_PATIENT["date"] = re.compile(r"(?i)\b(?:exp(?:iry|ires|iration)?(?:\s+date)?|use[- ]by|"
                                  r"best\s+before|BBE)\s*[:.]?\s*$")
_RECORD_KEY = re.compile(r"(?i)\b(?:MRN|med(?:ical)?\s+rec(?:ord)?s?(?:\s+(?:number|no\.?|#))?"
                         r"|hosp(?:ital)?\s+"
                         r"(?:number|no\.?|#)|chart(?:\s+(?:number|no\.?|#))?)\W*$")
# Our own placeholders ("[AGE 90+]", "[NAME]") are never identifiers, so a redacted text scans clean.
_PLACEHOLDER = re.compile(r"\[(?:NAME|ADDRESS|DATE|AGE 90\+|PHONE|FAX|EMAIL|SSN|MRN|HEALTH PLAN ID|ACCOUNT|"
                          r"LICENSE|VEHICLE ID|DEVICE ID|URL|IP ADDRESS|BIOMETRIC ID|PHOTO|ID)\]")


def _overlaps(start: int, end: int, taken: list[tuple[str, int, int]]) -> bool:
    return any(start < e and s < end for _, s, e in taken)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


_ENGLISH_SUFFIX = re.compile(r"(?:tion|sion|ment|ness|ity|ing|ance|ence|ology|ical|ive|ous|ary|ery|ism|ist)$")


def find_names(text: str) -> list[tuple[int, int]]:
    """(start, end) of likely person names in ``text``, possibly overlapping, in no particular order: those
    the name lists, titles and cues find, and (phi-5) those written in shorthand (bed boards, line lists,
    lower-case names after a cue).

    Example:
        >>> sorted({"Patient John Smith, 67"[s:e] for s, e in find_names("Patient John Smith, 67")})
        ['John Smith']
    """
    from evaluator.phi.name_forms import form_names
    from evaluator.phi.shorthand import (
        english_words,
        first_names,
        shorthand_names,  # loads its vocabulary on first use
    )

    short = shorthand_names(text) + form_names(text, english_words(), first_names())
    short += script_names(text, english_words()) + local_names(text, english_words(), first_names())  # phi-7
    return listed_names(text) + (short if lower_case_only(text) else without_scale_names(text, short))


def _again(text: str, names: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Later or earlier mentions of a found name's words, written the same way ("Lupe", "FONUA")."""
    from evaluator.phi.shorthand import english_words

    english = english_words()
    words = {w for s, e in names for w in re.findall(r"[A-ZÀ-Þ][\w'’-]{2,}", text[s:e])
             if w.lower() not in english and not w.isupper() and not _ENGLISH_SUFFIX.search(w)}
    if not words:
        return []
    pattern = re.compile(rf"(?<![\w'’-])(?:{'|'.join(map(re.escape, sorted(words)))})(?![\w'’-])")
    return [m.span() for m in pattern.finditer(text) if not any(s <= m.start() < e for s, e in names)]


def find_identifiers(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of the identifying parts of ``text``, non-overlapping, in text order.

    Example:
        >>> find_identifiers("Call 555-867-5309. Metformin 500 mg, BP 120/80.")
        [('phone', 5, 17)]
        >>> t = "Mrs. Mary Lee, DOB 3/4/52"
        >>> [(k, t[s:e]) for k, s, e in find_identifiers(t)]
        [('name', 'Mrs. Mary Lee'), ('dob', '3/4/52')]
    """
    taken: list[tuple[str, int, int]] = [("placeholder", *m.span()) for m in _PLACEHOLDER.finditer(text)]

    def add(kind: str, start: int, end: int) -> None:
        if kind == "phone" and _RECORD_KEY.search(text, max(0, start - 40), start):
            kind = "mrn"  # "MRN 0161 555 0176" is a record number written like a phone number
        rule = _NOT_PATIENT.get(kind)
        if rule is not None and rule.search(text, max(0, start - 60), start):
            return
        if end <= start or not_identifier(kind, text, start, end):
            return
        if not _overlaps(start, end, taken):
            taken.append((kind, start, end))
            return
        hit = [t for t in taken if start < t[2] and t[1] < end]
        if kind == "address" and all(k == "address" or start <= s and e <= end for k, s, e in hit):
            # a fuller address is one span, with a unit or a block number read alone inside it
            for t in hit:
                taken.remove(t)
            taken.append((kind, min(start, *(s for _, s, _ in hit)), max(end, *(e for _, _, e in hit))))
        elif kind == "name" and min(s for _, s, _ in hit) > start:  # "Mr Kofi Boateng" before "RBH 882 0431"
            cut = text[start:min(s for _, s, _ in hit)].rstrip(" ,;-")
            if cut and not _overlaps(start, start + len(cut), taken):
                taken.append((kind, start, start + len(cut)))

    for kind, start, end in structured_spans(text):  # phi-7: HL7, FHIR-like JSON, CSV by position
        add(kind, start, end)
    for (kind, pattern), trigger in zip(RECOGNIZERS[:-_LAST_KINDS], TRIGGERS, strict=False):
        if not trigger.search(text):
            continue
        for m in pattern.finditer(text):
            group = "v" if m.group("v") is not None else "v2"
            value = m.group(group)
            if kind in MIN_DIGITS and pattern in KEYED and (sum(c.isdigit() for c in value) < MIN_DIGITS[kind]
                                       or DATE_SHAPE.fullmatch(value)
                                       or "/" in value and DATE_SHAPE.match(value)):
                continue
            check = CHECKS.get(pattern) or PROSE_CHECKS.get(pattern) or STRUCTURED_CHECKS.get(pattern)
            if check is not None and not check(value):
                continue
            add(kind, *m.span(group))
    names = _merge(find_names(text))
    for start, end in names:
        add("name", start, end)
        age = _AGE_AFTER_NAME.match(text, end)  # "Patient John Smith, 97"
        if age:
            add("age", *age.span("v"))
    for start, end in names:  # "Boy-boy (Ramon Cruz Santos)": a nickname before the bracketed name
        nick = NICKNAME_BEFORE.search(text, max(0, start - 30), start) if text[end:end + 1] == ")" else None
        if nick and nick.group("nick").lower() not in english_words():
            add("name", *nick.span("nick"))
    for start, end in _again(text, names):  # "Lupe Fonua attended ... Lupe said": the name said again
        add("name", start, end)
    for kind, pattern in RECOGNIZERS[-_LAST_KINDS:]:
        for m in pattern.finditer(text):
            add(kind, *m.span("v"))
    return sorted((t for t in taken if t[0] != "placeholder"), key=lambda t: t[1])


def redact_text(text: str) -> tuple[str, Counter[str]]:
    """``text`` with each identifier replaced, whole, by its placeholder, and counts by kind.

    Example:
        >>> redact_text("Mr. Robert Chen-Morales, DOB: 03/14/1961, call (555) 867-5309")[0]
        '[NAME], DOB: [DATE], call [PHONE]'
    """
    out: list[str] = []
    last, counts = 0, Counter()
    for kind, start, end in find_identifiers(text):
        out += [text[last:start], PLACEHOLDERS[kind]]
        last = end
        counts[kind] += 1
    out.append(text[last:])
    return "".join(out), counts
