"""The frozen evidence plan a dossier records with its decision: what was run, so it can be run again.

Why apart from ``governance.evidence.operations.plan``: the dossier stores the plan and freezing it reads
the dossier and the store, so the record types sit below both (no import cycle). How a plan is
frozen is told in ``governance.evidence.operations.plan``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from evaluator.benchmarks.specs import JurySettings
from evaluator.gateway.llm import ModelEndpoint

ItemKind = Literal["benchmark", "scenario"]


class PlanEndpoint(BaseModel):
    """The endpoint a run was sent to, as far as it can be known (never a key)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """Endpoint label given when the run started."""
    model: str
    """litellm model string the run used."""
    api_base: str | None = None
    """Server the run was sent to (None: the provider's default)."""
    api_key_env: str | None = None
    """NAME of the environment variable holding the key, when known (never the key)."""
    extra_params: dict[str, Any] = Field(default_factory=dict)
    """Extra call options of the endpoint (no secrets), when known."""
    transport: Literal["litellm", "openai"] = "litellm"
    """Client used to call it (does not change answers)."""
    input_price_per_mtok: float | None = None
    """Price override (USD per 1M prompt tokens), when one was given."""
    output_price_per_mtok: float | None = None
    """Price override (USD per 1M completion tokens), when one was given."""
    phi_approved: bool = False
    """Whether the endpoint was approved for PHI when the run was made."""
    known_from: str = "run record"
    """Where these facts come from (``run record`` or ``run record + stored request``)."""

    def endpoint(self, concurrency: int = 8) -> ModelEndpoint:
        """The ``ModelEndpoint`` to call (the key is read from ``api_key_env`` at call time).

        Example:
            >>> PlanEndpoint(name="a", model="openai/m", api_base="http://127.0.0.1:9/v1").endpoint().model
            'openai/m'
        """
        return ModelEndpoint(name=self.name, model=self.model, api_base=self.api_base,
                             api_key_env=self.api_key_env, extra_params=self.extra_params,
                             transport=self.transport, input_price_per_mtok=self.input_price_per_mtok,
                             output_price_per_mtok=self.output_price_per_mtok, phi_approved=self.phi_approved,
                             max_concurrency=max(1, concurrency))


class PlanPrompt(BaseModel):
    """The prompt a run used: its template text and hashes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    system_prompt: str
    """System message ('' for none)."""
    prompt_template: str
    """User message template ({context}, {question}, {choices})."""
    template_hash: str
    """``evaluator.benchmarks.specs.prompt_hash`` of the two texts above."""
    rendered_hash: str | None = None
    """The run's hash of every rendered prompt (None when the run store did not record it)."""


class PlanItem(BaseModel):
    """One local run behind the dossier's evidence, with everything needed to run it again."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ItemKind
    """``benchmark`` (data/benchmarks) or ``scenario`` (a local scenario version)."""
    benchmark: str
    """Benchmark as the evidence names it (e.g. ``calc_builtin`` or ``Refills [sc_1 v2]``)."""
    benchmark_id: str
    """Spec id the run used (for a scenario ``<scenario_id>_v<version>``)."""
    scenario_id: str | None = None
    """Local scenario id (scenario items only)."""
    scenario_version: int | None = None
    """Local scenario version (scenario items only)."""
    dataset_hash: str | None = None
    """SHA-256 of the instances as run (checked again before a re-run)."""
    dataset_path: str | None = None
    """Dataset file, when the run needed one and it is known."""
    n_instances: int = 0
    """Instances the run planned."""
    spec_hash: str | None = None
    """Hash of the benchmark spec as run."""
    prompt: PlanPrompt | None = None
    """The prompt (None when the benchmark spec is no longer available)."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Generation parameters sent with every request (temperature, max_tokens)."""
    endpoint: PlanEndpoint
    """Where the run was sent."""
    judge: JurySettings | None = None
    """LLM-jury configuration of the benchmark, if it has one."""
    run_id: str
    """The run whose results are the baseline."""
    evidence_ids: list[str] = Field(default_factory=list)
    """Dossier evidence records produced by this run."""
    metrics: list[str] = Field(default_factory=list)
    """Metrics of those evidence records."""
    model_label: str
    """Candidate as the evidence names it (the decision names candidates this way)."""
    rerunnable: bool = True
    """False when the run cannot be repeated (offline demo answers, run not in this database)."""
    note: str = ""
    """Why an item is not re-runnable, or what a reader must know."""


class EvidencePlan(BaseModel):
    """The frozen plan of a dossier: one item per local run behind its evidence."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    frozen_at: AwareDatetime
    """When the plan was frozen."""
    frozen_by: str
    """Who froze it (the person recording the decision)."""
    items: list[PlanItem] = Field(default_factory=list)
    """Local runs, in evidence order."""
    other_evidence: int = 0
    """Published or imported evidence records, which cannot be re-run here."""
    note: str = ""
    """How to read the plan."""

    @property
    def rerunnable(self) -> list[PlanItem]:
        """Items that can be run again."""
        return [i for i in self.items if i.rerunnable]

    def display_rows(self) -> list[dict[str, Any]]:
        """One plain row per item, as pages list the plan (hashes shortened, never a key)."""
        return [{"benchmark": i.benchmark, "kind": i.kind, "candidate": i.model_label,
                 "model": i.endpoint.model, "server": i.endpoint.api_base or "provider default",
                 "key variable": i.endpoint.api_key_env or "", "dataset hash": (i.dataset_hash or "")[:12],
                 "prompt hash": i.prompt.template_hash[:12] if i.prompt else "", "run": i.run_id,
                 "re-runnable": "yes" if i.rerunnable else f"no: {i.note}"} for i in self.items]
