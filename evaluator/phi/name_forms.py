"""Names in forms the name lists and cues of phi-5 did not see (rules phi-6, issue 35 item 5).

- Filipino names: "Ma." for María, and the particles "Dela", "Delos", "De la" ("Ma. Luisa Dela Paz");
- Malay and Arabic patronymics and kunyas: "Faridah binti Osman", "Umm Salim", "Abu Karim", and a
  patronymic after a title word that the lists know ("Pt Idris bin Harun");
- two initials before a surname ("R. K. Narayanan");
- "Surname, Given" right after a subject or record number and before a colon ("0412, Adeyemi, Tolu:");
- a name written in Hangul or Chinese characters in an English note;
- a lower-case given name after a partner or a relative and before a verb ("ex-husband marco keeps");
- a first name a patient gives instead of a full name ("first name given as Jo");
- two capitalised words before a trial's or a visit's verb ("Kirra Lane approached in clinic");
- titles and form fields in other languages ("Frau", "Mevr.", "Bapak", "Smt.", "Nachname:", "Prénom :");
- a nickname before a bracketed full name ("Boy-boy (Ramon Cruz Santos)"), added in ``detect``.
"""

from __future__ import annotations

import re

_CAP = r"[A-ZÀ-ÞĀ-Žƀ-ɏḀ-Ỹ][a-zß-ÿā-žƀ-ɏḁ-ỹ'’ʻ-]+"
_MA = re.compile(rf"(?<![\w.])Ma\.\s+{_CAP}(?:\s+(?:{_CAP}|De\s+la|De\s+los|Dela|Delos))*(?:\s+{_CAP})?")
_DELA = re.compile(
    rf"(?<![\w'’-])(?:{_CAP}\s+){{1,2}}(?:[Dd]ela|[Dd]elos|[Dd]e\s+la|[Dd]e\s+los|De\s+las)\s+{_CAP}")
_PATRONYMIC = re.compile(
    rf"(?<![\w'’-])(?:{_CAP}\s+)?{_CAP}\s+(?:bin|binti|bint|ibn|bte|binte|a/l|a/p|s/o|d/o)\s+{_CAP}(?:\s+{_CAP})?")
_KUNYA = re.compile(rf"(?<![\w'’-])(?:Umm|Um|Abu|Abou|Om)\s+(?!Dhabi\b){_CAP}")
_TWO_INITIALS = re.compile(rf"(?<![\w.])[A-Z]\.\s?[A-Z]\.\s?{_CAP}")
_AFTER_NUMBER = re.compile(rf"(?<=\d)(?:,\s*|\s+)(?P<name>{_CAP},\s+{_CAP})(?=\s*[:;(]|,\s*\d)")
_SCRIPT = re.compile(r"[\uAC00-\uD7A3]{2,5}|[\u4E00-\u9FFF]{2,4}")
_KIN_VERB = re.compile(
    r"(?<![\w'’-])(?:ex-?)?(?i:partner|husband|wife|boyfriend|girlfriend|son|daughter|brother|sister|mum|mom|"
    r"dad|mother|father|carer)\s+(?P<name>[a-z][a-z'’-]+)(?=\s+(?:keeps|kept|is|was|has|had|says|said|called|rang|"
    r"phoned|texted|visits|visited|lives|brought|took|drove|left|came|wants|threatened|hit|pushed|will)\b|\s*[,.;]|\s*$)")
# two people named together after a word for them: "twins Aroha and Manaia", "parents Sione and Mele Taufa"
_PAIR_NAMED = re.compile(
    rf"(?<!\w)(?i:twins|children|sons|daughters|kids|brothers|sisters|parents|siblings|grandchildren|couple|"
    rf"grandparents)\s+(?P<names>{_CAP}(?:\s+{_CAP})?\s+and\s+{_CAP}(?:\s+{_CAP})?)(?=\s*[,.;(]|\s*$|\s+(?:are|were|have)\b)")
_GIVEN_AS = re.compile(
    rf"(?<!\w)(?i:name\s+given\s+as|given\s+(?:her|his|their)?\s*name\s+as|calls?\s+(?:him|her|them)sel(?:f|ves)"
    rf"|prefers?\s+to\s+be\s+called|answers\s+to|aka|a\.k\.a\.?|also\s+known\s+as)\s+"
    rf"(?:['\"‘“](?P<quoted>{_CAP}(?:\s+{_CAP})?)['\"’”]|(?P<name>{_CAP})(?=\s*[,.;)]|\s*$))")
_TITLE_PARTICLE = re.compile(
    rf"(?<![\w.-])(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+(?:[A-Z]\.?\s+|{_CAP}\s+)?(?:van|von|de|der|den|del|della|da|di|du|"
    rf"dos|das|ten|ter|le|la)(?:\s+(?:der|den|de|la|los|las|del))?\s+{_CAP}")
_TRIAL_VERB = re.compile(
    rf"(?<![\w'’-])(?P<name>{_CAP}\s+{_CAP})(?=\s+(?:was\s+)?(?:approached|screened|enrolled|randomi[sz]ed|"
    r"recruited|withdrew|withdrawn|consented|re-?consented|unblinded|dosed)\b)")
_PARTICLES = r"(?:de|van|der|den|von|la|le|del|di|da|dos)"
_WORD = r"[A-ZÀ-ÞĀ-Žƀ-ɏḀ-Ỹ][a-zß-ÿā-žƀ-ɏḁ-ỹ'’ʻ]+"
# titles and form fields in other languages: "Frau Ottilie Brandstetter", "Mevr. A. de Wit-Jansen",
# "Bapak Suharto Wirjono", "Nachname: Wöhrle", "Prénom : Maëlys"
_FOREIGN_TITLE = re.compile(
    rf"(?<![\w.])(?:(?i:mevr\.?|mevrouw|meneer|dhr\.|herr|frau|madame|mme\.?|monsieur|mlle\.?|sra\.|srta\.|señora|"
    rf"señor|dña\.|doña|sig\.(?:ra|na)?|signora|signor)|Bapak|Ibu|Encik|Puan|Tuan|Shri|Smt\.?|Kumari"
    rf"|(?i:nom|prénom|prenom|nachname|vorname|cognome|nome|naam|voornaam|achternaam|apellidos?|nombre|"
    rf"sobrenome|nazwisko|imię|příjmení|jméno|efternamn|förnamn|etternavn|fornavn)\s*:)\s+"
    rf"(?:(?:Dr|Prof)\.?\s+)?(?P<name>(?:[A-Z]\.\s*){{0,2}}(?:{_PARTICLES}\s+)*{_WORD}"
    rf"(?:[\s-]+(?:{_PARTICLES}[\s-]+)*{_WORD}(?!\w)(?!\s*:)){{0,2}})")
NICKNAME_BEFORE = re.compile(r"(?P<nick>[A-Za-z][\w'’-]+)\s*\($")
"""A word right before a bracket that holds a found name: the person's nickname ("Boy-boy (Ramon ...)")."""


_ROLE = frozenset(str.split("doctor doktor nurse discharge summary referral letter report clinic ward "
                            "service team"))


def form_names(text: str, english: frozenset[str], first: frozenset[str]) -> list[tuple[int, int]]:
    """(start, end) of names in the forms above; ``english`` are words that are never a name part,
    ``first`` the listed given names (lower case)."""

    def plain(span: str) -> bool:
        words = [w for w in re.split(r"[\s,.]+", span) if len(w) > 1]
        return all(w.lower() not in english for w in words)

    spans: list[tuple[int, int]] = []
    for pattern in (_MA, _DELA, _KUNYA, _TWO_INITIALS):
        for m in pattern.finditer(text):
            start, words = m.start(), m.group().split()
            if pattern is _DELA and words[0].lower() in english:  # "Patient Juan dela Cruz": not "Patient"
                start = text.index(words[1], start + len(words[0]))
            if plain(m.group().split(None, 1)[-1]):
                spans.append((start, m.end()))
    for m in _PATRONYMIC.finditer(text):
        start = m.start()
        lead = m.group().split()[0]
        if lead.lower() in english and len(m.group().split()) > 3:  # "Pt Idris bin Harun": not "Pt"
            start += len(lead) + 1
        if plain(text[start:m.end()]):
            spans.append((start, m.end()))
    for m in _AFTER_NUMBER.finditer(text):
        if plain(m.group("name")):
            spans.append(m.span("name"))
    spans += [m.span() for m in _SCRIPT.finditer(text)]
    for m in _FOREIGN_TITLE.finditer(text):
        words = re.sub(rf"\b{_PARTICLES}\b", " ", m.group("name")).lower().split()
        if plain(m.group("name")) and not any(w in _ROLE or w.endswith(("ology", "ologie", "ics"))
                                              for w in words):
            spans.append(m.span("name"))
    for m in _PAIR_NAMED.finditer(text):
        if plain(m.group("names").replace(" and ", " ")):
            spans.append(m.span("names"))
    for m in _KIN_VERB.finditer(text):
        if m.group("name") in first and m.group("name") not in english:
            spans.append(m.span("name"))
    for m in _GIVEN_AS.finditer(text):
        group = "quoted" if m.group("quoted") else "name"
        if plain(m.group(group)):
            spans.append(m.span(group))
    spans += [m.span() for m in _TITLE_PARTICLE.finditer(text)]
    spans += [m.span("name") for m in _TRIAL_VERB.finditer(text) if plain(m.group("name").split()[0])]
    return spans
