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

from evaluator.phi.abroad import ADDRESS_ROWS, PROSE_KEYS, TOWN_ROWS
from evaluator.phi.abroad import LATE_ROWS as PROSE_ROWS
from evaluator.phi.local_forms import ROWS as LOCAL_ROWS
from evaluator.phi.places import _COUNTRY, STATES
from evaluator.phi.shapes import COMPANY_SUFFIXES, LATE_ROWS, ROWS, STREET_SUFFIXES
from evaluator.phi.structured import ROWS as STRUCTURED_ROWS

# A value after a keyword: tokens of capitals/digits joined by "-", or by a space when the next
# token has a digit (never "/", which would join a date); one letters-only prefix ("KXP 4471",
# "FP-0048213"). Keyed values need at least four digits (MIN_DIGITS): "visit 2", "PT 12.5" stay out.
_VALUE = (r"(?P<v>(?:[A-Z]{1,4}[ /-](?=[A-Z0-9/-]*\d)){0,2}[A-Za-z0-9]*\d[A-Za-z0-9]*"
          r"(?:(?:-|/(?=\w)|[ ](?=[A-Z0-9]*\d))[A-Za-z0-9]+)*)")
_SEP = (r"(?i:(?:\s*(?:#|no\.|no\b|num(?:ber)?\.?|id\b|identifier|code\b)(?:\s+(?:is|was|reads))?)*)"
        r"\s*[:#.=-]?\s*")


def _keyed_row(kind: str, keywords: str, gap: str = "") -> tuple[str, str, re.Pattern[str]]:
    """One table row: a keyword (its own trigger), words allowed after it, then an identifier value."""
    pattern = re.compile(rf"(?<![\w])(?i:{keywords})(?![A-Za-z]){gap}{_SEP}{_VALUE}(?![\w])")
    return kind, keywords.replace("(?=\\s*(?:id|#))", ""), pattern


_MONTH = (r"(?:J(?i:an(?:uary)?|une?|uly?)|F(?i:eb(?:ruary)?)|M(?i:ar(?:ch)?|ay)|A(?i:pr(?:il)?|ug(?:ust)?)|"
          r"S(?i:ep(?:t(?:ember)?)?)|O(?i:ct(?:ober)?)|N(?i:ov(?:ember)?)|D(?i:ec(?:ember)?))(?:\.(?=\s*\d))?")
_DAY = r"(?:0?[1-9]|[12]\d|3[01])"
_MON = r"(?:0?[1-9]|1[0-2])"
_YEAR = r"(?:1[89]\d\d|20\d\d)"
_WEEKDAY = r"(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs?)?|Fri|Sat(?:ur)?|Sun)(?:day)?\.?"
_DATE = (
    rf"(?:{_DAY}{_MONTH}(?:{_YEAR}|\d\d)(?![\w])"                       # 03MAR2024
    rf"|{_WEEKDAY}\s+(?:the\s+)?{_DAY}(?:st|nd|rd|th)(?![\w])"           # Tuesday 14th
    rf"|{_DAY}[/.-]{_DAY}[/.-](?:{_YEAR}|\d\d)(?![\d/])"            # 3/4/52, 14-02-24, 5.6.2023
    rf"|{_YEAR}[/.-]{_MON}[/.-]{_DAY}(?:T\d\d:\d\d(?::\d\d)?)?(?!\d)"   # 2023-11-30, 2023-11-30T14:22
    rf"|{_DAY}(?:st|nd|rd|th)\s+of\s+{_MONTH}(?:,?\s+{_YEAR})?(?![\w])"  # the 3rd of March
    rf"|{_DAY}(?:st|nd|rd|th)?[\s-]+{_MONTH}(?:,?[\s-]+(?:{_YEAR}|\d\d))?(?![\w])"  # 03-Mar-2024
    rf"|{_MONTH}(?:\s+|-(?=\d))({_DAY})(?:st|nd|rd|th)?(?:,?\s+{_YEAR})?(?![\w])(?!\s*(?:mg|mcg|g|ml|mL|units?|%))"
    rf"|(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)[a-z]*\.?\s+{_DAY}(?:(?:st|nd|rd|th)(?:,?\s+{_YEAR})?|,?\s+{_YEAR})(?![\w])"
    rf"|{_DAY}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:january|february|march|april|may|june|july|august|september|"
    rf"october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec),?\s+{_YEAR}(?![\w])"
    rf"|{_MONTH},?\s+{_YEAR}\b"                                        # March 2024
    rf"|{_MON}/{_YEAR}(?![\d/]))"                                      # 8/2023
)
_DOB_CUE = r"(?i:DOB|D\.O\.B\.?|date of birth|birth ?date|born(?: on)?)"
_PHONE10 = (r"(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}|\+[2-9]\d{0,2}(?:[\s.-]?\d){7,12}"
            r"|(?<!\d)\d{10}(?!\d)")
_AGE_WORDS = (r"(?i:ninety(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?|(?:a|one)\s+hundred"
              r"(?:\s+and\s+(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve))?)")
_PHONE_SEP = r"(?:\s*(?:#|no\.?|number))?\s*[:#]?\s*"
_UNITS = r"(?:mg|mcg|µg|g|kg|ml|mL|L|units?|iu|IU|mmol|mEq|%|cells|copies)\b"
_PHONE = rf"(?P<v>{_PHONE10}|[2-9]\d{{2}}[\s.-]\d{{4}}|\d{{4,5}})(?![\w/]|[.,]\d)(?!\s*{_UNITS})"
# Two-letter codes that are also common clinical abbreviations need a ZIP code after them.
_ABBR_SAFE = ("AK AZ AR CA CT FL GA IA KS KY MI MN MT NE NV NH NJ NM NY NC ND RI SC SD TN TX UT VT VA WA WV "
              "WI WY DC")
_ABBR_AMBIGUOUS = "AL CO DE HI ID IL IN LA ME MD MA MS MO OH OK OR PA PR"
_STATE = rf"(?:{'|'.join(sorted(STATES, key=len, reverse=True))}|{_ABBR_SAFE.replace(' ', '|')})"
_ANY_STATE = rf"(?:{_STATE}|{_ABBR_AMBIGUOUS.replace(' ', '|')})"
_ZIP = r"\d{5}(?:-\d{4})?"
_CITY = (r"[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+(?:[A-Z][a-z]+)?"
         r"(?:[ -](?:[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+|of|de|la|sur|sous|en|lès|les|du|des|upon))*")
_AU_STATE = r"(?:NSW|VIC|QLD|TAS|ACT|NT|SA|WA)"
_CA_PROVINCE = r"(?:ON|QC|BC|AB|MB|SK|NS|NB|NL|PE|YT|NU)"
_CA_POSTCODE = r"[ABCEGHJ-NPRSTVXY]\d[A-Z] ?\d[A-Z]\d"
_UNIT_AFTER = r"(?:,?\s+(?i:apt|apartment|unit|suite|ste|flat|#)\.?\s*#?[A-Za-z0-9-]*\d[A-Za-z0-9-]*)"
# Japanese (chōme-banchi-gō, a ward, a 7-digit postcode) and Singapore (block, street number, #floor-unit)
_ASIA_ADDRESS = (r"(?:\b\d{1,2}-\d{1,3}(?:-\d{1,3})?\s+[A-Z][\w-]+,\s+[A-Z][\w-]+-(?:ku|shi|cho|machi|gun)"
                 r"(?:,\s+[A-Z][a-z]+)?(?:\s+\d{3}-\d{4})?"
                 r"|\b(?:Block|Blk)\s+\d+[A-Z]?\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|Avenue|Ave|Road|Rd|Drive|Crescent)"
                 r"(?:\s+\d{1,3})?(?:,\s+#\d{2}-\d{2,4})?(?:,\s+Singapore\s+\d{6})?"
                 r"|\b\d+[A-Z]?\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|Avenue|Road|Drive|Crescent)\s+\d{1,3}"
                 r",\s+#\d{2}-\d{2,4}(?:,\s+Singapore\s+\d{6})?)")
_SUFFIX = (r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|"
           r"Ter|Circle|Cir|Highway|Hwy|Parkway|Pkwy|Square|Sq|Trail|Trl|Loop|Row|Alley|Grove|"
           rf"{STREET_SUFFIXES})")
_UNIT_BEFORE = (r"(?:(?i:flat|apartment|apt|unit|suite|ste)\.?\s+[A-Z]?\d+[A-Za-z]?(?:,\s+|\s+(?=\d)|/(?=\d))"
                r"|(?:Bât(?:iment)?\.?|Bldg\.?|Building|Block|Blk|Escalier|Esc\.)\s+[A-Z0-9]\w*,\s+"
                r"|(?:[A-Z][\w'’-]+\s+){1,3}(?:Lodge|House|Towers|Apartments|Flats|Mansions|Hostel|Motel|Residence|"
                r"Manor|Court|Gardens|Living|Home|Village|Estate|Centre|Center|Plaza|Tower),\s+(?=\d))")
# French and Québec street lines: "45 rue Saint-Urbain", "4 allée des Cerisiers"; a floor after them
_FR_STREET = (r"\d{1,4}(?:\s+(?:bis|ter))?,?\s+(?i:rue|avenue|av\.|boulevard|bd|chemin|allée|place|impasse|"
              r"quai|route|cours|rang|montée|côte)\s+(?:(?:de|des|du|la|le|d['’])\s*)*[A-ZÀ-Þ][\wÀ-ÿ'’-]*"
              r"(?:\s+(?:(?:de|des|du|la|le)\s+)?[A-ZÀ-Þ][\wÀ-ÿ'’-]*){0,2}(?:,\s+\d+(?:e|er|ème|è)\s+étage)?")
_STREET = (rf"{_UNIT_BEFORE}?(?:(?:RMB|RSD|CMB|RSM)\s+)?"  # phi-6: a roadside mail box
           rf"(?:\d{{1,4}}[A-Za-z]?/)?\d{{1,6}}[A-Za-z]?(?:\s+(?:[NSEW]\.?|North|South|East|West))?"
           rf"(?:\s+(?:[A-ZĀ-Ž][a-zā-ž]+|\d+(?:st|nd|rd|th))){{1,3}}\s+{_SUFFIX}\b\.?(?:\s+(?:[NSEW]|NE|NW|SE|SW)\b)?(?:,?\s+(?:Apt|Apartment|Unit|Suite|Ste|#)\.?\s*#?[A-Za-z0-9-]+)?")

# An organisation's name: capitalised words, "&", "and", "of"; "St" and an apostrophe allowed.
_ORG_WORD = r"(?!(?:NHS|VA|Army|Navy|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|"\
            r"Home|Night)\b)" \
            r"(?:St\.?|[A-Z][\w'’-]*[\w])"
_ORG = rf"{_ORG_WORD}(?:\s+(?:&|and|of|the|{_ORG_WORD}))*(?<![\s&])(?<!\band)(?<!\bof)(?<!\bthe)"
_ORG_SCHOOL = rf"{_ORG_WORD}(?:\s+(?:&|and|of|the|{_ORG_WORD}))*\s+"\
              r"(?:School|Academy|College|University|Nursery|Primary|High|Kindergarten|Kindy|Preschool|"\
              r"Pre-school|Daycare|Creche|Crèche|Playcentre|Childcare)\b"

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
     re.compile(r"(?<![\w.+-])(?P<v>[\w.+-]+\s?@\s?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})")),
    ("email", r"\sat\s+[\w-]+\.[a-z]",  # half spelled: "k.mensah at nhs.net"
     re.compile(r"(?<![\w.+-])(?!(?i:posted|seen|met|found|available|online|based|listed|booked|reached|"
                r"registered|signed|logged|written|shared|it|this|that|us|me|him|her|them)\s)"
                r"(?P<v>(?:[\w+-]*[._\d][\w.+-]*[\w+-]\s+(?i:at)\s+[A-Za-z0-9-]+|[\w+-]+\s+(?i:at)\s+"
                r"(?i:gmail|googlemail|outlook|hotmail|yahoo|icloud|live|aol|proton(?:mail)?|btinternet|nhs))"
                r"(?:\.[A-Za-z0-9-]+)*"
                r"\.(?:com|org|net|edu|gov|io|co|uk|ie|au|nz|ca|de|fr|info))(?![\w./-])")),
    ("url", r"http|www\.|\.(?:com|org|net|edu|gov|io|info|biz|us|co\.uk)\b",
     re.compile(r"(?P<v>\b(?:https?://|www\.)[^\s<>\"']+[^\s<>\"'.,;:)!?]"
                r"|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|edu|gov|io|info|biz|us|co\.uk)"
                r"(?:/[^\s<>\"']*[^\s<>\"'.,;:)!?])?)(?![\w@])", re.I)),
    ("ip", r"\d\.\d+\.\d|::|[0-9a-f]:[0-9a-f]+:",
     re.compile(r"(?<![\w.])(?P<v>(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d))"
                r"(?!\.?\d)(?!\w)"
                r"|(?<![\w:])(?P<v2>(?=[0-9A-Fa-f:]*::|(?:[0-9A-Fa-f]{1,4}:){5})(?:[0-9A-Fa-f]{0,4}:){2,7}"
                r"[0-9A-Fa-f]{1,4})(?![\w:])")),
    ("ssn", r"\d{3}\s*[- –]\s*\d\d\s*[- –]\s*\d|ss|soc",
     re.compile(r"(?<![\w-])(?P<v>(?!000|666|9\d\d)\d{3}\s*[-–]\s*(?!00)\d{2}\s*[-–]\s*(?!0000)\d{4}"
                r"|\d{3} \d{2} \d{4})"
                r"(?![\w-])|(?<!\w)(?i:SSN|SS\s?#|soc(?:ial)?\.? sec(?:urity)?\.?"
                r"(?: no\.?| number| #)?)\s*[:#]?\s*"
                r"(?P<v2>\d{3}[- ]?\d{2}[- ]?\d{4}|[xX*]{3}-[xX*]{2}-\d{4}|\d{4})(?!\w)")),
    *STRUCTURED_ROWS,  # phi-7
    *LOCAL_ROWS,
    *ROWS,
    *(_keyed_row(kind, keys) for kind, keys in PROSE_KEYS.items()),  # phi-6
    *ADDRESS_ROWS,
    ("email", r"\bdot\b|\(at\)|\[at\]",  # spelled out: "jane dot doe at gmail dot com"
     re.compile(r"(?<![\w.+-])(?P<v>[\w.+-]+(?:\s+(?i:dot|underscore|dash|hyphen)\s+[\w.+-]+)*"
                r"\s*(?:\((?i:at)\)|\[(?i:at)\]|\s(?i:at)\s)\s*[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
                r"(?:\s*(?:\((?i:dot)\)|\[(?i:dot)\]|\s(?i:dot)\s)\s*[A-Za-z0-9-]+)+)(?![\w])")),
    ("account", r"\b[A-Z]{2}\d\d",  # IBAN: country, check digits, 11-30 letters and digits in groups
     re.compile(r"(?<![\w])(?P<v>(?:AD|AT|BE|BG|CH|CY|CZ|DE|DK|EE|ES|FI|FR|GB|GR|HR|HU|IE|IS|IT|LI|LT|LU|LV|MC|MT|"
                r"NL|NO|PL|PT|RO|SE|SI|SK|SM|AE|SA|TR|IL|QA|KW|BH|JO|LB|EG|MA|TN)\d\d"
                r"(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?)(?![\w])")),
    ("vehicle", r"\b[A-Z]{2}\d\d ?[A-Z]{3}\b",  # a UK number plate: "LB07 SEO"
     re.compile(r"(?<![\w-])(?P<v>[A-Z]{2}\d\d ?[A-Z]{3})(?![\w-])")),
    # international and national trunk formats: "+44 20 7946 0958", "0161 555 0176"
    ("phone", r"\+|00\d|\b0\d",
     re.compile(r"(?<![\w+-])(?P<v>(?:\+|00)[1-9]\d{0,2}(?:[\s.-]?\(0\))?(?:[\s.-]?\(?\d{1,4}\)?)"
                r"(?:[\s.-]\d{2,4}){1,4}|\(?0\d{1,4}\)?[\s.-]\d{3,4}[\s.-]?\d{3,4})(?![\w/]|[.,]\d)"
                r"(?!\s*(?:mg|mcg|g|kg|ml|mL|units?|%|mmol|cells|copies)\b)")),
    # over 89 in words: "ninety-two-year-old", "aged ninety four", "one hundred and one"
    ("age", r"ninety|hundred",
     re.compile(rf"(?<![\w-])(?P<v>{_AGE_WORDS})(?=[\s-]*(?i:years?|yrs?|yo|year-old)\b)"
                rf"|(?:(?<!\w)(?i:aged|age:|turned|is now|is|at|now|was)\s+|,\s*|\(\s*)(?P<v2>{_AGE_WORDS})"
                r"(?!\s*(?:percent|per cent|%|minutes|metres|meters|mg|days|seconds|patients))(?![\w-])")),
    ("age", r"dob|born|d\.o\.b", re.compile(r"(?i:dob|born|d\.o\.b\.?)[^()\n]{4,25}\((?P<v>9\d|1[01]\d)"
                                            r"(?=\s*(?:y|yrs?|years?)?\))")),  # "DOB: 5th of June, 1929 (97)"
    ("age", "nineties", re.compile(r"(?<!\w)(?i:in\s+(?:his|her|their)\s+)"
                                   r"(?P<v>(?i:(?:late|early|mid)[\s-]+)?nineties)\b")),
    ("dob", r"dob|d\.o\.b|birth|born", re.compile(rf"(?<!\w){_DOB_CUE}\s*[:#-]?\s*(?P<v>{_DATE})")),
    ("fax", "fax", re.compile(rf"(?<!\w)(?i:fax(?:ed)?)(?:\s+[a-z]+){{0,2}}?{_PHONE_SEP}{_PHONE}")),
    ("phone", r"phone|tel|cell|mobile|pager|beeper|ext|call|reach|contact",
     re.compile(rf"(?<!\w)(?i:phone|tel|telephone|cell|mobile|pager|beeper|ext|extension"
                rf"|call(?: back)?|reach(?:ed)?(?: \w+)? at|contact)\.?{_PHONE_SEP}{_PHONE}")),
    _keyed_row("health_plan", r"medicare|medicaid|member|insurance|policy|subscriber|group|plan id|"
                 r"beneficiary|HICN|MBI|health plan|OHIP|RAMQ|health card|HCN|carte vitale|NIR"),
    _keyed_row("account", r"account|acct|billing|encounter|FIN|CSN|visit|invoice"),
    _keyed_row("vehicle", r"VIN|(?:license |licence )?plate|tag", gap=r"(?:\s+number)?"),
    _keyed_row("license", r"(?:driver'?s?\s+)?licen[cs]e|DL|certificate|cert|DEA", gap=r"(?:\s+[a-z]+)?"),
    _keyed_row("device", r"serial|S/N|SN|device|UDI|implant", gap=r"(?:\s+(?:number|no\.?))?"),
    _keyed_row("biometric", r"finger ?print|voice ?print|retina(?:l)? scan|iris scan|palm ?print|"
                 r"face ?print|biometric", gap=r"(?:\s+[a-z]+){0,2}"),
    ("name", r"work|employ|job|pupil|student|attends|goes to|school|academy|college",
     re.compile(r"(?<!\w)(?:(?i:works?|working|worked|employed|employee|job|volunteers?)(?:\s+(?i:as\s+an?)"
                r"(?:\s+[a-z-]+){1,2}|\s*:\s*[a-z-]+(?:\s+[a-z-]+)?)?\s+(?i:at|for|by|with)"
                r"|(?i:employer|employed by)\s*:)\s+(?:the\s+)?"
                rf"(?P<v>{_ORG})"
                r"|(?<!\w)(?i:pupil at|student at|attends|goes to|studies at|teaches at|teacher at|"
                r"(?:year|grade|class|form)\s+\d{1,2}\s+at)"
                r"\s+(?:the\s+)?"
                rf"(?P<v2>{_ORG}\s(?i:School|Academy|College|University|Nursery|Primary|High)(?![\w-])"
                rf"|{_ORG_SCHOOL})")),
    ("photo", r"\.(?:jpe?g|png|heic|gif|bmp|tiff?|dcm)",
     re.compile(r"(?<![\w.-])(?P<v>[\w-]+\.(?i:jpe?g|png|heic|gif|bmp|tiff?|dcm))(?!\w)")),
    _keyed_row("mrn", r"MRN|MR|UR|URN|NHI|CHI|med(?:ical)? rec(?:ord)?s?|hosp(?:ital)?|chart|"
                 r"unit(?=\s*(?:no|number|#|rec))|patient|"
                 r"pt(?=\s*(?:id|#))|record"),
    _keyed_row("id", r"ID|passport|employee|student|badge|case|identifier|aadhaar|NHS|national insurance",
               gap=r"(?:\s+(?:file|folder|ref(?:erence)?))?"),
    _keyed_row("id", r"rx|prescription|script|(?:pre-?)?approval|(?:prior |pre-?)?auth(?:ori[sz]ation)?|"
               r"req(?:uisition)?|accession|specimen|referral|claim|docket|reference|ref|"
               r"file|folder|sample"),
    ("id", r"number|no\.|#", re.compile(rf"(?<!\w)(?i:number|no\.|#)\s*[:=]?\s*{_VALUE}(?![\w])")),
    ("phone", r"\d{3}", re.compile(rf"(?<![\w/.,-])(?P<v>{_PHONE10}|[2-9]\d{{2}}[-.]\d{{4}})(?![\w/]|[.,-]\d)"
                                   rf"(?!\s*{_UNITS})")),
    ("date", r"\d", re.compile(rf"(?<![\w/.-])(?P<v>{_DATE})")),
    ("date", r"\d/\d", re.compile(rf"(?<!\w)(?i:on|since|from|until|dated?|seen|admitted|discharged|DOS|"
                                   rf"started|began)\s+(?P<v>{_MON}/{_DAY}|{_DAY}/{_MON})(?![\d/])")),
    ("age", r"\d\d", re.compile(r"(?<![\w.])(?P<v>9\d|1[01]\d)"
                                r"(?:\s*-?\s*(?:y/o|y\.o\.?|yo|yrs?|years?|year-old|yr-old|y(?=[\s),;.]))(?:[\s-]old)?)"
                                r"(?![a-z])(?!\s+(?:ago|of|later|prior|since|before))")),
    ("age", r"\d ?[MF]\b",  # "93M", at the start or after "a", "is", "Pt", ": " (not "T 101F")
     re.compile(r"(?:^|(?<=\ba )|(?<=\bis )|(?<=\bPt )|(?<=: ))(?P<v>9\d|1[01]\d)\s?[MF]\b")),
    ("age", "age|turn", re.compile(r"(?<!\w)(?i:age[d]?|turn(?:ed|s|ing)?)\s*[:=]?\s*(?P<v>9\d|1[01]\d)\b"
                              r"(?!\s*(?:days?|d|weeks?|wks?|months?|mos?|%|mg|kg)\b)"
                              r"(?!\+|\s*(?:and|or)\s+(?:older|over|above))")),
    ("address", r"\b[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b",  # UK postcode, with the town before it
     re.compile(rf"(?P<v>(?:{_STREET},\s+|\b\d{{1,4}}\s+{_CITY},\s+)?(?:{_CITY},?\s+){{0,2}}"
                rf"\b[A-Z]{{1,2}}\d[A-Z\d]?\s\d[A-Z]{{2}})\b")),
    ("address", r"\b[AC-FHKNPRTV-Y]\d[0-9W] ?[AC-FHKNPRTV-Y0-9]{4}\b",  # Eircode, with the town before it
     re.compile(rf"(?P<v>(?:{_STREET},\s+)?(?:{_CITY},?\s+)?(?:\d{{1,2}},\s+)?"
                rf"\b[AC-FHKNPRTV-Y]\d[0-9W] ?(?=[A-Z0-9]*[A-Z])(?=[A-Z0-9]*\d)"
                rf"[AC-FHKNPRTV-Y0-9]{{4}})\b")),
    # European street line: "Hauptstraße 45, 10115 Berlin", "12 Rue des Lilas, 69003 Lyon"
    ("address", r",\s+\d{2,5}[\s-]",
     re.compile(rf"(?P<v>{_UNIT_BEFORE}?(?:\d{{1,4}}[a-z]?(?:\s+(?:bis|ter))?,?\s+)?"
                r"(?:(?:rue|avenue|av\.|boulevard|bd|chemin|allée|place|impasse|quai|route|cours|via|viale|"
                r"calle|avenida|rua|carrer|piazza|strada)\s+(?:(?:de|des|du|la|le|del|della|d['’])\s*)*)?"
                r"(?:[A-ZÀ-Þ][\wÀ-ÿ'’.-]*\s+"
                r"(?:(?:de|del|della|des|du|la|le|di|da|van|der|von)\s+)*){0,3}[A-ZÀ-Þ][\wÀ-ÿ'’.-]*(?:\s+\d{1,4}[a-z]?)?"
                r"(?:,\s+\d+(?:e|er|ème|è)\s+étage)?"
                r",\s+(?:\d{4} ?[A-Z]{2}(?=\s)|\d{4,5}|\d{2}-\d{3}|\d{3} \d{2}|\d{4}-\d{3})"
                r"\s+[A-ZÀ-Þ][\wÀ-ÿ'’-]+(?:\s+(?:de|del|im|am|[A-ZÀ-Þ][\wÀ-ÿ'’-]+)){0,2})")),
    # a street with up to two places after it (suburb, city) and a state, province or postcode
    ("address", r"\d", re.compile(rf"(?P<v>(?:\b(?:{_STREET}|{_UNIT_BEFORE}?{_FR_STREET})"
                                  r"(?:,?\s+(?:RD|R\.D\.|RR|Rural Route)\s+\d+)?"  # rural delivery: "RD 7"
                                  rf"|\bP\.?\s?O\.?\s+Box\s+\d+|\bPrivate\s+Bag\s+\d+)"
                                  rf"(?:(?:,\s+{_CITY}){{1,2}}(?:,\s+{_ANY_STATE}\b(?:\s+{_ZIP})?"
                                  rf"|,?\s+{_AU_STATE}\s+\d{{4}}|,?\s+{_CA_PROVINCE}\s+{_CA_POSTCODE}"
                                  rf"|,\s+{_CITY} (?:County|Parish)|,?\s+\d{{4}}(?![\d/]|[.,:]\d)"
                                  rf"|,?\s+[A-Z]{{1,2}}\d[A-Z\d]?\s\d[A-Z]{{2}})?(?![\w-]))?{_UNIT_AFTER}?"
                                  r")")),
    ("address", r"\b(?:NSW|VIC|QLD|TAS|ACT|NT|SA|WA|ON|QC|BC|AB|MB|SK|NS|NB|NL|PE|YT|NU)\b",
     re.compile(rf"(?P<v>\b{_CITY},?\s+(?:{_AU_STATE}\s+\d{{4}}|{_CA_PROVINCE}\s+{_CA_POSTCODE})\b)")),
    ("address", r",\s+[A-Z]",
     re.compile(rf"(?P<v>\b{_CITY},\s+(?:{_STATE}\b(?:\s+{_ZIP})?|{_ANY_STATE}\s+{_ZIP}))(?!\w)")),
    ("address", "zip|postal|post ?code",
     re.compile(r"(?<!\w)(?i:zip(?: code)?|postal code|post ?code)(?:\s+is)?\s*[:#]?\s*"
                r"(?P<v>\d{5}(?:-\d{4})?|\d{4}|[A-Z]{1,2}\d[A-Z\d]?(?:\s*\d[A-Z]{2})?)\b")),
    ("address", r"home|village", re.compile(rf"(?P<v>\b{_ORG_WORD}(?:\s+{_ORG_WORD}){{0,2}}\s+"
                                           r"(?:(?:Care|Nursing|Rest|Residential)\s+Home|Retirement\s+Village))\b")),
    ("address", r"suburb|town|city|village|area|locality",
     re.compile(rf"(?<!\w)(?i:suburb|home ?town|town|city|village|locality|area)\s*:\s*(?P<v>{_CITY})")),
    ("address", "county|parish", re.compile(r"(?P<v>\b[A-Z][a-z]+(?: [A-Z][a-z]+)? (?:County|Parish))\b")),
    ("address", "live|resid|moved|relocated|home|born|grew|raised|from|family|address|staying",
     re.compile(rf"(?<!\w)(?i:lives|living|resides|residing|resident|moved|relocated|home|born|grew up|"
                rf"raised|"
                rf"originally|visiting|travelled|traveled|family|address|staying|moving)(?:\s+(?i:is|from))?\s+"
                rf"(?i:in|to|at|near|of|on|from|is)\s+(?:the\s+)?(?P<v>(?!(?:{_STATE}|{_COUNTRY})\b)"
                rf"(?:[A-Z][a-z]+(?:\s+[A-Z][a-z]+){{0,2}}\s+{_SUFFIX}\b\.?(?:,\s+{_CITY}(?![\w-]))?|{_CITY}))")),
    # a lower-case street line, as chat and dictation write it: "42 station road ashford kent tn23 1pq"
    ("address", r"\d+\s+[a-z].*\b(?:street|road|rd|avenue|ave|lane|drive|way|court|crescent|place|terrace|"
                r"boulevard|blvd|parade|close|grove|highway|st|dr)\b",
     re.compile(r"(?<![\w/.-])(?P<v>(?:\d{1,4}/)?\d{1,5}[a-z]?\s+(?:[nsew]\.?\s+)?(?:(?!(?:the|a|an|and|of|to|in|on|at|for|per|"
                r"with|times|days|weeks|hours|mins?|or|down|up|along|across|my|his|her|their|our|x|was|were|is|are|"
                r"be|been|has|have|had|not|no|very|too|so|then|than|that|this|it|he|she|they|we|you|from|by|as|"
                r"into|over|under|its|more|less|most|all|some|any|each|both|patients?|years?|months?)\b)[a-z]+\s+){1,3}"
                r"(?:street|road|rd|avenue|ave|lane|crescent|terrace|boulevard|blvd|parade|highway"
                r"|(?:st|dr|drive|way|court|place|close|grove)(?=\s+(?:apt|unit|flat|suite|#)"
                r"|,?\s+(?:[a-z]+\s+){1,3}?(?:[a-z]{2}\s+\d{5}|[a-z]{1,2}\d[a-z\d]?\s*\d[a-z]{2}\b)))"
                r"\b(?:\s+(?:apt|unit|flat|suite|#)\s*\w*\d\w*)?"
                r"(?:,?\s+(?:[a-z]+\s+){1,3}?(?:[a-z]{2}\s+\d{5}(?:-\d{4})?|[a-z]{1,2}\d[a-z\d]?\s*\d[a-z]{2})\b)?)")),
    ("address", r"-(?:ku|shi|cho|machi|gun)\b|#\d\d-\d", re.compile(rf"(?P<v>{_ASIA_ADDRESS})")),
    # a caravan or holiday park with its site, and the town after it
    ("address", r"(?:caravan|holiday|trailer|mobile home|RV)\s+park",
     re.compile(rf"(?P<v>{_ORG_WORD}(?:\s+{_ORG_WORD})?\s+(?i:caravan|holiday|trailer|mobile\s+home|RV)\s+(?i:park)"
                rf"(?:,?\s+(?i:site|lot|cabin|space|pitch|unit|van)\s+\w*\d\w*)?"
                rf"(?:,\s+{_CITY}(?:,?\s+(?:{_AU_STATE}|{_ANY_STATE})(?:\s+\d{{4,5}})?)?)?)")),
    # an employer by its legal form ("Kowhai Freight Ltd"), or after "employer" or "N years at"
    ("name", r"\b(?:work|employ|job|occupation|career|retired|years at|shift|boss|manager)",
     re.compile(rf"(?i:\b(?:works?|worked|working|employ\w*|job|occupation\w*|career|retired|years?\s+at|shifts?|boss|"
                rf"manager))\b[^.;]*?(?P<v>(?<![\w'’-]){_ORG_WORD}(?:\s+(?:&|and|of|{_ORG_WORD})){{0,3}}\s+(?:{COMPANY_SUFFIXES}))"
                r"(?![\w/])")),
    ("name", r"employer|years? at|teaches|teacher",
     re.compile(rf"(?<!\w)(?:(?i:employer|employed)(?:\s+(?i:is|was|by))?\s*[:,]?|(?i:years?|decades?)\s+(?i:at|with)"
                rf"|(?i:teaches|teacher|teaching)(?:\s+[\w-]+){{0,3}}?\s+(?i:at))\s+(?:the\s+)?(?P<v>{_ORG})")),
    ("name", r"school|college|academy",
     re.compile(rf"(?P<v>(?<![\w'’-]){_ORG_WORD}(?:\s+{_ORG_WORD}){{0,4}}\s+(?:Primary|Secondary|High|Grammar|"
                r"Elementary|Middle|Junior|Infant|Catholic|Public|State|Community)\s+(?:School|College|Academy))\b")),
    *PROSE_ROWS,
    *TOWN_ROWS,
    *LATE_ROWS,
    ("mrn", r"\d{8}",
     re.compile(r"(?<![\w.,/-])(?P<v>\d{8,12})(?![\d/]|[.,]\d|\s*(?:mg|mcg|µg|g|ml|units?|iu)\b)", re.I)),
]
KEYED: frozenset[re.Pattern[str]] = frozenset(
    pattern for kind, trigger, pattern in _TABLE
    if kind in MIN_DIGITS and not trigger.startswith(r"\b[A-Z]{2}\d")
    and (kind, trigger, pattern) not in ROWS + LATE_ROWS + PROSE_ROWS + TOWN_ROWS)
"""Keyword + value recognizers (all but the bare IBAN and plate shapes): values need ``MIN_DIGITS``."""
RECOGNIZERS: list[tuple[str, re.Pattern[str]]] = [(kind, pattern) for kind, _, pattern in _TABLE]
"""(kind, pattern) in priority order; group ``v`` (or ``v2``) is the identifying text."""
TRIGGERS: list[re.Pattern[str]] = [re.compile(trigger, re.I) for _, trigger, _ in _TABLE]
"""For each recognizer, a cheap pattern that must occur in the text before the full one is tried."""
