"""Rules phi-7 (issue 35 item 5): identifiers read by their place in a record, and shapes phi-6 missed.

- structured records: HL7 v2 segments by segment and field position (PID-3 identifiers, PID-5 and NK1-2
  names, PID-7 birth date, PID-11 addresses, PID-13/14 and NK1 phones, PID-18 account, PID-19 SSN,
  PV1-19 visit number, IN1-36 policy number), FHIR-like JSON by key (``family``, ``given``, ``birthDate``,
  the values of ``address``, ``telecom`` and ``identifier``, a Device's ``serialNumber``), and CSV cells
  under a header that says what they are ("surname,given,dob -> Tanaka,Yui,2007-05-30");
- names: a quoted nickname inside a name ('Rufus "Buddy" Tillman'), a run of Cyrillic, Greek, CJK,
  Ethiopic, Arabic or Hebrew letters in brackets or before a bracketed romanised name;
- addresses: US rural routes and highway contracts with a box, military mail (Unit/PSC/CMR + box +
  APO/FPO/DPO), a PO box before a town and state without a comma, Cyrillic and Greek street lines to their
  postcode, Japanese lines after the postal mark;
- national numbers by shape and check digit: Brazilian CPF, Icelandic kennitala, Russian SNILS, Hong Kong
  HKID, South African ID, Australian IHI.

``not_identifier`` names what is never an identifier whatever a recognizer says: terminology system URLs.
"""

from __future__ import annotations

import re

_NL = (r"\u0370-\u03FF\u0400-\u04FF\u0530-\u058F\u0590-\u05FF\u0600-\u06FF\u1200-\u137F"
       r"\u3005\u3040-\u30FF\u4E00-\u9FFF")
_NL_WORD = rf"[{_NL}][{_NL}'’.-]*"

# --- HL7 v2: (segment, field number) -> kind, and which components are the identifying ones
_HL7_FIELDS: dict[tuple[str, int], str] = {
    ("PID", 2): "mrn", ("PID", 3): "mrn", ("PID", 4): "mrn", ("PID", 5): "name", ("PID", 6): "name",
    ("PID", 7): "dob", ("PID", 9): "name", ("PID", 11): "address", ("PID", 13): "phone", ("PID", 14): "phone",
    ("PID", 18): "account", ("PID", 19): "ssn", ("PID", 20): "license",
    ("NK1", 2): "name", ("NK1", 4): "address", ("NK1", 5): "phone", ("NK1", 6): "phone",
    ("GT1", 3): "name", ("GT1", 5): "address", ("GT1", 6): "phone", ("GT1", 7): "phone", ("GT1", 8): "dob",
    ("PV1", 19): "account", ("PV1", 50): "account",
    ("IN1", 16): "name", ("IN1", 18): "dob", ("IN1", 19): "address", ("IN1", 36): "health_plan",
    ("IN1", 49): "health_plan", ("IN1", 8): "health_plan",
}
_XPN = re.compile(r"[A-ZÀ-Þ][A-ZÀ-Þ'’ -]+\^[A-ZÀ-Þ][A-ZÀ-Þ'’ -]+(?:\^[A-Z]{0,3}\.?)*")
_HL7_SEGMENT = re.compile(r"(?m)^(PID|NK1|GT1|PV1|IN1)\|")


def _pieces(text: str, start: int, end: int, sep: str) -> list[tuple[int, int]]:
    out, at = [], start
    for part in text[start:end].split(sep):
        out.append((at, at + len(part)))
        at += len(part) + 1
    return out


def _hl7(text: str) -> list[tuple[str, int, int]]:
    found = []
    for seg in _HL7_SEGMENT.finditer(text):
        line_end = text.find("\n", seg.start())
        line_end = len(text) if line_end < 0 else line_end
        for number, (fs, fe) in enumerate(_pieces(text, seg.start(), line_end, "|")):
            kind = _HL7_FIELDS.get((seg.group(1), number))
            if kind is None or fe <= fs:
                continue
            for rs, re_ in _pieces(text, fs, fe, "~"):
                comps = [(s, e) for s, e in _pieces(text, rs, re_, "^")]
                k = kind
                if kind == "mrn":  # CX: the value, and its type code in component 5
                    k = "ssn" if len(comps) > 4 and text[slice(*comps[4])] in ("SS", "SSN") else "mrn"
                    comps = comps[:1]
                elif kind == "name":
                    comps = comps[:3]
                elif kind in ("dob", "account", "health_plan", "license", "ssn"):
                    comps = comps[:1]
                elif kind == "phone":  # XTN: the number, or country/area/local in components 5-7
                    comps = [c for i, c in enumerate(comps) if i in (0, 4, 5, 6, 7)]
                comps = [c for c in comps if c[1] > c[0] and re.search(r"\w", text[slice(*c)])]
                digits = any(re.search(r"\d", text[slice(*c)]) for c in comps)
                if comps and (kind in ("name", "address") or digits):
                    found.append((k, comps[0][0], comps[-1][1]))
        for fs, fe in _pieces(text, seg.start(), line_end, "|"):  # a name-shaped field off its position
            if seg.group(1) in ("NK1", "GT1", "IN1") and _XPN.fullmatch(text, fs, fe):
                found.append(("name", fs, fe))
    return found


# --- FHIR-like JSON: values by key
_JSON_STR = r'"(?P<v>[^"\\]{1,120})"'
_FHIR_KEYS = re.compile(rf'"(?P<key>family|given|birthDate|serialNumber|udiCarrier|deceasedDateTime)"\s*:\s*'
                        rf'(?:\[\s*(?P<list>(?:"[^"\\]*"\s*,?\s*)+)\]|{_JSON_STR})')
_FHIR_BLOCK = re.compile(r'"(?P<key>address|telecom|identifier)"\s*:\s*\[(?P<body>[^\[\]]*)\]')
_FHIR_VALUE = re.compile(rf'"(?P<key>text|line|city|district|postalCode|value)"\s*:\s*'
                         rf'(?:\[\s*(?P<list>(?:"[^"\\]*"\s*,?\s*)+)\]|{_JSON_STR})')
_FHIR_KIND = {"family": "name", "given": "name", "birthDate": "dob", "serialNumber": "device",
              "udiCarrier": "device", "deceasedDateTime": "date", "address": "address", "telecom": "phone",
              "identifier": "mrn"}


def _strings(m: re.Match[str]) -> list[tuple[int, int]]:
    if m.group("v") is not None:
        return [m.span("v")]
    base = m.start("list")
    return [(base + s.start(1), base + s.end(1)) for s in re.finditer(r'"([^"\\]+)"', m.group("list"))]


def _fhir(text: str) -> list[tuple[str, int, int]]:
    found = [(_FHIR_KIND[m.group("key")], s, e) for m in _FHIR_KEYS.finditer(text) for s, e in _strings(m)]
    for block in _FHIR_BLOCK.finditer(text):
        kind = _FHIR_KIND[block.group("key")]
        for m in _FHIR_VALUE.finditer(text, block.start("body"), block.end("body")):
            if kind != "address" and m.group("key") != "value":
                continue
            for s, e in _strings(m):
                k = "email" if kind == "phone" and "@" in text[s:e] else kind
                found.append((k, s, e))
    return found


# --- CSV under a header that names its columns
_COLUMN_KINDS = [
    ("name", re.compile(r"(?i)^(?:(?:sur|family|last|first|given|fore|middle|patient|full|pt)_?\s?)?names?$"
                        r"|^(?i:surname|given|forename|family|firstname|lastname|fname|lname|patient)$")),
    ("dob", re.compile(r"(?i)^(?:dob|d\.o\.b\.?|birth_?date|date_?of_?birth|born)$")),
    ("address", re.compile(r"(?i)^(?:post_?code|zip(?:_?code)?|addr\w*|street|city|town|suburb)$")),
    ("mrn", re.compile(r"(?i)^(?:mrn|urn?|hosp(?:ital)?_?(?:no|num(?:ber)?|id)|patient_?id|pt_?id|"
                       r"nhs(?:_?no)?|chart(?:_?no)?|record_?(?:no|id))$")),
    ("phone", re.compile(r"(?i)^(?:phone|tel|telephone|mobile|cell|contact_?(?:no|number|phone))$")),
    ("email", re.compile(r"(?i)^e-?mail$")),
    ("ssn", re.compile(r"(?i)^(?:ssn|sin|nin|national_?id)$")),
]
_CSV_CELL = re.compile(r'\s*(?:"(?P<q>[^"]*)"|(?P<p>[^,"\n]*))\s*(?:,|$)')


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out, at = [], start
    while at <= end:
        m = _CSV_CELL.match(text, at, end)
        if m is None:
            return []
        g = "q" if m.group("q") is not None else "p"
        s, e = m.span(g)
        while e > s and text[e - 1] == " ":
            e -= 1
        out.append((s, e))
        if m.end() == at or m.end() >= end:
            break
        at = m.end()
    return out


def _column_kind(name: str) -> str | None:
    name = name.strip().strip('"')
    if not name or name.isdigit():
        return None
    return next((kind for kind, rule in _COLUMN_KINDS if rule.match(name)), None)


_HEADER_WORD = re.compile(r"(?i)(?:^|[,\s\"_])(?:surname|given|forename|(?:first|last|family|full)_?\s?name|"
                          r"fname|lname|name|dob|birth\w*|post_?code|zip|addr\w*|street|mrn|urn?|hosp\w*|"
                          r"patient_?id|phone|tel|mobile|e-?mail|ssn)(?:$|[,\s\"])")


def _csv(text: str) -> list[tuple[str, int, int]]:
    if "," not in text or not _HEADER_WORD.search(text):
        return []
    lines, at = [], 0
    for line in text.split("\n"):
        lines.append((at, at + len(line)))
        at += len(line) + 1
    found: list[tuple[str, int, int]] = []
    for i, (ls, le) in enumerate(lines):
        arrow = text.find("->", ls, le)
        head_end = arrow if arrow >= 0 else le
        header = _cells(text, ls, head_end)
        kinds = [_column_kind(text[s:e]) for s, e in header]
        if len(header) < 3 or sum(k is not None for k in kinds) < 2 or any(
                not re.fullmatch(r"[\w .\"/-]{1,30}", text[s:e]) for s, e in header):
            continue
        rows = [(arrow + 2, le)] if arrow >= 0 else lines[i + 1:]
        for rs, re_ in rows:
            cells = _cells(text, rs, re_)
            if len(cells) != len(header):
                break
            found += [(k, s, e) for k, (s, e) in zip(kinds, cells, strict=True) if k and e > s]
    return found


def structured_spans(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of identifiers known by their place in an HL7 v2 segment, a FHIR-like JSON
    object or a CSV row under a naming header; they take precedence over every other recognizer.

    Example:
        >>> t = "PID|1||M004^^^H^MR||DOE^JANE||19400101|F"
        >>> [(k, t[s:e]) for k, s, e in structured_spans(t)]
        [('mrn', 'M004'), ('name', 'DOE^JANE'), ('dob', '19400101')]
    """
    found: list[tuple[str, int, int]] = []
    if "|" in text:
        found += _hl7(text)
    if '":' in text or '": ' in text:
        found += _fhir(text)
    found += _csv(text)
    return found


# --- names: quoted nicknames and non-Latin scripts
_CAP = r"[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž'’-]+"
_QUOTED_NICK = re.compile(rf"(?<![\w'’-])(?P<first>{_CAP})\s+[\"“'‘][A-Z][a-z]+[\"”'’]\s+{_CAP}"
                          rf"(?:\s+{_CAP})?(?![\w'’-])")
_SCRIPT_BEFORE_ROMAN = re.compile(rf"(?P<a>{_NL_WORD}(?:\s+{_NL_WORD}){{0,3}})\s*\(\s*(?P<b>{_CAP}"
                                  rf"(?:\s+{_CAP}){{1,3}})\s*\)")
_SCRIPT_IN_BRACKETS = re.compile(rf"\(\s*(?P<a>{_NL_WORD}(?:\s+{_NL_WORD}){{0,3}})\s*\)")


def script_names(text: str, english: frozenset[str] | set[str]) -> list[tuple[int, int]]:
    """Spans of names phi-6 missed: 'Rufus "Buddy" Tillman', "(Катя)", "Κωνσταντίνος Γεωργίου
    (Konstantinos Georgiou)". A run of non-Latin letters in brackets inside an English note is a name
    (or a place) given in its own script."""
    spans = [m.span() for m in _QUOTED_NICK.finditer(text) if m.group("first").lower() not in english]
    if re.search(f"[{_NL}]", text):
        for m in _SCRIPT_BEFORE_ROMAN.finditer(text):
            spans += [m.span("a"), m.span("b")]
        spans += [m.span("a") for m in _SCRIPT_IN_BRACKETS.finditer(text)]
    return spans


# --- addresses and national numbers as recognizer rows (kind, trigger, pattern)
_US_TAIL = r"(?:,?\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2})?,?\s+[A-Z]{2}\s+\d{5}(?:-\d{4})?(?!\d)"
_NL_STREET = r"(?:вул\.|ул\.|просп\.|пров\.|пр-т|бульв\.|Οδός|Οδ\.|Λεωφ\.|Λεωφόρος)"


def _cpf_ok(value: str) -> bool:
    d = [int(c) for c in value if c.isdigit()]
    if len(set(d)) == 1:
        return False
    for n in (9, 10):
        s = sum(x * w for x, w in zip(d[:n], range(n + 1, 1, -1), strict=True)) * 10 % 11 % 10
        if s != d[n]:
            return False
    return True


def _kennitala_ok(value: str) -> bool:
    d = [int(c) for c in value if c.isdigit()]
    r = 11 - sum(x * w for x, w in zip(d[:8], (3, 2, 7, 6, 5, 4, 3, 2), strict=True)) % 11
    dated = int(value[:2]) <= 71 and int(value[2:4]) <= 12
    return dated and (0 if r == 11 else r) == d[8] and d[9] in (0, 8, 9)


def _snils_ok(value: str) -> bool:
    d = [int(c) for c in value if c.isdigit()]
    s = sum(x * w for x, w in zip(d[:9], range(9, 0, -1), strict=True)) % 101
    return (0 if s == 100 else s) == d[9] * 10 + d[10]


def _hkid_ok(value: str) -> bool:
    v = re.sub(r"[()\s]", "", value)
    letters, digits, check = v[:-7], v[-7:-1], v[-1]
    vals = ([36] if len(letters) == 1 else []) + [ord(c) - 55 for c in letters] + [int(c) for c in digits]
    r = -sum(x * w for x, w in zip(vals, range(9, 1, -1), strict=True)) % 11
    return check == ("A" if r == 10 else str(r))


def _luhn_ok(value: str) -> bool:
    d = [int(c) for c in value if c.isdigit()][::-1]
    return sum(x if i % 2 == 0 else (2 * x - 9 if x > 4 else 2 * x) for i, x in enumerate(d)) % 10 == 0


def _sa_id_ok(value: str) -> bool:
    return int(value[2:4]) in range(1, 13) and int(value[4:6]) in range(1, 32) and _luhn_ok(value)


ROWS: list[tuple[str, str, re.Pattern[str]]] = [
    ("ssn", r"\d{3}\.\d{3}\.\d{3}-\d\d", re.compile(r"(?<![\w.-])(?P<v>\d{3}\.\d{3}\.\d{3}-\d\d)(?![\w-])")),
    ("ssn", r"\d{6}-\d{4}", re.compile(r"(?<![\w-])(?P<v>\d{6}-\d{4})(?![\w-])")),
    ("ssn", r"\d{3}-\d{3}-\d{3} \d\d", re.compile(r"(?<![\w-])(?P<v>\d{3}-\d{3}-\d{3}[ -]\d\d)(?![\w-])")),
    ("ssn", r"[A-Z]\d{6}\(?[0-9A]", re.compile(r"(?<![\w-])(?P<v>[A-Z]{1,2}\d{6}\s?\(?[0-9A]\)?)(?![\w-])")),
    ("ssn", r"\d{13}", re.compile(r"(?<![\w-])(?P<v>\d{6}[0-9]{4}[01]\d{2})(?![\w-])")),
    ("id", r"800[36]", re.compile(r"(?<![\w-])(?P<v>800[36] ?\d{4} ?\d{4} ?\d{4})(?![\w-])")),
    ("address", r"\b(?:RR|HC|Rural Route|Star Route)\s*\d",
     re.compile(rf"(?<!\w)(?P<v>(?:RR|HC|Rural Route|Star Route)\s*\d+,?\s+Box\s+\d+[A-Z]?{_US_TAIL})")),
    ("address", r"\b(?:APO|FPO|DPO)\b",
     re.compile(r"(?<!\w)(?P<v>(?:(?:Unit|PSC|CMR)\s+\d+,?\s+)?Box\s+\d+,?\s+(?:APO|FPO|DPO)\s+A[AEP]\s+\d{5})")),
    ("address", r"\bP\.?\s?O\.?\s+Box", re.compile(rf"(?<!\w)(?P<v>P\.?\s?O\.?\s+Box\s+\d+{_US_TAIL})")),
    ("address", _NL_STREET, re.compile(rf"(?P<v>{_NL_STREET}\s*[^;()\n]{{1,60}}?\d{{3}}\s?\d{{2}}(?!\d)"
                                       rf"(?:,?\s+[{_NL}][{_NL}-]+)?)")),
    # a national number after its name needs no check digit: "CPF 418.702.355-61", "HKID K441822(7)"
    ("ssn", r"CPR|CPF|HKID|SNILS|PESEL|AMKA|TAJ|kennitala|\bkt\.|\bIHI\b|\bCNS\b|EHIC|OMS|polis|hokensho",
     re.compile(r"(?<!\w)(?:CPR|CPF|HKID|SNILS|PESEL|AMKA|TAJ|kennitala|kt\.|IHI|CNS|EHIC|OMS|polis(?:\s+OMS)?|"
                r"hokensho)(?:[\s-]*(?:nr|no|number|card|#)\.?)*\s*[:#]?\s*"
                r"(?P<v>[A-Z]{0,2}\d[\d .()/-]{4,22}[\dA-Z)](?<![ .-]))(?![\w-])")),
    # the Japanese postal mark, postcode and the line in kanji and digits after it
    ("address", "〒", re.compile(rf"(?P<v>〒\s?\d{{3}}-\d{{4}}\s*[{_NL}\d０-９ー－-]+)")),
]
CHECKS = {ROWS[0][2]: _cpf_ok, ROWS[1][2]: _kennitala_ok, ROWS[2][2]: _snils_ok, ROWS[3][2]: _hkid_ok,
          ROWS[4][2]: _sa_id_ok, ROWS[5][2]: _luhn_ok}
"""Each national-number row's check digit: a value that fails it is not flagged."""

_TERMINOLOGY = re.compile(r"(?i)^(?:https?://)?(?:www\.)?(?:loinc\.org|snomed\.info|[\w.]*hl7\.org|"
                          r"unitsofmeasure\.org|[\w.-]*terminology[\w.-]*|tx\.fhir\.org|fhir\.org|"
                          r"id\.who\.int|www\.nlm\.nih\.gov|terminology\.hl7\.org)(?:[/:]|$)")


_BEFORE = {  # what stands just before a value that makes it something other than a patient's identifier
    "date": re.compile(r"(?i)\b(?:version|ver\.?|v|firmware|software|release|build|library)\s*$"),
    "id": re.compile(r"(?i)\b(?:channel|port|bay|lumen)\s+(?:[A-Z0-9]\s+)?(?:ID|no\.?|#)\s*[:#]?\s*$"),
}
_AFTER_NAME = re.compile(r"\s+(?:encephalitis|fever|virus|disease|syndrome|criteria)\b")
_NO_PERSON = re.compile(r"(?i)\b(?:no face|(?:wound|specimen|lesion|ulcer|dressing)s? only|"
                        r"not identifiable)\b")


def not_identifier(kind: str, text: str, start: int, end: int) -> bool:
    """True for a span that looks like an identifier but is not one of the patient's: a terminology
    system's URL, a Roman numeral (a pedigree's generation), a place that names a disease ("Murray Valley
    encephalitis"), a software version, a pump channel's id, a photograph the note says shows no person."""
    value = text[start:end]
    if kind == "url":
        return bool(_TERMINOLOGY.match(value))
    if kind == "name":
        return bool(re.fullmatch(r"[IVX]+", value) or _AFTER_NAME.match(text, end))
    if kind == "photo":
        return bool(_NO_PERSON.search(text, end, end + 120))
    rule = _BEFORE.get(kind)
    return rule is not None and bool(rule.search(text, max(0, start - 40), start))
