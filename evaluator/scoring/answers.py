"""Turn a model's free-form reply into the value that gets scored.

Models answer "B", "(B)", "**Answer: b.**", "Yes, because ...", "25.2 mL/min" or a paragraph of
reasoning that ends in a number. Scoring must not depend on which of these styles a model
prefers, and it must never guess: when no single answer can be read, the extractor returns
``None`` and the scorer counts the reply as *unparsed* (and wrong), so that a committee sees
how often a model failed to follow the format instead of a silently deflated score.

Decisions (each one is tested in ``tests/evaluator/scoring/test_answers.py``):

- Reasoning blocks (``<think>...</think>``) and markdown emphasis are removed first.
- A JSON ``"answer"`` value (MedCalc-Bench's prompts ask for ``{"answer": "..."}``) is the answer,
  and only it: numbers in a ``step_by_step_thinking`` beside it are never read instead.
- Otherwise an explicit marker ("answer is", "Answer:") wins: the value right after the *last*
  marker is taken (after its last "=" if it shows a calculation).
- **Not answers**: "N/A", "unknown", "none", "not found" and the like as the answer are
  *unparsed*; so is a refusal ("I cannot calculate ...", "unable to determine ...") in the first
  sentence of the answer. A number glued to a name by a hyphen ("CURB-65", "FIB-4"), an exponent
  ("kg/m^2") and a unit fragment ("/1.73 m2", "x 10^9/L") are never read as the answer.
- Bracketed asides ("16 mEq/L (normal 8-12)") are ignored when looking for the answer.
- Without a marker, a reply that *starts* with a number gives that number ("25.2 mL/min, which
  is ..."); otherwise the number after the last "=" (a worked calculation); otherwise the last
  number in the reply, as MedCalc-Bench's own ``extract_answer`` does.
- Thousands separators ("1,234.5"), a leading minus or Unicode minus and bare decimals (".5") are
  read; "/1.73 m²" and "x 10^9/L" unit fragments are ignored.
- **Ranges** ("between 3 and 4", "3-4", "3 to 4") are *unparsed*: a range is not one answer, and
  taking its midpoint would reward hedging. The reply counts as wrong and is visible in
  ``n_unparsed``.
- Gestational age is a (weeks, days) pair however it is written: "(30, 3)", "('30 weeks', '3 days')",
  "30 weeks and 3 days", "30 weeks 3 days", "30w 3d"; references are compared in the same form.
- Choice letters are accepted in upper case anywhere a letter is clearly meant, and in lower case
  only after a marker, in brackets or as the whole reply, because "a" is also an article.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from evaluator.benchmarks.instance import LETTERS, Instance

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_MARKDOWN = re.compile(r"[*_`#]+")
_MARKER = re.compile(
    r"\b(?:final\s+answer|correct\s+(?:answer|option|choice)|answer)\b\s*[\"']?\s*"
    r"(?:is\s*:?|would\s+be|should\s+be|:|=|-(?=\s))?\s*",
    re.I,
)
# A number: optional minus (ASCII or Unicode) not glued to a preceding word or digit, digits with
# optional thousands groups, optional decimals; or a bare decimal such as ".5".
_NUM = (
    r"(?:(?<![\w.,])[-\u2212](?=[\d.]))?"  # minus sign
    r"(?:(?<![\w.])\d{1,3}(?:,\d{3})+(?!\d)|(?<![\w.])\d+|(?<![\w\d])(?=\.\d))"  # 1,234 | 12 | .5
    r"(?:\.\d+)?"  # decimals
)
_NUM_RE = re.compile(_NUM)
_RANGE_AFTER = re.compile(r"\s*(?:-|\u2013|\u2014|to)\s*[-\u2212]?\.?\d")
_BETWEEN_BEFORE = re.compile(rf"between\s*$|between\s+{_NUM}\s*(?:and|to|-|\u2013)\s*$", re.I)
_UNIT_NOISE = re.compile(
    r"(?:/|\bper)\s*1\.73\s*m(?:\^?2|\u00b2)?|[x\u00d7*]\s*10\s*\^?\s*\d+|\b10\^\d+|\bout\s+of\s+\d+(?:\.\d+)?",
    re.I,
)
# "kg/m^2", "s^-1": an exponent is part of a unit; "CURB-65", "FIB-4": a number in a name.
_EXPONENT = re.compile(r"\^\s*[-\u2212]?\d+")
_NAME_NUMBER = re.compile(r"(?<=[A-Za-z])[-\u2010\u2011]\d+(?:\.\d+)?(?![\d.])")
_JSON_ANSWER = re.compile(
    r"[\"']answer[\"']\s*:\s*(?:\"((?:[^\"\\]|\\.)*)\"|'([^']*)'|([^,}\n]*))", re.I
)
_NON_ANSWER = re.compile(
    r"(?:n\s*/\s*a|na|none|null|nan|unknown|not\s+(?:found|applicable|available|known|determinable)"
    r"|cannot\s+be\s+(?:determined|calculated|computed)|undetermined|indeterminate|-+|\?+)",
    re.I,
)
_REFUSAL = re.compile(
    r"\b(?:i|we)\s+(?:cannot|can\s*not|can't|could\s+not|couldn't|am\s+unable\s+to|are\s+unable\s+to)"
    r"\s+(?:\w+\s+){0,2}?(?:calculate|compute|determine|provide|give|answer|estimate|assess)"
    r"|\b(?:unable|impossible|not\s+possible)\s+to\s+(?:\w+\s+){0,2}?"
    r"(?:calculate|compute|determine|provide|give|answer|estimate|assess)"
    r"|\b(?:not\s+enough|insufficient)\s+(?:\w+\s+){0,2}?(?:information|data|details)\b",
    re.I,
)
_PARENTHETICAL = re.compile(r"\([^()]*\)")
_DATE = re.compile(r"(?<!\d)(0?[1-9]|1[0-2])/(0?[1-9]|[12]\d|3[01])/(\d{4})(?!\d)")
# Gestational age as words ("30 weeks and 3 days", "30w 3d") or as a pair ("(30, 3)",
# "('30 weeks', '3 days')").
_WEEKS_DAYS_WORDS = re.compile(
    r"(?<![\d.])(\d+)\s*(?:weeks?|wks?|w)\b[\"']?\s*(?:,|and|\+)?\s*[\"']?(\d+)\s*(?:days?|d)\b", re.I
)
_WEEKS_DAYS_PAIR = re.compile(
    r"[(\[]\s*[\"']?(\d+)\s*(?:weeks?)?[\"']?\s*,\s*[\"']?(\d+)\s*(?:days?)?[\"']?\s*[)\]]", re.I
)
_BARE_PAIR = re.compile(r"\s*(\d+)\s*,\s*(\d+)\s*\.?\s*")


def clean_reply(text: str | None) -> str:
    """Remove reasoning blocks and markdown emphasis, and trim.

    Example:
        >>> clean_reply("<think>hmm</think> **B**")
        'B'
    """
    if not text:
        return ""
    return _MARKDOWN.sub("", _THINK.sub(" ", text)).strip()


def normalize_text(text: str) -> str:
    """Lower-case, collapse whitespace and strip surrounding punctuation, for text comparison.

    Example:
        >>> normalize_text("  Nicotinics. ")
        'nicotinics'
    """
    return re.sub(r"\s+", " ", text.lower()).strip(" \t\n.,;:!?\"'()[]")


def format_number(value: float) -> str:
    """Render a parsed number compactly ("4", "25.238").

    Example:
        >>> format_number(4.0), format_number(25.238)
        ('4', '25.238')
    """
    return f"{value:.10g}"


def _to_float(token: str) -> float:
    return float(token.replace(",", "").replace("\u2212", "-"))


def _json_answer(text: str) -> str | None:
    """The value of the last ``"answer"`` key of a JSON(-like) reply, JSON escapes decoded."""
    matches = list(_JSON_ANSWER.finditer(text))
    if not matches:
        return None
    quoted, single, bare = matches[-1].groups()
    if quoted is not None:
        try:
            return str(json.loads(f'"{quoted}"'))
        except json.JSONDecodeError:
            return quoted
    return (single if single is not None else bare).strip()


def _after_last_marker(text: str) -> str | None:
    json_value = _json_answer(text)
    if json_value is not None:
        return json_value
    matches = list(_MARKER.finditer(text))
    return text[matches[-1].end() :] if matches else None


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?;])\s+|\n", text.strip(), maxsplit=1)[0]


def is_non_answer(text: str | None) -> bool:
    """True when a reply gives no answer: empty, "N/A"-like, or a refusal in its first sentence.

    Example:
        >>> is_non_answer('{"answer": "N/A"}'), is_non_answer("I cannot calculate the CURB-65 score.")
        (True, True)
        >>> is_non_answer("The CURB-65 score is 2; confusion cannot be determined, so it scores 0.")
        False
    """
    answer = _answer_part(text)
    return _says_nothing(answer) or bool(_REFUSAL.search(_first_sentence(answer)))


def _answer_part(text: str | None) -> str:
    cleaned = clean_reply(text)
    segment = _after_last_marker(cleaned)
    return (segment if segment is not None else cleaned).strip()


def _says_nothing(answer: str) -> bool:
    return not answer or _NON_ANSWER.fullmatch(answer.strip(" \t\n.,;:!\"'()[]{}")) is not None


def _number_at(text: str, match: re.Match[str]) -> float | None:
    """The number of ``match``, or None when it is one end of a range."""
    if _RANGE_AFTER.match(text, match.end()) or _BETWEEN_BEFORE.search(text[: match.start()]):
        return None
    before = text[: match.start()].rstrip()
    if before and before[-1] in "-\u2013\u2014" and _NUM_RE.search(before[-12:]):
        return None
    if re.search(r"\bto\s*$", before, re.I) and _NUM_RE.search(before[-16:]):
        return None
    return _to_float(match.group())


def extract_number(text: str | None) -> float | None:
    """Read the one number a reply gives as its answer.

    Args:
        text: the model's reply.

    Returns:
        The number, or None when there is none or the answer is a range.

    Example:
        >>> extract_number("The answer is 1,234.5 mL/min")
        1234.5
        >>> extract_number("between 3 and 4") is None
        True
    """
    if is_non_answer(text):
        return None
    cleaned = _EXPONENT.sub(" ", _UNIT_NOISE.sub(" ", clean_reply(text)))
    cleaned = _NAME_NUMBER.sub(" ", cleaned)
    json_value = _json_answer(cleaned)
    if json_value is not None:  # the JSON answer and nothing else (never the reasoning beside it)
        cleaned = json_value
    segment = _after_last_marker(cleaned)
    if segment is not None:
        # "Answer: (140-87)*48/100.8 = 25.2" -> the result after the last "="; asides in brackets
        # ("25.2 (normal 20-30)") cannot pose as the answer; "Answer: (25.2)" still reads 25.2.
        bare = _PARENTHETICAL.sub(" ", segment)
        bare = bare[bare.rindex("=") + 1 :] if "=" in bare else bare
        for candidate in (bare, segment):
            found = _NUM_RE.search(candidate)
            if found:
                return _number_at(candidate, found)
    cleaned = _PARENTHETICAL.sub(" ", cleaned)
    leading = _NUM_RE.match(cleaned)
    if leading:
        return _number_at(cleaned, leading)
    if "=" in cleaned:
        tail = cleaned[cleaned.rindex("=") + 1 :]
        found = _NUM_RE.search(tail)
        if found:
            return _number_at(tail, found)
    numbers = list(_NUM_RE.finditer(cleaned))
    return _number_at(cleaned, numbers[-1]) if numbers else None


def extract_date(text: str | None) -> str | None:
    """Read a date written MM/DD/YYYY and return it zero-padded.

    Example:
        >>> extract_date("Due date: 1/9/2007.")
        '01/09/2007'
    """
    cleaned = clean_reply(text)
    segment = _after_last_marker(cleaned) or cleaned
    found = _DATE.search(segment) or _DATE.search(cleaned)
    if not found:
        return None
    month, day, year = found.groups()
    return f"{int(month):02d}/{int(day):02d}/{year}"


def _weeks_days_in(text: str, *, whole: bool = False) -> str | None:
    found = _WEEKS_DAYS_WORDS.search(text) or _WEEKS_DAYS_PAIR.search(text)
    if not found and whole:
        found = _BARE_PAIR.fullmatch(text.strip(" \t\n\"'"))
    return f"({int(found.group(1))}, {int(found.group(2))})" if found else None


def extract_weeks_days(text: str | None) -> str | None:
    """Read a gestational age given as weeks and days and return "(weeks, days)".

    The answer part (after a marker or the JSON ``"answer"`` value) is read first, then the whole
    reply; a bare "30, 3" counts only when it is the whole answer.

    Example:
        >>> extract_weeks_days("('35 weeks', '3 days')"), extract_weeks_days('{"answer": "(35, 3)"}')
        ('(35, 3)', '(35, 3)')
        >>> extract_weeks_days("She is 35 weeks and 3 days pregnant.")
        '(35, 3)'
    """
    cleaned = clean_reply(text)
    segment = _after_last_marker(cleaned)
    if segment is not None:
        found = _weeks_days_in(segment, whole=True)
        if found:
            return found
    return _weeks_days_in(cleaned, whole=True)


def exact_reference(reference: str) -> str:
    """A reference in the form the extractor gives for it: dates zero-padded, weeks/days as "(w, d)".

    Example:
        >>> exact_reference("('30 weeks', '3 days')"), exact_reference("1/9/2007"), exact_reference("4")
        ('(30, 3)', '01/09/2007', '4')
    """
    ref = reference.strip()
    if _DATE.fullmatch(ref):
        return extract_date(ref) or ref
    if _is_weeks_days(ref):
        return _weeks_days_in(ref) or ref
    return ref


def _is_weeks_days(reference: str) -> bool:
    ref = reference.strip()
    return bool(_WEEKS_DAYS_PAIR.fullmatch(ref) or _WEEKS_DAYS_WORDS.fullmatch(ref))


_BRACKETED_LETTER = re.compile(r"\s*(?:(?:option|choice|letter)\s+)?[(\[]\s*([A-Za-z])\s*[)\]]", re.I)
_PREFIXED_LETTER = re.compile(r"\s*(?:option|choice|letter)\s+([A-Za-z])\b", re.I)
_BARE_LETTER = re.compile(r"\s*([A-Za-z])(?=\s*(?:$|[.):;,!\]]|-\s))")


def _letter_at_start(text: str, letters: str, allow_lower: bool) -> str | None:
    """A letter at the start of ``text`` that is clearly an option label."""
    labelled = _BRACKETED_LETTER.match(text) or _PREFIXED_LETTER.match(text)
    bare = None if labelled else _BARE_LETTER.match(text)
    found = labelled or bare
    if not found:
        return None
    letter = found.group(1)
    if letter.upper() not in letters or (letter.islower() and bare and not allow_lower):
        return None
    return letter.upper()


def _option_text_at_start(text: str, choices: Sequence[str]) -> str | None:
    norm = normalize_text(text)
    hits = {
        LETTERS[i]
        for i, choice in enumerate(choices)
        if (c := normalize_text(choice)) and re.match(re.escape(c) + r"(?![a-z0-9])", norm)
    }
    return hits.pop() if len(hits) == 1 else None


def extract_choice(text: str | None, choices: Sequence[str]) -> str | None:
    """Read which option a reply picks.

    Args:
        text: the model's reply.
        choices: the options in display order (lettered A, B, ...).

    Returns:
        The option letter, or None when the reply picks no single option.

    Example:
        >>> extract_choice("The answer is b.", ["Fibronectin", "Collagen"])
        'B'
        >>> extract_choice("Collagen", ["Fibronectin", "Collagen"])
        'B'
    """
    cleaned = clean_reply(text)
    letters = LETTERS[: len(choices)]
    if not cleaned or not letters:
        return None
    segment = _after_last_marker(cleaned)
    if segment is not None:
        picked = _letter_at_start(segment, letters, True) or _option_text_at_start(segment, choices)
        if picked:
            return picked
    whole = re.fullmatch(r"[(\[]?\s*([A-Za-z])\s*[)\]]?[.!]?", cleaned)
    if whole and whole.group(1).upper() in letters:
        return whole.group(1).upper()
    labelled = set(re.findall(r"[(\[]([A-Z])[)\]]|\b(?:option|choice)\s+([A-Z])\b", cleaned, re.I))
    flat = {(a or b).upper() for a, b in labelled} & set(letters)
    picked = _letter_at_start(cleaned, letters, False) or _option_text_at_start(cleaned, choices)
    if picked:
        # "(A) or (B)" names two options: a hedge, not an answer.
        return picked if flat <= {picked} else None
    if len(flat) == 1:
        return flat.pop()
    norm = normalize_text(cleaned)
    contained = {
        LETTERS[i]
        for i, choice in enumerate(choices)
        if (c := normalize_text(choice))
        and re.search(r"(?<![a-z0-9])" + re.escape(c) + r"(?![a-z0-9])", norm)
    }
    return contained.pop() if len(contained) == 1 else None


def reference_letter(instance: Instance) -> str | None:
    """The correct option letter of a choice instance, whether stored as a letter or as option text.

    Example:
        >>> reference_letter(Instance(id="x", choices=("yes", "no"), reference="no", answer_type="choice"))
        'B'
    """
    ref = instance.reference.strip()
    letters = LETTERS[: len(instance.choices)]
    if len(ref) == 1 and ref.upper() in letters:
        return ref.upper()
    matches = [LETTERS[i] for i, c in enumerate(instance.choices) if normalize_text(c) == normalize_text(ref)]
    return matches[0] if len(matches) == 1 else None


def _looks_numeric(text: str) -> bool:
    return re.fullmatch(r"\s*[-\u2212]?(?:\d+(?:\.\d*)?|\.\d+)\s*", text) is not None


def extract_exact(text: str | None, reference: str) -> str | None:
    """Read a short exact answer shaped like ``reference`` (number, date, weeks/days or text).

    Example:
        >>> extract_exact("Score: 4 points", "4")
        '4'
        >>> extract_exact("Answer: Atrial fibrillation.", "atrial fibrillation")
        'Atrial fibrillation'
    """
    if _DATE.fullmatch(reference.strip()):
        return extract_date(text)
    if _is_weeks_days(reference):
        return extract_weeks_days(text)
    if _looks_numeric(reference):
        value = extract_number(text)
        return None if value is None else format_number(value)
    cleaned = clean_reply(text)
    segment = _after_last_marker(cleaned)
    chosen = segment if segment and segment.strip() else cleaned
    first_line = chosen.strip().splitlines()[0] if chosen.strip() else ""
    answer = first_line.strip().strip("\"'").rstrip(".").strip()
    return answer or None


def extract_answer(instance: Instance, text: str | None) -> str | None:
    """Read the scored value of a reply according to the instance's answer type.

    Returns:
        An option letter (choice), a normalised number/date/text (exact), a number
        (numeric_range), the cleaned reply (free_text); None when nothing can be read.

    Example:
        >>> item = Instance(id="q", answer_type="numeric_range", reference="25.2")
        >>> extract_answer(item, "CrCl = 25.2 mL/min")
        '25.2'
    """
    if instance.answer_type == "free_text":
        # a refusal is a reply a jury can judge; "N/A" or nothing is not
        return None if _says_nothing(_answer_part(text)) else clean_reply(text)
    if is_non_answer(text):
        return None
    if instance.answer_type == "choice":
        return extract_choice(text, instance.choices)
    if instance.answer_type == "numeric_range":
        value = extract_number(text)
        return None if value is None else format_number(value)
    return extract_exact(text, instance.reference)
