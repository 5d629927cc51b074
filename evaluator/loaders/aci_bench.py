"""ACI-Bench's challenge JSON files (``{"data": [{"src", "tgt", "file"}, ...]}``).

One file per split (``train_full.json``, ``clinicalnlp_taskB_test1_full.json``, ...). The
dialogue transcript is the context, the gold clinical note the reference, and the instruction is
a constant question, as in the shared sample. ACI-Bench is open-ended: MedHELM scores it with its
LLM jury; BERTScore and ROUGE are the reference-based metrics computed here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from evaluator.benchmarks.instance import Instance
from evaluator.loaders.registry import DatasetError, make_instance, register_loader

INSTRUCTION = "Generate the clinical note for this doctor-patient encounter."


@register_loader(
    "aci_bench_json", file_format='ACI-Bench challenge JSON ({"data": [{"src", "tgt", "file"}]})'
)
def load_aci_bench(path: Path, *, instruction: str = INSTRUCTION) -> Iterator[Instance]:
    """Instances from one ACI-Bench challenge JSON file.

    Example:
        >>> callable(load_aci_bench)
        True
    """
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise DatasetError(path, 'not an ACI-Bench file: expected {"data": [...]}')
    split = path.stem.removesuffix("_full")
    for number, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise DatasetError(path, "each entry must be an object", number)
        src, tgt, encounter = entry.get("src"), entry.get("tgt"), entry.get("file")
        if not isinstance(src, str) or not src.strip() or not isinstance(tgt, str):
            raise DatasetError(path, "src (dialogue) and tgt (note) must be texts", number)
        encounter = str(encounter).strip() if encounter else str(number)
        yield make_instance(
            path,
            number,
            id=f"aci-{split}-{encounter}",
            context=src,
            question=instruction,
            reference=tgt.strip(),
            answer_type="free_text",
            subgroups={"split": split},
            meta={"source_file": path.name, "encounter_id": encounter},
        )
