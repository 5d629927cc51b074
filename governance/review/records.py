"""Review-queue records: a blinded queue of outputs clinicians rate, its items, ratings and events.

Why records here: the queue, its items and the ratings are kept in the store (``store_reviews``) and
read by the review stage (``governance.review``, pure functions: sampling, sentinels, catch rates),
the operations (``governance.review.operations.queues``) and the Judge validity flow. The dossier itself holds
only a ``ReviewCitation`` (inside its judge-agreement record): who rated, how many, how blinded and
each rater's catch rate, which is what the PDF cites.

Blinding is a matter of what leaves the store: an ``ItemView`` (what a rater or a sheet is shown)
carries no model, no score, no other rating and no sentinel flag; the full ``QueueItem`` stays with
the editor's views.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from evaluator.storage.record_base import OmitNewDefaults
from governance.dossier.user_text import UserRecord

RubricKind = Literal["jury", "audit", "criteria"]
AUDIT_VERDICTS = ("correct", "minor", "material")
"""The audit verdict's values: right, a minor error, a material (clinically significant) error."""
CRITERION_VERDICTS = ("met", "not met")
"""A criteria queue's answer per rubric criterion of the item's case (keys ``"1"``, ``"2"``, … in order)."""
SentinelKind = Literal["number", "negation", "warning", "option", "value", "editor"]
CATCH_BAR = 0.9
"""A rater's catch rate the committee expects by default (the lower bound is compared with it)."""


class ReviewRubric(BaseModel):
    """What a rater answers per item: the jury's criteria on a scale, the audit verdict, or (``criteria``, a
    queue over a rubric grading) met / not met for each rubric criterion of the item's own case."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: RubricKind
    """``jury`` (criteria on a scale, as the benchmark's jury rates), ``audit`` (a verdict) or ``criteria``
    (each item's own rubric criteria, met or not met)."""
    rubric_id: str
    """The jury rubric's id (``data/rubrics``), ``audit``, or the grading id of a ``criteria`` queue."""
    criteria: tuple[str, ...]
    """Criterion keys (``accuracy``, ...); for the audit verdict the one key ``verdict``."""
    questions: dict[str, str] = Field(default_factory=dict)
    """The guiding question of each criterion (shown to the rater)."""
    scale_min: int = 1
    """Lowest score (jury rubric)."""
    scale_max: int = 5
    """Highest score (jury rubric)."""

    def problem(self, scores: dict[str, object], item_criteria: tuple[str, ...] = ()) -> str | None:
        """What is wrong with one rating's answers under this rubric, or None.

        ``item_criteria``: for a ``criteria`` rubric, the item's own criteria (answered ``"1"``, ``"2"``, …).

        Example:
            >>> r = ReviewRubric(kind="audit", rubric_id="audit", criteria=("verdict",))
            >>> r.problem({"verdict": "material"}), r.problem({"verdict": "bad"})
            (None, "verdict 'bad' is not one of correct, minor, material")
            >>> c = ReviewRubric(kind="criteria", rubric_id="grading-1", criteria=())
            >>> c.problem({"1": "met", "2": "not met"}, ("a", "b")), c.problem({"1": "met"}, ("a", "b"))
            (None, 'answer met or not met for each of the 2 criteria; missing: 2')
        """
        if self.kind == "criteria":
            keys = [str(k) for k in range(1, len(item_criteria) + 1)]
            if not keys:
                return "the item has no rubric criteria"
            if missing := [k for k in keys if k not in scores]:
                return (f"answer met or not met for each of the {len(keys)} criteria; missing: "
                        f"{', '.join(missing)}")
            if extra := sorted(set(scores) - set(keys)):
                return f"no criterion {', '.join(extra)} on this item (it has {len(keys)})"
            bad = next(((k, v) for k, v in scores.items() if v not in CRITERION_VERDICTS), None)
            return f"criterion {bad[0]}: {bad[1]!r} is not one of met, not met" if bad else None
        if set(scores) != set(self.criteria):
            return f"expected {', '.join(self.criteria)}; got {', '.join(sorted(scores)) or 'nothing'}"
        for name, value in scores.items():
            if self.kind == "audit":
                if value not in AUDIT_VERDICTS:
                    return f"verdict {value!r} is not one of {', '.join(AUDIT_VERDICTS)}"
            elif (
                isinstance(value, bool)
                or not isinstance(value, int)
                or not (self.scale_min <= value <= self.scale_max)
            ):
                return f"{name} {value!r} is not a whole number from {self.scale_min} to {self.scale_max}"
        return None


class ReviewQueue(BaseModel):
    """One queue: where its items came from, who rates, the rubric, and how it was drawn."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    queue_id: str
    """``rq-`` and 10 hex digits."""
    source: Literal["run", "production"] = "run"
    """Items from a completed run, or imported production outputs (the monitoring feed's rows with text)."""
    run_id: str | None = None
    """The run the outputs came from."""
    benchmark_id: str
    """The run's benchmark or local scenario (the ``dataset`` of exported ratings)."""
    model: str = ""
    """The model that wrote the outputs: shown to editors only, never to raters."""
    grading_id: str | None = None
    """A ``criteria`` queue: the rubric grading whose cases are rated (its verdicts never shown to raters)."""
    candidate: str | None = None
    """Production queues: the monitored candidate whose feed rows were sampled."""
    month: str | None = None
    """Production queues: the feed month sampled (``YYYY-MM``), or None for the whole feed."""
    dossier_id: str | None = None
    """The dossier the queue serves (its raters hold the ``rater`` role there)."""
    rubric: ReviewRubric
    """What raters answer."""
    raters: tuple[str, ...] = Field(min_length=1)
    """Rater names (a signed-in rater's subject or name must be one of them)."""
    n_items: int
    """Sampled outputs (sentinels not counted)."""
    n_double: int
    """Of those, rated by two raters (clinician-clinician agreement)."""
    n_sentinels: int
    """Planted faulty outputs, seen by every rater."""
    seed: int
    """Seed of the sample and of each rater's order."""
    strata: tuple[str, ...] = ()
    """Subgroup tags the sample was stratified by."""
    catch_bar: float = CATCH_BAR
    """The catch rate expected of each rater."""
    created_by: str
    """Who created it."""
    created_auth: str = ""
    """How that identity was established."""
    created_at: AwareDatetime
    """When."""


class QueueItem(BaseModel):
    """One item as stored: the output to rate and (for editors only) where it came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    """Opaque id (``it-`` and 8 hex digits), the same for sentinels and real outputs."""
    instance_id: str
    """The run instance the output answers (for a sentinel: the instance it was made from)."""
    context: str = ""
    """Material the question is about (may hold patient data)."""
    question: str = ""
    """What was asked."""
    output: str
    """The output to rate."""
    subgroups: dict[str, str] = Field(default_factory=dict)
    """Subgroup tags of the instance."""
    sentinel: SentinelKind | None = None
    """None for a real output; else how the planted error was made."""
    sentinel_note: str = ""
    """What the perturbation changed (editors only)."""
    double: bool = False
    """Rated by two raters."""
    criteria: tuple[str, ...] = ()
    """A ``criteria`` queue: the case's rubric criteria, in order (never the graders' verdicts)."""


class ItemView(BaseModel):
    """What a rater (or a sheet) sees of one item: nothing about model, scores or sentinels."""

    model_config = ConfigDict(frozen=True)

    item_id: str
    """The item's opaque id."""
    position: int
    """1-based place in this rater's own order."""
    context: str
    """Context."""
    question: str
    """Question."""
    output: str
    """The output to rate."""
    criteria: tuple[str, ...] = ()
    """A ``criteria`` queue: the case's rubric criteria to answer met / not met (no grader verdicts)."""


class Rating(BaseModel):
    """One rater's answer on one item (or their skip with a reason), stored as given."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    queue_id: str
    """The queue."""
    item_id: str
    """The item."""
    rater: str
    """Whose rating it is (one of the queue's raters)."""
    scores: dict[str, int | str] = Field(default_factory=dict)
    """Criterion -> score, or ``verdict`` -> audit verdict; empty for a skip."""
    skipped: str = ""
    """The reason, when the rater skipped the item."""
    seconds: float | None = None
    """Time the rater spent on the item (the rating page measures it; a sheet does not)."""
    recorded_by: str
    """Who recorded it: the rater in the app, or whoever imported the sheet."""
    recorded_auth: str = ""
    """How that identity was established (OIDC, proxy, local)."""
    via: Literal["app", "sheet"] = "app"
    """The rating page or an imported sheet."""
    rated_at: AwareDatetime
    """When it was stored."""


class QueueEvent(BaseModel):
    """A change of a queue's state: closed, or a rater removed (who keeps their ratings, flagged)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["closed", "rater_removed"]
    """What happened."""
    rater: str = ""
    """The rater removed."""
    by: str
    """Who did it."""
    auth: str = ""
    """How that identity was established."""
    at: datetime
    """When."""
    note: str = ""
    """Why."""


class RaterCatch(BaseModel):
    """One rater's catch rate for the citation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rater: str
    """The rater."""
    caught: int
    """Sentinels caught."""
    n: int
    """Sentinels seen."""
    lower: float | None = None
    """Wilson 95% lower bound."""
    upper: float | None = None
    """Wilson 95% upper bound."""


class ReviewCitation(OmitNewDefaults, UserRecord):
    """What the dossier cites of a closed review queue (in its judge-agreement record, and the PDF)."""

    _omit_at_default: ClassVar[tuple[str, ...]] = ()

    model_config = ConfigDict(frozen=True, extra="forbid")

    queue_id: str
    """The queue."""
    run_id: str | None = None
    """The run rated."""
    raters: tuple[str, ...]
    """Who rated."""
    n_items: int
    """Outputs rated (sentinels not counted)."""
    n_double: int
    """Outputs rated by two raters."""
    n_sentinels: int
    """Planted errors, seen by every rater."""
    blinding: str
    """How the raters were blinded, in one sentence."""
    catch: tuple[RaterCatch, ...] = ()
    """Each rater's catch rate."""
    catch_bar: float = CATCH_BAR
    """The bar."""
    closed_at: AwareDatetime | None = None
    """When the queue closed."""

    def catch_text(self) -> str:
        """Each rater's catch rate in words.

        Example:
            >>> c = ReviewCitation(queue_id="rq-1", raters=("a",), n_items=2, n_double=0, n_sentinels=2,
            ...                    blinding="b", catch=(RaterCatch(rater="a", caught=2, n=2, lower=0.34,
            ...                                                    upper=1.0),))
            >>> c.catch_text()
            'a 2/2 (95% 0.34-1.00)'
        """
        parts = []
        for c in self.catch:
            ci = f" (95% {c.lower:.2f}-{c.upper:.2f})" if c.lower is not None and c.upper is not None else ""
            parts.append(f"{c.rater} {c.caught}/{c.n}{ci}")
        return "; ".join(parts) or "no sentinels"

    def text(self) -> str:
        """The citation in one sentence."""
        return (
            f"Review queue {self.queue_id}: {len(self.raters)} raters ({', '.join(self.raters)}), "
            f"{self.n_items} outputs ({self.n_double} rated twice) and {self.n_sentinels} planted errors. "
            f"{self.blinding} Catch rates (bar {self.catch_bar:.2f}): {self.catch_text()}."
        )
