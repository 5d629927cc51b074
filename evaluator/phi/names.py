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
- an initial and a listed surname ("J. Smith").

A span followed by a word that makes it an eponym or a place ("syndrome", "score", "catheter",
"protein", "Hospital", ...) is not a name ("Bence Jones protein", "Ramsay Hunt syndrome").
"""

from __future__ import annotations

import importlib
import pkgutil
import re
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
surgery protocol protocols guideline guidelines regimen trial study
""")
# Capitalised words that are never part of a person's name in a note.
STOP_WORDS = _words("""
the a an and or of in on at to for with from by as is was are be has had have his her he she they it
this that these those patient pt name named son daughter wife husband mother father sister brother
reports presented presents denies seen called today yesterday tomorrow hospital clinic emergency
department icu ed er or unit floor room bed history exam plan assessment impression diagnosis
allergies medications labs vitals note chief complaint hpi ros pmh psh sh fh dr mr mrs ms miss prof
""")


# Lower-case words after a lower-case title that are not a name ("dr. on call", "dr. note").
LOWER_AFTER_TITLE = STOP_WORDS | _words("""
note notes visit visits office appointment appointments orders order call said says will would should
can could may might recommends recommended wants aware notified informed updated paged
""")


_NAME_ATTRS = ("first_names", "first_names_male", "first_names_female", "first_romanized_names",
               "first_romanized_names_male", "first_romanized_names_female", "last_names",
               "last_romanized_names")


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
    return frozenset(first), frozenset(last)


_TOKEN = r"(?:[A-Z][a-zA-Z'’]*[a-z][a-zA-Z'’]*|[A-Z]{2,}|[A-Z][’'][A-Z][a-z]+)(?:-[A-Z][a-zA-Z'’]+)*"
_UPPER_TOKEN = r"[A-Z][A-Z'’-]+"
_INITIAL = r"[A-Z]\.?"
# "ms" right after a number is milliseconds ("QRS 90 ms. Hemoglobin"), not a title.
_TITLE = re.compile(
    r"(?<![\w.-])(?P<title>[Mm]rs|[Mm]r|Ms|(?<!\d\s)ms|[Mm]iss|[Mm]x|[Dd]r|[Pp]rof|[Pp]rofessor|[Dd]octor)(?:\.|(?=\s))\s*"
    rf"(?P<rest>(?:{_INITIAL}\s+)?{_TOKEN}(?:\s+(?:{_INITIAL}(?=\s)|{_TOKEN})){{0,2}}|[a-z][a-z'’-]+)"
)
_CUE = re.compile(
    r"(?<!\w)(?i:patient|pt|name|named|son|daughter|wife|husband|mother|father|sister|brother|spouse|partner|"
    r"neighbou?r|friend|granddaughter|grandson|grandmother|grandfather|niece|nephew|aunt|uncle|caregiver|"
    r"guardian|contact|roommate|fianc[ée]e?|boyfriend|girlfriend|dtr)(?:'s)?"
    r"(?:\s+(?:is|was|named|called))?\s*[:,(-]?\s*(?<=[\s(])"
    rf"(?P<rest>{_TOKEN},\s+{_TOKEN}(?:\s+{_INITIAL}(?![\w]))?|{_TOKEN}(?:\s+(?:{_INITIAL}(?=\s)|{_TOKEN})){{0,2}})"
)
_LAST_FIRST = re.compile(
    rf"(?<![\w,])(?P<last>{_UPPER_TOKEN}|{_TOKEN}),\s+(?P<first>{_UPPER_TOKEN}|{_TOKEN})(?:\s+{_INITIAL}(?![\w]))?"
)
# A lookahead, so that "Pt Jorge Ramirez" is tried at "Pt" and again at "Jorge".
_PAIR = re.compile(
    rf"(?<![\w'’-])(?=(?P<all>(?P<first>{_TOKEN})(?:\s+{_INITIAL}|\s+(?P<mid>{_TOKEN}))?\s+(?P<last>{_TOKEN})))"
)
_CAMEL = re.compile(r"^(?!Mc|Mac|De|Di|Da|Le|La|Van|Von|O['’])[A-Z][a-z]*[A-Z]")
_INITIAL_SURNAME = re.compile(r"(?<![\w.])[A-Z]\.\s?(?P<last>[A-Z][a-z]+(?:-[A-Z][a-z]+)?)(?![\w'’-])")
_NEXT_WORD = re.compile(r"(?:['’]s?)?\s+([A-Za-z]+)")


def _parts(span: str) -> list[str]:
    return [p for p in re.split(r"[\s,]+", span.replace(".", " ")) if p]


def _is_eponym(text: str, end: int) -> bool:
    m = _NEXT_WORD.match(text, end)
    return bool(m and m.group(1).lower() in EPONYM_NOUNS)


def _listed(token: str, names: frozenset[str]) -> bool:
    low = token.lower()
    return low in names or any(part in names for part in low.split("-") if len(part) > 1)


def _trim(start: int, tokens_text: str) -> int:
    """End of the name tokens ``tokens_text`` (found at ``start``), cut before the first stop word."""
    end = start
    for m in re.finditer(rf"[\s,]*({_INITIAL}(?![\w])|{_TOKEN}|[a-z][a-z'’-]+)", tokens_text):
        word = m.group(1).rstrip(".")
        if word.lower() in STOP_WORDS or (end > start and word.islower()):
            break
        end = start + m.end()
    return end


def find_names(text: str) -> list[tuple[int, int]]:
    """(start, end) of likely person names in ``text``, possibly overlapping, in no particular order.

    Example:
        >>> sorted({"Patient John Smith, 67"[s:e] for s, e in find_names("Patient John Smith, 67")})
        ['John Smith']
    """
    if not any(c.isupper() for c in text) and not re.search(r"\b(?:mrs?|ms|miss|dr|prof)\b", text):
        return []
    first, last = name_lists()
    spans: list[tuple[int, int]] = []
    for m in _TITLE.finditer(text):
        rest = m.group("rest")
        title = m.group("title")
        listed = _listed(rest, first) or _listed(rest, last)
        loose = title[0].isupper() or title == "miss"
        if rest.islower() and (rest in LOWER_AFTER_TITLE or not listed and loose):
            continue  # "dr. on call", "dr. note", "miss doses", "Ms test"
        end = _trim(m.start("rest"), rest)
        if end > m.start("rest") and not _is_eponym(text, end):
            spans.append((m.start(), end))
    for m in _CUE.finditer(text):
        rest = m.group("rest")
        end = _trim(m.start("rest"), rest)
        words = _parts(text[m.start("rest"):end])
        if not words or _is_eponym(text, end):
            continue
        if _listed(words[0], first) or _listed(words[-1], last) or len(words) > 1 and _listed(words[0], last):
            spans.append((m.start("rest"), end))
    for m in _LAST_FIRST.finditer(text):
        surname, given = m.group("last"), m.group("first")
        if surname.isupper() != given.isupper() or surname.lower() in STOP_WORDS or _is_eponym(text, m.end()):
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
    return spans
