"""Pattern recognizers for the HIPAA Safe Harbor identifier kinds other than names.

Each recognizer is a regular expression whose group ``v`` is the identifying text. Most
identifiers in clinical notes come after a keyword ("MRN", "Medicare ID", "S/N", "fax"), so most
recognizers are *keyed*: a case-insensitive keyword, then a value shaped like an identifier
(capital letters and digits, at least four digits). Bare shapes are kept for the forms that are
identifiers wherever they appear (e-mail, URL, IP address, SSN, 10-digit phone, full dates,
street addresses) and tuned not to fire on the numbers clinical text is full of: doses, lab
values, blood pressures, pain scores, ratios.
"""

from __future__ import annotations

import re

# A value after a keyword: tokens of capitals/digits joined by "-", or by a space when the next
# token has a digit (never "/", which would join a date); one letters-only prefix ("KXP 4471",
# "FP-0048213"). Keyed values need at least four digits (MIN_DIGITS): "visit 2", "PT 12.5" stay out.
_VALUE = (r"(?P<v>(?:[A-Z]{1,4}[ -](?=[A-Z0-9]*\d))?[A-Za-z0-9]*\d[A-Za-z0-9]*"
          r"(?:(?:-|[ ](?=[A-Z0-9]*\d))[A-Za-z0-9]+)*)")
_SEP = r"(?i:(?:\s*(?:#|no\.|no\b|num(?:ber)?\.?|id\b|identifier|code\b))*)\s*[:#.=-]?\s*"


def _keyed_row(kind: str, keywords: str, gap: str = "") -> tuple[str, str, re.Pattern[str]]:
    """One table row: a keyword (its own trigger), words allowed after it, then an identifier value."""
    pattern = re.compile(rf"(?<![\w])(?i:{keywords})(?![A-Za-z]){gap}{_SEP}{_VALUE}(?![\w])")
    return kind, keywords.replace("(?=\\s*(?:id|#))", ""), pattern


_MONTH = (r"(?:J(?i:an(?:uary)?|une?|uly?)|F(?i:eb(?:ruary)?)|M(?i:ar(?:ch)?|ay)|A(?i:pr(?:il)?|ug(?:ust)?)|"
          r"S(?i:ep(?:t(?:ember)?)?)|O(?i:ct(?:ober)?)|N(?i:ov(?:ember)?)|D(?i:ec(?:ember)?))(?:\.(?=\s*\d))?")
_DAY = r"(?:0?[1-9]|[12]\d|3[01])"
_MON = r"(?:0?[1-9]|1[0-2])"
_YEAR = r"(?:1[89]\d\d|20\d\d)"
_DATE = (
    rf"(?:{_DAY}[/.-]{_DAY}[/.-](?:{_YEAR}|\d\d)(?![\d/])"            # 3/4/52, 14-02-24, 5.6.2023
    rf"|{_YEAR}[/.-]{_MON}[/.-]{_DAY}(?!\d)"                           # 2023-11-30
    rf"|{_DAY}(?:st|nd|rd|th)\s+of\s+{_MONTH}(?:,?\s+{_YEAR})?(?![\w])"  # the 3rd of March
    rf"|{_DAY}(?:st|nd|rd|th)?[\s-]+{_MONTH}(?:,?[\s-]+(?:{_YEAR}|\d\d))?(?![\w])"  # 03-Mar-2024
    rf"|{_MONTH}\s+{_DAY}(?:st|nd|rd|th)?(?:,?\s+{_YEAR})?(?![\w])(?!\s*(?:mg|mcg|g|ml|mL|units?|%))"
    rf"|{_MONTH},?\s+{_YEAR}\b"                                        # March 2024
    rf"|{_MON}/{_YEAR}(?![\d/]))"                                      # 8/2023
)
_DOB_CUE = r"(?i:DOB|D\.O\.B\.?|date of birth|birth ?date|born(?: on)?)"
_PHONE10 = (r"(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}|\+[2-9]\d{0,2}(?:[\s.-]?\d){7,12}"
            r"|(?<!\d)\d{10}(?!\d)")
_PHONE_SEP = r"(?:\s*(?:#|no\.?|number))?\s*[:#]?\s*"
_UNITS = r"(?:mg|mcg|µg|g|kg|ml|mL|L|units?|iu|IU|mmol|mEq|%|cells|copies)\b"
_PHONE = rf"(?P<v>{_PHONE10}|[2-9]\d{{2}}[\s.-]\d{{4}}|\d{{4,5}})(?![\w/]|[.,]\d)(?!\s*{_UNITS})"
STATES = [*re.findall(r"\w+", "Alabama Alaska Arizona Arkansas California Colorado Connecticut "
                    "Delaware Florida Georgia Hawaii Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana "
                    "Maine Maryland Massachusetts Michigan Minnesota Mississippi Missouri Montana Nebraska "
                    "Nevada Ohio Oklahoma Oregon Pennsylvania Texas Tennessee Utah Vermont Virginia "
                    "Washington Wisconsin Wyoming"),
    "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota",
    "Rhode Island", "South Carolina", "South Dakota", "West Virginia", "Puerto Rico", "District of Columbia"]
# Two-letter codes that are also common clinical abbreviations need a ZIP code after them.
_ABBR_SAFE = ("AK AZ AR CA CT FL GA IA KS KY MI MN MT NE NV NH NJ NM NY NC ND RI SC SD TN TX UT VT VA WA WV "
              "WI WY DC")
_ABBR_AMBIGUOUS = "AL CO DE HI ID IL IN LA ME MD MA MS MO OH OK OR PA PR"
_STATE = rf"(?:{'|'.join(sorted(STATES, key=len, reverse=True))}|{_ABBR_SAFE.replace(' ', '|')})"
_ANY_STATE = rf"(?:{_STATE}|{_ABBR_AMBIGUOUS.replace(' ', '|')})"
_ZIP = r"\d{5}(?:-\d{4})?"
_CITY = r"[A-Z][a-z]+(?:[ -](?:[A-Z][a-z]+|of|de|la))*"
_SUFFIX = (r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|"
           r"Terrace|Ter|Circle|Cir|Highway|Hwy|Parkway|Pkwy|Square|Sq|Trail|Trl|Loop|Row|Alley|Crescent|Close|Grove)")
_STREET = (rf"\d{{1,6}}(?:\s+(?:[NSEW]\.?|North|South|East|West))?"
           rf"(?:\s+(?:[A-Z][a-z]+|\d+(?:st|nd|rd|th))){{1,3}}\s+{_SUFFIX}\b\.?(?:,?\s+(?:Apt|Apartment|Unit|Suite|Ste|#)\.?\s*#?[A-Za-z0-9-]+)?")

# Kinds whose keyed values must carry at least this many digits.
MIN_DIGITS = {"health_plan": 4, "account": 4, "vehicle": 4, "license": 4, "device": 4, "biometric": 4,
              "mrn": 4, "id": 4}
DATE_SHAPE = re.compile(_DATE)
"""A value of this shape after a keyword ("Visit: 4/5/2024") is a date, not an account number."""

# (kind, trigger, pattern); earlier recognizers win where spans overlap. The trigger is a cheap
# necessary condition searched first (case-insensitive): most clinical text has digits but no "@",
# no identifier keyword and no ", City", so most full patterns never run.
_TABLE: list[tuple[str, str, re.Pattern[str]]] = [
    ("email", "@",
     re.compile(r"(?<![\w.+-])(?P<v>[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})")),
    ("url", r"http|www\.|\.(?:com|org|net|edu|gov|io|info|biz|us|co\.uk)\b",
     re.compile(r"(?P<v>\b(?:https?://|www\.)[^\s<>\"']+[^\s<>\"'.,;:)!?]"
                r"|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|edu|gov|io|info|biz|us|co\.uk)"
                r"(?:/[^\s<>\"']*[^\s<>\"'.,;:)!?])?)(?![\w@])", re.I)),
    ("ip", r"\d\.\d+\.\d|::|[0-9a-f]:[0-9a-f]+:",
     re.compile(r"(?<![\w.])(?P<v>(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d))"
                r"(?!\.?\d)(?!\w)"
                r"|(?<![\w:])(?P<v2>(?=[0-9A-Fa-f:]*::|(?:[0-9A-Fa-f]{1,4}:){5})(?:[0-9A-Fa-f]{0,4}:){2,7}"
                r"[0-9A-Fa-f]{1,4})(?![\w:])")),
    ("ssn", r"\d{3}[- ]\d\d[- ]\d|ss|soc",
     re.compile(r"(?<![\w-])(?P<v>(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}|\d{3} \d{2} \d{4})"
                r"(?![\w-])|(?<!\w)(?i:SSN|SS\s?#|soc(?:ial)?\.? sec(?:urity)?\.?"
                r"(?: no\.?| number| #)?)\s*[:#]?\s*"
                r"(?P<v2>\d{3}[- ]?\d{2}[- ]?\d{4}|[xX*]{3}-[xX*]{2}-\d{4}|\d{4})(?!\w)")),
    ("dob", r"dob|d\.o\.b|birth|born", re.compile(rf"(?<!\w){_DOB_CUE}\s*[:#-]?\s*(?P<v>{_DATE})")),
    ("fax", "fax", re.compile(rf"(?<!\w)(?i:fax(?:ed)?)(?:\s+[a-z]+){{0,2}}?{_PHONE_SEP}{_PHONE}")),
    ("phone", r"phone|tel|cell|mobile|pager|beeper|ext|call|reach|contact",
     re.compile(rf"(?<!\w)(?i:phone|tel|telephone|cell|mobile|pager|beeper|ext|extension"
                rf"|call(?: back)?|reach(?:ed)?(?: \w+)? at|contact)\.?{_PHONE_SEP}{_PHONE}")),
    _keyed_row("health_plan", r"medicare|medicaid|member|insurance|policy|subscriber|group|plan id|"
                 r"beneficiary|HICN|MBI|health plan"),
    _keyed_row("account", r"account|acct|billing|encounter|FIN|CSN|visit|invoice"),
    _keyed_row("vehicle", r"VIN|(?:license |licence )?plate|tag", gap=r"(?:\s+number)?"),
    _keyed_row("license", r"(?:driver'?s?\s+)?licen[cs]e|DL|certificate|cert|DEA", gap=r"(?:\s+[a-z]+)?"),
    _keyed_row("device", r"serial|S/N|SN|device|UDI|implant", gap=r"(?:\s+(?:number|no\.?))?"),
    _keyed_row("biometric", r"finger ?print|voice ?print|retina(?:l)? scan|iris scan|palm ?print|"
                 r"face ?print|biometric", gap=r"(?:\s+[a-z]+){0,2}"),
    ("photo", r"\.(?:jpe?g|png|heic|gif|bmp|tiff?|dcm)",
     re.compile(r"(?<![\w.-])(?P<v>[\w-]+\.(?i:jpe?g|png|heic|gif|bmp|tiff?|dcm))(?!\w)")),
    _keyed_row("mrn", r"MRN|MR|med(?:ical)? rec(?:ord)?s?|hosp(?:ital)?|chart|unit|patient|"
                 r"pt(?=\s*(?:id|#))|record"),
    _keyed_row("id", r"ID|passport|employee|student|badge|case|identifier|aadhaar|NHS|national insurance"),
    ("id", r"number|no\.|#", re.compile(rf"(?<!\w)(?i:number|no\.|#)\s*[:=]?\s*{_VALUE}(?![\w])")),
    ("phone", r"\d{3}", re.compile(rf"(?<![\w/.,-])(?P<v>{_PHONE10}|[2-9]\d{{2}}[-.]\d{{4}})(?![\w/]|[.,-]\d)"
                                   rf"(?!\s*{_UNITS})")),
    ("date", r"\d", re.compile(rf"(?<![\w/.-])(?P<v>{_DATE})")),
    ("date", r"\d/\d", re.compile(rf"(?<!\w)(?i:on|since|from|until|dated?|seen|admitted|discharged|DOS|"
                                   rf"started|began)\s+(?P<v>{_MON}/{_DAY})(?![\d/])")),
    ("age", r"\d\d", re.compile(r"(?<![\w.])(?P<v>9\d|1[01]\d)"
                                r"(?:\s*-?\s*(?:y/o|y\.o\.?|yo|yrs?|years?|year-old|yr-old)(?:[\s-]old)?)"
                                r"(?![a-z])(?!\s+(?:ago|of|later|prior|since|before))")),
    ("age", r"\d ?[MF]\b",  # "93M", at the start or after "a", "is", "Pt", ": " (not "T 101F")
     re.compile(r"(?:^|(?<=\ba )|(?<=\bis )|(?<=\bPt )|(?<=: ))(?P<v>9\d|1[01]\d)\s?[MF]\b")),
    ("age", "age", re.compile(r"(?<!\w)(?i:age[ds]?)\s*[:=]?\s*(?P<v>9\d|1[01]\d)\b"
                              r"(?!\s*(?:days?|d|weeks?|wks?|months?|mos?|%|mg|kg)\b)")),
    ("address", r"\d", re.compile(rf"(?P<v>\b{_STREET}(?:,\s+{_CITY},\s+{_ANY_STATE}\b(?:\s+{_ZIP})?)?"
                                  r"|\bP\.?\s?O\.?\s+Box\s+\d+\b)")),
    ("address", r",\s+[A-Z]",
     re.compile(rf"(?P<v>\b{_CITY},\s+(?:{_STATE}\b(?:\s+{_ZIP})?|{_ANY_STATE}\s+{_ZIP}))(?!\w)")),
    ("address", "zip|postal", re.compile(r"(?<!\w)(?i:zip(?: code)?|postal code)(?:\s+is)?\s*[:#]?\s*"
                                         r"(?P<v>\d{5}(?:-\d{4})?)\b")),
    ("address", "county|parish", re.compile(r"(?P<v>\b[A-Z][a-z]+(?: [A-Z][a-z]+)? (?:County|Parish))\b")),
    ("address", "live|resid|moved|relocated|home",
     re.compile(rf"(?<!\w)(?i:lives|living|resides|residing|resident|moved|relocated|home)\s+"
                rf"(?i:in|to|at|near|of)\s+(?P<v>(?!(?:{_STATE})\b){_CITY})")),
    ("mrn", r"\d{8}",
     re.compile(r"(?<![\d.,/-])(?P<v>\d{8,12})(?![\d.,/]|\s*(?:mg|mcg|µg|g|ml|units?|iu)\b)", re.I)),
]
RECOGNIZERS: list[tuple[str, re.Pattern[str]]] = [(kind, pattern) for kind, _, pattern in _TABLE]
"""(kind, pattern) in priority order; group ``v`` (or ``v2``) is the identifying text."""
TRIGGERS: list[re.Pattern[str]] = [re.compile(trigger, re.I) for _, trigger, _ in _TABLE]
"""For each recognizer, a cheap pattern that must occur in the text before the full one is tried."""
