"""HEAD-QA's JSON release (``HEAD_EN.json``: ``{"exams": {name: {year, category, data: [...]}}}``).

Like MedHELM's ``head_qa`` scenario, questions that need an image are skipped. The official test
split is the 2016 and 2017 exams (``years: [2016, 2017]`` in the loader arguments); options are
ordered by answer id and the reference is the letter of ``ra``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from evaluator.benchmarks.instance import LETTERS, Instance
from evaluator.loaders.registry import DatasetError, make_instance, register_loader


def headqa_question(path: Path, exam: dict, question: object, where: str) -> Instance:
    """One question of one exam as an Instance.

    Example:
        >>> answers = [{"aid": 1, "atext": "x"}, {"aid": 2, "atext": "y"}]
        >>> q = {"qid": "1", "qtext": "Q?", "ra": "2", "answers": answers}
        >>> exam = {"name": "E", "year": "2016", "category": "biology"}
        >>> headqa_question(Path("h.json"), exam, q, "E/1").reference
        'B'
    """
    if not isinstance(question, dict):
        raise DatasetError(path, "each question must be an object", where)
    answers = question.get("answers")
    if not isinstance(answers, list) or not answers:
        raise DatasetError(path, "answers must be a non-empty list", where)
    try:
        ordered = sorted(answers, key=lambda a: int(a["aid"]))
        choices = tuple(str(a["atext"]).strip() for a in ordered)
        correct = [int(a["aid"]) for a in ordered].index(int(question["ra"]))
        qid, text = str(question["qid"]).strip(), str(question["qtext"]).strip()
    except (KeyError, TypeError, ValueError):
        raise DatasetError(
            path,
            "a question needs qid, qtext, ra and answers with aid and atext; ra must be one "
            "of the answer ids",
            where,
        ) from None
    name = str(exam.get("name", "")).strip()
    category, year = str(exam.get("category", "")).strip(), str(exam.get("year", "")).strip()
    return make_instance(
        path,
        where,
        id=f"headqa-{name}-{qid}",
        question=text,
        choices=choices,
        reference=LETTERS[correct],
        answer_type="choice",
        subgroups={"category": category} if category else {},
        meta={"exam": name, "qid": qid, "year": year, "category": category},
    )


@register_loader(
    "headqa_json", file_format="HEAD-QA JSON (exams -> data -> qid, qtext, ra, answers[aid, atext])"
)
def load_headqa(
    path: Path,
    *,
    years: list[int] | None = None,
    categories: list[str] | None = None,
    skip_images: bool = True,
) -> Iterator[Instance]:
    """Instances from a HEAD-QA JSON file, optionally only some years and categories.

    Example:
        >>> callable(load_headqa)
        True
    """
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    exams = data.get("exams") if isinstance(data, dict) else None
    if not isinstance(exams, dict):
        raise DatasetError(path, 'not a HEAD-QA file: expected {"exams": {...}}')
    wanted_years = {str(y) for y in years} if years else None
    for key, exam in exams.items():
        if not isinstance(exam, dict) or not isinstance(exam.get("data"), list):
            raise DatasetError(path, "each exam needs a data list", key)
        exam = {"name": key, **exam}
        if wanted_years and str(exam.get("year", "")).strip() not in wanted_years:
            continue
        if categories and str(exam.get("category", "")).strip() not in categories:
            continue
        for index, question in enumerate(exam["data"], start=1):
            if skip_images and isinstance(question, dict) and str(question.get("image") or "").strip():
                continue
            yield headqa_question(path, exam, question, f"{key}/{index}")
