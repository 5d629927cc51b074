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
    "tests/evaluator/runs/test_runner.py::test_sigkill_mid_run_then_restart_resends_nothing_finished",
    "tests/evaluator/runs/test_runner.py::test_a_fresh_run_asks_again_and_resumes_only_the_run_it_names[duckdb]",
    "tests/evaluator/runs/test_worker_parent_death.py::test_sigkilled_parent_takes_its_workers_along_and_resume_",
    "tests/pages/test_local_scenarios_grading.py::test_a_grading_in_progress_shows_under_its_own_run_only",
)
"""Tests that count the requests a fake server received. They failed only after about a thousand other
tests in one process: a stopped fake kept serving the keep-alive sockets it had accepted, and a later
fake on the same loopback port lost requests to it (fixed in ``tests/fakes.py``, tested in
``tests/test_fakes.py``). ``make test`` still runs them in a process of their own (marker ``isolated``)."""


SLOW = (
    "tests/cli/test_cli_attach_rules.py::test_unknown_and_stopped_runs_are_not_attached",
    "tests/cli/test_cli_dossier.py::test_console_script_reports_corrupt_database",
    "tests/cli/test_cli_dossier.py::test_demo_is_idempotent",
    "tests/cli/test_cli_grade.py::test_grade_gives_healthbench_score_by_hand",
    "tests/cli/test_cli_inspect.py::test_import_prints_the_logs_figures_and_attaches",
    "tests/cli/test_cli_json.py::test_agreement_prints_strict_json_when_a_statistic_is_undefined",
    "tests/cli/test_cli_monitor_report.py::test_bad_input_exits_2_in_one_line_and_writes_nothing",
    "tests/cli/test_cli_monitor_report.py::test_writes_the_pdf_and_signs_it_with_the_export_key",
    "tests/cli/test_cli_reevaluate_secrets.py::test_a_key_in_the_server_url_is_stored_nowhere",
    "tests/cli/test_cli_review.py::test_bad_input_exits_2_with_one_line",
    "tests/cli/test_cli_scenario.py::test_run_scenario_blocks_phi_then_runs_redacted_and_attaches",
    "tests/cli/test_cli_signed_exports.py::test_signed_card_verifies_and_a_tampered_copy_exits_3",
    "tests/evaluator/agreement/test_agreement.py::test_bertscore_baseline_is_computed_offline_when_asked",
    "tests/evaluator/gateway/test_secrets.py::test_cli_and_library_runs_store_no_key_anywhere",
    "tests/evaluator/importers/test_inspect.py::test_binary_log_gives_wilson_evidence_with_provenance",
    "tests/evaluator/jury/test_jury.py::test_adversarial_replies_are_unscored_with_reasons_never_zero",
    "tests/evaluator/jury/test_medhelm_parity.py::test_ten_percent_empty_answers_450_strict_415_medhelm",
    "tests/evaluator/runs/test_runner.py::test_every_instance_completes_through_25_percent_faults",
    "tests/evaluator/runs/test_runner.py::test_sigkill_mid_run_then_restart_resends_nothing_finished",
    "tests/evaluator/runs/test_runner.py::test_worker_processes_complete_through_faults",
    "tests/evaluator/runs/test_worker_parent_death.py::test_sigkilled_parent_takes_its_workers_along_and_resume_pays_nothing_twice",
    "tests/evaluator/scoring/test_metrics.py::test_bertscore_offline_minilm_built_once",
    "tests/evaluator/storage/test_idle_release.py::test_idle_file_is_let_go_of_and_reopened_on_use",
    "tests/evaluator/storage/test_thread_cursors.py::test_pages_asking_for_monitoring_status_at_once_all_get_it",
    "tests/governance/demo/test_demo_decision.py::test_demo_has_all_three_verdict_kinds_with_reasons",
    "tests/governance/demo/test_demo_monitoring.py::test_pause_in_month_four_for_the_silent_vendor_update",
    "tests/governance/demo/test_demo_monitoring.py::test_six_monthly_imports_of_the_generated_rows_all_labelled_demo_data",
    "tests/governance/demo/test_demo_reevaluation.py::test_demo_addendum_is_labelled_and_leaves_the_decision_standing",
    "tests/governance/demo/test_demo_reevaluation.py::test_demo_has_one_addendum_with_known_numbers",
    "tests/governance/dossier/test_history.py::test_timeline_kinds_for_demo",
    "tests/governance/dossier/test_store.py::test_a_second_process_waits_for_a_short_holder_instead_of_failing",
    "tests/governance/dossier/test_store_integrity.py::test_a_sqlite_file_is_refused_before_duckdb_sees_it",
    "tests/governance/dossier/test_store_integrity.py::test_cli_reports_a_damaged_file_with_exit_2_and_no_traceback",
    "tests/governance/dossier/test_store_integrity.py::test_cli_warns_about_a_junk_wal_and_goes_on",
    "tests/governance/dossier/test_store_postgres.py::test_the_cli_says_so_in_one_line_without_a_traceback",
    "tests/governance/mapping/test_mapping.py::test_semantic_ranking_puts_the_obvious_subcategory_first",
    "tests/governance/reevaluation/test_reevaluation_restart.py::test_a_dataset_file_and_its_hash_survive_the_restart",
    "tests/governance/reevaluation/test_reevaluation_restart.py::test_a_fresh_process_freezes_the_same_plan_and_asks_the_model",
    "tests/governance/review/test_review_queues.py::test_jury_clinician_agreement_once_closed",
    "tests/governance/runs/test_jury_runs.py::test_attach_jury_to_the_demo_dossier",
    "tests/governance/runs/test_run_evidence.py::test_a_budget_stop_resumes_with_a_larger_budget",
    "tests/governance/runs/test_run_evidence.py::test_a_run_left_running_by_a_dead_process_shows_as_interrupted",
    "tests/governance/runs/test_run_evidence.py::test_estimate_is_an_upper_bound_and_sends_nothing",
    "tests/governance/runs/test_run_evidence.py::test_mapped_benchmarks_come_first_then_the_builtin_one",
    "tests/governance/runs/test_run_evidence.py::test_resume_needs_a_request_this_process_knows",
    "tests/governance/runs/test_run_evidence.py::test_run_completes_and_its_evidence_attaches_with_n_and_interval",
    "tests/governance/scenarios/test_attestation_after_decision.py::test_attestation_appended_after_the_decision_keeps_the_sign_offs",
    "tests/governance/scenarios/test_scenarios.py::test_demo_step_fits_the_demo_dossier",
    "tests/pages/test_candidate_form_reset.py::test_the_new_candidate_form_starts_empty_after_a_save",
    "tests/pages/test_candidate_runs_and_cost.py::test_candidate_prefills_the_run_and_its_measured_cost_is_shown",
    "tests/pages/test_candidates_page.py::test_add_a_candidate_from_the_page",
    "tests/pages/test_candidates_page.py::test_answer_an_attestation_with_a_document",
    "tests/pages/test_candidates_page.py::test_page_cli_and_pdf_show_the_same_numbers",
    "tests/pages/test_candidates_page.py::test_saving_an_unchanged_answer_creates_no_version_and_keeps_the_signoff",
    "tests/pages/test_concurrent_sessions.py::test_a_decision_saved_over_another_sessions_save_is_refused",
    "tests/pages/test_concurrent_sessions.py::test_a_signoff_after_another_sessions_save_is_refused_until_reviewed",
    "tests/pages/test_cost_form.py::test_measured_tokens_fill_the_form_and_survive_a_later_save",
    "tests/pages/test_cost_page.py::test_workload_tokens_save_and_unchanged_save_makes_no_new_version",
    "tests/pages/test_decision_pages.py::test_cost_page_table_chart_and_profile_save",
    "tests/pages/test_decision_pages.py::test_decision_page_signoff_then_change_shows_invalidation",
    "tests/pages/test_decision_pages.py::test_rules_page_starts_from_defaults_and_locks",
    "tests/pages/test_decision_pages.py::test_signoff_fields_start_empty_for_the_next_signer",
    "tests/pages/test_evidence_inspect.py::test_an_inspect_log_previews_and_attaches",
    "tests/pages/test_evidence_page.py::test_adding_a_model_and_attaching_its_scores_creates_a_new_version",
    "tests/pages/test_evidence_page.py::test_helm_import_previews_attaches_and_drills_down",
    "tests/pages/test_foundation_pages.py::test_dossiers_page_seeds_demo_on_click",
    "tests/pages/test_foundation_pages.py::test_intended_use_live_risk_and_save",
    "tests/pages/test_foundation_pages.py::test_intended_use_validation_on_save_names_fields_by_label",
    "tests/pages/test_history_page.py::test_history_page_shows_timeline_and_diff",
    "tests/pages/test_history_page.py::test_history_states_the_chain_and_a_changed_row_is_flagged",
    "tests/pages/test_intended_use_conflict.py::test_a_field_both_changed_is_the_users_choice",
    "tests/pages/test_intended_use_conflict.py::test_the_typed_title_survives_and_is_applied_onto_the_other_save",
    "tests/pages/test_judge_validity_page.py::test_upload_ratings_see_table_record_and_set_minimum",
    "tests/pages/test_local_scenarios_page.py::test_free_text_results_say_what_scores_them_and_offer_the_jury",
    "tests/pages/test_monitoring_page.py::test_acknowledge_records_who_and_a_resolve_without_reason_stores_nothing",
    "tests/pages/test_monitoring_page.py::test_event_form_refuses_an_empty_description_and_a_moderate_event_suspends",
    "tests/pages/test_no_raw_keys.py::test_no_raw_key_in_the_demo_pdf_or_label",
    "tests/pages/test_own_writes.py::test_another_sessions_save_is_still_reported_when_both_are_named_reviewer",
    "tests/pages/test_own_writes.py::test_attaching_your_own_jury_is_not_someone_elses_save",
    "tests/pages/test_own_writes.py::test_attaching_your_own_run_is_not_someone_elses_save",
    "tests/pages/test_own_writes.py::test_form_saves_on_decision_and_review_pages_are_your_own",
    "tests/pages/test_own_writes.py::test_your_own_reevaluation_is_not_someone_elses_save",
    "tests/pages/test_rate_outputs_page.py::test_a_rater_rates_one_item_at_a_time_and_a_second_tab_never_double_counts",
    "tests/pages/test_report_page.py::test_report_page_says_whether_the_chai_card_is_signed",
    "tests/pages/test_reviewer_name.py::test_the_placeholder_name_is_refused",
    "tests/pages/test_run_evidence_jury.py::test_estimate_judge_and_attach_the_jury",
    "tests/pages/test_run_evidence_page.py::test_estimate_run_watch_and_attach",
    "tests/pages/test_run_for_candidate.py::test_the_run_counts_for_the_candidate_picked",
    "tests/pages/test_stale_decision_page.py::test_a_review_plan_contradicting_the_use_blocks_signing_after_confirmation",
    "tests/pages/test_stale_decision_page.py::test_signing_waits_for_the_chairs_confirmation",
    "tests/pages/test_store_warning_page.py::test_a_junk_wal_is_shown_in_the_sidebar",
    "tests/pages/test_user_text_escaped.py::test_hostile_text_is_shown_literally",
    "tests/pages/test_voiding_save.py::test_cancel_keeps_the_signoffs",
    "tests/reports/test_assess_once.py::test_one_bundle_one_assessment",
    "tests/reports/test_exports.py::test_chai_card_of_the_demo_validates_against_the_official_v02_schema",
    "tests/reports/test_flags.py::test_demo_flags_demo_data_the_disagreement_and_missing_signoffs",
    "tests/reports/test_flags.py::test_the_pdf_cover_shows_the_flags_before_the_contents",
    "tests/reports/test_monitoring_report.py::test_a_quiet_month_says_no_signal_was_raised",
    "tests/reports/test_monitoring_report.py::test_sections_of_the_creep_month_show_the_signal_and_what_was_done",
    "tests/reports/test_monitoring_report.py::test_signed_when_a_key_is_given_and_written_atomically",
    "tests/reports/test_sections_reevaluation.py::test_demo_pdf_has_the_offline_reevaluation",
    "tests/reports/test_signing.py::test_signed_card_still_validates_against_the_chai_schema",
    "tests/test_public_api.py::test_every_name_imports_first_in_a_fresh_process",
)
"""The slowest tests of the inner loop (about 1.4 s or more each, setup or call, on a 2-core machine, measured
with ``pytest -n 2 --durations=90``): marked ``slow`` so ``make test-fast`` leaves them out; ``make test``
runs them."""


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


_EXIT: dict[str, int] = {}


def pytest_sessionfinish(session, exitstatus):
    _EXIT["status"] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """End the process with pytest's own exit status once everything is reported, skipping interpreter
    finalization.

    After every test has passed and the summary is printed, a native library (not identified; the main
    thread has no Python frame left) sometimes aborts while the interpreter shuts down: "terminate called
    without an active exception" or "FATAL: exception not rethrown", exit 134, about 1 run in 3 of
    tests/cli/test_cli_rehearse.py with tests/pages/test_monitoring_practice_page.py. That would fail
    `make test` on a green suite. The results are written by then; a worker of pytest-xdist is left to end
    as usual. docs/known-limits.md says so.
    """
    if "status" not in _EXIT or hasattr(config, "workerinput"):
        return
    import sys

    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(_EXIT["status"])
