"""PubMedQA's expert-labelled release ``ori_pqal.json`` (a JSON object: PMID -> item).

The context is the abstract joined the way HELM's ``pubmed_qa`` scenario joins it, one line per
section as "<Label>. <text>", so local scores are comparable with MedHELM's published ones. The
options are always yes / no / maybe and the reference is the letter of ``final_decision``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from evaluator.benchmarks.instance import Instance
from evaluator.loaders.registry import DatasetError, make_instance, register_loader, text_meta

OPTIONS = ("yes", "no", "maybe")


def pubmedqa_item(path: Path, pmid: str, item: object) -> Instance:
    """One PMID's record as an Instance.

    Example:
        >>> pubmedqa_item(Path("p.json"), "1", {"QUESTION": "Q?", "CONTEXTS": ["c"], "LABELS": ["METHODS"],
        ...               "final_decision": "no"}).context
        'Methods. c'
    """
    if not isinstance(item, dict):
        raise DatasetError(path, "each PMID must map to an object", pmid)
    question, contexts, decision = item.get("QUESTION"), item.get("CONTEXTS"), item.get("final_decision")
    if not isinstance(question, str) or not question.strip():
        raise DatasetError(path, "QUESTION is missing", pmid)
    if not isinstance(contexts, list) or not all(isinstance(c, str) for c in contexts):
        raise DatasetError(path, "CONTEXTS must be a list of texts", pmid)
    if decision not in OPTIONS:
        raise DatasetError(path, f"final_decision must be yes, no or maybe, got {decision!r}", pmid)
    labels = item.get("LABELS")
    if isinstance(labels, list) and len(labels) == len(contexts):
        context = "\n".join(
            f"{str(label).title()}. {text}" for label, text in zip(labels, contexts, strict=True)
        )
    else:
        context = "\n".join(contexts)
    meta = text_meta(
        {
            "pmid": pmid,
            "year": item.get("YEAR"),
            "long_answer": item.get("LONG_ANSWER"),
            "meshes": item.get("MESHES"),
        }
    )
    return make_instance(
        path,
        pmid,
        id=f"pubmedqa-{pmid}",
        context=context,
        question=question.strip(),
        choices=OPTIONS,
        reference="ABC"[OPTIONS.index(decision)],
        answer_type="choice",
        meta=meta,
    )


@register_loader(
    "pubmedqa_json", file_format="PubMedQA ori_pqal.json (PMID -> QUESTION, CONTEXTS, LABELS, final_decision)"
)
def load_pubmedqa(path: Path) -> Iterator[Instance]:
    """Instances from ``ori_pqal.json``, in file order.

    Example:
        >>> callable(load_pubmedqa)
        True
    """
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    if not isinstance(data, dict):
        raise DatasetError(path, "not a PubMedQA file: expected an object mapping PMIDs to items")
    for pmid, item in data.items():
        yield pubmedqa_item(path, str(pmid), item)
