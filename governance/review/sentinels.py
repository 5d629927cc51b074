"""Sentinels: faulty outputs planted in a queue, made from a correct answer by a documented perturbation.

Why these three: they are the errors a reviewer of clinical text must not miss and that read fluently,
so a rater cannot tell them from real outputs by their style:

* ``number``: the first number is multiplied by ten (``500 mg`` -> ``5000 mg``; a tenfold dose error);
* ``negation``: the first negation is removed (``do not`` -> ``do``, ``never`` -> ``always``), or when
  there is none the first modal verb is negated (``should`` -> ``should not``);
* ``warning``: the first sentence holding a warning (avoid, do not, seek care, call, risk, bleeding,
  side effect, ...) is dropped (the answer needs at least two sentences).

For outputs that answer with an option or a value the free-text perturbations rarely apply (a lone
letter holds no number, negation or warning), so such cases take their own kind first:

* ``option``: the chosen option becomes another one that is not the reference (``B`` -> ``C``, and the
  option's text with it when the output repeats it);
* ``value``: an exact answer becomes a wrong value: another case's reference from the same run
  (``yes`` -> ``no``), else the number rule above.

Each is a deterministic function of the text: ``None`` when it does not apply. An editor may also write
a sentinel (kind ``editor``), e.g. from a file (``review create --sentinel-file``). A sentinel is
caught when it is rated ``material`` (audit verdict) or at most 2 on accuracy (jury rubric):
``governance.review.measures``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

NUMBER = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)(?![\w.]*\d)")
NEGATIONS = [
    (re.compile(r"\b(do|does|did|should|must|can|could|is|are|was|were|will|would|may) not\b", re.I), r"\1"),
    (re.compile(r"\bdon't\b", re.I), "do"),
    (re.compile(r"\bdoesn't\b", re.I), "does"),
    (re.compile(r"\bshouldn't\b", re.I), "should"),
    (re.compile(r"\bcan't\b", re.I), "can"),
    (re.compile(r"\bisn't\b", re.I), "is"),
    (re.compile(r"\baren't\b", re.I), "are"),
    (re.compile(r"\bwon't\b", re.I), "will"),
    (re.compile(r"\bnever\b", re.I), "always"),
    (re.compile(r"\bno longer\b", re.I), "still"),
]
MODAL = re.compile(r"\b(should|must|can|is|are|will)\b(?! not)", re.I)
WARNING = re.compile(
    r"\b(warn\w*|avoid\w*|caution|do not|don't|never|seek|call|emergency|urgent\w*|risk\w*|"
    r"bleed\w*|side effects?|stop\w*|consult|immediately|danger\w*|overdose)\b",
    re.I,
)
SENTENCE = re.compile(r"(?<=[.!?])\s+")


def change_number(text: str) -> tuple[str, str] | None:
    """The text with its first number ten times larger, and what changed; None without a number.

    Example:
        >>> change_number("Take 500 mg twice a day.")
        ('Take 5000 mg twice a day.', 'number: 500 became 5000')
        >>> change_number("Take 0.5 mg.")[0], change_number("No numbers here.") is None
        ('Take 5 mg.', True)
    """
    m = NUMBER.search(text)
    if m is None:
        return None
    raw = m.group(1)
    sep = "," if "," in raw else "."
    value = float(raw.replace(",", "."))
    new = value * 10
    shown = str(int(new)) if new == int(new) else f"{new:g}".replace(".", sep)
    return text[: m.start(1)] + shown + text[m.end(1) :], f"number: {raw} became {shown}"


def flip_negation(text: str) -> tuple[str, str] | None:
    """The text with its first negation removed (or its first modal verb negated), and what changed.

    Example:
        >>> flip_negation("Do not crush the tablet.")
        ('Do crush the tablet.', 'negation: "Do not" became "Do"')
        >>> flip_negation("You should take it with food.")[0]
        'You should not take it with food.'
    """
    for pattern, repl in NEGATIONS:
        m = pattern.search(text)
        if m is not None:
            new = m.expand(repl)
            if m.group(0)[:1].isupper():
                new = new[:1].upper() + new[1:]
            return text[: m.start()] + new + text[m.end() :], f'negation: "{m.group(0)}" became "{new}"'
    m = MODAL.search(text)
    if m is None:
        return None
    new = f"{m.group(1)} not"
    return text[: m.start()] + new + text[m.end() :], f'negation: "{m.group(1)}" became "{new}"'


def drop_warning(text: str) -> tuple[str, str] | None:
    """The text without its first warning sentence, and what was dropped; None if nothing to drop.

    Example:
        >>> drop_warning("Take it with food. Avoid alcohol while on it. It works in a week.")
        ('Take it with food. It works in a week.', 'warning dropped: "Avoid alcohol while on it."')
    """
    sentences = SENTENCE.split(text.strip())
    if len(sentences) < 2:
        return None
    for k, s in enumerate(sentences):
        if WARNING.search(s):
            rest = sentences[:k] + sentences[k + 1 :]
            return " ".join(rest), f'warning dropped: "{s}"'
    return None


class AnswerFacts(NamedTuple):
    """What an option or exact-value sentinel needs to know about the case an output answers."""

    answer_type: str
    """The case's answer type (``choice``, ``exact``, ...)."""
    choices: tuple[str, ...] = ()
    """The options, lettered A, B, C, ... in this order."""
    reference: str = ""
    """The correct option letter or value."""
    parsed: str | None = None
    """The answer read from the output (an option letter, a value)."""
    alternatives: tuple[str, ...] = ()
    """Other cases' references in the same run: wrong values that read like right ones."""


def _letter_at(text: str, letter: str) -> re.Match[str] | None:
    """The first place ``letter`` stands alone as an option (not the article "A" before a word)."""
    for m in re.finditer(rf"(?<![A-Za-z'])\(?{re.escape(letter)}\)?(?![A-Za-z'])", text):
        if m.group(0) == "A" and re.match(r" [a-z]", text[m.end():]):
            continue
        return m
    return None


def change_option(text: str, facts: AnswerFacts) -> tuple[str, str] | None:
    """The output with its option changed to another that is not the reference; None if it cannot be.

    Example:
        >>> f = AnswerFacts("choice", ("yes", "no", "unsure"), reference="A", parsed="A")
        >>> change_option("A", f)
        ('B', 'option: A became B')
        >>> change_option("Answer: (A) yes, a patient needs care", f)[0]
        'Answer: (B) no, a patient needs care'
    """
    letters = [chr(ord("A") + k) for k in range(len(facts.choices))]
    parsed = (facts.parsed or "").strip().upper()
    if parsed not in letters:
        return None
    start = letters.index(parsed)
    wrong = next((x for x in letters[start + 1:] + letters[:start]
                  if x not in (parsed, facts.reference.strip().upper())), None)
    m = _letter_at(text, parsed)
    if wrong is None or m is None:
        return None
    new = text[: m.start()] + m.group(0).replace(parsed, wrong) + text[m.end():]
    old_text, new_text = facts.choices[letters.index(parsed)], facts.choices[letters.index(wrong)]
    said = re.compile(rf"(?<!\w){re.escape(old_text)}(?!\w)", re.I) if old_text.strip() else None
    hit = said and (said.search(new, m.start()) or said.search(new))
    if hit:
        new = new[: hit.start()] + new_text + new[hit.end():]
    return new, f"option: {parsed} became {wrong}"


def wrong_value(text: str, facts: AnswerFacts) -> tuple[str, str] | None:
    """The output with its exact answer replaced by another case's reference; None if it cannot be.

    Example:
        >>> f = AnswerFacts("exact", reference="yes", parsed="yes", alternatives=("yes", "no"))
        >>> wrong_value("Yes.", f)
        ('no.', 'value: "Yes" became "no"')
    """
    given = (facts.parsed or facts.reference or "").strip()
    if not given:
        return None
    m = re.search(rf"(?<!\w){re.escape(given)}(?!\w)", text, re.I)
    right = (given.lower(), facts.reference.strip().lower())
    other = next((a.strip() for a in facts.alternatives
                  if a.strip() and a.strip().lower() not in right), None)
    if m is None or other is None:
        return None
    return text[: m.start()] + other + text[m.end():], f'value: "{m.group(0)}" became "{other}"'


PERTURBATIONS: dict[str, Callable[[str], tuple[str, str] | None]] = {
    "number": change_number,
    "negation": flip_negation,
    "warning": drop_warning,
}
"""The documented perturbations, in the order a queue's sentinels take them in turn."""


def _answer_kinds(facts: AnswerFacts | None) -> list[tuple[str, Callable[[str], tuple[str, str] | None]]]:
    """The option or value perturbation a case's answer type takes first (none for free text)."""
    if facts is None:
        return []
    if facts.answer_type == "choice":
        return [("option", lambda t: change_option(t, facts))]
    if facts.answer_type == "exact":
        return [("value", lambda t: wrong_value(t, facts))]
    return []


def make_sentinels(sources: Sequence[tuple[str, str]], k: int,
                   answers: Mapping[str, AnswerFacts] | None = None) -> list[tuple[str, str, str, str]]:
    """Up to ``k`` sentinels ``(instance_id, kind, text, note)`` from correct answers ``(instance_id, text)``.

    A case with ``answers`` facts of a choice or exact answer tries its own kind first (``option``,
    ``value``). Otherwise kinds are taken in turn (number, negation, warning); a source the turn's kind
    does not apply to tries the next kind, and a source none applies to is passed over. Each source is
    used once.

    Example:
        >>> made = make_sentinels([("a", "Take 5 mg daily."), ("b", "Do not drive. Rest.")], 2)
        >>> [(m[0], m[1], m[2]) for m in made]
        [('a', 'number', 'Take 50 mg daily.'), ('b', 'negation', 'Do drive. Rest.')]
        >>> make_sentinels([("q", "B")], 1, {"q": AnswerFacts("choice", ("x", "y", "z"), "B", "B")})
        [('q', 'option', 'C', 'option: B became C')]
    """
    kinds = list(PERTURBATIONS)
    out: list[tuple[str, str, str, str]] = []
    turn = 0
    for instance_id, text in sources:
        if len(out) >= k:
            break
        own = _answer_kinds((answers or {}).get(instance_id))
        tries = own + [(kinds[(turn + step) % len(kinds)], PERTURBATIONS[kinds[(turn + step) % len(kinds)]])
                       for step in range(len(kinds))]
        for kind, perturb in tries:
            made = perturb(text or "")
            if made is not None and made[0].strip() and made[0] != text:
                out.append((instance_id, kind, made[0], made[1]))
                if not own:
                    turn += 1
                break
    return out


SENTINEL_FILE_COLUMNS = ("instance_id", "output", "note")
"""Columns of an editor's sentinel file (``id`` is read as ``instance_id``; ``note`` may be left out)."""


def read_sentinel_file(text: str) -> list[tuple[str, str, str]]:
    """Editor-written sentinels ``(instance_id, faulty output, note)`` from a CSV's text.

    Each row names the case (``instance_id``, the run's case id), the faulty output a rater will see in its
    place, and a note saying what is wrong (kept with the item, never shown to raters).

    Raises:
        ValueError: no ``instance_id``/``output`` column, or a row without an id or an output (named).

    Example:
        >>> read_sentinel_file("instance_id,output,note\\nq1,Take 5000 mg,tenfold dose\\n")
        [('q1', 'Take 5000 mg', 'tenfold dose')]
    """
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = {(h or "").strip().lower(): h for h in reader.fieldnames or []}
    key = header.get("instance_id") or header.get("id")
    out_col, note_col = header.get("output"), header.get("note")
    if key is None or out_col is None:
        raise ValueError(f"the sentinel file needs the columns {', '.join(SENTINEL_FILE_COLUMNS[:2])} (and "
                         f"optionally note); it has {', '.join(reader.fieldnames or []) or 'none'}")
    rows = []
    for number, row in enumerate(reader, start=2):
        iid, output = (row.get(key) or "").strip(), (row.get(out_col) or "")
        if not iid or not output.strip():
            raise ValueError(f"sentinel file line {number}: needs both an instance_id and an output")
        rows.append((iid, output, (row.get(note_col) or "").strip() if note_col else ""))
    if not rows:
        raise ValueError("the sentinel file holds no sentinel")
    return rows
