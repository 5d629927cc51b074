"""PHI guard: find likely patient identifiers in local cases, mask them for display, redact them.

It covers the 18 identifier kinds of HIPAA Safe Harbor (45 CFR 164.514(b)(2)) as clinicians
write them: names with or without a title and in ``LAST, FIRST`` form, addresses down to city and
ZIP, every date more precise than a year (2-digit years and month names too), ages over 89,
phone and fax numbers (7-digit ones too), e-mail, SSN, record, health-plan, account, licence,
vehicle, device and other identifying numbers, URLs, IP addresses, biometric identifiers and
photographs. It runs offline and instantly on every upload, and a committee can read what it
looks for:

- ``recognizers``: one pattern per kind, mostly keyword + identifier-shaped value;
- ``shapes`` (rules phi-5): dates as notes write them (weekdays, Roman months, words), national
  identifiers by shape and check digit, spoken and prefixed record numbers, registrations;
- ``abroad`` (phi-6): addresses as other countries write them (Spanish, Korean, Filipino, Indian, ...),
  identifiers in prose (trial subjects, incidents, claims, accessions), a VIN by its check digit;
- ``name_forms`` (phi-6): "Ma." and "Dela", patronymics and kunyas, two initials, Hangul, nicknames;
- ``structured`` (phi-7): HL7 v2 fields, FHIR-like JSON keys and CSV columns by position; non-Latin
  names; rural-route, military and PO-box addresses; national numbers; terminology URLs kept out;
- ``local_forms`` (phi-7): dates, names, addresses and phones as other places write them;
- ``names``: person names, from Faker's first/last name lists plus titles, cue words and the
  ``LAST, FIRST`` form, with eponyms ("Wells score", "Parkinson disease") kept out;
- ``shorthand`` (phi-5): names where notes drop capitals and titles (bed boards, handoffs, chat);
- ``detect``: one pass with overlaps resolved; redaction replaces each whole span ("Mrs. Mary
  Lee" → ``[NAME]``) with a typed placeholder;
- ``report``: scan and redaction over cases, and the run gate.

It errs towards flagging (a false alarm costs a click on "redact"; a miss sends an identifier to
a vendor). ``bench/phi_recall.py`` measures recall and false alarms on labelled synthetic notes.
"""

from evaluator.phi.detect import PATTERNS_VERSION, PLACEHOLDERS, find_identifiers, find_names, redact_text
from evaluator.phi.recognizers import RECOGNIZERS
from evaluator.phi.report import (
    SCANNED_FIELDS,
    PhiCheck,
    PhiMatch,
    PhiReport,
    PhiRow,
    check_phi_for_run,
    mask,
    redact_instances,
    scan_instances,
)

PATTERNS = RECOGNIZERS
"""The recognizers under their old name."""

__all__ = [
    "PATTERNS", "PATTERNS_VERSION", "PLACEHOLDERS", "RECOGNIZERS", "SCANNED_FIELDS", "PhiCheck", "PhiMatch",
    "PhiReport", "PhiRow", "check_phi_for_run", "find_identifiers", "find_names", "mask", "redact_instances",
    "redact_text", "scan_instances",
]
