"""Match the committee's candidate model names to the names MedHELM published.

Why a matcher at all: a committee writes the names it uses to call a model (``gpt-4o``,
``claude-3-7-sonnet``, ``openai/gpt-4o``, ``llama3.3:70b``), MedHELM publishes display names
(``GPT-4o (2024-05-13)``, ``Claude 3.7 Sonnet (20250219)``, ``Llama 3.3 Instruct (70B)``). The
page must not guess silently, so the rule is small, strict and written down:

1. Drop any provider prefix up to the last ``/`` (``openai/gpt-4o`` → ``gpt-4o``).
2. Lower-case; split on anything that is not a letter or digit, and between letters and digits
   (``llama3.3:70b`` → ``llama 3 3 70 b``; ``4o`` → ``4 o``).
3. Drop tokens that name a release, not a model: dates (``20250219``, ``2024 05 13``), numeric
   revisions with a leading zero (``001``) and the words in ``IGNORED_WORDS``
   (``instruct``, ``chat``, ``latest``, ``meta``, ...).
4. Two names match when what is left is the same multiset of tokens (order does not matter:
   ``claude-3-5-sonnet`` ↔ ``Claude Sonnet 3.5``). ``gpt-4o`` therefore never matches
   ``GPT-4o mini``: the extra ``mini`` is a different model.

5. A candidate that names a snapshot date is not matched to a published name of another date
   (``gpt-4o-2024-11-20`` is not the ``GPT-4o (2024-05-13)`` that MedHELM evaluated).

A candidate that matches no published name, or more than one, is reported as unmatched with
the reason; nothing is picked for the committee.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

IGNORED_WORDS = frozenset({"instruct", "chat", "latest", "meta", "hf", "it", "v"})
"""Words that name a packaging or release channel rather than a different model."""

_DATE = re.compile(r"(?<!\d)(?:\d{8}|\d{4}[-_.]\d{2}[-_.]\d{2})(?!\d)")
_SPLIT = re.compile(r"[a-z]+|\d+")


class CandidateMatch(BaseModel):
    """One candidate name and the published model it stands for, if exactly one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    candidate: str
    """The name as the committee wrote it."""
    published: str | None
    """The published MedHELM model name it matches, or None."""
    reason: str = ""
    """Why there is no match (empty when matched)."""


def snapshot_date(name: str) -> str | None:
    """The snapshot date a name carries, as ``YYYYMMDD``, if any.

    Example:
        >>> snapshot_date("GPT-4o (2024-05-13)"), snapshot_date("claude-3-7-sonnet")
        ('20240513', None)
    """
    found = _DATE.search(name)
    return re.sub(r"\D", "", found.group(0)) if found else None


def name_key(name: str) -> tuple[str, ...]:
    """The comparable form of a model name: sorted tokens without release noise.

    Example:
        >>> name_key("Claude 3.7 Sonnet (20250219)") == name_key("anthropic/claude-3-7-sonnet")
        True
        >>> name_key("GPT-4o mini (2024-07-18)")
        ('4', 'gpt', 'mini', 'o')
    """
    text = _DATE.sub(" ", name.rsplit("/", 1)[-1].lower())
    tokens = [t for t in _SPLIT.findall(text)
              if t not in IGNORED_WORDS and not (t.isdigit() and len(t) > 1 and t.startswith("0"))]
    return tuple(sorted(tokens))


def match_candidates(candidates: list[str], published: list[str]) -> list[CandidateMatch]:
    """Match each candidate to the one published name with the same key.

    Args:
        candidates: names from the intended use (``candidate_models``), in the committee's order.
        published: published MedHELM model names.

    Returns:
        One ``CandidateMatch`` per candidate, in the same order.

    Example:
        >>> pub = ["GPT-4o (2024-05-13)", "GPT-4o mini (2024-07-18)", "Llama 3.3 Instruct (70B)"]
        >>> [m.published for m in match_candidates(["gpt-4o", "llama-3.3-70b", "mistral"], pub)]
        ['GPT-4o (2024-05-13)', 'Llama 3.3 Instruct (70B)', None]
    """
    by_key: dict[tuple[str, ...], list[str]] = {}
    for name in published:
        by_key.setdefault(name_key(name), []).append(name)
    matches = []
    for cand in candidates:
        found = by_key.get(name_key(cand), []) if name_key(cand) else []
        date = snapshot_date(cand)
        other = [f for f in found if date and snapshot_date(f) not in (None, date)]
        found = [f for f in found if f not in other]
        if other and not found:
            matches.append(CandidateMatch(candidate=cand, published=None,
                                          reason=f"different snapshot: MedHELM evaluated {', '.join(other)}"))
        elif len(found) == 1:
            matches.append(CandidateMatch(candidate=cand, published=found[0]))
        elif found:
            matches.append(CandidateMatch(candidate=cand, published=None,
                                          reason=f"ambiguous: matches {', '.join(sorted(found))}"))
        else:
            matches.append(CandidateMatch(candidate=cand, published=None,
                                          reason="no published MedHELM model of this name"))
    return matches
