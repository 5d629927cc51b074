"""Find person names, with or without a title, using first- and last-name lists from Faker.

Names are the identifier clinicians write most and in most shapes ("Patient John Smith",
"SMITH, JOHN A.", "mrs. garcia", "her son, David Nguyen"), so a title alone is not enough. The
name lists come from the ``faker`` package (its person providers, every Latin-script locale:
about 16,000 first and 15,000 last names), read once on first use; nothing is downloaded.

A surname list alone would flag every eponym ("Parkinson", "Wells score", "Foley catheter") and
many English words (Brown, Bell, Young). So a name is only flagged with evidence beyond one
capitalised word:

- a title (Mr, Mrs, Ms, Miss, Mx, Dr, Prof; any case): title and name become one span;
- a cue word before it (patient, name, son, wife, contact, ...) and a listed first or last name;
- ``LAST, FIRST [M.]`` with a listed surname and a listed first name;
- a listed first name followed by a capitalised surname ("Kevin Walsh");
- an initial and a listed surname ("J. Smith");
- an unlisted given name before a listed surname ("Haruto Suzuki");
- a name with an Irish or Arabic particle ("Ní Bhriain", "Ó Súilleabháin", "bin Saleh", "Al-Rashid");
- surname first, as Chinese, Japanese, Korean and Vietnamese names are written ("Zhang Wei",
  "Park Ji-woo", "Nguyen Thi Lan");
- in a lower-case dialogue transcript, a listed name after a greeting, an introduction or a
  kinship word ("hi maria,", "my name is ...", "my husband tom"), and that name wherever it recurs.

Accented letters count as letters, and a listed name matches with or without its accents.

A span followed by a word that makes it an eponym or a place ("syndrome", "score", "catheter",
"protein", "Hospital", ...) is not a name ("Bence Jones protein", "Ramsay Hunt syndrome").
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import unicodedata
from functools import cache


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_LATIN = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿĀ-ž][A-Za-zÀ-ÖØ-öø-ÿĀ-ž'’-]+")

# Listed names that are also everyday or clinical words: never enough on their own to start a bare
# "First Last" pair (a title or a cue word still makes them names).
COMMON_WORDS = _words("""
will may june april august mark grace hope faith joy dawn rose bill art pat sandy jack chase ray gene
ed sue al an bo le do ina am is it so me my no on or per by go up us we via case page lane long young
bell brown white green black gray grey little king price cook wells hill stone wood park street
major minor chief patient pain plan rest sharp best blood lee love golden summer winter autumn sunny
star rich royal ash clay daisy heather holly iris ivy jade olive pearl ruby sage amber crystal
april may cash penny sky storm rain river lake forest glen dale wade cliff rod guy bob don dean
miles norman sterling earl baron duke marshal deacon bishop pastor judge mason walker carter
hunter fisher baker porter tanner cooper miller taylor smith clark
mild moderate severe harm
""")
# A word after the span that makes it an eponym, a scale or an institution rather than a person.
EPONYM_NOUNS = _words("""
syndrome syndromes disease diseases disorder sign signs score scores scale criteria classification class
stage staging test tests maneuver manoeuvre reflex phenomenon catheter drain tube procedure operation
repair fracture murmur pupil protein nodule node nodes palsy sarcoma tumor tumour lymphoma ulcer tear
triad law rule equation formula index position pattern block bundle cell cells body bodies fibers spots
lines hernia cyst deformity contracture technique incision clamp forceps retractor needle solution stain
agar shunt valve bypass approach flap method method's hospital clinic center centre medical university
institute college foundation health pharmacy hall building wing unit ward laboratory lab lens mask
questionnaire inventory assessment tool model type variant gene mutation virus bacillus dementia
surgery protocol protocols guideline guidelines regimen trial study balance agitation-sedation sedation
tightenings contractions fever spotted
""")
# Capitalised words that are never part of a person's name in a note.
STOP_WORDS = _words("""
the a an and or of in on at to for with from by as is was are be has had have his her he she they it
this that these those patient pt name named son daughter wife husband mother father sister brother
reports presented presents denies seen called today yesterday tomorrow hospital clinic emergency
department icu ed er or unit floor room bed history exam plan assessment impression diagnosis
allergies medications labs vitals note chief complaint hpi ros pmh psh sh fh dr mr mrs ms miss prof
post-op pre-op day
""")


# Lower-case words after a lower-case title that are not a name ("dr. on call", "dr. note").
LOWER_AFTER_TITLE = STOP_WORDS | _words("""
note notes visit visits office appointment appointments orders order call said says will would should
can could may might recommends recommended wants aware notified informed updated paged
""")


_NAME_ATTRS = ("first_names", "first_names_male", "first_names_female", "first_romanized_names",
               "first_romanized_names_male", "first_romanized_names_female", "last_names",
               "last_names_male", "last_names_female", "last_romanized_names")


@cache
def name_lists() -> tuple[frozenset[str], frozenset[str]]:
    """(first names, last names), lower-cased, from every Faker person provider in Latin script."""
    import faker.providers.person as person  # imported here: ~0.5 s, only when text is scanned

    first: set[str] = set()
    last: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"{person.__name__}.{module.name}").Provider
        for attr in _NAME_ATTRS:
            target = last if attr.startswith("last") else first
            names = getattr(provider, attr, None)
            if not names or isinstance(names, property):
                continue
            target.update(n.lower() for n in names if isinstance(n, str) and _LATIN.fullmatch(n))
    first |= {_fold(n) for n in first}
    last |= {_fold(n) for n in last}
    return frozenset(first), frozenset(last)


# Upper- and lower-case letters, accented Latin ones too ("Siobhán", "Traoré", "Ó Súilleabháin").
_UP = "A-ZÀ-ÖØ-ÞĀ-Žƀ-ɏḀ-ỿ"  # phi-6: Vietnamese letters (Latin Extended Additional)
_LO = "a-zß-öø-ÿā-žƀ-ɏḀ-ỿ"
_TOKEN = (rf"(?:[{_UP}][{_UP}{_LO}'’ʻ]*[{_LO}][{_UP}{_LO}'’ʻ]*|[A-ZÀ-ÖØ-Þ]{{2,}}|[{_UP}][’'][{_UP}][{_LO}]+)"
          rf"(?:-[{_UP}{_LO}][{_UP}{_LO}'’]+)*")
_UPPER_TOKEN = r"[A-Z][A-Z'’-]+"
_INITIAL = r"[A-Z]\.?"
# "ms" right after a number is milliseconds ("QRS 90 ms. Hemoglobin"), not a title.
_TITLE = re.compile(
    r"(?<![\w.-])(?P<title>[Mm]rs|[Mm]r|Ms|(?<!\d\s)ms|[Mm]iss|[Mm]x|[Dd]r|[Pp]rof|[Pp]rofessor|[Dd]octor)(?:\.|(?=\s))\s*"
    rf"(?P<rest>(?:{_INITIAL}\s+)?{_TOKEN}(?:\s+(?:{_INITIAL}(?=\s)|{_TOKEN})){{0,2}}|[a-z]\.\s?[a-z][a-z'’-]+|[a-z][a-z'’-]+)"
)
_CUE = re.compile(
    r"(?<!\w)(?i:patient|pt|name|named|son|daughter|wife|husband|mother|father|sister|brother|spouse|partner|"
    r"neighbou?r|friend|granddaughter|grandson|grandmother|grandfather|niece|nephew|aunt|uncle|caregiver|"
    r"guardian|contact|roommate|flatmate|housemate|landlady|landlord|workmate|godmother|godfather|fianc[ée]e?|boyfriend|girlfriend|dtr|mum|mom|dad|cousin|stepfather|stepmother|"
    r"stepson|stepdaughter|carer|resident|client|nok|next of kin|epoa|surname|family name|last name|"
    r"given names?|first names?|forenames?|christian name)(?:-in-law)?(?:'s)?"
    r"(?:\s+(?:is|was|named|called))?\s*[:,(-]?\s*(?<=[\s(])['ʻ‘’]?"
    rf"(?P<rest>{_TOKEN},\s+{_TOKEN}(?:\s+{_INITIAL}(?![\w]))?"
    rf"|{_TOKEN}(?:[ ](?:{_INITIAL}(?=\s)|{_TOKEN})){{0,2}})"
)
_LAST_FIRST = re.compile(
    rf"(?<![\w,])(?P<last>{_UPPER_TOKEN}|{_TOKEN}),\s+(?P<first>{_UPPER_TOKEN}|{_TOKEN})(?:\s+{_INITIAL}(?![\w]))?"
)
# A lookahead, so that "Pt Jorge Ramirez" is tried at "Pt" and again at "Jorge".
_PAIR = re.compile(
    rf"(?<![\w'’-])(?=(?P<all>(?P<first>{_TOKEN})(?:\s+{_INITIAL}|\s+(?P<mid>{_TOKEN}))?\s+(?P<last>{_TOKEN})))"
)
_CAMEL = re.compile(r"^(?!Mc|Mac|De|Di|Da|Le|La|Van|Von|O['’]|Ní|Nic|Uí)[A-Z][a-z]*[A-Z]")
# Particles inside Irish and Arabic names: "Ó Súilleabháin", "Ní Bhriain", "Mac Giolla", "bin Saleh",
# "bint Khalid", "Al-Rashid". A capitalised word, a particle, a capitalised word is a name.
_PARTICLE = r"(?:Ó|Ní|Nic|Mac|Mc|Ua|Uí|Ni|O|bin|bint|ibn|Ibn|Abu|abu|Bin|Ben|al|Al|el|El|Te)"  # Te: Māori
_PARTICLE_NAME = re.compile(
    rf"(?<![\w'’-])(?P<all>{_TOKEN}(?:\s+{_TOKEN})?\s+{_PARTICLE}(?:\s+(?:an|na|Giolla|an\s+t))?"
    rf"\s*[\s-]\s*{_TOKEN}(?:\s+{_TOKEN})?)")
_ARABIC_PREFIX = re.compile(rf"(?<![\w'’-])(?P<all>{_TOKEN}\s+(?:Al|El|Abu|Abdel|Abd|Bin|Ben)-{_TOKEN})")
# Surname first (Chinese, Japanese, Korean, Vietnamese): a listed surname of those, then a given name
# (listed, or hyphenated as Korean and Taiwanese names are: "Min-jun", "Mei-ling").
_KOREAN_SURNAMES = _words("kim lee park choi jung jeong kang cho yoon jang lim han oh seo shin kwon hwang "
                          "ahn "
                          "song yoo hong jeon ko moon yang son bae baek heo nam")
_VIET_SURNAMES = _words("nguyen tran pham hoang huynh phan dang bui duong truong dinh")
_VIET_MIDDLE = _words("van văn thi thị duc đức quoc quốc ngoc ngọc thanh huu hữu")
_SURNAME_FIRST = re.compile(
    rf"(?<![\w'’-])(?=(?P<all>(?P<last>{_TOKEN})\s+(?P<given>{_TOKEN}(?:\s+{_TOKEN}){{0,2}})))")
# Lower-case names in dialogue transcripts: after a greeting or an introduction, or a kinship word.
_DIALOGUE = re.compile(
    r"(?:^|(?<=[:\].?!])\s*|(?<=\s))(?<!the )(?<!this )(?<!each )(?<!every )"
    r"(?:(?P<greet>hi|hello|hey|morning|good morning|good afternoon|thanks|"
    r"thank you|okay|ok|so|right|well|sorry|dear|meet you,)\s+|(?P<intro>my name is|name's|i'm|i am|it's|its|"
    r"this is|is this|call me)\s+|(?P<kin>(?:my|his|her|your|their|our)\s+(?:husband|wife|son|daughter|"
    r"mother|mum|mom|father|dad|brother|sister|partner|friend|neighbou?r|nephew|niece|grandson|"
    r"granddaughter|cousin|uncle|aunt|carer)),?\s+|(?P<turn>(?<=: )))"
    r"(?P<name>[a-z][a-z'’-]+(?:\s+[a-z][a-z'’-]+)?)(?=\s*[,.?!]|\s+(?:and|is|drove|had|gives|noticed|said|says))")
# Issue 35: a capitalised pair with no listed part, known as a name by what follows it ("Teuila Leavasa,
# DOB ...", "Sione Fifita was reviewed"), and a single name addressed to the patient ("Thank you, Kalani,").
_BEFORE_ID = re.compile(
    rf"(?<![\w'’-])(?P<all>{_TOKEN}(?:\s+{_TOKEN}){{1,2}})(?=\s*,?\s*\(?(?:(?i:dob|d\.o\.b)|MRN|NHS\b|NHI\b|CHI\b|URN?\b|born\b|"
    r"(?i:aged?)\s+\d|\d{1,3}\s*(?:y/?o|yrs?|years?|[MF])\b|[A-Z]{2,4}[\s-]?\d{3,4}[\s-]?\d{3}"
    r"|(?P<bare>\d{1,3}\s*[,;(])))")
# A bare number after a name is an age only in a handover line ("Bed 7: Ioane Tuala, 58,"), not in vitals.
_HANDOVER = re.compile(r"(?i)(?:^|\b(?:bed|bay|room|rm|cubicle|side room)\s*\w{0,3}\s*[:,.-]?)\s*$")
# ... and after a referral's or a visit's verb ("thank you for seeing Epeli Naivalu")
_AFTER_VERB = re.compile(
    r"(?<!\w)(?i:seeing|regarding|re:|referring|attn:?|attention:|cc:|c/o)\s+"
    rf"(?P<all>{_TOKEN}\s+{_TOKEN})(?![\w'’-])")
_BEFORE_VERB = re.compile(
    rf"(?<![\w'’-])(?P<all>{_TOKEN}(?:\s+{_TOKEN}){{1,2}})(?=\s+(?:(?:was|is|has been|had been)\s+"
    r"(?:seen|reviewed|"
    r"admitted|discharged|transferred|referred|brought|assessed|examined|triaged|booked|consented|reassured)\b|"
    r"(?:reports|reported|presents|presented|attended|attends|declined|declines|denies|denied|complains|"
    r"complained|arrived|returned|phoned|consented|agreed|refused|tolerated|underwent|remains|lives|"
    r"re-?attended|self-discharged)\b))")
_GREETING_NAME = re.compile(
    r"(?<!\w)(?i:hi|hello|hey|dear|morning|good morning|good afternoon|good evening|thanks|thank you|"
    r"okay|ok|sorry|"
    rf"well done|bye|goodbye|see you),?\s+(?P<name>{_TOKEN})(?=\s*[,.?!(])")
_VOCATIVE = re.compile(rf"(?<=[a-z]),\s+(?P<name>{_TOKEN}),\s+(?=and|that|we|you|I|please|let|can|just|so)\b")
# Lower-case words after "my son", "my name is" that are not a name ("my son too.", "my wife, again").
_NOT_A_NAME = _words("""
too also here there now then again today yesterday tonight home though anyway instead first later
doc all everyone team guys folks
""")
_FAMILY = re.compile(rf"(?<!\w)(?i:the)\s+(?P<name>{_TOKEN})\s+"
                     r"(?:family|household|twins|children|brothers|sisters|wh[aā]nau|aiga|kids|boys|girls)\b")
_ADDRESS_WORDS = _words("""
doctor doctors nurse nurses team everyone everybody all sir madam ma'am folks guys dear again
""")
_ROLE_WORDS = _words("""
team staff nurse nursing physio physiotherapy therapy therapist manager registrar consultant doctor surgeon
surgeons service services theatre theatres radiology cardiology oncology clinic ward patient family
relatives carers sister charge night day morning evening weekend referral results report scan bloods
medicine medical surgical acute general emergency paediatrics pediatrics orthopaedics orthopedics urology
respiratory renal palliative geriatrics psychiatry maternity midwife midwifery social work worker occupational
speech language dietitian dietetics pharmacist district community mental crisis outreach sepsis stroke
trauma ambulance paramedic paramedics gp practice hospice labour delivery recovery icu hdu ccu rate pressure
heart temperature saturation saturations level count weight height glucose sugar home today tonight
follow up review appointment discharge summary letter results colleague colleagues
monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
september october november december blood chest head neck back abdomen
the this that our his her their your my a an all both each every no none
""")


def _unlisted_pair_names(text: str) -> list[tuple[int, int]]:
    """Issue 35: names with no listed part, known by an identifier or a patient verb after them."""
    spans = []
    for pattern in (_BEFORE_ID, _BEFORE_VERB, _AFTER_VERB):
        for m in pattern.finditer(text):
            words = _parts(m.group("all"))
            if any(w.isupper() or not _plain(w) or w.lower() in _ROLE_WORDS or w.lower().endswith("ology")
                   for w in words):
                continue
            if "bare" in m.re.groupindex and m.group("bare") and not _HANDOVER.search(text, 0, m.start()):
                continue
            spans.append(m.span("all"))
    for m in _FAMILY.finditer(text):  # "the Faleolo family"
        if _plain(m.group("name")) and m.group("name").lower() not in _ROLE_WORDS:
            spans.append(m.span("name"))
    addressed = re.search(r"(?i)\b(?:you|your|we'll|we will|let's|keep|come back|remember)\b", text)
    for pattern in (_GREETING_NAME, _VOCATIVE) if addressed else (_GREETING_NAME,):  # speech to someone
            for m in pattern.finditer(text):
                word = m.group("name")
                if _plain(word) and word.lower() not in _ADDRESS_WORDS | _ROLE_WORDS and not word.isupper():
                    spans.append(m.span("name"))
    return spans


_KIN_START = re.compile(r"(?<!\w)(?:my|his|her|your|their|our)\s+(?=[a-z])")
_INITIAL_SURNAME = re.compile(r"(?<![\w.])[A-Z]\.\s?(?P<last>[A-Z][a-z]+(?:-[A-Z][a-z]+)?)(?![\w'’-])")
_NEXT_WORD = re.compile(r"(?:['’]s?)?\s([A-Za-z]+)")  # one space: a form's next field is not an eponym's noun


def _parts(span: str) -> list[str]:
    return [p for p in re.split(r"[\s,]+", span.replace(".", " ")) if p]


def _is_eponym(text: str, end: int) -> bool:
    m = _NEXT_WORD.match(text, end)
    return bool(m and m.group(1).lower() in EPONYM_NOUNS)


def _fold(word: str) -> str:
    """``word`` without accents ("róisín" -> "roisin"): a listed name matches however it is written."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _listed(token: str, names: frozenset[str]) -> bool:
    low = token.lower()
    return any(w in names or _fold(w) in names for w in (low, *(p for p in low.split("-") if len(p) > 1)))


def _trim(start: int, tokens_text: str) -> int:
    """End of the name tokens ``tokens_text`` (found at ``start``), cut before the first stop word."""
    end = start
    for m in re.finditer(rf"[\s,]*({_INITIAL}(?![\w])|{_TOKEN}|[a-z][a-z'’-]+)", tokens_text):
        word = m.group(1).rstrip(".")
        initial = len(word) == 1 and m.group(1).endswith(".")  # "Ms A. Kereama": "A." is not the article
        if word.lower() in STOP_WORDS and not initial or (end > start and word.islower()):
            break
        end = start + m.end()
    return end


def lower_case_only(text: str) -> bool:
    """Whether ``text`` has no capital and no title: only cues and shorthand can find a name in it."""
    return not any(c.isupper() for c in text) and not re.search(r"\b(?:mrs?|ms|miss|dr|prof)\b", text)


def without_scale_names(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans less those holding a word such as "Scale" or "Balance": a scale's name ("Berg Balance
    Scale"), not a person's."""
    return [(a, b) for a, b in spans if not any(w.lower() in EPONYM_NOUNS for w in _parts(text[a:b]))]


def listed_names(text: str) -> list[tuple[int, int]]:
    """(start, end) of names found by the name lists, titles and cues, possibly overlapping (shorthand's
    names are added by ``detect.find_names``, which builds on this module and ``shorthand``).

    Example:
        >>> sorted({"Patient John Smith, 67"[s:e] for s, e in listed_names("Patient John Smith, 67")})
        ['John Smith']
    """
    first, last = name_lists()
    if lower_case_only(text):
        return _more_names(text, first, last)  # dialogue cues
    spans: list[tuple[int, int]] = []
    for m in _TITLE.finditer(text):
        rest = m.group("rest")
        title = m.group("title")
        listed = _listed(rest, first) or _listed(rest, last)
        loose = title[0].isupper() or title == "miss"
        if rest.islower() and (rest in LOWER_AFTER_TITLE or not listed and loose):
            continue  # "dr. on call", "dr. note", "miss doses", "Ms test"
        gap = text[m.end("title"):m.start("rest")]
        sentence_end = gap.startswith(".") and title.lower() in ("doctor", "professor")
        if sentence_end and (title.islower() or rest.islower()) and not (rest.islower() and listed):
            continue  # "see a doctor. Then ...": the word ends a sentence ("Dr." is the abbreviation)
        if "\n" in gap and rest.islower() and not listed:
            continue  # "ask your doctor\nabout it", a chat turn "doctor.\n\nuser: ..." (HealthBench)
        end = _trim(m.start("rest"), rest)
        if end > m.start("rest") and not _is_eponym(text, end):
            spans.append((m.start(), end))
    for m in _CUE.finditer(text):
        rest = m.group("rest")
        end = _trim(m.start("rest"), rest)
        words = _parts(text[m.start("rest"):end])
        if not words or _is_eponym(text, end):
            continue
        kin = not re.match(r"(?i)patient|pt|name|named|contact", m.group(0))
        form = ":" in text[m.start():m.start("rest")] and len(words) > 1  # "Name: Aperahama Tipene"
        if (_listed(words[0], first) or _listed(words[-1], last) or len(words) > 1 and _listed(words[0], last)
                or (kin or form) and all(_plain(w) for w in words if len(w) > 1)):
            spans.append((m.start("rest"), end))
    for m in _LAST_FIRST.finditer(text):
        surname, given = m.group("last"), m.group("first")
        if surname.lower() in STOP_WORDS or _is_eponym(text, m.end()) or re.fullmatch(r"[IVX]+", surname):
            continue
        if surname.isupper() != given.isupper():  # "TAUFA, Sione": an EHR's surname in capitals
            short_ok = len(surname) > 2 or surname.lower() in _surname_first_list()  # "LI, Mei"
            before_id = re.match(  # "KAUFUSI, Seini RH0049182": a wristband
                r"\s*,?\s*(?:[A-Z]{1,4}\d{5,}|\d{6,}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|DOB|NHI|MRN)",
                text[m.end():])
            if (surname.isupper() and short_ok and _plain(surname) and _plain(given)
                    and (_listed(given, first) or _listed(surname, last) or before_id)):
                spans.append((m.start(), m.end()))
            continue
        if _listed(surname, last) and _listed(given, first):
            spans.append((m.start(), m.end()))
    for m in _PAIR.finditer(text):
        given, surname = m.group("first"), m.group("last")
        if given.isupper() != surname.isupper() or len(given) < 3:
            continue
        low = given.lower()
        if not _listed(given, first) or low in COMMON_WORDS or surname.lower() in STOP_WORDS:
            continue
        if _is_eponym(text, m.end("all")):
            continue
        if m.group("mid") and m.group("mid").lower() in STOP_WORDS:
            continue
        if not _listed(surname, last) and _CAMEL.search(surname):
            continue  # a product or a project ("Stanford MedAlign"), not a surname
        spans.append((m.start(), m.end("all")))
    for m in _INITIAL_SURNAME.finditer(text):  # "J. Smith"
        surname = m.group("last")
        if _listed(surname, last) and surname.lower() not in STOP_WORDS and not _is_eponym(text, m.end()):
            spans.append((m.start(), m.end()))
    spans += _more_names(text, first, last)
    spans += _unlisted_pair_names(text)
    return without_scale_names(text, spans)


@cache
def _surname_first_list() -> frozenset[str]:
    """Romanized surnames of the locales that write the surname first, plus our Korean list."""
    import faker.providers.person as person

    names: set[str] = set(_KOREAN_SURNAMES)
    for locale in ("zh_CN", "zh_TW", "ja_JP", "vi_VN"):
        provider = importlib.import_module(f"{person.__name__}.{locale}").Provider
        for attr in ("last_romanized_names", "last_names"):
            values = getattr(provider, attr, None)
            if isinstance(values, list | tuple | dict):
                folded = (_fold(n).lower() for n in values if isinstance(n, str))
                names.update(n for n in folded if _LATIN.fullmatch(n))
    return frozenset(names | _VIET_SURNAMES)


def _plain(word: str) -> bool:
    low = word.lower()
    return low not in STOP_WORDS and low not in EPONYM_NOUNS and low not in COMMON_WORDS


def _more_names(text: str, first: frozenset[str], last: frozenset[str]) -> list[tuple[int, int]]:
    """Particle names, surname-first names and lower-case names in dialogue (issue 25 item 8)."""
    spans: list[tuple[int, int]] = []
    for pattern in (_PARTICLE_NAME, _ARABIC_PREFIX):
        for m in pattern.finditer(text):
            words = _parts(m.group("all"))
            if all(_plain(w) for w in words if w[0].isupper()) and not _is_eponym(text, m.end("all")):
                spans.append(m.span("all"))
    for m in _PAIR.finditer(text):  # an unlisted given name before a listed surname ("Haruto Suzuki")
        given, surname = m.group("first"), m.group("last")
        if (m.group("mid") or given.isupper() or surname.isupper() or _listed(given, first)
                or not _listed(surname, last) or len(given) < 3):
            continue
        if (_plain(given) and _plain(surname) and not _is_eponym(text, m.end("all"))
                and not _CAMEL.search(surname)):
            spans.append((m.start(), m.end("all")))
    surnames = _surname_first_list()
    for m in _SURNAME_FIRST.finditer(text):
        family, parts = m.group("last"), m.group("given").split()
        viet = _fold(parts[0].lower()) in _VIET_MIDDLE  # "Lê Thị Thu Hà": a middle name, then one or two
        parts = parts[:3] if viet else parts[:2]
        while len(parts) > 1 and not _plain(parts[-1]):
            parts.pop()
        if _fold(family.lower()) not in surnames or not all(_plain(w) for w in parts):
            continue
        distinctive = len(family) >= 3 and family.lower() not in COMMON_WORDS | first
        if not ("-" in parts[0] or _listed(parts[0], first) or _listed(parts[0], last) or distinctive
                or parts[0].lower() in _VIET_MIDDLE):
            continue
        if _is_eponym(text, m.end("all")):
            continue
        keep_second = len(parts) > 1 and (viet or _listed(parts[1], first)
                                          or _listed(parts[1], last) or "-" in parts[1])
        kept = parts if keep_second else parts[:1]
        end = m.start("given") + len(" ".join(kept))
        spans.append((m.start("all"), end))
    kin_matches = (_DIALOGUE.match(text, k.start()) for k in _KIN_START.finditer(text))
    for m in [*_DIALOGUE.finditer(text), *(k for k in kin_matches if k)]:
        words = m.group("name").split()
        if words[-1] in LOWER_AFTER_TITLE or words[-1] in STOP_WORDS:
            words = words[:-1]
        if not words or words[0] in COMMON_WORDS or words[0] in LOWER_AFTER_TITLE:
            continue
        greeted = ((m.group("greet") or "") in ("hi", "hello", "hey", "dear")
                   and text[m.end("name"):][:1] == ",")
        strong = (m.group("kin") or (m.group("intro") or "") in ("my name is", "name's", "call me")
                  or greeted and len(words) == 1 and words[0] not in _ADDRESS_WORDS)
        if not (_listed(words[0], first) or _listed(words[0], last)
                or strong and all(w not in _NOT_A_NAME and _plain(w) for w in words)):
            continue
        if len(words) > 1 and not (_listed(words[1], last) or _listed(words[1], first)):
            words = words[:1]
        start = m.start("name")
        spans.append((start, start + len(" ".join(words))))
        for again in re.finditer(rf"(?<![\w'’-]){re.escape(words[0])}(?![\w'’-])", text):
            spans.append(again.span())  # the same name said again later in the transcript
    return spans
