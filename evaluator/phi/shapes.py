"""Recognizers added in rules phi-5 (issue 35 item 5): identifier kinds that notes write in shapes
the keyed rows of ``recognizers`` do not see.

- dates: a weekday before a day and month ("Tues 8 Dec", "sat 28/11"), Roman-numeral months
  ("3/XII/2026"), "the" before an ordinal ("the 5th of November"), two-digit years after an
  apostrophe ("Sept '19"), day ranges ("Aug 14-19"), French month names, and dates in words as
  dictation gives them ("the twenty first of february nineteen thirty nine");
- numbers read aloud ("oh seven seven oh ..."), a phone, or a record number after a record word;
- national identifiers by shape, where the shape is specific or has a check: the French NIR (its
  grouped form, or its 97-modulus key), Quebec's RAMQ number (letters, then a birth date),
  Ontario's health card (ten digits and a version code, or the Luhn check), Australia's Medicare
  card (4-5-1 digits);
- a record number with a letter prefix ("RBH 882 0431", "GH-0093-7712", "ODI-4471920");
- a car's registration after a word for it ("rego CZT-41Q", "car 1AB 2CD");
- street suffixes from Faker's English-locale address lists (Parade, Concourse, Esplanade, ...);
- employers with a company suffix ("Kowhai Freight Ltd", "Nordvik Smelting AS") and schools.

Each row is (kind, trigger, pattern) as in ``recognizers._TABLE``; ``CHECKS`` holds a validator
for the rows whose values must pass one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_DIGIT_WORD = r"(?:zero|oh|o|nought|one|two|three|four|five|six|seven|eight|nine|double|triple)"
_ORD_UNIT = r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)"
_ORD_WORD = (rf"(?:(?:twenty|thirty)[\s-]?{_ORD_UNIT}|{_ORD_UNIT}|tenth|eleventh|twelfth|thirteenth|"
             r"fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth)")
_TENS = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
_UNIT = r"(?:one|two|three|four|five|six|seven|eight|nine)"
_TEEN = r"(?:ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
_YEAR_WORDS = (rf"(?:nineteen\s+(?:hundred\s+(?:and\s+)?)?(?:{_TENS}(?:[\s-]{_UNIT})?|{_TEEN}|oh[\s-]{_UNIT})"
               rf"|two\s+thousand(?:\s+and)?(?:\s+(?:{_TENS}(?:[\s-]{_UNIT})?|{_TEEN}|{_UNIT}))?"
               rf"|twenty\s+(?:{_TENS}(?:[\s-]{_UNIT})?|{_TEEN}|oh[\s-]{_UNIT}))")
_MONTH_NAME = (r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
               r"jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)")
_MONTH_ABBR = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
               r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)(?:\.(?=\s*\d))?")
_FR_MONTH = (r"(?:janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[uû]t|septembre|octobre|novembre|"
             r"d[ée]cembre)")
_ES_MONTH = (r"(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|sept?iembre|octubre|noviembre|diciembre|"
             r"janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro)")
_DE_MONTH = r"(?:Januar|Jänner|Februar|März|Mai|Juni|Juli|Oktober|Dezember)"
# Italian and Dutch month names, with a day and a year only ("12 marzo 1937", "3 mei 1935")
_IT_NL_MONTH = (r"(?:gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|"
                r"dicembre|januari|februari|maart|mei|juni|juli|augustus|oktober)")
_ROMAN_MONTH = r"(?:XII|XI|X|IX|VIII|VII|VI|V|IV|III|II|I)"
_DAY = r"(?:0?[1-9]|[12]\d|3[01])"
_WEEKDAY = r"(?i:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?i:day)?\.?"
_YEAR = r"(?:1[89]\d\d|20\d\d)"
_APOS_YEAR = r"['’‘]\d\d"
_DATE_CUE = (r"(?i:on|since|from|until|till|to|dated?|seen|admitted|discharged|d/c|DOS|started|began|"
             r"stopped|ended|transferred|returned|born)")

ROWS: list[tuple[str, str, re.Pattern[str]]] = [
    # structured records: a JSON key or an XML tag that names a person's name part (FHIR "family", "given")
    ("name", r"family|given|first_?name|last_?name|surname|full_?name|patient_?name|middle_?name",
     re.compile(r"(?i:\"(?:family|given|first_?name|last_?name|surname|full_?name|patient_?name|middle_?name)\"\s*:"
                r"\s*\[?\s*\"(?P<v>[^\"\d]{2,60})\"|<(?:family|given|first_?name|last_?name|surname|"
                r"patient_?name)(?:\s[^>]*)?>(?P<v2>[^<\d]{2,60})</)")),
    # HL7 v2 patient segments: the name fields are SURNAME^GIVEN^MIDDLE ("PID|1||...||TAUFAHEMA^SIONE^L||")
    ("name", r"^(?:PID|NK1|GT1|IN1|IN2|MRG)\|",
     re.compile(r"(?<=\|)(?P<v>[A-Z][A-Za-z'’ -]{2,}(?:\^[A-Z][A-Za-z'’ -]*)+)(?=\^*\|)")),
    # the French NIR: sex, year, month, department, commune, order, key ("1 47 02 99 216 044 81")
    ("ssn", r"\d\s?\d\d\s?\d\d\s?(?:\d\d|2[AB])\s?\d{3}\s?\d{3}",
     _NIR := re.compile(r"(?<![\w-])(?P<v>[12]\s\d\d\s(?:0[1-9]|1[0-2]|[2-9]\d)\s(?:\d\d|2[AB])\s\d{3}\s\d{3}"
                        r"(?:\s\d\d)?|[12]\d\d(?:0[1-9]|1[0-2]|[2-9]\d)(?:\d\d|2[AB])\d{6}\d\d)(?![\w-])")),
    # Quebec RAMQ: three letters of the surname, one of the given name, birth year, month (+50), day, 2 digits
    ("health_plan", r"\b[A-Z]{4}\s?\d{4}",
     re.compile(r"(?<![\w-])(?P<v>[A-Z]{4}\s?\d\d(?:0[1-9]|1[0-2]|5[1-9]|6[0-2])\s?(?:0[1-9]|[12]\d|3[01])\d\d)"
                r"(?![\w-])")),
    # Ontario health card: 10 digits (4-3-3) and a two-letter version code, or grouped with the Luhn check
    ("health_plan", r"\d{4}[\s-]?\d{3}[\s-]?\d{3}",
     _OHIP := re.compile(r"(?<![\w+-])(?<!\+\d\s)(?<!\+\d\d\s)(?<!\+\d\d\d\s)"
                         r"(?P<v>\d{4}[\s-]?\d{3}[\s-]?\d{3}[\s-]?[A-Z]{2}|\d{4}[\s-]\d{3}[\s-]\d{3})"
                         r"(?![\w-]|\s\d|[.,]\d)")),
    # Australian Medicare card: 4-5-1 digits, the first 2-6, an optional issue number
    ("health_plan", r"\b[2-6]\d{3}\s\d{5}\s\d",
     re.compile(r"(?<![\w-])(?P<v>[2-6]\d{3}\s\d{5}\s\d(?:[\s/-]\d)?)(?![\w-])")),
    # national numbers with a check (NZ NHI, Spanish DNI/NIE, Canadian SIN, Aadhaar) or a specific shape
    # (UK National Insurance number, Italian codice fiscale): flagged wherever they appear
    ("id", r"\b[A-Z]{3}\d{4}\b", _NHI := re.compile(r"(?<![\w-])(?P<v>[A-HJ-NP-Z]{3}\d{4})(?![\w-])")),
    ("id", r"\d{7}-?[A-Z]\b", _DNI := re.compile(r"(?<![\w-])(?P<v>[XYZ]?\d{7,8}-?[A-Z])(?![\w-])")),
    ("ssn", r"\d{3}[ -]\d{3}[ -]\d{3}",
     _SIN := re.compile(r"(?<![\w+-])(?<!\+\d\s)(?<!\+\d\d\s)(?P<v>\d{3}[ -]\d{3}[ -]\d{3})"
                        r"(?![\w-]|\s\d|[.,]\d)")),
    ("id", r"\d{4}\s\d{4}\s\d{4}",
     _AADHAAR := re.compile(r"(?<![\w-])(?P<v>[2-9]\d{3}\s\d{4}\s\d{4})(?![\w-]|\s\d)")),
    ("id", r"\b[A-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b|\b[A-Z]{6}\d\d[A-Z]\d\d[A-Z]\d{3}[A-Z]\b",
     re.compile(r"(?<![\w-])(?P<v>(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]\s?\d{2}\s?\d{2}\s?\d{2}"
                r"\s?[A-D]|[A-Z]{6}\d\d[A-EHLMPR-T]\d\d[A-Z]\d{3}[A-Z])(?![\w-])")),
    # a car's registration after a word for it: "rego CZT-41Q", "car 1AB 2CD", "plate KXP 447"
    ("vehicle", r"rego|registration|\breg\b|plate|\bcar\b|vehicle|\bvan\b|\bute\b|truck|motorbike",
     _REGO := re.compile(r"(?<!\w)(?i:rego|registration|reg\.?|number\s+plate|plates?|car|vehicle|van|ute|"
                r"truck|motorbike|motorcycle)(?:\s+(?i:no\.?|number|is|was|reg(?:istration)?|plate))?\s*[:#]?\s*"
                r"(?P<v>(?=[A-Z0-9]{1,4}[ -]?[A-Z0-9]{1,4}\b)(?=[A-Z0-9 -]*\d)(?=[A-Z0-9 -]*[A-Z])"
                r"[A-Z0-9]{1,4}[ -]?[A-Z0-9]{2,4})(?![\w-])")),
    # a registration or licence number after "registration": "Nursing registration ... NMW 0081442"
    ("license", "registration|registered",
     re.compile(r"(?<!\w)(?i:registration|registered)(?:\s+(?i:no\.?|number|#))?\b[^.;\d]{0,40}?"
                r"(?P<v>(?<![\w-])[A-Z]{2,4}[\s-]?\d{5,9})(?![\w-])")),
    # numbers read aloud, a record number after a record word ("hospital number h four four two nine one")
    ("mrn", r"number|mrn|record|nhi|nhs",
     re.compile(rf"(?<!\w)(?i:(?:hospital|record|nhs|nhi|unit|chart|patient)\s+(?:number|no)|mrn)\s*(?:is\s+)?"
                rf"(?P<v>(?:[a-z]\s+)?(?i:{_DIGIT_WORD})(?:[\s-]+(?i:{_DIGIT_WORD})){{3,}})(?![\w-])")),
    # ... and a phone number ("reached on oh seven seven oh oh nine double oh five two one")
    ("phone", r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)\s+(?:zero|oh|one|two|three|four|"
              r"five|six|seven|eight|nine|double|triple)",
     re.compile(rf"(?<![\w-])(?P<v>(?i:{_DIGIT_WORD})(?:[\s-]+(?i:{_DIGIT_WORD})){{6,}})(?![\w-])")),
    # dates in words: "the twenty first of february nineteen thirty nine", "friday the twenty seventh"
    ("date", r"first|second|third|th\b|tenth|twelfth|eleventh|\d(?:st|nd|rd)\b",
     re.compile(rf"(?<!\w)(?P<v>(?i:(?:the\s+)?{_ORD_WORD}\s+of\s+{_MONTH_NAME}(?:,?\s+(?:{_YEAR_WORDS}|{_TENS}[\s-]{_UNIT}))?"
                rf"|{_DAY}(?:st|nd|rd|th)\s+(?:of\s+)?{_MONTH_NAME},?\s+(?:{_YEAR_WORDS}|{_TENS}[\s-]{_UNIT})"
                rf"|{_MONTH_NAME}\s+(?:the\s+)?{_ORD_WORD}(?:,?\s+{_YEAR_WORDS})?"
                rf"|{_ORD_WORD}\s+{_MONTH_NAME},?\s+(?:{_YEAR_WORDS}|{_TENS}[\s-]{_UNIT})"
                rf"|(?:mon|tues|wednes|thurs|fri|satur|sun)day\s+the\s+{_ORD_WORD}))(?![\w-])")),
    # a weekday before a day and a month: "Tues 8 Dec", "Fri 11/12", "sat 28/11", "Wed 9th"
    ("date", r"mon|tue|wed|thu|fri|sat|sun",
     re.compile(rf"(?<!\w)(?P<v>{_WEEKDAY},?\s+(?:(?:the\s+)?{_DAY}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_ABBR}"
                rf"(?:,?\s+{_YEAR})?|{_DAY}/(?:0?[1-9]|1[0-2])(?:/(?:{_YEAR}|\d\d))?"
                rf"|{_MONTH_ABBR}\s+{_DAY}(?:st|nd|rd|th)?))(?![\w/])")),
    # Roman-numeral months: "3/XII/2026", and without a year after a date word ("discharged 7/XII")
    ("date", r"\d[/.-][IVX]",
     re.compile(rf"(?<![\w/.-])(?P<v>{_DAY}[/.-]{_ROMAN_MONTH}[/.-](?:{_YEAR}|\d\d))(?![\w/])"
                rf"|(?<!\w){_DATE_CUE}\s+(?P<v2>{_DAY}[/.-]{_ROMAN_MONTH})(?![\w/]|[.-]\d)")),
    # "the" before an ordinal date, an apostrophe year, a day range, French month names
    ("date", r"\d(?:st|nd|rd|th)|['’‘]\d\d|\d\s*[-–]\s*\d|" + "|".join((_FR_MONTH, _ES_MONTH, _DE_MONTH,
                                                                                  _IT_NL_MONTH)),
     re.compile(rf"(?<!\w)(?P<v>(?i:the)\s+{_DAY}(?:st|nd|rd|th)\s+of\s+{_MONTH_ABBR}(?:,?\s+{_YEAR})?"
                rf"|(?:{_DAY}(?:st|nd|rd|th)?\s+)?{_MONTH_ABBR}\s+{_APOS_YEAR}"
                rf"|{_MONTH_ABBR}\s+{_DAY}\s*[-–]\s*{_DAY}(?:,?\s+{_YEAR})?|{_DAY}\s*[-–]\s*{_DAY}\s+{_MONTH_ABBR}"
                rf"(?:,?\s+{_YEAR})?|(?:le\s+)?(?:1er|{_DAY})\s+(?i:{_FR_MONTH})(?:\s+{_YEAR})?"
                rf"|{_DAY}\s+de\s+(?i:{_ES_MONTH})(?:\s+(?:de|del)\s+{_YEAR})?|{_DAY}\.\s*{_DE_MONTH}(?:\s+{_YEAR})?"
                rf"|{_DAY}\s+(?i:{_IT_NL_MONTH})\s+{_YEAR})"
                r"(?![\w-])"
                rf"|(?<!\w)(?i:on|since|from|until|by|before|after)\s+(?P<v2>the\s+{_DAY}(?:st|nd|rd|th))"
                r"(?=\s*(?:[,.;)]|$|and\b|at\b|when\b|but\b|-))")),
]


LATE_ROWS: list[tuple[str, str, re.Pattern[str]]] = [
    # phi-6: a date of birth in lower case with a two-digit year ("dob 12 oct 29")
    ("dob", r"dob|d\.o\.b|born",
     re.compile(rf"(?<!\w)(?i:dob|d\.o\.b\.?|born(?:\s+on)?)\s*[:#-]?\s*(?P<v>(?i:{_DAY}(?:st|nd|rd|th)?\s+{_MONTH_NAME}\.?,?"
                rf"\s+(?:{_YEAR}|\d\d)|{_MONTH_NAME}\.?\s+{_DAY}(?:st|nd|rd|th)?,?\s+(?:{_YEAR}|\d\d)))(?![\w/])")),
    # a record number with a letter prefix: "RBH 882 0431", "GH-0093-7712", "ODI-4471920"
    ("mrn", r"\b[A-Z]{2,4}[\s-]?\d{3}",
     re.compile(r"(?<![\w/-])(?!(?:NCT|ISRCTN|ISBN|ISO|ICD|DSM|ATC|CPT|NDC|EN|BS|IEC|DOI|PMID|NYHA)(?:\b|\d))"
                r"(?P<v>[A-Z]{2,4}(?:[\s-]\d{3,4}[\s-]\d{3,4}|-\d{6,9}|\s(?=\d*0)\d{7,9})"
                r"|[A-Z]{2,3}(?=\d*0)\d{6,9})"
                r"(?![\w/-]|[.,]\d|\s\d|\s*(?i:mg|mcg|g|ml|units?|iu|cells|copies|/))")),
]
"""Rows tried after the keyed ones, so that "S/N SN 4471902" stays a device and "FP-..." a biometric."""


def _nir_ok(value: str) -> bool:
    digits = value.replace(" ", "")
    if " " in value:  # the grouped form is specific enough on its own
        return True
    body = digits[:13].replace("2A", "19").replace("2B", "18")
    return len(digits) == 15 and body.isdigit() and 97 - int(body) % 97 == int(digits[13:])


def _luhn(digits: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def _ohip_ok(value: str) -> bool:
    digits = "".join(c for c in value if c.isdigit())
    return any(c.isalpha() for c in value) or _luhn(digits)


_NHI_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # A-Z without I and O, numbered 1-24


def _nhi_ok(value: str) -> bool:
    """NZ NHI (AAANNNC): letters 1-24 weighted 7, 6, 5, digits 4, 3, 2; check = 11 - sum mod 11."""
    total = sum((_NHI_LETTERS.index(c) + 1) * w for c, w in zip(value[:3], (7, 6, 5), strict=True))
    total += sum(int(d) * w for d, w in zip(value[3:6], (4, 3, 2), strict=True))
    remainder = total % 11
    return remainder != 0 and (11 - remainder) % 10 == int(value[6])


def _dni_ok(value: str) -> bool:
    """Spanish DNI / NIE: the letter is the number mod 23 in the ministry's table (NIE: X, Y, Z = 0, 1, 2)."""
    body = value.replace("-", "")
    digits = str("XYZ".index(body[0])) + body[1:-1] if body[0] in "XYZ" else body[:-1]
    return len(digits) == 8 and "TRWAGMYFPDXBNJZSQVHLCKE"[int(digits) % 23] == body[-1]


_VD = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
       [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
       [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
       [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
_VP = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
       [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
       [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]


def _verhoeff(digits: str) -> bool:
    """Verhoeff's dihedral check (Aadhaar's last digit)."""
    check = 0
    for i, c in enumerate(reversed(digits)):
        check = _VD[check][_VP[i % 8][int(c)]]
    return check == 0


CHECKS: dict[re.Pattern[str], Callable[[str], bool]] = {
    _NIR: _nir_ok, _OHIP: _ohip_ok, _NHI: _nhi_ok, _DNI: _dni_ok,
    _REGO: lambda v: any(c.isdigit() for c in v) and any(c.isalpha() for c in v),  # "RGN" alone is no plate
    _SIN: lambda v: _luhn(v.replace(" ", "").replace("-", "")),
    _AADHAAR: lambda v: _verhoeff(v.replace(" ", "")),
}
"""Validators for rows whose shape alone is not enough: the value must pass before it is flagged."""

STREET_SUFFIXES = (
    "Parade|Pde|Concourse|Esplanade|Quay|Mews|Rise|Heights|Gardens|Gdns|Walk|Green|Track|Promenade|Broadway|"
    "Causeway|Arcade|Circuit|Cres|Crest|Cove|Glade|Glen|Vale|View|Vista|Wynd|Strand|Reserve|Ridge|Plaza|"
    "Pike|Turnpike|Expressway|Freeway|Motorway|Boulevard|Approach|Chase|Copse|Dell|Fairway|Gateway|Grange|"
    "Hollow|Meadows?|Outlook|Pathway|Retreat|Ramble|Walkway|Laneway|Terrace|Tce|Crescent|Cresent|Close|Cl")
"""Street words beyond the US ones, from Faker's English-locale ``street_suffixes`` (en_AU, en_NZ,
en_GB, en_CA, en_US), less those that are also places in a hospital or words in a sentence
("Hospital", "Centre", "Station", "Park", "Line", "Lower")."""

COMPANY_SUFFIXES = (r"Ltd\.?|Limited|Inc\.?|LLC|L\.L\.C\.|PLC|plc|GmbH|Pty(?:\s+Ltd\.?)?|ASA|AS|A/S|AB|AG|"
                    r"Oyj?|BV|NV|SA|S\.A\.|SARL|S\.p\.A\.|SpA|SRL|Srl|Corp\.?|Corporation|(?:&|and)\s+(?:Co\.?|Sons)")
"""Legal forms of a company, from Faker's ``company_suffixes`` (Latin-script locales)."""
