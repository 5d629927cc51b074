"""Names in shorthand (rules phi-5, issue 35 item 5): where notes drop the capitals and the titles.

- a bed board's row: the cell after the bed is the patient ("B12 | LEAVASA M | 91 | ...");
- lower-case names after a bed, a dash, a colon or a word that introduces a person ("bed 11 liu
  xiaoming -", "for huang jun;", "patient josé luis ibarra", "daughter kim soo ah"): each word a
  listed name or a word that is no English word, at least one listed (none after a bed number
  when an age and sex follow: "bed 4 - losaline taufa 93F");
- a single name known by what is said to or about the person ("please ask Lakshmi if she",
  "Message left for Anh re", "this is Ahmed's wife"), and a pair of unlisted capitalised words
  after "booked for" or "sample from";
- a lower-case particle in a surname ("van der Merwe, P", "Noor ul-Ain Qureshi").

"An English word" is one of the 971 common words of Faker's ``en_US`` lorem list, or a word the
name finder already treats as clinical (stop words, role words, eponym nouns).
"""

from __future__ import annotations

import re
from functools import cache

_WORD = r"[a-zß-öø-ÿā-ž][a-zß-öø-ÿā-ž'’-]+"
_CAP = r"[A-ZÀ-ÖØ-ÞĀ-Ž][a-zß-öø-ÿā-ž'’]+(?:-[A-Za-zÀ-ÿ][a-zß-öø-ÿā-ž'’]+)*"
_CELL_SPLIT = re.compile(r"\s*\|\s*")
_BED = re.compile(
    r"(?i)^(?:b|bed|bay|rm|room|r|cubicle|cube|cot|chair|resus|trolley|side\s*room|sr)?\s*\d{1,3}[a-z]?$")
# a cell holding a record number or a date: the row is about one person
_ROW_ID = re.compile(r"^(?:\d{6,12}|\d{4}-\d\d-\d\d|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})$")
_BABY = re.compile(
    rf"(?<![\w-])(?:BOY|GIRL|Baby|BABY)(?:\s+(?:of|OF))?\s+(?P<name>[A-Z][A-Z'’-]{{2,}}|{_CAP}(?:\s+{_CAP})?)")
_LATIN_NOUN = re.compile(
    r"(?i)(?:ella|ococcus|iae|itis|osis|emia|aemia|oma|ides|acter|monas|ium|us|ine|ol|ide)$")
_CELL_NAME = re.compile(rf"(?:(?:van|von|de|der|den|del|della|da|di|du|le|la|al|el|ten|ter)[\s-]+)*"
                        rf"(?:{_CAP}|[A-Z][A-Z'’-]{{2,}}|{_WORD})"
                        rf"(?:,?\s+(?:(?:van|von|de|der|den|del|da|di|du|le|la)\s+)*(?:{_CAP}|[A-Z][A-Z'’-]{{2,}}|{_WORD}|"
                        r"[A-Za-z]\.?)){0,3}")
_LOWER_CUE = re.compile(
    rf"(?:(?P<weak>[|;]\s*|(?<![\w-])--?\s+|:\s+|(?P<loose>(?<![\w'’-])"
    r"(?i:for|saw|with|and|to|see|meet|met)\s+))"
    rf"|(?P<strong>\b(?i:bed|bay|rm|room|cubicle)\s*\d{{1,3}}[a-z]?\s*[-:]?\s*"
    r"|(?<![\w'’-])(?i:pt|patient|seen|seeing|mr|mrs|ms|miss|dr|daughter|son|wife|husband|mother|"
    r"father|sister|brother|partner|mum|dad|re:?)\s+))"
    rf"(?=(?P<name>{_WORD}(?:\s+{_WORD}){{1,2}}(?:\s+[a-z](?=\s*(?:\||$)))?))")
_VERB_FORM = re.compile(r"[a-z]{3,}(?:ing|ed)")
_CLOSED = re.compile(r"\s*(?:--|\||;|,|\(|\d|$|-\s)")
# A romanised Chinese given name is a run of pinyin syllables ("xiaoming", "jian guo"); words over 12
# letters are not tried (the pattern backtracks on long runs such as "ananan...x").
_PINYIN = re.compile(r"(?:(?:zh|ch|sh|[bpmfdtnlgkhjqxrzcsyw])?(?:iang|iong|uang|ueng|ang|eng|ing|ong|ai|ei|"
                     r"ao|ou|an|en|in|un|ia|ie|iao|iu|ian|ua|uo|uai|ui|uan|ue|a|o|e|i|u|v)|er)+")
# Closed-class English words (auxiliaries, pronouns, prepositions, conjunctions, determiners): never a name.
_FUNCTION_TEXT = """
a an the this that these those some any each every both either neither all no none not nor and or but if then
than so as at by for from in into of off on onto out over under up down with within without to toward towards
upon about above across after against along among around before behind below beneath beside between beyond
during except inside near past since through throughout till until via is am are was were be been being has
have had having do does did done shall should will would may might must can could ought i me my mine we us our
ours you your yours he him his she her hers it its they them their theirs who whom whose which what where when
why how here there very too also just only even still yet again ever never always often already soon now
hi hello hey ok okay yes yeah yep nope oh um uh hmm so well right alright thanks please sorry gon gonna
wanna gotta let lets
"""
FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())
_AGE_SEX = re.compile(r"\s*,?\s*(?:\d{1,3}\s?[MFmf]\b|\(\d{1,3}|,\s*\d{1,3}\b)")
_SPOKEN_TO = re.compile(
    r"(?<!\w)(?i:ask|tell|remind|told|asked|inform|informed|reassured|explained\s+to|spoke\s+(?:to|with)|"
    r"called|phoned|rang|texted|emailed|messaged|attn:?|attention:?|c/o|cc:?|met\s+with|meeting\s+with|visited\s+by|accompanied\s+by|(?:message|msg|voicemail|vm)\s+left\s+(?:for|with)|"
    r"left\s+(?:a\s+)?(?:message|msg|voicemail)\s+for|(?P<pair>booked\s+for|sample\s+from|specimen\s+from|"
    r"blood\s+from))"
    rf"\s+(?P<name>{_CAP}(?:\s+{_CAP})?)(?=\s+(?:if|re|to|that|about|when|at|and|on|[A-Z]{{2,4}}[\s-]\d|"
    r"(?:she|he|they)\b)|\s*[,.;:?!)]|\s*$)")
_POSSESSIVE_KIN = re.compile(
    rf"(?<![\w'’-])(?P<name>{_CAP})['’]s\s+(?=(?:wife|husband|son|daughter|mother|mum|mom|father|dad|sister|"
    r"brother|partner|carer|caregiver|niece|nephew|granddaughter|grandson|family|children|kids)\b)")
_INSTITUTION = re.compile(r"(?i)\b(?:h[oô]pital|hospital|clinique|clinic|centre|center|institut[e]?|"
                          r"universit[éy]|saint|st\.?|groupe?|foundation|fondation|école|school|rue|avenue)\s*$")
# a kinship word and a lower-case name in brackets or commas: "mum (rosa) fell", "my son, tevita, rang"
_KIN_LOWER = re.compile(
    r"(?<!\w)(?i:mum|mom|mother|dad|father|son|daughter|wife|husband|partner|brother|sister|nan|nana|grandma|"
    rf"grandad|grandpa|aunty|auntie|uncle|cousin|niece|nephew)\s*[(,]\s*(?P<name>{_WORD})\s*[),]")
# a surname in capitals before a listed given name: "PATEL Anjali"
_CAPS_GIVEN = re.compile(
    rf"(?<![\w'’-])(?P<all>(?P<last>[A-Z][A-Z'’-]{{2,}})\s+(?P<given>{_CAP}))(?![\w'’-])")
# a listed given name alone as the subject of a patient verb: "Declan was calm", "says Ivan is confused"
_SUBJECT = re.compile(
    rf"(?:^|(?<=[.:;!?]\s)|(?<=[.:;!?]\s\s)|(?<=\bsays\s)|(?<=\bsaid\s)|(?<=\bthat\s))(?P<name>{_CAP})(?=\s+(?:was|is|has|had|may|will|can|should|"
    r"denied|denies|reports|reported|says|said|states|stated|feels|felt|remains|returned|attended|declined|"
    r"refused|agreed|presents|presented|lives|died|fell|ate|walked|slept|mobilised|mobilized|settled)\b)")
# a couple's titles before one surname: "Mr and Mrs Fonoti"
_COUPLE = re.compile(
    rf"(?<![\w.-])(?P<all>(?:Mr|Mrs|Ms|Dr|Miss)\.?\s+(?:and|&)\s+(?:Mr|Mrs|Ms|Dr|Miss)\.?\s+{_CAP})")
# a lower-case "last, first" in a cell of its own: "- jones, kevin -"
_LOWER_LAST_FIRST = re.compile(
    rf"(?:^|(?<=[-|;:]\s)|(?<=[(\"]))(?P<name>{_WORD},\s*{_WORD})(?=\s*(?:-\s|\||;|\)|\"|$))")
_BEFORE_ID_OR_DATE = re.compile(
    r"\s*[,(]?\s*(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|DOB|NHI|MRN|NHS|UR|\d{2,3}\s?[MF]\b)")
_KIN = (r"(?:daughter|son|wife|husband|mother|mum|mom|father|dad|parents?|sister|brother|partner|spouse|"
        r"nok|next of kin|carer|caregiver|guardian|epoa|niece|nephew|granddaughter|grandson|grandmother|"
        r"grandfather|grandparents?|aunt|aunty|uncle|cousin|friend|neighbou?r|fianc[ée]e?)")
# names before a bracketed kinship ("Grace (daughter)", "Rewi and Huia (parents)") or "and her mum"
_BEFORE_KIN = re.compile(
    rf"(?<![\w'’-])(?P<name>{_CAP}(?:\s+{_CAP})?)(?:\s+(?:and|&)\s+(?P<name2>{_CAP}(?:\s+{_CAP})?))?"
    rf"(?=\s*\((?:(?i:her|his|their|pt's|patient's)\s+)?(?i:{_KIN})s?\b|\s+(?:and|&|w/|with)\s+(?:her|his|their)\s+"
    rf"(?i:{_KIN})\b)")
# a name given as what the person is called: "known to staff as 'Bunny'", "goes by Tam"
_CALLED = re.compile(
    r"(?<!\w)(?i:known(?:\s+to\s+(?:the\s+)?\w+)?\s+as|goes\s+by|(?:prefers|likes|wants)\s+to\s+be\s+called|nicknamed?)"
    rf"\s+(?:['\"‘“](?P<quoted>[A-Za-z][\w'’-]+(?:\s[A-Za-z][\w'’-]+)?)['\"’”]|(?P<name>{_CAP})(?=\s*[,.;)]))")
# chat: "hey its lavinia from ...", "my mum sela missed her bus": an introduction then a listed given name
# and a word that ends the introduction, or a kinship word then a listed name
_CHAT_NAME = re.compile(
    rf"(?<![\w'’])(?:(?i:its|it's|i'm|im|this is|my name is|name's)\s+(?P<intro>{_WORD})"
    r"(?=\s*(?:[,.!]|from\b|here\b|again\b|calling\b|speaking\b))"
    r"|(?:my|his|her|our|your)\s+(?:mum|mom|mother|dad|father|son|daughter|wife|husband|partner|sister|brother|"
    rf"nan|nana|koro|grandma|grandad|aunty|uncle|cousin)\s+(?P<kin>{_WORD})"
    r"(?=\s+(?!(?:me|him|her|us|them|a|an|the|my|his|it|that|this|to|up|out|sure|some|all)\b)))")
# (the kinship branch: not "my wife made me")
_PARTICLE = re.compile(
    rf"(?<![\w'’-])(?P<all>(?:{_CAP}\s+)?(?:van|von|de|der|den|del|della|da|di|du|dos|das|ten|ter)"
    rf"(?:\s+(?:der|den|de|la|los|las|del))?\s+{_CAP}(?:,\s+(?:{_CAP}|[A-Z]\.?(?![\w])))?)"
    rf"|(?<![\w'’-])(?P<ul>{_CAP}\s+(?:ul|ud|un|ur|us|uz|al|el)-{_CAP}(?:\s+{_CAP})?)")


@cache
def english_words() -> frozenset[str]:
    """Common English words: Faker's en_US lorem list and the name finder's clinical words."""
    from faker.providers.lorem.en_US import Provider

    from evaluator.phi.names import COMMON_WORDS, EPONYM_NOUNS, LOWER_AFTER_TITLE, STOP_WORDS

    return (frozenset(Provider.word_list) | COMMON_WORDS | EPONYM_NOUNS | LOWER_AFTER_TITLE | STOP_WORDS
            | FUNCTION_WORDS)


def first_names() -> frozenset[str]:
    from evaluator.phi.names import name_lists

    return name_lists()[0]


def last_names() -> frozenset[str]:
    from evaluator.phi.names import name_lists

    return name_lists()[1]


@cache
def _vocabulary() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(English and clinical words, every listed name, the surname-first surnames), built once."""
    from evaluator.phi.names import _ROLE_WORDS, _surname_first_list, name_lists

    first, last = name_lists()
    surnames = _surname_first_list()
    return english_words() | _ROLE_WORDS, first | last | surnames, surnames


def shorthand_names(text: str) -> list[tuple[int, int]]:
    """(start, end) of names written in shorthand."""
    english, listed_any, surnames = _vocabulary()

    def listed(word: str) -> bool:
        w = word.lower().strip("'’")
        return w in listed_any or any(p in listed_any for p in w.split("-") if len(p) > 2)

    def plain(word: str) -> bool:
        w = word.lower().strip("'’.,")
        return w not in english and not any(p in english for p in w.split("-") if len(p) > 2)

    spans: list[tuple[int, int]] = []
    delimiter = next((d for d in ("|", "\t", ";") if text.count(d) >= 2), None)
    if delimiter:  # a board or a line list: the cell after the bed, or the cells beside a record number
        cells = [(m.start(), m.end()) for m in re.finditer(rf"[^{delimiter}]+", text)]
        keyed = any(_ROW_ID.match(text[a:b].strip()) for a, b in cells)
        for (a, b), (c, d) in zip(cells, cells[1:], strict=False):
            if not (_BED.match(text[a:b].strip()) or keyed and delimiter != ";"):
                continue
            cell = text[c:d].strip()
            start = c + text[c:d].index(cell) if cell else c
            words = [w for w in re.split(r"[\s,]+", cell) if w]
            long = [w for w in words if len(w.strip(".")) > 1]
            single = (keyed and len(words) == 1 and cell[:1].isupper() and not cell.isupper()
                      and not _LATIN_NOUN.search(cell))  # "34412980<TAB>Faleafa<TAB>Sina<TAB>1930-02-11"
            if (cell and _CELL_NAME.fullmatch(cell) and long and all(plain(w) for w in long)
                    and (len(words) > 1 or single)
                    and not any(w.isupper() and len(w) <= 4 for w in long)
                    and (any(listed(w) for w in long) or not cell.islower())):
                spans.append((start, start + len(cell)))
    for m in _LOWER_CUE.finditer(text):
        words = m.group("name").split()
        while words and not plain(words[-1]) and len(words[-1]) > 1:
            words.pop()
        if len(words) < 2 or not all(plain(w) for w in words if len(w) > 1) or words[0] in english:
            continue
        end = m.start("name") + len(" ".join(words))
        bed = re.match(r"(?i)bed|bay|rm|room|cubicle", text[m.start():m.start("name")].strip())
        named = [listed(w) for w in words if len(w) > 1]
        closed = _CLOSED.match(text, end)  # "-- farouk nasser --": a cell of its own
        if words[0].lower() not in surnames and any(_VERB_FORM.fullmatch(w) and not listed(w) for w in words):
            continue  # "awaiting echo"
        if m.group("weak") is not None:  # after a dash or a colon: a closed cell, or a Chinese name
            chinese = words[0].lower() in surnames and all(len(w) <= 12 and _PINYIN.fullmatch(w.lower())
                                                           for w in words[1:])
            paired = all(named) or any(named) and len(words) == 2 and not m.group("loose")
            if not (chinese or closed and paired):
                continue
        elif not any(named) and not (bed and _AGE_SEX.match(text, end)):
            continue
        spans.append((m.start("name"), end))
    for m in _SPOKEN_TO.finditer(text):
        words = m.group("name").split()
        if not all(plain(w) for w in words):
            continue
        if m.group("pair") and len(words) < 2:
            continue  # "booked for Echo": a single word after these is a test as often as a person
        if len(words) == 1 and not (listed(words[0]) or re.match(r"\s+(?:if|re|about|she|he|they)\b",
                                                                 text[m.end("name"):])):
            continue
        spans.append(m.span("name"))
    for m in _SUBJECT.finditer(text):
        if m.group("name").lower() in first_names() and plain(m.group("name")):
            spans.append(m.span("name"))
    spans += [m.span("all") for m in _COUPLE.finditer(text)]
    for m in _LOWER_LAST_FIRST.finditer(text):
        surname, given = (w.strip() for w in m.group("name").split(","))
        if surname in last_names() and given in first_names() and plain(surname) and plain(given):
            spans.append(m.span("name"))
    for m in _CHAT_NAME.finditer(text):
        group = "intro" if m.group("intro") else "kin"
        word = m.group(group)
        names = first_names() if group == "intro" else listed_any
        if word in names and plain(word) and not re.search(r"(?:ly|ed|ing)$", word):
            spans.append(m.span(group))
    for m in _BABY.finditer(text):  # "BOY TANGIORA", "Baby of Sarah Whitiora"
        if all(plain(w) for w in m.group("name").split()):
            spans.append(m.span("name"))
    for m in _BEFORE_KIN.finditer(text):
        for group in ("name", "name2"):
            value = m.group(group)
            if value and all((plain(w) and not _VERB_FORM.fullmatch(w.lower())) or w.lower() in first_names()
                             for w in value.split()):  # not "Attended with her son"
                spans.append(m.span(group))
    for m in _CALLED.finditer(text):
        group = "quoted" if m.group("quoted") else "name"
        if m.group(group).lower() not in FUNCTION_WORDS:
            spans.append(m.span(group))
    for m in _KIN_LOWER.finditer(text):
        if listed(m.group("name")) and plain(m.group("name")):
            spans.append(m.span("name"))
    for m in _CAPS_GIVEN.finditer(text):  # both listed, or a listed given name before a date or an id
        listed_pair = m.group("last").lower() in last_names() and m.group("given").lower() in first_names()
        if ((listed_pair or _BEFORE_ID_OR_DATE.match(text, m.end()) and len(m.group("last")) > 3)
                and plain(m.group("given")) and plain(m.group("last"))):
            spans.append(m.span("all"))
    for m in _POSSESSIVE_KIN.finditer(text):
        if plain(m.group("name")):
            spans.append(m.span("name"))
    for m in _PARTICLE.finditer(text):
        group = "all" if m.group("all") else "ul"
        value = m.group(group)
        given = value.split()[0]
        if group == "all" and "," not in value and not (value[0].isupper() and listed(given)):
            continue  # "Hôtel-Dieu de France": a particle after an unlisted word is a place's name
        if _INSTITUTION.search(text, 0, m.start()):
            continue  # "Hôpital Jeanne de Flandre"
        if all(plain(w) for w in re.findall(_CAP, value)):
            spans.append(m.span(group))
    return spans
