"""The re-evaluation addendum: what changed, what the paired comparison showed, and what it means.

Why a record of its own on the dossier: a re-evaluation does not replace the evidence the
committee decided on; it appends a dated answer to "would this change the decision?" with the
numbers behind it. So the addendum holds the change that was tried (model, server, prompt), the
frozen plan it re-ran, per benchmark the paired before/after statistics with the flipped
instances listed by id, every verdict that changed or whose estimate crossed its threshold, and
the answer with its reasons. It is appended to ``Dossier.reevaluations`` as a new version and is
not part of what sign-offs bind to (``governance.decision.signoff``): it reports on a change, it does not
change the evidence decided on.
"""

from __future__ import annotations

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_serializer, field_validator

from evaluator.evidence.record import Evidence
from evaluator.gateway.secrets import looks_like_secret, scrub_url
from governance.evidence.plan_records import EvidencePlan
from governance.rules.records import Status


class PlanChange(BaseModel):
    """What a re-evaluation changes in the frozen plan (nothing given: re-run as frozen)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = None
    """New litellm model string (None: as frozen)."""
    api_base: str | None = None
    """New server URL (None: as frozen)."""
    api_key_env: str | None = None
    """NAME of the key variable for the new endpoint (None: as frozen)."""
    prompt_template: str | None = None
    """New user-message template (None: as frozen)."""
    system_prompt: str | None = None
    """New system message (None: as frozen)."""
    prompt_source: str | None = None
    """File the new prompt came from, for the record."""
    phi_approved: bool | None = None
    """PHI approval of a changed endpoint (None: as frozen when the endpoint is unchanged, else no)."""
    transport: str | None = None
    """Client for the calls (``litellm`` or ``openai``); never changes the answers."""
    input_price_per_mtok: float | None = None
    """Price of the new model, USD per 1M prompt tokens (None: as frozen, or looked up for a new model)."""
    output_price_per_mtok: float | None = None
    """Price of the new model, USD per 1M completion tokens."""

    @field_validator("model")
    @classmethod
    def _model_not_a_key(cls, model: str | None) -> str | None:
        if looks_like_secret(model):
            raise ValueError("the model string looks like an API key; give the model's name, and the NAME of "
                             "the environment variable that holds the key (--api-key-env)")
        return model

    @field_serializer("api_base")
    def _stored_url(self, value: str | None) -> str | None:
        """Written (stored, exported, hashed) without a key in the URL's user part or query: the key
        reaches the server from this object in memory, and is never recorded (``scrub_url``)."""
        return scrub_url(value)

    @property
    def changes_endpoint(self) -> bool:
        """True when the model or the server changes."""
        return self.model is not None or self.api_base is not None

    @property
    def changes_prompt(self) -> bool:
        """True when the prompt changes."""
        return self.prompt_template is not None or self.system_prompt is not None

    def describe(self) -> str:
        """One line for notes and headings.

        Example:
            >>> PlanChange().describe(), PlanChange(model="openai/b").describe()
            ('nothing changed (re-run as frozen)', 'model → openai/b')
        """
        parts = [f"model → {self.model}"] if self.model else []
        if self.api_base:
            parts.append(f"server → {scrub_url(self.api_base)}")
        if self.changes_prompt:
            parts.append(f"prompt → {self.prompt_source or 'new text'}")
        return ", ".join(parts) or "nothing changed (re-run as frozen)"


class SubgroupComparison(BaseModel):
    """Before/after within one subgroup (statistics withheld for small groups)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tag: str
    """Subgroup tag, e.g. ``language``."""
    group: str
    """Group value, e.g. ``es``."""
    n_pairs: int
    """Instances of the group scored before and after."""
    suppressed: bool
    """True when n_pairs is below the suppression minimum: nothing else is shown."""
    mean_before: float | None = None
    """Group mean before."""
    mean_after: float | None = None
    """Group mean after."""
    mean_delta: float | None = None
    """Mean per-instance difference (after − before)."""
    delta_ci: tuple[float, float] | None = None
    """95% paired bootstrap interval of the mean difference."""
    mcnemar_p: float | None = None
    """Exact McNemar p (binary scores)."""
    worse: list[str] = Field(default_factory=list)
    """Instances of the group that got worse."""
    better: list[str] = Field(default_factory=list)
    """Instances of the group that got better."""


class ServedIdentity(BaseModel):
    """Who answered: the model and build a run's replies named, and how many answers named them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None
    """The reply's ``model`` field (None: the reply named none, or it was stored before this was kept)."""
    system_fingerprint: str | None
    """The reply's ``system_fingerprint`` (None: not sent, or not kept)."""
    n: int
    """Answers that named this identity."""

    def describe(self) -> str:
        """One line, e.g. ``gpt-4o-2024-08-06 (fp_7a1c) × 20``.

        Example:
            >>> ServedIdentity(model="m-2026", system_fingerprint=None, n=3).describe()
            'm-2026 (no fingerprint) × 3'
        """
        return (f"{self.model or 'no model named'} ({self.system_fingerprint or 'no fingerprint'}) "
                f"× {self.n}")


class BenchmarkComparison(BaseModel):
    """One plan item re-run: the paired comparison of its main metric, overall and per subgroup."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    benchmark: str
    """Benchmark as the evidence names it."""
    kind: str
    """``benchmark`` or ``scenario``."""
    metric: str
    """Main metric compared (per-instance scores)."""
    candidate: str
    """Candidate as the evidence and the decision name it."""
    run_before: str
    """Baseline run id (frozen)."""
    run_after: str
    """Run id of the re-run."""
    model_before: str
    """Model string of the baseline."""
    model_after: str
    """Model string of the re-run."""
    prompt_hash_before: str | None
    """Template hash of the baseline prompt."""
    prompt_hash_after: str | None
    """Template hash of the prompt re-run."""
    n_pairs: int
    """Instances scored in both runs."""
    mean_before: float | None
    """Mean before."""
    mean_after: float | None
    """Mean after."""
    mean_delta: float | None
    """Mean per-instance difference (after − before)."""
    delta_ci: tuple[float, float] | None
    """95% paired percentile-bootstrap interval of the mean difference (instances resampled)."""
    binary: bool
    """Scores are 0/1, so McNemar applies."""
    mcnemar_p: float | None
    """Exact two-sided McNemar p over the discordant pairs."""
    worse: list[str]
    """Instance ids that got worse (right → wrong for 0/1 scores)."""
    better: list[str]
    """Instance ids that got better."""
    unpaired: int = 0
    """Instances scored on one side only (errors), left out of the comparison."""
    subgroups: list[SubgroupComparison] = Field(default_factory=list)
    """Per tag and group."""
    new_requests: int = 0
    """Requests sent for the re-run (retries included)."""
    cache_hits: int = 0
    """Instances answered from the response cache (nothing sent)."""
    baseline_reproduced: bool | None = None
    """With the prompt unchanged: whether the frozen prompt renders exactly the baseline's prompts."""
    evidence_after: list[Evidence] = Field(default_factory=list)
    """Evidence of the re-run, as its source produced it (not attached to the dossier)."""
    verdicts_before: dict[str, str] = Field(default_factory=dict)
    """Rule id → verdict on this benchmark for the candidate, before the change."""
    verdicts_after: dict[str, str] = Field(default_factory=dict)
    """Rule id → verdict on this benchmark for the candidate, after the change."""
    served_before: list[ServedIdentity] = Field(default_factory=list)
    """The served identities the decided run's answers carried."""
    served_after: list[ServedIdentity] = Field(default_factory=list)
    """The served identities the re-run's answers carried."""
    served_identity_changed: bool | None = None
    """True when the re-run was answered by another served model or build than the decided run (even
    behind the same name and URL); None when either run recorded no identity."""


class VerdictChange(BaseModel):
    """A verdict that changed, or whose estimate crossed its threshold, between before and after."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_id: str
    """Rule."""
    kind: str
    """Rule kind."""
    model: str | None
    """Candidate."""
    benchmark: str | None
    """Benchmark, where the verdict is per benchmark."""
    metric: str | None = None
    """Metric."""
    before: Status | None
    """Verdict before (None: there was none)."""
    after: Status | None
    """Verdict after (None: there is none)."""
    status_changed: bool
    """The verdict differs."""
    crossed: bool
    """The point estimate moved to the other side of the threshold."""
    now_fails: bool
    """The rule fails after the change and did not before."""
    threshold: float | None = None
    """The bar."""
    estimate_before: float | None = None
    """Estimate compared before."""
    estimate_after: float | None = None
    """Estimate compared after."""
    reason_after: str = ""
    """The verdict's reason after the change."""


class DecisionImpact(BaseModel):
    """The answer to "would this change the decision?", with why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    would_change: bool
    """Yes or no."""
    why: list[str]
    """Reasons, first the deciding one."""
    decided_outcome: str | None
    """The committee's decision."""
    decided_model: str | None
    """The candidate it decided on (None: the use as a whole)."""
    recommended_before: str
    """What the verdicts supported for that candidate before the change."""
    recommended_after: str
    """What they support after."""


class ReevaluationAddendum(BaseModel):
    """One re-evaluation of the frozen plan, appended to the dossier as a new version."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^R-[0-9a-f]{8,}$")
    """Stable id, e.g. ``R-3f9a1c2b``."""
    created_at: AwareDatetime
    """When it was made."""
    by: str
    """Who ran it."""
    change: PlanChange
    """What was changed."""
    plan: EvidencePlan
    """The plan that was re-run."""
    plan_frozen_at_decision: bool
    """False when the decision predates plan freezing and the plan was frozen for this addendum."""
    based_on_version: int
    """Dossier version the re-evaluation compared against."""
    comparisons: list[BenchmarkComparison]
    """One per re-run plan item."""
    skipped: list[str] = Field(default_factory=list)
    """Plan items that were not re-run, with why."""
    verdicts_compared: int = 0
    """Verdicts compared before and after."""
    verdict_changes: list[VerdictChange] = Field(default_factory=list)
    """Verdicts that changed or crossed their threshold."""
    impact: DecisionImpact
    """Would this change the decision?"""
    new_requests: int = 0
    """Requests sent in all (cached answers cost nothing)."""
    cache_hits: int = 0
    """Instances answered from the response cache in all."""
    caveats: list[str] = Field(default_factory=list)
    """What a reader must know (method, what was not re-run, demo data)."""

    @property
    def candidates_rerun(self) -> list[str]:
        """Candidates whose evidence this addendum re-ran, sorted."""
        return sorted({c.candidate for c in self.comparisons})

    @property
    def benchmarks_rerun(self) -> list[str]:
        """Benchmarks this addendum re-ran, sorted."""
        return sorted({c.benchmark for c in self.comparisons})

    @property
    def answers_for_decided_model(self) -> bool:
        """False when the decided candidate was not re-run, so the addendum cannot say whether the
        decision would change (its "No" would only speak for other candidates)."""
        decided = self.impact.decided_model
        return not decided or decided in self.candidates_rerun

    @property
    def served_identity_changed(self) -> bool | None:
        """True when any re-run was answered by another served identity than its decided run; None when
        no comparison could tell (no identity recorded on a side)."""
        flags = [c.served_identity_changed for c in self.comparisons]
        return True if True in flags else (False if False in flags else None)

    @property
    def verdicts_flipped(self) -> bool:
        """True when any verdict changed or a rule now fails (the CLI's exit 3)."""
        return any(c.status_changed or c.now_fails for c in self.verdict_changes)
