"""Running one frozen plan item again, with the change applied and nothing else.

Why each step checks before it sends: a re-evaluation is only a fair comparison if the cases are
the cases the committee saw. So the instances are rebuilt from the baseline run's own instance
list and their SHA-256 must equal the frozen dataset hash; a dataset that changed stops the
re-run with the two hashes. The frozen prompt is used unless the change gives a new one, and with
the prompt unchanged we check that it renders exactly the baseline's prompts. Every item goes
through the run manager's one PHI gate (``evaluator.runs.phi_gate``), with the attestation recorded
for its file or scenario version; ``reevaluate`` checks every item before the first is re-run.
The run itself is the ordinary runner, told to observe the model (``RunOptions.fresh``): a vendor
update often keeps the model name and URL, so an answer recorded before the re-evaluation started
says nothing about the model now and is never read. Only the re-evaluation's own resume is reused:
an unfinished re-run of the same item started after the dossier version it compares against (a
re-evaluation that was cancelled or cut off, started again).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import BenchmarkError, BenchmarkSpec, get_benchmark, prompt_hash
from evaluator.gateway.errors import LLMError
from evaluator.gateway.llm import ModelEndpoint, api_key_for
from evaluator.inputs.capped_json import JsonRefused, parse_json
from evaluator.loaders import DatasetError, get_loader, load_instances
from evaluator.phi import PhiCheck
from evaluator.phi.attestation import DeidentificationAttestation
from evaluator.runs.phi_gate import PhiBlocked, attestation_for, check_phi, prompt_texts
from evaluator.runs.plan import plan_run
from evaluator.runs.request import file_sha256, request_record
from evaluator.runs.runner import RunOptions, run_benchmark
from evaluator.runs.store import sha256_of
from evaluator.scenarios import scenario_spec
from evaluator.scenarios.run import version_attestation
from evaluator.storage.components import ComponentStores
from governance.evidence.operations.plan import spec_with_prompt
from governance.evidence.plan_records import PlanItem
from governance.reevaluation.records import PlanChange

PROMPT_KEYS = {"prompt_template", "system_prompt"}


class ReevaluationError(ValueError):
    """A re-evaluation that cannot be done, with a message for the person who asked for it."""


class ReevaluationBlocked(ReevaluationError, PhiBlocked):
    """A re-evaluation refused by the PHI gate before anything was sent (``check`` says why)."""

    def __init__(self, benchmark: str, check: PhiCheck):
        Exception.__init__(self, f"{benchmark}: {check.explanation}")
        self.check = check


def read_prompt_file(path: str | Path) -> dict[str, str]:
    """A new prompt from a file: plain text is the user template; YAML/JSON may set both texts.

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "p.txt"; _ = p.write_text("Q: {question}")
        >>> read_prompt_file(p)["prompt_template"]
        'Q: {question}'
    """
    p = Path(path)
    if not p.is_file():
        raise ReevaluationError(f"{path}: no such prompt file")
    return read_prompt_bytes(p.name, p.read_bytes())


def read_prompt_bytes(name: str, data: bytes) -> dict[str, str]:
    """``read_prompt_file`` for an upload: the file's name decides how its bytes are read.

    Example:
        >>> read_prompt_bytes("p.yaml", b"system_prompt: Be brief.")["system_prompt"]
        'Be brief.'
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReevaluationError(f"{name}: not UTF-8 text ({exc.reason})") from None
    out: dict[str, str] = {"prompt_source": Path(name).name}
    suffix = Path(name).suffix.lower()
    if suffix in (".yaml", ".yml", ".json"):
        try:
            parsed = parse_json(text) if suffix == ".json" else yaml.safe_load(text)
        except (json.JSONDecodeError, JsonRefused, yaml.YAMLError) as exc:
            raise ReevaluationError(f"{name}: not valid {suffix[1:].upper()} ({exc})") from None
        if not isinstance(parsed, dict) or not parsed or set(parsed) - PROMPT_KEYS:
            got = sorted(parsed) if isinstance(parsed, dict) else type(parsed).__name__
            raise ReevaluationError(f"{name}: expected a mapping with prompt_template and/or system_prompt "
                                    f"only (got {got})")
        return out | {k: str(v) for k, v in parsed.items()}
    if not text.strip():
        raise ReevaluationError(f"{name}: the prompt file is empty")
    return out | {"prompt_template": text.rstrip("\n")}


def item_spec(stores: ComponentStores, item: PlanItem, change: PlanChange) -> BenchmarkSpec:
    """The spec to run: the item's benchmark with the frozen (or the new) prompt and parameters."""
    try:
        if item.kind == "scenario":
            spec = scenario_spec(stores.scenarios.get(item.scenario_id or "", item.scenario_version))
        else:
            spec = get_benchmark(item.benchmark_id)
    except (BenchmarkError, KeyError) as exc:
        raise ReevaluationError(f"{item.benchmark}: {exc}") from None
    frozen = item.prompt
    system = change.system_prompt if change.system_prompt is not None else (
        frozen.system_prompt if frozen else spec.system_prompt)
    template = change.prompt_template if change.prompt_template is not None else (
        frozen.prompt_template if frozen else spec.prompt_template)
    try:
        spec = spec_with_prompt(spec, system, template)
    except ValidationError as exc:
        problems = "; ".join(e["msg"] for e in exc.errors())
        raise ReevaluationError(f"the new prompt is not usable: {problems}") from None
    update = {k: item.params[k] for k in ("temperature", "max_tokens") if k in item.params}
    return BenchmarkSpec.model_validate({**spec.model_dump(), **update})


def locate_dataset(spec: BenchmarkSpec, ids: list[str], dataset_hash: str, folder: Path) -> Path | None:
    """A file in ``folder`` (uploads are named by content hash) whose cases hash to ``dataset_hash``."""
    if not folder.is_dir():
        return None
    for candidate in sorted(folder.iterdir()):
        try:
            chosen = _subset(load_instances(spec, candidate), ids)
        except (DatasetError, OSError, ValueError):
            continue
        if _hash(chosen) == dataset_hash:
            return candidate
    return None


def _subset(instances: list[Instance], ids: list[str]) -> list[Instance]:
    wanted = set(ids)
    return [i for i in instances if i.id in wanted]


def _hash(instances: list[Instance]) -> str:
    return sha256_of([i.model_dump(mode="json") for i in instances])


def item_instances(stores: ComponentStores, item: PlanItem, spec: BenchmarkSpec, ids: list[str],
                   uploads: Path | None = None) -> list[Instance]:
    """The baseline's instances, in run order, checked against the frozen dataset hash."""
    if item.kind == "scenario":
        instances = stores.scenarios.instances(item.scenario_id or "", item.scenario_version or 0)
    else:
        path: Path | str | None = item.dataset_path
        if get_loader(spec.loader).needs_file and not spec.dataset_path:
            if not (path and Path(path).is_file()):
                path = locate_dataset(spec, ids, item.dataset_hash or "", uploads) if uploads else None
            if path is None:
                raise ReevaluationError(f"{item.benchmark}: the dataset file of run {item.run_id} is not "
                                        "known or no longer on this machine; upload it again on the Run "
                                        "evidence page")
        try:
            instances = load_instances(spec, path)
        except DatasetError as exc:
            raise ReevaluationError(str(exc)) from None
    chosen = _subset(instances, ids)
    if item.dataset_hash and _hash(chosen) != item.dataset_hash:
        raise ReevaluationError(f"{item.benchmark}: the cases changed since the decision (dataset hash now "
                                f"{_hash(chosen)[:12]}, frozen {item.dataset_hash[:12]}); nothing was sent")
    return chosen


def item_endpoint(item: PlanItem, change: PlanChange, concurrency: int = 8) -> ModelEndpoint:
    """The frozen endpoint with the change applied (PHI approval kept only for an unchanged endpoint)."""
    frozen = item.endpoint
    same = not change.changes_endpoint or (change.model in (None, frozen.model)
                                           and change.api_base in (None, frozen.api_base))
    data: dict[str, Any] = frozen.endpoint(concurrency).model_dump()
    if change.model:
        data.update(name=change.model, model=change.model)
    if change.model and change.model != frozen.model:
        data.update(input_price_per_mtok=None, output_price_per_mtok=None)
    for key in ("input_price_per_mtok", "output_price_per_mtok"):
        if getattr(change, key) is not None:
            data[key] = getattr(change, key)
    if change.api_base:
        data["api_base"] = change.api_base
    if change.api_key_env:
        data["api_key_env"] = change.api_key_env
    if change.transport:
        data["transport"] = change.transport
    data["phi_approved"] = change.phi_approved if change.phi_approved is not None else (
        frozen.phi_approved if same else False)
    try:
        endpoint = ModelEndpoint.model_validate(data)
        api_key_for(endpoint)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ReevaluationError(problems) from None
    except LLMError as exc:
        raise ReevaluationError(str(exc)) from None
    return endpoint


def item_gate(stores: ComponentStores, item: PlanItem, spec: BenchmarkSpec, instances: list[Instance],
              endpoint: ModelEndpoint) -> PhiCheck:
    """The PHI gate for re-running one item, with the attestation of its scenario version or file.

    Raises:
        ReevaluationBlocked: likely identifiers bound for an endpoint not approved for PHI, no attestation.
    """

    def attestation() -> DeidentificationAttestation | None:
        if item.kind == "scenario":
            version = stores.scenarios.get(item.scenario_id or "", item.scenario_version)
            return version_attestation(stores, version)
        path = item.dataset_path if item.dataset_path and Path(item.dataset_path).is_file() else None
        stored = (stores.runs.stored_request(run_id=item.run_id) or {}).get("dataset_sha256")
        return attestation_for(stores, file_sha256(path), stored)

    check = check_phi(instances, [endpoint], attestation=attestation, generated=spec.access == "builtin",
                      prompts=prompt_texts(spec))
    if not check.allowed:
        raise ReevaluationBlocked(item.benchmark, check)
    return check


def check_items(stores: ComponentStores, items: list[PlanItem], change: PlanChange, *, concurrency: int = 8,
                uploads: Path | None = None) -> None:
    """Every item's checks that need no model call (cases, endpoint, PHI gate), before any is re-run.

    Raises:
        ReevaluationError: as ``rerun_item`` (``ReevaluationBlocked`` for the PHI gate); nothing was sent.
    """
    for item in items:
        spec = item_spec(stores, item, change)
        ids = [r["instance_id"] for r in stores.runs.results(item.run_id)]
        item_gate(stores, item, spec, item_instances(stores, item, spec, ids, uploads),
                  item_endpoint(item, change, concurrency))


@dataclass(frozen=True)
class AfterRun:
    """One plan item run again: the stored run to compare with its baseline, and how it was answered."""

    item: PlanItem
    run_id: str
    instances: list[Instance]
    model: str
    """The model string the re-run called."""
    prompt_hash: str | None
    """The benchmark prompt's hash after the change."""
    new_requests: int = 0
    cache_hits: int = 0
    baseline_reproduced: bool | None = None
    """Whether the unchanged prompt rendered as it did for the baseline (None when the prompt changed)."""


def rerun_item(stores: ComponentStores, item: PlanItem, change: PlanChange, *, concurrency: int = 8,
               uploads: Path | None = None,
               on_progress: Callable[[int, int, dict | None], None] | None = None,
               cancel: Any = None, own_since: datetime | None = None) -> AfterRun:
    """Run one plan item again with the change applied, asking the model for every instance.

    No answer recorded before the re-evaluation started is read; an unfinished re-run of this item
    started after ``own_since`` (the saving of the dossier version compared against) is this
    re-evaluation's own and is continued.

    The re-run's request (endpoint without a key, dataset, prompt version) is stored beside it, as
    for any run the job manager starts, so the re-run can itself be repeated after a restart.

    Raises:
        ReevaluationError: cases changed, dataset missing, key not set, PHI gate closed, no answer at all.
    """
    spec = item_spec(stores, item, change)
    baseline = stores.runs.results(item.run_id)
    if not baseline:
        raise ReevaluationError(f"{item.benchmark}: run {item.run_id} has no stored results")
    instances = item_instances(stores, item, spec, [r["instance_id"] for r in baseline], uploads)
    endpoint = item_endpoint(item, change, concurrency)
    check = item_gate(stores, item, spec, instances, endpoint)
    version = None
    if item.kind == "scenario":
        version = stores.scenarios.get(item.scenario_id or "", item.scenario_version)
    runs = stores.runs
    run_key = plan_run(spec, instances, endpoint).run_key
    own = runs.own_unfinished_rerun(run_key, own_since) if own_since is not None else None
    scenario = {"scenario_id": item.scenario_id, "version": item.scenario_version} if version else None
    runs.record_request(run_key, "rerun", request_record(
        "rerun", benchmark_id=spec.id, endpoint=endpoint, dataset_path=item.dataset_path,
        prompt_hash=prompt_hash(spec), options={"concurrency": concurrency}, scenario=scenario))
    summary = run_benchmark(stores, spec, instances, endpoint, concurrency=concurrency,
                            on_progress=on_progress, cancel=cancel,
                            options=RunOptions(phi_check=check, fresh=True, resume_run_id=own))
    runs.link_request(run_key, summary.run_id)
    if version is not None:
        stores.scenarios.record_run(version, summary.run_id, endpoint.name, endpoint.phi_approved)
    if summary.status == "cancelled":
        raise ReevaluationError(f"{item.benchmark}: the re-evaluation was cancelled and nothing was saved "
                                "(run it again: it continues this re-run; nothing recorded before it "
                                "started is reused)")
    if summary.n_scored == 0:
        raise ReevaluationError(f"{item.benchmark}: the re-run on {endpoint.model} produced no scored answer "
                                f"({summary.n_errors} error(s): {summary.errors}); nothing was saved")
    reproduced = None
    if not change.changes_prompt and item.prompt and item.prompt.rendered_hash:
        run = stores.runs.get_run(summary.run_id) or {}
        reproduced = run.get("prompt_hash") == item.prompt.rendered_hash
    return AfterRun(item=item, run_id=summary.run_id, instances=instances, model=endpoint.model,
                    prompt_hash=prompt_hash(spec), new_requests=summary.new_requests,
                    cache_hits=summary.cache_hits, baseline_reproduced=reproduced)
