"""Vendor attestations: the due-diligence questionnaire, the recorded answers and what each answer means.

Why the questions are data: what a committee asks a vendor changes more often than the code, and
every question must say, next to its wording, what counts as a satisfactory answer and what the
committee does with an unsatisfactory one. ``data/questionnaires/vendor.yaml`` holds that; this
module validates it (unknown keys fail) and judges each answer against it.

An answer has one of five statuses, each computed, never stored:

* ``unanswered`` — no answer recorded (an open item);
* ``awaiting_review`` — a free-text answer no reviewer has judged yet (an open item);
* ``missing_document`` — the question requires a supporting document and none is linked (an open item);
* ``unsatisfactory`` — the answer is not in the question's ``accept`` list, or a reviewer judged the
  text unsatisfactory (a condition of any approval);
* ``satisfactory``.

Answers are statements by the vendor, recorded with who entered them and when; a linked document
is referenced by its SHA-256 (the bytes live in ``governance.procurement.store``), so the dossier hash,
and with it every sign-off, covers the exact document.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from evaluator.paths import DATA_DIR
from governance.procurement.records import AttestationAnswer, DocumentRef

QUESTIONNAIRE_DIR = DATA_DIR / "questionnaires"
YES_NO = {"yes": "Yes", "no": "No"}
AnswerStatus = Literal["unanswered", "awaiting_review", "missing_document", "unsatisfactory", "satisfactory"]
OPEN_STATUSES = ("unanswered", "awaiting_review", "missing_document")
STATUS_TEXT = {
    "unanswered": "not answered",
    "awaiting_review": "answered; awaiting a reviewer's judgement",
    "missing_document": "answered, but the required supporting document is missing",
    "unsatisfactory": "unsatisfactory",
    "satisfactory": "satisfactory",
}


class AttestationError(ValueError):
    """An answer that cannot be recorded, with a message for the user."""


class Question(BaseModel):
    """One question of the questionnaire, with what counts as a satisfactory answer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]{1,63}$")
    """Stable id, referenced by answers."""
    topic: str = Field(min_length=3)
    """The due-diligence topic it belongs to."""
    text: str = Field(min_length=10)
    """The question as put to the vendor."""
    kind: Literal["text", "yes_no", "choice"]
    """How the answer is recorded."""
    choices: dict[str, str] = Field(default_factory=dict)
    """Allowed values and their labels (``choice`` only)."""
    accept: list[str] = Field(default_factory=list)
    """Satisfactory values (``yes_no`` and ``choice``); a reviewer judges ``text`` answers."""
    document: Literal["none", "optional", "required"] = "optional"
    """Whether a supporting document may or must be attached."""
    satisfactory: str = Field(min_length=10)
    """What counts as a satisfactory answer, in words."""
    condition: str = Field(min_length=10)
    """The condition the committee puts on an approval when the answer is unsatisfactory."""

    @model_validator(mode="after")
    def _kind_fits(self) -> Question:
        if self.kind == "text" and (self.choices or self.accept):
            raise ValueError(f"{self.id}: a text question has no choices or accept list (a reviewer judges)")
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"{self.id}: a choice question needs choices")
        if self.kind == "yes_no" and self.choices:
            raise ValueError(f"{self.id}: a yes_no question takes no choices")
        if self.kind != "text" and not self.accept:
            raise ValueError(f"{self.id}: say which answers are satisfactory (accept)")
        unknown = sorted(set(self.accept) - set(self.options))
        if unknown:
            raise ValueError(f"{self.id}: accept lists unknown values {unknown}")
        return self

    @property
    def options(self) -> dict[str, str]:
        """Allowed values and labels (empty for text)."""
        return YES_NO if self.kind == "yes_no" else dict(self.choices)


class Questionnaire(BaseModel):
    """A versioned questionnaire (``data/questionnaires/<id>.yaml``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """Questionnaire id, e.g. ``vendor``."""
    version: int = Field(ge=1)
    """Raised whenever a question's meaning changes."""
    title: str
    """Heading shown to users."""
    note: str
    """What the questionnaire is for."""
    questions: list[Question] = Field(min_length=1)
    """The questions, in the order they are asked."""

    @model_validator(mode="after")
    def _unique_ids(self) -> Questionnaire:
        ids = [q.id for q in self.questions]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate question ids {dupes}")
        return self

    def question(self, question_id: str) -> Question:
        """The question with this id (AttestationError naming the ids when unknown)."""
        for q in self.questions:
            if q.id == question_id:
                return q
        raise AttestationError(f"no question {question_id!r}; questions: {[q.id for q in self.questions]}")


@cache
def load_questionnaire(name: str = "vendor") -> Questionnaire:
    """The shipped questionnaire (validated; a typo in the file fails loudly).

    Example:
        >>> q = load_questionnaire()
        >>> q.id, len(q.questions) >= 9, q.question("phi_retention").kind
        ('vendor', True, 'choice')
    """
    path = QUESTIONNAIRE_DIR / f"{name}.yaml"
    return Questionnaire.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


class QuestionStatus(BaseModel):
    """One question, its answer (if any) and what that answer means."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question: Question
    """The question."""
    answer: AttestationAnswer | None
    """The latest answer, if any."""
    status: AnswerStatus
    """What the answer means (see the module docstring)."""

    @property
    def open(self) -> bool:
        """Information still missing (an open item)."""
        return self.status in OPEN_STATUSES

    @property
    def answer_text(self) -> str:
        """The answer as a reader sees it (choice labels instead of values)."""
        if self.answer is None:
            return ""
        return self.question.options.get(self.answer.value, self.answer.value)


def answer_status(question: Question, answer: AttestationAnswer | None) -> AnswerStatus:
    """What an answer means for one question.

    Example:
        >>> q = load_questionnaire().question("incident_reporting")
        >>> a = AttestationAnswer(question_id=q.id, questionnaire_version=1, value="no", entered_by="me",
        ...                       entered_at=datetime.fromisoformat("2025-01-01T00:00:00+00:00"))
        >>> answer_status(q, None), answer_status(q, a)
        ('unanswered', 'unsatisfactory')
    """
    if answer is None:
        return "unanswered"
    if question.kind == "text":
        if answer.judgement is None:
            return "awaiting_review"
        ok = answer.judgement == "satisfactory"
    else:
        ok = answer.value in question.accept
    if not ok:
        return "unsatisfactory"
    if question.document == "required" and answer.document is None:
        return "missing_document"
    return "satisfactory"


def statuses(
    answers: list[AttestationAnswer], questionnaire: Questionnaire | None = None
) -> list[QuestionStatus]:
    """Every question of the questionnaire with its latest answer and status, in question order."""
    questionnaire = questionnaire or load_questionnaire()
    latest = {a.question_id: a for a in answers}
    return [
        QuestionStatus(question=q, answer=latest.get(q.id), status=answer_status(q, latest.get(q.id)))
        for q in questionnaire.questions
    ]


def make_answer(
    question_id: str,
    value: str,
    by: str,
    at: datetime,
    note: str = "",
    document: DocumentRef | None = None,
    judgement: str | None = None,
    questionnaire: Questionnaire | None = None,
) -> AttestationAnswer:
    """A checked answer: the value must fit the question's kind; judgements are for text answers only.

    Raises:
        AttestationError: unknown question, a value that is not an allowed option, an empty text,
            a judgement on a yes/no or choice answer, or a document where the question takes none.

    Example:
        >>> at = datetime.fromisoformat("2025-01-01T00:00:00+00:00")
        >>> make_answer("model_updates", "yes", by="buyer", at=at).value
        'yes'
        >>> make_answer("model_updates", "maybe", by="buyer", at=at)  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        ...
        AttestationError: model_updates: 'maybe' is not one of ['yes', 'no']
    """
    questionnaire = questionnaire or load_questionnaire()
    q = questionnaire.question(question_id)
    value = (value or "").strip()
    if not value:
        raise AttestationError(f"{q.id}: the answer is empty; leave the question unanswered instead")
    if q.options and value not in q.options:
        raise AttestationError(f"{q.id}: {value!r} is not one of {list(q.options)}")
    if judgement is not None and q.kind != "text":
        raise AttestationError(f"{q.id}: only free-text answers are judged by a reviewer")
    if document is not None and q.document == "none":
        raise AttestationError(f"{q.id}: this question takes no document")
    if not by.strip():
        raise AttestationError("say who entered the answer")
    return AttestationAnswer(
        question_id=q.id,
        questionnaire_version=questionnaire.version,
        value=value,
        note=note.strip(),
        document=document,
        entered_by=by.strip(),
        entered_at=at,
        judgement=judgement,
        judged_by=by.strip() if judgement else None,
    )


def with_answer(answers: list[AttestationAnswer], answer: AttestationAnswer) -> list[AttestationAnswer]:
    """The answers with this one replacing any earlier answer to the same question (order kept)."""
    kept = [a for a in answers if a.question_id != answer.question_id]
    return [*kept, answer]
