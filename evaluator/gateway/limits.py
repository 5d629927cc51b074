"""How much of a model's reply MedAssure accepts: the answer in characters, the HTTP body in bytes.

Why both, and in one place: the character cap says what may be stored (``evaluator.gateway.llm``
refuses a longer answer after parsing); the byte cap is what bounds memory, because it is enforced
while the body is read, before any JSON parsing (``evaluator.gateway.capped_http``), on every HTTP
path a model call or a batch job takes.
"""

from __future__ import annotations

__all__ = ["MAX_ANSWER_CHARS", "MAX_RESPONSE_BYTES"]

MAX_ANSWER_CHARS = 1_000_000
"""Longest answer accepted (about 250,000 tokens, far past any ``max_tokens``): a server that sends a
60 MB answer gets an error for that case, and nothing that size is stored or cached."""

MAX_RESPONSE_BYTES = 6 * MAX_ANSWER_CHARS + 2_000_000
"""Most bytes of one HTTP response read (8,000,000), counted after gzip/deflate decoding, and a
declared ``Content-Length`` over it refused before reading. Why 6x + 2 MB: JSON may escape every
character of the answer as ``\\uXXXX`` (6 bytes; ``ensure_ascii`` servers do so for all non-ASCII
text), so any answer under ``MAX_ANSWER_CHARS`` made of characters of the Basic Multilingual Plane
fits, with 2 MB left for the envelope (usage, ids, tool calls). Characters outside it (emoji) are
escaped as surrogate pairs, 12 bytes each: an answer made only of them is refused from about
660,000 characters, still far past any real answer."""
