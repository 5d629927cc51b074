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


SLOW = (
    "tests/cli/test_cli_attach_rules.py::test_unknown_and_stopped_runs_are_not_attached",
    "tests/cli/test_cli_dossier.py::test_demo_is_idempotent",
    "tests/cli/test_cli_monitor_report.py::test_writes_the_pdf_and_signs_it_with_the_export_key",
    "tests/cli/test_cli_scenario.py::test_run_scenario_blocks_phi_then_runs_redacted_and_attaches",
    "tests/evaluator/agreement/test_agreement.py::test_bertscore_baseline_is_computed_offline_when_asked",
    "tests/evaluator/runs/test_runner.py::test_sigkill_mid_run_then_restart_resends_nothing_finished",
    "tests/evaluator/storage/test_idle_release.py::test_idle_file_is_let_go_of_and_reopened_on_use",
    "tests/governance/demo/test_demo_monitoring.py::test_six_monthly_imports_of_the_generated_rows_all_labelled_demo_data",
    "tests/governance/demo/test_demo_reevaluation.py::test_demo_has_one_addendum_with_known_numbers",
    "tests/governance/dossier/test_history.py::test_timeline_kinds_for_demo",
    "tests/governance/dossier/test_store.py::test_a_second_process_waits_for_a_short_holder_instead_of_failing",
    "tests/governance/reevaluation/test_reevaluation_restart.py::test_a_dataset_file_and_its_hash_survive_the_restart",
    "tests/governance/reevaluation/test_reevaluation_restart.py::test_a_fresh_process_freezes_the_same_plan_and_asks_the_model",
    "tests/governance/runs/test_jury_runs.py::test_attach_jury_to_the_demo_dossier",
    "tests/governance/runs/test_run_evidence.py::test_a_budget_stop_resumes_with_a_larger_budget",
    "tests/governance/runs/test_run_evidence.py::test_a_run_left_running_by_a_dead_process_shows_as_interrupted",
    "tests/governance/runs/test_run_evidence.py::test_estimate_is_an_upper_bound_and_sends_nothing",
    "tests/governance/runs/test_run_evidence.py::test_mapped_benchmarks_come_first_then_the_builtin_one",
    "tests/governance/runs/test_run_evidence.py::test_resume_needs_a_request_this_process_knows",
    "tests/governance/runs/test_run_evidence.py::test_run_completes_and_its_evidence_attaches_with_n_and_interval",
    "tests/governance/scenarios/test_attestation_after_decision.py::test_attestation_appended_after_the_decision_keeps_the_sign_offs",
    "tests/pages/test_concurrent_sessions.py::test_a_signoff_after_another_sessions_save_is_refused_until_reviewed",
    "tests/pages/test_decision_pages.py::test_decision_page_signoff_then_change_shows_invalidation",
    "tests/pages/test_monitoring_page.py::test_acknowledge_records_who_and_a_resolve_without_reason_stores_nothing",
    "tests/pages/test_monitoring_page.py::test_event_form_refuses_an_empty_description_and_a_moderate_event_suspends",
    "tests/pages/test_own_writes.py::test_attaching_your_own_jury_is_not_someone_elses_save",
    "tests/pages/test_run_evidence_jury.py::test_estimate_judge_and_attach_the_jury",
    "tests/pages/test_stale_decision_page.py::test_signing_waits_for_the_chairs_confirmation",
    "tests/reports/test_assess_once.py::test_one_bundle_one_assessment",
    "tests/reports/test_exports.py::test_chai_card_of_the_demo_validates_against_the_official_v02_schema",
    "tests/reports/test_flags.py::test_demo_flags_demo_data_the_disagreement_and_missing_signoffs",
    "tests/reports/test_flags.py::test_the_pdf_cover_shows_the_flags_before_the_contents",
    "tests/reports/test_monitoring_report.py::test_sections_of_the_creep_month_show_the_signal_and_what_was_done",
    "tests/reports/test_monitoring_report.py::test_signed_when_a_key_is_given_and_written_atomically",
    "tests/reports/test_sections_reevaluation.py::test_demo_pdf_has_the_offline_reevaluation",
    "tests/reports/test_signing.py::test_signed_card_still_validates_against_the_chai_schema",
    "tests/test_public_api.py::test_every_name_imports_first_in_a_fresh_process",
)
"""The slowest tests of the inner loop (3 s or more each on a loaded 2-core machine, measured with
``pytest --durations=40``): marked ``slow`` so ``make test-fast`` leaves them out; ``make test`` runs them."""


def pytest_collection_modifyitems(items):
    """Mark every test that uses the PostgreSQL server ``postgres``, and the ``ISOLATED`` ones ``isolated``
    (``make test`` runs each group in a process of its own, see the Makefile)."""
    for item in items:
        if item.nodeid.startswith(ISOLATED):
            item.add_marker(pytest.mark.isolated)
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
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
