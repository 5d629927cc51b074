"""Recognizers added in rules phi-6 (issue 35 item 5): addresses as other countries write them, and
identifiers that notes give in prose.

- addresses: Spanish street lines ("C/ de la Reina 7, 3º A, 28004 Madrid"), German and Dutch compound
  street names with a floor and a postcode ("Birkenweg 3a, 1. OG rechts, 80331 München",
  "Populierlaan 12 bis, 2511 AB Den Haag"), Korean road names ("-ro", "-gil", a "-ho" unit, a "-gu"
  district), Filipino block-and-lot lines and barangays, Indian house numbers ("H.No.", "Door No.") and
  six-digit PIN codes after a state, Gulf villa-and-street lines, Irish street lines before an Eircode,
  a flat before a named building;
- identifiers in prose: trial subjects and screening numbers, incidents, claims, pathology accession
  numbers ("S24-01234"), hospital ids (UHID, NHC), biometric templates, professional registrations
  (PIN, NMC, GMC, AHPRA, NPI), European health-insurance numbers, and a VIN by its check digit;
- ages after "he's" / "she is"; schools named by their kind without "School" ("at St Brigid's Primary");
  employers after "works ... at".

Each row is (kind, trigger, pattern) as in ``recognizers._TABLE``; keyed rows (keyword + value) are built
there, with ``PROSE_KEYS``, so that they keep the minimum of digits.
"""

from __future__ import annotations

import re

_PLACE_WORD = r"[A-ZÀ-ÞĀ-Ž][\wÀ-ÿĀ-ž'’.-]*"
_PLACE = rf"{_PLACE_WORD}(?:\s+(?:de|del|la|las|los|na|an|im|am|upon|sur|di|{_PLACE_WORD})){{0,3}}"
_INDIAN_STATES = (r"(?:Andhra Pradesh|Arunachal Pradesh|Assam|Bihar|Chhattisgarh|Goa|Gujarat|Haryana|"
                  r"Himachal Pradesh|Jharkhand|Karnataka|Kerala|Madhya Pradesh|Maharashtra|Manipur|Meghalaya|"
                  r"Mizoram|Nagaland|Odisha|Orissa|Punjab|Rajasthan|Sikkim|Tamil Nadu|Telangana|Tripura|"
                  r"Uttar Pradesh|Uttarakhand|West Bengal|Delhi|Puducherry|Chandigarh|"
                  r"Jammu and Kashmir|Ladakh)")
_EIRCODE = r"[AC-FHKNPRTV-Y]\d[0-9W] ?(?=[A-Z0-9]*[A-Z])(?=[A-Z0-9]*\d)[AC-FHKNPRTV-Y0-9]{4}"
_GERMANIC_STREET = (r"(?:straße|strasse|str\.|weg|gasse|platz|allee|laan|straat|gracht|plein|kade|dijk|"
                    r"singel|steeg|damm|ufer|pad|hof|gade|vej|gatan|vägen|veien|gata)")
_VIN_VALUES = {**{str(d): d for d in range(10)}, **dict(zip("ABCDEFGH", range(1, 9), strict=True)),
               **dict(zip("JKLMN", range(1, 6), strict=True)), "P": 7, "R": 9,
               **dict(zip("STUVWXYZ", range(2, 10), strict=True))}
_VIN_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)


def vin_ok(value: str) -> bool:
    """A North American VIN's ninth character is its check digit (weighted sum mod 11, X for 10)."""
    total = sum(_VIN_VALUES[c] * w for c, w in zip(value, _VIN_WEIGHTS, strict=True))
    return "0123456789X"[total % 11] == value[8]


ADDRESS_ROWS: list[tuple[str, str, re.Pattern[str]]] = [
    # Spanish, Portuguese, Italian, Polish and Latin American street lines: "C/ del Olmo 4, 2º B, 28012
    # Madrid", "Via Verdi 3, int. 2, 10121 Torino", "ul. Polna 8 m. 4, 00-625 Warszawa", "Cra. 7 # 12-40"
    ("address", r"C/|calle|avda|\bav\.|avenida|paseo|ctra|carrer|r[uú]a\b|\bvia\b|viale|piazza|corso|largo|"
                r"vicolo|travessa|pra[çc]a|\bul\.|\bal\.|carrera|\bcra\b|diagonal|transversal",
     re.compile(rf"(?P<v>(?<![\w/])(?:C/|Calle|Avda\.?|Av\.|Avenida|Paseo|Ctra\.?|Carrer|R[uú]a|Via|Viale|Piazza|"
                r"Corso|Largo|Vicolo|Travessa|Pra[çc]a|ul\.|al\.|Carrera|Cra\.?|Diagonal|Transversal)"
                r"\s*(?:(?:de|del|della|di|la|las|los|el|das|dos|do|da|d['’])\s+)*"
                rf"(?:[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž][\wÀ-ÿĀ-ž'’.-]*|\d{{1,3}}[A-Z]?)(?:\s+(?!No\.)(?:de|del|della|di|la|las|los|das|dos|do|da|{_PLACE_WORD})){{0,4}}"
                r"(?:\s*(?:#|No\.?|N[º°])\s*\d{1,3}[A-Z]?-\d{1,3}|,?\s+(?:n[º°o]\.?\s*|No\.?\s*)?\d{1,4}[A-Za-z]?(?:/\d{1,4})?"
                r"(?:\s*(?:#|No\.?|N[º°])\s*\d{1,3}[A-Z]?-\d{1,3})?)"
                r"(?:,?\s*(?:\d{1,2}\s*[º°ª](?:\s*(?:[A-Z]\b|izq(?:da|uierda)?\.?|dcha\.?|derecha|ctro\.?|centro|"
                r"esq\.?|dto\.?|dt\.?))?|bajo|[áa]tico|esc\.?\s*\w+|pta\.?\s*\w+|puerta\s+\w+|int\.\s*\w+|scala\s+\w+|"
                r"piano\s+\w+|m\.\s*\d+|lok\.\s*\d+|(?:Esq|Dto|Dt)\.?)){0,3}"
                rf"(?:,\s+(?:Col\.|Colonia|Bairro|Barrio|Fracc\.)\s+{_PLACE})?"
                rf"(?:,\s+(?:\d{{5}}|\d{{4}}-\d{{3}}|\d{{2}}-\d{{3}}|\d{{4}})\s+{_PLACE}|,\s+{_PLACE}(?=\s*(?:[.;]|$)))?)")),
    # Malaysian, Thai, Vietnamese and Hong Kong lines: "Jalan Mawar 5, 43000 Kajang", "45 Moo 2, Tambon ...",
    # "Phường 4, Quận 10", "Flat 8, 21/F, Block C, ..."
    ("address", r"jalan|\bjln\b|lorong|persiaran|taman|\bmoo\b|\bsoi\b|tambon|ph[uư][oờ]ng|qu[aậ]n|huy[eệ]n|"
                r"/F\b",
     re.compile(rf"(?P<v>(?:(?:No\.?\s*\d+\w*,\s+)?(?:(?:Taman|Kampung|Kg\.)\s+{_PLACE},\s+)?(?:Jalan|Jln\.?|Lorong|"
                r"Persiaran|Lebuh)\s+[A-Z][\w/]*(?:\s+(?:[A-Z][\w/]*|\d[\w/]*)){0,3}"
                rf"|\d{{1,4}}(?:/\d{{1,4}})?\s+(?:Moo|Soi)\s+\d+\w*(?:,\s+(?:Soi|Tambon|Amphoe|Khet|Khwaeng)\s+{_PLACE})*"
                r"|(?:Số\s+\d+[\w/]*,?\s+)?(?:(?:Phường|P\.|Quận|Q\.|Huyện|Xã|Đường|Thôn|Ấp)\s+[\wÀ-ỹ]+(?:\s+[\wÀ-ỹ]+){0,2},\s+)+"
                r"(?:TP\.?|Thành phố|Tỉnh)?\s*[\wÀ-ỹ]+(?:\s+[A-ZÀ-Ỹ][\wÀ-ỹ]*){0,3}"
                rf"|(?:Room|Rm|Flat|Unit)\s+\w*\d\w*,\s+\d{{1,2}}/F(?:,\s+(?:Block|Tower|Blk)\s+\w+)?)"
                rf"(?:,\s+{_PLACE}){{0,3}}(?:,?\s+\d{{5}}(?:\s+{_PLACE})?)?(?:,\s+{_PLACE})?)")),
    # a numbered plot or house before a named street: "Plot 12, Mbuya Road, Kampala", "No. 4, Ola St, Ikeja"
    ("address", r"\b(?:plot|no\.?|house|stand|erf)\s+\d",
     re.compile(rf"(?P<v>(?<!\w)(?:Plot|No\.?|House|Stand|Erf)\s+\d+\w*,\s+(?:{_PLACE_WORD}\s+){{1,3}}"
                r"(?:Street|St|Road|Rd|Avenue|Ave|Close|Crescent|Lane|Drive|Way|Estate|Layout)\b\.?"
                rf"(?:,\s+{_PLACE}){{0,3}})")),
    # German and Dutch: a compound street name, a number, a floor, a postcode and the town
    ("address", _GERMANIC_STREET + r"\s+\d",
     re.compile(rf"(?P<v>(?<![\w-])[A-ZÀ-Þ][a-zß-ÿ]*{_GERMANIC_STREET}\s+\d{{1,4}}\s?[a-z]?(?![\w/])"
                r"(?:\s+(?:bis|ter|hs|huis|[A-Z])\b)?(?:-\d{1,4})?"
                r"(?:,\s+\d{1,2}\.\s*(?:OG|Stock|Etage|Obergeschoss|EG|verdieping|tv|th|mf|sal)(?:\s+(?:links|rechts|Mitte))?)?"
                rf"(?:,\s+(?:\d{{5}}|\d{{4}}\s?[A-Z]{{2}}|\d{{3}}\s\d\d|\d{{4}})\s+{_PLACE}(?:\s+[A-Z]\b)?)?)")),
    # Korean road names: "503-ho, 21 Sinchon-ro 7-gil, Mapo-gu, Seoul 04001"
    ("address", r"-(?:ro|gil|daero|gu|dong)\b",
     re.compile(rf"(?P<v>(?:\d{{1,4}}-ho,?\s+)?(?:\d{{1,4}}(?:-\d{{1,4}})?\s+)?{_PLACE_WORD}-(?:ro|gil|daero)"
                r"(?:\s+\d{1,4}(?:beon)?-gil)?(?:\s+\d{1,4}(?:-\d{1,4})?)?"
                rf"(?:,\s+{_PLACE_WORD}-(?:gu|si|gun|dong|eup|myeon|ri))*(?:,\s+{_PLACE})?(?:\s+\d{{5}})?)")),
    # Filipino: "Blk 3 Lot 9, Phase 1, Villa Rosa, Brgy. Malinta, Valenzuela City 1440"
    ("address", r"\bblk\b|\bblock\s+\d+\w*\s+lot\b|brgy|barangay|purok",
     re.compile(rf"(?P<v>(?:(?:Blk|Block)\s+\d+\w*\s+Lot\s+\d+\w*|(?:Brgy\.?|Barangay|Purok)\s+(?:\d+\w*|{_PLACE}))"
                rf"(?:,\s+(?:Phase\s+\d+\w*|Purok\s+\d+\w*|Sitio\s+{_PLACE}|(?:Brgy\.?|Barangay)\s+{_PLACE}|{_PLACE})){{0,5}}"
                r"(?:\s+\d{4})?)")),
    # Indian: "H.No. 4-1-88/A, Gandhi Nagar, Secunderabad 500003", "Door No. 12", "Pune - 411001"
    ("address", r"\b(?:h|house|door|plot|flat|d)\.?\s?no\b",
     re.compile(rf"(?P<v>(?<!\w)(?:H\.?\s?No|House\s+No|Door\s+No|Plot\s+No|Flat\s+No|D\.?\s?No)\.?\s*[:.]?\s*"
                rf"(?:\w*\d\w*[/-][\w/-]+(?:,\s+{_PLACE}){{0,5}}|\w*\d\w*(?:,\s+{_PLACE}){{1,5}})(?:\s*[-,]?\s*[1-9]\d{{2}}\s?\d{{3}}\b)?)")),
    ("address", _INDIAN_STATES + r"|\s-\s+[1-9]\d{5}",  # the trigger: a state's name, or " - 500038"
     re.compile(rf"(?P<v>(?:{_PLACE},\s+)?{_INDIAN_STATES}\s*[-,]?\s+[1-9]\d{{2}}\s?\d{{3}}\b(?!\s+[a-z])"
                rf"|{_PLACE_WORD}\s+-\s+[1-9]\d{{5}}\b)")),
    # Gulf: "Villa 14, Street 7, Al Safa 1, Dubai"
    ("address", r"(?:street|road|way|block)\s+\d",
     re.compile(rf"(?P<v>(?:Villa|Flat|Apartment|Apt\.?|Building|Bldg\.?|House)\s+\d+\w*,\s+(?:Street|Road|Way|Block)"
                rf"\s+\d+\w*(?:,\s+{_PLACE}(?:\s+\d{{1,2}})?){{1,3}})")),
    # Irish: the street line and the townland before an Eircode ("8 Bóthar na Trá, Salthill, Galway H91 ...")
    ("address", r"\b[AC-FHKNPRTV-Y]\d[0-9W] ?[AC-FHKNPRTV-Y0-9]{4}\b",
     re.compile(rf"(?P<v>\d{{1,4}}[A-Za-z]?\s+{_PLACE_WORD}(?:\s+(?:na|an|de|le|of|the|{_PLACE_WORD})){{0,3}}"
                rf"(?:,\s+{_PLACE}){{0,3}},?\s+{_EIRCODE})\b")),
    # a flat before a named building and its street: "Flat 3, Alder House, 12 ..."
    ("address", r"flat|apt|apartment|unit|suite",
     re.compile(rf"(?P<v>(?:Flat|Apt\.?|Apartment|Unit|Suite)\s+\d+[A-Za-z]?,\s+{_PLACE_WORD}(?:\s+{_PLACE_WORD}){{0,3}}"
                r"\s+(?:Court|House|Lodge|Mansions|Towers|Apartments|Flats|Building|Residences?|Heights))(?=,\s+\d)")),
]
"""Address rows, tried before the general ones so that a whole foreign address is one span."""

_CARE_PLACES = frozenset(str.split("""
dialysis endoscopy imaging outpatients outpatient triage rehab rehabilitation hospice theatres recovery resus
pharmacy pathology histology cytology haematology hematology neonatal nicu picu scbu obstetrics gynaecology
casualty admissions reception transport retrieval base district regional rural metro
gastro neuro cardio ortho stepdown step-down medicine surgery general mater private public children's
women's acute primary community care practice
"""))


def town_ok(value: str) -> bool:
    """A town after "transferred from", "travel from": not an English word, a ward, a service or a country."""
    from evaluator.phi.names import _ROLE_WORDS
    from evaluator.phi.places import _COUNTRY, STATES
    from evaluator.phi.shorthand import english_words

    words = [w.lower() for w in value.split()]
    return not (any(w in english_words() or w in _ROLE_WORDS or w in _CARE_PLACES for w in words)
                or any(w.endswith(("ology", "oscopy", "iatry", "ics", "surgery")) for w in words)
                or re.match(_COUNTRY, value) or value in STATES)


TOWN_ROWS: list[tuple[str, str, re.Pattern[str]]] = [
    # a town named alone after a journey or a transfer: "retrieved from Gunnedah", "the drive from Taree"
    ("address", r"\bfrom\s+[A-Z]|\b(?:alone|GP|practice|farm|based|settled|retired)\s+(?:in|at|near)\s",
     _TOWN := re.compile(r"(?<!\w)(?i:transfer\w*|referr\w*|retriev\w*|travel\w*|drive|drove|driven|flown|"
                         r"flew|came|coming|moved|relocated|evacuated|commut\w*|journey)\b[^.;]{0,40}?\bfrom\s+"
                         r"(?P<v>[A-Z][a-z]+(?:[A-Z][a-z]+)?(?:\s+[A-Z][a-z]+)?)"
                         r"(?=\s*[,.;:)]|\s*$|\s+(?:and|to|for|with|by|on|after|today|yesterday|last|this)\b)"
                         r"|(?<!\w)(?i:alone|GP|practice|farm|based|settled|retired)\s+(?i:in|at|near)\s+"
                         r"(?P<v2>[A-ZĀ-Ž][a-zā-ž]+(?:[A-Z][a-z]+)?(?:\s+[A-Z][a-z]+)?)"
                         r"(?=\s*[,.;:)]|\s*$|\s+(?:and|since|for|with|by|on|after|faxed|sent|rang|called)\b)")),
]
"""A town alone, after a word for a journey; checked by ``town_ok``."""

PROSE_KEYS = {
    "id": r"subject|participant|screen(?:ing)?\s+fail(?:ure)?|randomi[sz]ation|incident|datix|event|coroner|"
          r"complaint|claim|ITIN|green\s+card|alien\s+(?:no|number|registration)|A-number|CURP|c[ée]dula|CPF|"
          r"personnummer|personal\s+(?:id|identity)\s+(?:no|number)|PESEL|NRIC|MyKad|HKID|Steuer-?ID|"
          r"Emirates\s+ID|national\s+(?:id|identity)(?:\s+card)?",
    "mrn": r"UHID|NHC|UHN|IP\s?no|hospital\s+ID",
    "license": r"NMC|GMC|AHPRA|NPI|HCPC|registration\s+number",
    "health_plan": r"DVA|(?:gold|white|concession|pension|health\s?care)\s+card|"
                   r"Versichertennummer|Versicherungsnummer|KVNR|Krankenversicherung|BSN|burgerservicenummer|"
                   r"PhilHealth|NHIF|Medi-?Cal",
}
"""Keywords before an identifier in prose ("subject 014-0032", "claim CLM 0094 ..."), by kind."""

LATE_ROWS: list[tuple[str, str, re.Pattern[str]]] = [
    # a pathology accession: letters, a two-digit year, a number ("S24-01234", "H26-0042-B")
    ("id", r"\b[A-Z]{1,3}\d\d-\d{4}",
     re.compile(r"(?<![\w/-])(?!CD|IL|HLA|HPV|CA\d)(?P<v>[A-Z]{1,3}\d\d-\d{4,6}(?:-[A-Z0-9]{1,3})?)(?![\w/-])"
                r"(?!\s*(?:cells|counts?|copies|units|/))")),
    # a biometric template's id ("template VPX-0a9f31c2"), and a UK nurse's NMC PIN ("PIN 12A3456B")
    ("biometric", r"template|hash|iris\s+code|face\s*id|vein",
     re.compile(r"(?<!\w)(?i:template|hash|iris\s+code|face\s*id|(?:palm|finger)\s+vein\s+(?:id|scan))(?:\s+(?i:id|no\.?|number|ref))?\s*[:#]?\s*"
                r"(?P<v>(?:[A-Z]{2,5}-)?(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,})(?![\w-])")),
    ("license", r"\bPIN\b", re.compile(r"(?<!\w)PIN\s*[:#]?\s*(?P<v>\d\d[A-Z]\d{4}[A-Z])(?!\w)")),
    # a vehicle identification number, by its check digit
    ("vehicle", r"\b[A-HJ-NPR-Z0-9]{17}\b",
     _VIN := re.compile(r"(?<![\w-])(?P<v>(?=[A-HJ-NPR-Z0-9]*[A-Z])[A-HJ-NPR-Z0-9]{17})(?![\w-])")),
    # an age after a pronoun: "she's 94 now", "he is 101"
    ("age", r"\b(?:he|she|they|who)(?:['’]s|\s+is|['’]re)\s+\d",
     re.compile(r"(?<!\w)(?i:he['’]s|she['’]s|he\s+is|she\s+is|they['’]re|who['’]s|who\s+is)\s+"
                r"(?P<v>9\d|1[01]\d)(?![\w.,%/-])(?!\s*(?:%|percent|mg|kg|mm|cm|bpm|minutes|mins|hours|days|weeks|"
                r"kilos|pounds|lbs?|times|on|out|over|of)\b)")),
    # a school named by its kind, after "at": "the school nurse at St Brigid's Primary"
    ("name", r"\bat\s.*(?:primary|secondary|grammar|elementary|intermediate|montessori)",
     re.compile(r"(?<=\bat\s)(?:the\s+)?(?P<v>(?:St\.?|[A-Z][\w'’-]*)(?:\s+(?:St\.?|[A-Z][\w'’-]*)){0,4}\s+"
                r"(?:Primary|Secondary|Grammar|Elementary|Intermediate|Montessori))\b(?!\s+[A-Z])")),
    # an employer after "works ... at": "works night shifts at Harbour Foods"
    ("name", r"\bwork(?:s|ed|ing)?\s",
     re.compile(r"(?<!\w)(?i:works?|worked|working)(?:\s+[a-z-]+){1,3}?\s+(?i:at|for)\s+(?:the\s+)?"
                r"(?P<v>(?!(?:Home|Night|Pain|Nights|Days|Me|Us|Him|Her|Them|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b)"
                r"[A-Z][\w'’-]*[\w](?:\s+(?:&|and|of|[A-Z][\w'’-]*[\w])){0,3}(?<![\s&])(?<!\band)(?<!\bof))")),
    # a handle on a messaging or social app: "Skype lani.k.84", "IG @mereana.t"
    ("id", r"skype|instagram|insta\b|\bIG\b|twitter|tiktok|snapchat|\bsnap\b|facebook|\bfb\b|telegram|"
           r"handle|username",
     re.compile(r"(?<!\w)(?:(?i:skype|instagram|insta|twitter|tiktok|snapchat|snap|facebook|fb|telegram|discord|"
                r"user\s?name)|IG)(?:\s+(?i:handle|name|id|account))?\s*[:=]?\s*"
                r"(?P<v>(?=@|[\w.]*[\d.@_])@?[A-Za-z0-9][\w.]{2,30}[A-Za-z0-9])(?![\w@])"
                r"|(?<!\w)(?i:handle)\s*[:=]?\s*(?P<v2>(?=@|[\w.]*[\d.@_])@?[A-Za-z0-9][\w.]{2,30}[A-Za-z0-9])(?![\w@])")),
    # a ZIP code named as an area: "lives in the 03755 area"
    ("address", r"\d{5}(?:-\d{4})?\s+(?:area|zip|postcode)",
     re.compile(r"(?<![\w-])(?P<v>\d{5}(?:-\d{4})?)\s+(?i:area|zip(?:\s+code)?|postcode)\b")),
    # an age beside a word for it: "nonagenarian (93)", "centenarian, 101 last month"
    ("age", r"nonagenarian|centenarian",
     re.compile(r"(?i:nonagenarian|centenarian)\W{1,3}(?P<v>9\d|1[01]\d)(?![\w.%])")),
    # an employer with a legal form after a verb of work: "drives for Tui Couriers Ltd"
    ("name", r"\b(?:drive|driving|drove|deliver|clean|labour|contract|serve|truck)\w*\s+(?:for|at)\b",
     re.compile(r"(?<!\w)(?i:drives|drove|driving|delivers|delivering|cleans|cleaning|labours|contracts|serves|trucks)"
                r"\s+(?i:for|at)\s+(?:the\s+)?(?P<v>[A-Z][\w'’-]*(?:\s+(?:&|and|[A-Z][\w'’-]*)){0,3}\s+"
                r"(?:Ltd\.?|Limited|Pty\s+Ltd|Inc\.?|LLC|GmbH|PLC|plc|Co\.|Corp\.?))(?![\w/])")),
]
"""Rows tried after the keyed ones (a keyed record number wins its span)."""

CHECKS = {_VIN: vin_ok, _TOWN: town_ok}
