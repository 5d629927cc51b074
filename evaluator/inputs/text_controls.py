"""Characters no one types into a committee's words or a hospital's cases: C0 controls and bidi controls.

Why one check for both: the intended use (``governance.dossier.user_text``) and scenario cells
(``evaluator.scenarios.validate``) are both text a person hands us that ends up in a PDF, an XML card, a
terminal and a model's prompt. C0 controls (NUL, BEL, ESC, VT, FF, the rest, and DEL) break XML 1.0 and
act on terminals; tab, line feed and carriage return stay allowed. The bidirectional embedding, override
and isolate controls (U+202A-U+202E, U+2066-U+2069) make text display in a different order than it is
stored, so a reader can be shown "approve" where the record says something else ("Trojan Source",
CVE-2021-42574). Right-to-left text needs none of them; the plain marks (U+200E, U+200F, U+061C), which
reorder nothing on their own, stay allowed in prose.

Names are held to more (:func:`name_problem`): a model, a prompt version, a reviewer, an id or a tag value
is compared with an approved name, so no character in it may be invisible. Every control (C0, DEL, C1,
tab and line breaks too), every format character (Unicode category Cf: the bidi marks U+200E, U+200F,
U+061C and the rest of Unicode's Bidi_Control set, zero-width spaces and joiners, the byte-order mark, the
soft hyphen) and the line and paragraph separators are refused there: "gpt-4o" followed by a right-to-left
mark prints exactly as "gpt-4o" and is another name.
"""

from __future__ import annotations

import re
import unicodedata

CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")
"""C0 controls and DEL (except tab, line feed and carriage return), and the bidi embedding, override and
isolate controls."""
CONTROL_CHARS_RE2 = r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x{202a}-\x{202e}\x{2066}-\x{2069}]"
"""``CONTROL_CHARS`` in RE2's syntax (DuckDB's ``regexp_matches``), for checks run in SQL."""

_NAMES = {0x00: "NUL", 0x07: "BEL", 0x08: "backspace", 0x09: "tab", 0x0A: "line feed", 0x0B: "vertical tab",
          0x0C: "form feed", 0x0D: "carriage return", 0x1B: "ESC", 0x7F: "DEL"}


_NAME_CATEGORIES = {"Cc", "Cf", "Zl", "Zp"}
NAME_CONTROLS_RE2 = r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]"
"""The characters :func:`name_problem` refuses, in RE2's syntax (DuckDB's ``regexp_matches``)."""


def name_problem(text: str) -> str | None:
    """The first control character in a name (``text``) described in words, or None.

    Control in Unicode's sense: C0 and C1 controls (Cc) and format controls (Cf), which print as nothing.

    Example:
        >>> name_problem("gpt-4o-2024-08-06"), name_problem("gpt-4o\\u200f")
        (None, 'a control character (RIGHT-TO-LEFT MARK, U+200F) at character 7')
        >>> name_problem("v\\u200b3")
        'a control character (ZERO WIDTH SPACE, U+200B) at character 2'
        >>> name_problem("rn\\x0917")
        'a control character (tab, U+0009) at character 3'
    """
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if category in _NAME_CATEGORIES:
            code = ord(ch)
            name = _NAMES.get(code) or unicodedata.name(ch, "control")
            return f"a control character ({name}, U+{code:04X}) at character {i + 1}"
    return None


def visible_name(text: str) -> str:
    """``text`` with each character :func:`name_problem` refuses written out as ``<U+XXXX>``.

    For names stored before that rule (or written into the database by hand), so a message never prints
    a model name that looks like the approved one and is not.

    Example:
        >>> visible_name("gpt-4o\\u200f"), visible_name("gpt-4o")
        ('gpt-4o<U+200F>', 'gpt-4o')
    """
    return "".join(f"<U+{ord(c):04X}>" if unicodedata.category(c) in _NAME_CATEGORIES else c for c in text)


def control_problem(text: str) -> str | None:
    """The first refused control character in ``text`` described in words, or None when there is none.

    Example:
        >>> control_problem("ok\\tfine\\n"), control_problem("bell\\x07")
        (None, 'a control character (BEL, U+0007) at character 5')
        >>> control_problem("approve\\u202edeifidom")
        'a control character (RIGHT-TO-LEFT OVERRIDE, U+202E) at character 8'
    """
    found = CONTROL_CHARS.search(text)
    if found is None:
        return None
    code = ord(found.group())
    name = _NAMES.get(code) or unicodedata.name(found.group(), "control")
    return f"a control character ({name}, U+{code:04X}) at character {found.start() + 1}"
