"""Shared fixtures: an isolated MedAssure home per test, offline settings, the shared-data path.

The local OpenAI-compatible test server lives in tests/fakes.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Sign-offs are keyed (governance.identity.keys); tests never write a key file into ~/.medassure.
os.environ.setdefault("MEDASSURE_SIGNING_KEY", "tests-only-signing-key")
# The record anchor is keyed too (governance.dossier.chain_anchor); tests never write ~/.medassure/record.key.
os.environ.setdefault("MEDASSURE_RECORD_KEY", "tests-only-record-key")

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test with the reason when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not present: shared reference data is only available in CI/dev checkouts")
    return path


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A fresh MEDASSURE_HOME for the test."""
    monkeypatch.setenv("MEDASSURE_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def store(home):
    from governance.dossier.store import Store

    s = Store.open(home / "medassure.duckdb")
    yield s
    s.close()


ISOLATED = (
    "tests/governance/runs/test_jury_runs.py::test_cancel_then_resume_sends_each_judge_request_once",
    "tests/governance/runs/test_run_and_wait.py::test_interrupting_the_wait_cancels_the_run_and_the_same_",
    "tests/governance/runs/test_run_evidence.py::test_cancel_then_resume_sends_no_duplicate_request",
    "tests/pages/test_local_scenarios_page.py::test_import_block_redact_run_and_attach",
    "tests/pages/test_reevaluation_page.py::test_page_runs_a_reevaluation_and_shows_the_addendum",
    "tests/pages/test_run_evidence_page.py::test_cancel_then_resume_from_the_page",
    "tests/pages/test_run_evidence_page.py::test_phi_gate_blocks_then_an_attestation_lets_the_file_through",
)
"""Tests that count the requests a fake server received and pass alone, in any subset tried, but after
about a thousand other tests in one process received 3-7 times the requests they sent (every request
retried: the suite leaks keep-alive sockets to stopped fake servers, whose loopback ports later servers
reuse). Not root-caused; ``make test`` runs them in a pytest process of their own (marker ``isolated``)."""


def pytest_collection_modifyitems(items):
    """Mark every test that uses the PostgreSQL server ``postgres``, and the ``ISOLATED`` ones ``isolated``
    (``make test`` runs each group in a process of its own, see the Makefile)."""
    for item in items:
        if item.nodeid.startswith(ISOLATED):
            item.add_marker(pytest.mark.isolated)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "postgres_server" in getattr(item, "fixturenames", ()) or "postgresql" in params.values():
            item.add_marker(pytest.mark.postgres)  # uses it directly, or through any_store/any_con


BACKENDS = ["duckdb", "postgresql"]
"""Where tests that take ``any_store``/``any_con`` run: the DuckDB file and a real PostgreSQL server."""


@pytest.fixture(params=BACKENDS)
def any_store(request, home):
    """The dossier store on each backend (PostgreSQL: a fresh database on the session's server; skipped with
    the reason when PostgreSQL is not installed)."""
    from governance.dossier.store import Store

    s = Store.open(home / "medassure.duckdb") if request.param == "duckdb" else \
        Store.open_url(request.getfixturevalue("pg_url"))
    assert s.backend == request.param
    yield s
    s.close()


@pytest.fixture(params=BACKENDS)
def any_con(request, tmp_path):
    """A raw connection on each backend, as evaluator code takes it (PostgreSQL: run journals in tmp_path)."""
    import duckdb

    if request.param == "duckdb":
        db = duckdb.connect()
    else:
        from evaluator.storage.postgres import PgConnection

        db = PgConnection.connect(request.getfixturevalue("pg_url"))
        db.journal_dir = tmp_path / "journals"
    yield db
    db.close()


@pytest.fixture
def llm_server():
    """A fresh local OpenAI-compatible server on 127.0.0.1 (no latency, no faults); ``.configure(...)`` it."""
    from tests.fakes import FakeConfig, FakeLLMServer

    with FakeLLMServer(FakeConfig()) as server:
        yield server


@pytest.fixture(scope="session")
def postgres_server():
    """One real PostgreSQL server for the session (tests/pg_server.py); skipped when not installed."""
    from tests.pg_server import PostgresServer, PostgresUnavailable

    try:
        server = PostgresServer()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))
    with server:
        yield server


@pytest.fixture
def pg_url(postgres_server, request) -> str:
    """A fresh, empty PostgreSQL database for this test; its URL (dropped afterwards)."""
    import contextlib
    import re
    import uuid

    stem = re.sub(r"[^a-z0-9_]", "_", request.node.name.lower())[:30]
    name = f"t_{stem}_{uuid.uuid4().hex[:8]}"
    url = postgres_server.create_database(name)
    yield url
    with contextlib.suppress(Exception):  # a test that left sessions open must not fail its teardown
        postgres_server.drop_database(name)


@pytest.fixture(autouse=True)
def _no_job_outlives_its_test():
    """Stop every background job a test left running in the app's one job manager.

    Why: a job still working after its test (a page that started a run and moved on) keeps calling
    its endpoint, and a later test's fake server can be given the same loopback port; the stray
    requests then land there and spoil that test's request counts (seen as 3-7x hits in cancel and
    resume tests late in the suite). Cancelling here keeps tests independent of their order.
    """
    yield
    import sys

    jobs = sys.modules.get("evaluator.runs.jobs")
    if jobs is None:
        return
    live = jobs.JOBS.live()
    for job in live:
        job.cancel()
    for job in live:
        job.join(timeout=10)
    if live and os.environ.get("MEDASSURE_TEST_REPORT_STRAY_JOBS"):
        with open(os.environ["MEDASSURE_TEST_REPORT_STRAY_JOBS"], "a") as out:
            out.write(f"{os.environ.get('PYTEST_CURRENT_TEST', '?')}: {len(live)} job(s)\n")
