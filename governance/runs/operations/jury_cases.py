"""Which cases a jury reads for a run: a benchmark's dataset, or a local scenario's stored version.

Here, not in ``evaluator.jury``: the jury and local scenarios are sibling rooms of the evaluator
(neither imports the other), and what a run *means* for a jury is this concept's business.

Why one function: ``medassure jury`` and the app's jury both judge "the run", and a run of a local
scenario has no benchmark spec in ``data/benchmarks`` (its id is ``sc_…_vN``) and no dataset file to
give: the scenario version and its cases are stored (``evaluator.scenarios.store``). So the cases
are looked up here, once, and both callers get the same ones. A scenario may mix answer types;
only its free-text cases go to the judges, the others (scored by their own answer type when the run
was made) are kept out with a reason, so they are counted and never judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import BenchmarkSpec, get_benchmark
from evaluator.loaders import load_instances
from evaluator.scenarios.run import scenario_spec

if TYPE_CHECKING:
    from evaluator.storage.components import ComponentStores

NOT_FREE_TEXT = "not a free-text case (scored by its own answer type)"


@dataclass(frozen=True)
class JuryCases:
    """The spec, the cases and the cases kept from the judges (id -> reason) of one run."""

    spec: BenchmarkSpec
    instances: list[Instance]
    not_judged: dict[str, str] = field(default_factory=dict)
    scenario: dict[str, Any] | None = None
    """``{"scenario_id", "version"}`` for a local-scenario run, else None."""


def jury_cases(stores: ComponentStores, run: dict[str, Any], dataset_path: str | None = None) -> JuryCases:
    """The cases a jury of ``run`` reads: the scenario's stored version, else the benchmark's dataset.

    For a scenario run ``dataset_path`` is not used (the cases are stored with the version).

    Raises:
        BenchmarkError: neither a scenario run nor a known benchmark.
        DatasetError: the benchmark's dataset cannot be read.
    """
    version = stores.scenarios.version_of_run(run["run_id"])
    if version is None:
        spec = get_benchmark(run["benchmark_id"])
        return JuryCases(spec, load_instances(spec, dataset_path))
    instances = stores.scenarios.instances(version.scenario_id, version.version)
    return JuryCases(scenario_spec(version), instances,
                     {i.id: NOT_FREE_TEXT for i in instances if i.answer_type != "free_text"},
                     {"scenario_id": version.scenario_id, "version": version.version})
