"""Sentinels: faulty outputs planted in a queue, made from a correct answer by a documented perturbation.

Why these three: they are the errors a reviewer of clinical text must not miss and that read fluently,
so a rater cannot tell them from real outputs by their style:

* ``number``: the first number is multiplied by ten (``500 mg`` -> ``5000 mg``; a tenfold dose error);
* ``negation``: the first negation is removed (``do not`` -> ``do``, ``never`` -> ``always``), or when
  there is none the first modal verb is negated (``should`` -> ``should not``);
* ``warning``: the first sentence holding a warning (avoid, do not, seek care, call, risk, bleeding,
  side effect, ...) is dropped (the answer needs at least two sentences).

Each is a deterministic function of the text: ``None`` when it does not apply. An editor may also write
a sentinel (kind ``editor``). A sentinel is caught when it is rated ``material`` (audit verdict) or at
most 2 on accuracy (jury rubric): ``governance.review.measures``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

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


PERTURBATIONS: dict[str, Callable[[str], tuple[str, str] | None]] = {
    "number": change_number,
    "negation": flip_negation,
    "warning": drop_warning,
}
"""The documented perturbations, in the order a queue's sentinels take them in turn."""


def make_sentinels(sources: Sequence[tuple[str, str]], k: int) -> list[tuple[str, str, str, str]]:
    """Up to ``k`` sentinels ``(instance_id, kind, text, note)`` from correct answers ``(instance_id, text)``.

    Kinds are taken in turn (number, negation, warning); a source the turn's kind does not apply to
    tries the next kind, and a source none applies to is passed over. Each source is used once.

    Example:
        >>> made = make_sentinels([("a", "Take 5 mg daily."), ("b", "Do not drive. Rest.")], 2)
        >>> [(m[0], m[1], m[2]) for m in made]
        [('a', 'number', 'Take 50 mg daily.'), ('b', 'negation', 'Do drive. Rest.')]
    """
    kinds = list(PERTURBATIONS)
    out: list[tuple[str, str, str, str]] = []
    turn = 0
    for instance_id, text in sources:
        if len(out) >= k:
            break
        for step in range(len(kinds)):
            kind = kinds[(turn + step) % len(kinds)]
            made = PERTURBATIONS[kind](text or "")
            if made is not None and made[0].strip() and made[0] != text:
                out.append((instance_id, kind, made[0], made[1]))
                turn += 1
                break
    return out
