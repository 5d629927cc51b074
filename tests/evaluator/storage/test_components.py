"""The component stores are plugged into the storage floor by name (``evaluator/__init__.py``, ``_wire``).

The floor never imports runs, scenarios, juries or the PHI gate; these tests check that a store opened
when nothing but ``evaluator.storage`` was imported still hands every component out, and that each
creates its tables, in the same order, under the same migration names as when the floor imported them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import duckdb
import pytest

from evaluator import extensions
from evaluator.jury.store import JuryStore
from evaluator.phi.attestation import AttestationStore
from evaluator.runs.reads import RunReads
from evaluator.runs.store import RunStore
from evaluator.scenarios.store import ScenarioStore
from evaluator.storage.components import ComponentStores
from tests.conftest import REPO

FRESH = """
import json, sys, duckdb
from evaluator.storage.components import ComponentStores
stores = ComponentStores(duckdb.connect())
for name in ("runs", "scenarios", "juries", "attestations"):
    getattr(stores, name)
rows = stores._con.execute("SELECT component, number FROM schema_migrations ORDER BY applied_at").fetchall()
loaded = sorted(m for m in sys.modules if m.startswith("evaluator.") and m.endswith("store"))
print(json.dumps({"read_job": stores.read_job("none"), "rows": rows, "loaded": loaded}))
"""


def test_a_store_opened_with_only_the_floor_imported_creates_every_components_tables_in_order():
    out = subprocess.run([sys.executable, "-c", FRESH], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert found["read_job"] is None
    assert [tuple(r) for r in found["rows"]] == [("runs", 1), ("runs", 2), ("runs", 3), ("runs", 4),
                                                  ("runs", 5), ("scenarios", 1), ("jury", 1), ("jury", 2),
                                                  ("phi_attestations", 1)]
    assert {"evaluator.runs.store", "evaluator.scenarios.store", "evaluator.jury.store"} <= {*found["loaded"]}


def test_each_accessor_builds_its_registered_component():
    stores = ComponentStores(duckdb.connect())
    built = {name: type(getattr(stores, name)) for name in
             ("runs", "journaled_runs", "run_reads", "scenarios", "juries", "attestations")}
    assert built == {"runs": RunStore, "journaled_runs": RunStore, "run_reads": RunReads,
                     "scenarios": ScenarioStore, "juries": JuryStore, "attestations": AttestationStore}
    assert stores.runs.journal_dir is None


def test_the_registry_refuses_a_second_claim_and_names_an_unknown_component():
    wired = {"runs", "run_reads", "read_job", "scenarios", "juries", "attestations"}
    assert wired <= set(extensions.component_names())
    extensions.register_component("runs", "evaluator.runs.store:RunStore")  # the same target again: a no-op
    with pytest.raises(ValueError, match="already registered"):
        extensions.register_component("runs", "evaluator.runs.reads:RunReads")
    with pytest.raises(LookupError, match="no store component 'nope'.*runs"):
        extensions.component("nope")
