"""Rules phi-7 (issue 35 item 5): dates, names, addresses and phones as other places write them.

- dates: year-first with dots ("1938. 04. 22."), Japanese era dates ("R8.12.15", "令和8年12月15日"), CJK
  month-day ("七月十二日 1953"), "mid-October 2026", a birthday on a named holiday ("birthday is
  Christmas 1930"), a weekday with an ordinal ("since friday 4th"), a short month-day after a date verb;
- names: a family name in capitals before a listed given name ("HORVÁTH Ilona", "OCHOA, Julio"), two
  initials before a surname with particles ("J. R. DE LA ROSA", "J. Ch. Dimitriou"), a diminutive in
  brackets inside a name ("Katarzyna (Kasia) Nowak"), a single given name after a role word ("child
  Enzo", "16yo Hiwot") or before a school year ("Aroha (Yr 5)"), two unlisted capitalised words after a
  person cue ("pt Abebe Gebremedhin"), an Icelandic patronymic before a given name ("Jónsdóttir, Anna"),
  a name before "(nickname" / "(known as";
- addresses: Nordic street lines to a 3-5 digit postcode and town, Brazilian and Mexican lines to their
  CEP / C.P. and state, a street and town before a Canadian postal code, Ethiopian sub-city / woreda /
  house number lines, US street lines with a road number or unit before town, state and ZIP;
- phones: international numbers with a one-digit group ("+55 11 9 8741-2063"), Chinese mobiles.
"""

from __future__ import annotations

import re

_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
          r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)")
_CJK_NUM = r"[一二三四五六七八九十〇\d]"
_CAPS = r"[A-ZÀ-ÖØ-ÞĀ-Ž]"
_CAPS_WORD = rf"{_CAPS}{{3,}}"
_CAP = r"[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-ÿā-ž'’]+"
_TOWN = r"[A-ZÀ-ÞĀ-Ž][\wÀ-ÿĀ-ž'’.-]*(?:\s+(?:de|do|da|dos|das|del|[A-ZÀ-ÞĀ-Ž][\wÀ-ÿĀ-ž'’.-]*)){0,3}"
_NORDIC = (r"(?:gatan|gata|gaten|gade|vej|vejen|vägen|väg|veien|vegen|vei|stræti|stræde|stígur|vegur|"
           r"gränd|torget|torv|allé|alle|katu|tie|kuja)")
_CA_PROV = r"(?:AB|BC|MB|NB|NL|NS|NT|NU|ON|PE|QC|SK|YT)"

ROWS: list[tuple[str, str, re.Pattern[str]]] = [
    ("date", r"\d{4}\.\s?\d", re.compile(r"(?<![\d.])(?P<v>(?:1[89]|20)\d\d\.\s?(?:0?[1-9]|1[0-2])\.\s?"
                                          r"(?:0?[1-9]|[12]\d|3[01])\.?)(?![\d])")),
    ("date", r"\b[RHS]\d{1,2}\.\d", re.compile(r"(?<![\w.])(?P<v>[RHS]\d{1,2}\.(?:0?[1-9]|1[0-2])\."
                                                r"(?:0?[1-9]|[12]\d|3[01]))(?![\w]|\.\d)")),
    ("date", "月", re.compile(rf"(?P<v>(?:(?:令和|平成|昭和)?{_CJK_NUM}{{1,4}}\s?年\s?)?"
                             rf"{_CJK_NUM}{{1,3}}\s?月\s?{_CJK_NUM}{{1,3}}\s?日(?:\s*\d{{4}})?)")),
    ("date", r"(?:early|mid|late)-",
     re.compile(rf"(?<![\w-])(?P<v>(?i:early|mid|late)-{_MONTH}\s+\d{{4}})\b")),
    ("dob", r"birthday|born|dob",
     re.compile(r"(?i:birthday|born|dob)[^.;]{0,15}?\b(?P<v>(?:Christmas(?:\s+Day)?|Christmas Eve|"
                r"New Year's (?:Day|Eve)|Boxing Day|Easter Sunday|Independence Day|Halloween|Valentine's Day)"
                r"\s+\d{4})\b")),
    ("date", r"day\s+\d",
     re.compile(r"(?<!\w)(?i:since|on|from|until|till|last|next|this|by)\s+(?P<v>(?i:(?:mon|tues|wednes|thurs|"
                r"fri|satur|sun)day)\s+(?:[12]\d|3[01]|0?[1-9])(?i:st|nd|rd|th))\b"
                rf"(?!,?\s+(?:of\s+)?(?i:{_MONTH})\b)")),
    ("date", r"\d-\d", re.compile(r"(?<!\w)(?i:seen|removed|out|admitted|discharged|dated|since|until)\s+"
                                  r"(?P<v>(?:1[0-2]|0?[1-9])-(?:[12]\d|3[01]|0?[1-9]))(?![\w/-])"
                                  r"(?!\s*(?:mg|%|days|weeks))")),
    ("phone", r"\+\d", re.compile(r"(?<![\w+])(?P<v>\+\d{1,3}(?:[\s.-]\(?\d{1,5}\)?){2,6})(?![\w/]|[.,]\d)")),
    ("phone", r"\b1[3-9]\d-\d{4}-\d{4}", re.compile(r"(?<![\w-])(?P<v>1[3-9]\d-\d{4}-\d{4})(?![\w-])")),
    ("address", _NORDIC, re.compile(rf"(?P<v>(?<![\w-])[A-ZÀ-ÞĀ-Ž][\wÀ-ÿĀ-ž]*{_NORDIC}\s+\d{{1,4}}[A-Za-z]?"
                                    r"(?:\s+lgh\s+\d{3,4}|,\s*\d{1,2}\.\s*(?:tv|th|mf|sal)\.?)?"
                                    r",\s+\d{3}\s?\d{0,2}\s+[A-ZÀ-ÞĀ-Ž][\wÀ-ÿĀ-ž-]+(?:\s+[A-Z]\b)?)")),
    ("address", r"\b(?:rua|avenida|calle|alameda|travessa)\b|\bav\.",
     re.compile(r"(?P<v>(?<!\w)(?:Rua|Av\.|Avenida|Calle|Alameda|Travessa)\s[^;\n]{3,110}?"
                rf"(?:(?:CEP\s*)?\d{{5}}-\d{{3}}|,\s+\d{{5}}\s+{_TOWN}(?:,\s+[A-Z][A-Za-z]{{1,4}}\.?(?!\w))?))")),
    ("address", rf"\b{_CA_PROV}\s+[A-Z]\d[A-Z]",
     re.compile(rf"(?P<v>(?<![\w-])\d{{1,5}}[A-Za-z]?\s+[A-Za-zÀ-ÿ][^;:\n]{{3,70}}?,?\s+{_CA_PROV}\s+"
                r"[A-Z]\d[A-Z]\s?\d[A-Z]\d)\b")),
    ("address", r"sub-?city|woreda|kebele",
     re.compile(r"(?P<v>(?:[A-Z][a-z]+\s+)?(?i:sub-?city)(?:,?\s+(?i:woreda|kebele)\s+\d+)*"
                r"(?:,?\s+(?i:house)\s+(?:No\.?|number)\s*\d+)?(?:,\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)?)")),
    ("address", r"\d{5}",
     re.compile(r"(?P<v>(?<![\w-])\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}(?i:rd|road|st|street|hwy|highway|ave|"
                r"avenue|dr|drive|ln|lane|route|pike)\.?(?:\s+\d{1,4})?(?:,?\s+(?i:unit|apt|suite|#)\.?\s*\w{1,4})?"
                r",?\s+[A-Z][a-z]+(?:\s[A-Z][a-z]+){0,2},?\s+[A-Z]{2}\s+\d{5}(?:-\d{4})?)(?!\d)")),
]

# lower case, or capitalised at a sentence start: "Parent-Child Relations" is a heading
_ROLE = (r"(?:child|pupil|student|caller|proband|baby|infant|toddler|son|daughter|grandson|granddaughter|"
         r"\d{1,2}\s?-?(?:yo|y/o|year-old))")
_PEOPLE_WORD = re.compile(r"(?i)(?:(?:brazil|canad|austral|ital|russ|ukrain|niger|egypt|iran|syr|indones|"
                          r"malays|colomb|peruv|norweg|hungar|belg|hait|ethiop|croat|serb|bulgar|roman|armen|"
                          r"georg|jordan|palestin|alger|tunis|nepal|samo|tong|fij|pakistan|afghan|mongol)i?an|"
                          r"ese|ish|ican|asian|african|caucasian|european|hispanic|latin[oa]|thai|"
                          r"arab|"
                          r"indian|korean|filipino|inuit|m[aā]ori|white|black|male|female)$")
_ROLE_NAME = re.compile(rf"(?:(?<![\w-]){_ROLE}|(?:^|(?<=[.:;!?]\s))"
                        rf"(?:Child|Pupil|Student|Caller|Proband|Baby))"
                        rf"\s+(?P<v>{_CAP})(?![\w'’-])")
_SCHOOL_YEAR = re.compile(rf"(?<![\w'’-])(?P<v>{_CAP})\s+\((?:Yr|Year|Grade|Class|P)\s*\d{{1,2}}\)")
_CAPS_FIRST = re.compile(rf"(?<![\w'’-])(?P<fam>{_CAPS_WORD}(?:[ -]{_CAPS_WORD})?),?\s+(?P<g>{_CAP})"
                         rf"(?:\s+{_CAP})?(?![\w'’-])")
_INITIALS = re.compile(rf"(?<![\w.])[A-Z]\.\s?(?:[A-Z][a-z]?\.\s?){{1,2}}(?:(?:DE|DA|DEL|LA|LE|VAN|VON|DER|"
                       rf"DI|DOS|De|La|Van|Von|Der)\s+)*(?P<last>{_CAPS_WORD}|{_CAP})(?![\w'’-])")
_DIMINUTIVE = re.compile(rf"(?<![\w'’-])(?P<a>{_CAP})\s+\((?P<b>{_CAP})\)\s+{_CAP}(?:[-\s]{_CAP})?")
_PATRONYMIC_FIRST = re.compile(rf"(?<![\w'’-])[A-ZÀ-ÞĀ-Ž][a-zß-ÿā-ž]+(?:dóttir|dottir|sson),\s+{_CAP}")
_NICKNAME_NOTE = re.compile(rf"(?<![\w'’-])(?P<v>{_CAP})\s*\((?i:nickname|known as|aka|prefers|goes by)\b")
_CUED_PAIR = re.compile(rf"(?<!\w)(?:[Pp]t|patient|parent|guardian|mother|father|carer|recipient|donor|"
                        rf"client|detainee|inmate)\.?\s+(?P<a>{_CAP})\s+(?P<b>{_CAP})(?:-{_CAP})?(?![\w'’-])")

def local_names(text: str, english: frozenset[str], given: frozenset[str]) -> list[tuple[int, int]]:
    """Spans of names in the forms listed in the module docstring; ``english`` keeps common words out and
    ``given`` (lower-case given names) confirms a family name in capitals."""
    def plain(word: str) -> bool:
        return word.lower() not in english
    spans = [m.span("v") for m in _ROLE_NAME.finditer(text)
             if plain(m.group("v")) and not _PEOPLE_WORD.search(m.group("v"))]
    spans += [m.span("v") for m in _SCHOOL_YEAR.finditer(text) if plain(m.group("v"))]
    spans += [m.span() for m in _CAPS_FIRST.finditer(text)
              if len(m.group("g")) > 2 and m.group("g").lower() in given
              and all(plain(w) for w in re.split(r"[ -]", m.group("fam")))]
    spans += [m.span() for m in _INITIALS.finditer(text) if plain(m.group("last"))]
    spans += [m.span() for m in _DIMINUTIVE.finditer(text) if plain(m.group("a")) and plain(m.group("b"))]
    spans += [m.span() for m in _PATRONYMIC_FIRST.finditer(text)]
    spans += [m.span("v") for m in _NICKNAME_NOTE.finditer(text) if plain(m.group("v"))]
    spans += [(m.start("a"), m.end()) for m in _CUED_PAIR.finditer(text)
              if plain(m.group("a")) and plain(m.group("b"))]
    return spans
