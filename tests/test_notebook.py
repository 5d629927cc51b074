"""examples/procurement.ipynb runs top to bottom against the local test server, in a temporary home.

The notebook is executed with nbclient in a real Jupyter kernel: a kernelspec written at test time
into a temporary folder points at this interpreter (the venv's python), and a probe cell appended
to the in-memory copy checks that the kernel really runs it. The model is the scripted calculator
model of ``tests/calc_answers.py`` on ``tests/fakes.py``'s server, so the outcome is known: 12
cases, 6 right, 2 unparsed, 4 wrong. Any cell error fails the test with the cell's traceback.
"""

from __future__ import annotations

import ast
import json
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO

NOTEBOOK = REPO / "examples" / "procurement.ipynb"
PACKAGES = {"governance", "evaluator", "reports"}
KERNEL = "medassure-test-venv"


def code_cells(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]


def test_the_notebook_uses_only_the_package_level_api():
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert nb.nbformat == 4
    imported: set[str] = set()
    for source in code_cells(nb):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom):
                top = (node.module or "").split(".")[0]
                if top in PACKAGES:
                    assert node.module == top, f"reaches into a module: from {node.module} import ..."
                    names = [a.name for a in node.names]
                    assert not [n for n in names if n.startswith("_") or n == "*"], names
                    imported |= set(names)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name.split(".")[0] not in PACKAGES, f"import {alias.name}: use from-imports"
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                assert node.value.id not in PACKAGES, f"{node.value.id}.{node.attr}: a module attribute"
    import evaluator
    import governance
    import reports

    public = set(governance.__all__) | set(evaluator.__all__) | set(reports.__all__)
    assert imported and imported <= public
    assert {"run_and_wait", "tqdm_progress", "suggest_mapping", "report_bundle"} <= imported


def write_kernelspec(folder: Path) -> None:
    spec = folder / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "MedAssure test (venv python)", "language": "python",
    }))


def outputs(nb, output_type: str | None = None) -> list:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
            if output_type is None or o.output_type == output_type]


@pytest.mark.slow  # a Jupyter kernel runs the whole notebook: ~14 s here
def test_the_notebook_runs_top_to_bottom(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from tests.calc_answers import calculator_answers
    from tests.fakes import FakeConfig, FakeLLMServer

    home, jupyter = tmp_path / "home", tmp_path / "jupyter"
    write_kernelspec(jupyter)
    for name, value in {
        "MEDASSURE_HOME": str(home), "MEDASSURE_MODEL": "openai/fake-calc", "MEDASSURE_USER": "nb.tester",
        "JUPYTER_PATH": str(jupyter), "JUPYTER_DATA_DIR": str(jupyter), "JUPYTER_CONFIG_DIR": str(jupyter),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "IPYTHONDIR": str(tmp_path / "ipython"),
        "JUPYTER_PLATFORM_DIRS": "1", "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("MEDASSURE_API_KEY_ENV", raising=False)

    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        "import json, sys\nprint(json.dumps({'executable': sys.executable, 'prefix': sys.prefix}))"))
    with FakeLLMServer(FakeConfig(answer=calculator_answers(count=12))) as server:
        monkeypatch.setenv("MEDASSURE_API_BASE", server.url)
        started = time.monotonic()
        client = nbclient.NotebookClient(nb, kernel_name=KERNEL, timeout=300,
                                         resources={"metadata": {"path": str(tmp_path)}})
        client.execute()  # raises CellExecutionError, with the cell and its traceback, on any error
        elapsed = time.monotonic() - started
    print(f"notebook executed in {elapsed:.1f} s")

    probe = json.loads(nb.cells[-1].outputs[0]["text"])
    assert probe == {"executable": sys.executable, "prefix": sys.prefix}, "the kernel runs the venv's python"
    assert [o for o in outputs(nb) if o.output_type == "error"] == []
    assert server.hits == 12, "12 calculator cases, each sent once"

    progress = "".join(o["text"] for o in outputs(nb, "stream") if o["name"] == "stderr")
    assert "calc_builtin × openai/fake-calc" in progress and "12/12" in progress, "a tqdm bar was drawn"
    images = [o for o in outputs(nb) if "image/png" in o.get("data", {})]
    assert len(images) >= 3, "the altair charts render inline (facet, verdicts, the report's score chart)"
    frames = [o for o in outputs(nb, "execute_result") if "text/html" in o["data"]]
    assert any("<table" in o["data"]["text/html"] and "GPT-4o" in o["data"]["text/html"] for o in frames)

    pdfs = list((home / "reports").glob("*.pdf"))
    assert len(pdfs) == 1 and pdfs[0].read_bytes().startswith(b"%PDF-")

    from governance.dossier.store import Store

    store = Store.open(home / "medassure.duckdb")  # the notebook closed it
    try:
        [summary] = store.list_dossiers()
        dossier = store.load(summary.id).dossier
    finally:
        store.close()
    assert dossier.title == "Nurses' drug-dosing questions" and dossier.owner == "nb.tester"
    accepted = ["providing_clinical_knowledge_support", "supporting_diagnostic_decisions"]
    assert dossier.mapping.accepted == accepted
    assert dossier.policy is not None and dossier.policy.lock is not None
    [local] = [e for e in dossier.evidence if e.provenance == "local-run"]
    assert (local.model, local.benchmark, local.n) == ("openai/fake-calc", "calc_builtin", 12)
    assert local.n_unparsed == 2
    assert local.score == pytest.approx(0.5)
    published = {e.model for e in dossier.evidence if e.provenance == "published"}
    assert published == {"GPT-4o (2024-05-13)", "Claude 3.7 Sonnet (20250219)", "Llama 3.3 Instruct (70B)"}
    assert pdfs[0].name.startswith(f"{dossier.id}-v")
