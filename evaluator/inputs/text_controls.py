"""Characters no one types into a committee's words or a hospital's cases: C0 controls and bidi controls.

Why one check for both: the intended use (``governance.dossier.user_text``) and scenario cells
(``evaluator.scenarios.validate``) are both text a person hands us that ends up in a PDF, an XML card, a
terminal and a model's prompt. C0 controls (NUL, BEL, ESC, VT, FF, the rest, and DEL) break XML 1.0 and
act on terminals; tab, line feed and carriage return stay allowed. The bidirectional embedding, override
and isolate controls (U+202A-U+202E, U+2066-U+2069) make text display in a different order than it is
stored, so a reader can be shown "approve" where the record says something else ("Trojan Source",
CVE-2021-42574). Right-to-left text needs none of them; the plain marks (U+200E, U+200F, U+061C), which
reorder nothing on their own, stay allowed.
"""

from __future__ import annotations

import re
import unicodedata

CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")
"""C0 controls and DEL (except tab, line feed and carriage return), and the bidi embedding, override and
isolate controls."""

_NAMES = {0x00: "NUL", 0x07: "BEL", 0x08: "backspace", 0x0B: "vertical tab", 0x0C: "form feed",
          0x1B: "ESC", 0x7F: "DEL"}


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
