"""The committee's domain: dossiers, the task mapping, rules and verdicts, runs for a dossier.

Where code goes, in one rule: **takes a store or starts a job → the front desk (``actions``); a pure
function of a dossier → its stage; a record → ``dossier``.** The stages import one way only, in the
order of the path, with no imports between siblings (checked by import-linter in ``make lint``)::

    demo > actions > reevaluation > monitoring > decision > rules > procurement > evidence
         > review > identity | mapping > dossier

Both later stages, ``monitoring`` and ``review`` (the review queues), have landed; data
between stages flows through ``dossier`` records.

The public API (``__all__``) is what notebooks and scripts use; the pages and the CLI call the
same functions and import everything else they need from this face too (``_FACE``), never from a
submodule (``tests/test_faces.py``). Names are imported on first use (``evaluator.lazy_exports``),
so ``import governance.dossier.store`` stays cheap and no import cycle appears. A typical path::

    store = Store.open()                                  # $MEDASSURE_HOME/medassure.duckdb
    dossier = Dossier(title=..., owner=..., intended_use=IntendedUse(...))
    suggestions = suggest_mapping(dossier.intended_use.text_for_mapping())
    mapping = dossier.mapping.decide(suggestions[0].subcategory_id, "accepted", by="me")
    done = run_and_wait(store, build_request("calc_builtin", "openai/m", api_base=URL, limit=12))
    version = attach_run(store, dossier.id, done.run_id, by="me")
    assessment = assess(version.dossier)

Example:
    >>> from governance import Dossier, example_intended_use
    >>> Dossier(title="Portal replies", owner="me", intended_use=example_intended_use()).status
    'draft'
"""

from typing import TYPE_CHECKING

from evaluator.lazy_exports import lazy_exports

_EXPORTS = {
    "Store": "governance.dossier.store",
    "Dossier": "governance.dossier.record",
    "TaskMapping": "governance.dossier.record",
    "IntendedUse": "governance.dossier.intended_use",
    "example_intended_use": "governance.dossier.intended_use",
    "suggest_mapping": "governance.mapping.suggest",
    "mapped_benchmarks": "governance.evidence.attach",
    "attach_evidence": "governance.evidence.attach",
    "start_rules": "governance.decision.committee",
    "lock_rules": "governance.decision.committee",
    "assess": "governance.rules.verdicts",
    "assessment_and_recommendation": "governance.rules.assessment",
    "build_request": "governance.actions.runs",
    "run_and_wait": "governance.actions.runs",
    "attach_run": "governance.actions.run_view",
}
__all__ = [  # literal, so tools see the public names; tests check it matches _EXPORTS
    "Store", "Dossier", "TaskMapping", "IntendedUse", "example_intended_use", "suggest_mapping",
    "mapped_benchmarks", "attach_evidence", "start_rules", "lock_rules", "assess",
    "assessment_and_recommendation", "build_request", "run_and_wait", "attach_run",
]
_FACE = {  # what the pages and the CLI import besides the public API (tests/test_faces.py)
    "require": "governance.actions.authorize",
    "written_versions": "governance.actions.receipts",
    "measured_costs": "governance.actions.costs",
    "run_token_profile": "governance.actions.costs",
    "decide": "governance.actions.decision",
    "decision_view": "governance.actions.decision_view",
    "changes_since_decision": "governance.actions.decision_standing",
    "DeidentificationError": "governance.actions.deidentification",
    "attest_file": "governance.actions.deidentification",
    "attest_scenario": "governance.actions.deidentification",
    "InstanceRow": "governance.actions.helm_import",
    "RunPreview": "governance.actions.helm_import",
    "attached_run_instances": "governance.actions.helm_import",
    "preview_helm_import": "governance.actions.helm_import",
    "diff_versions": "governance.actions.history",
    "timeline": "governance.actions.history",
    "attach_inspect_logs": "governance.actions.inspect_import",
    "preview_inspect_import": "governance.actions.inspect_import",
    "preview_inspect_upload": "governance.actions.inspect_import",
    "JudgeValidityView": "governance.actions.judge_validity",
    "agreement_setting": "governance.actions.judge_validity",
    "assess_judge_validity": "governance.actions.judge_validity",
    "jury_benchmarks": "governance.actions.judge_validity",
    "minimum_rule": "governance.actions.judge_validity",
    "record_agreement": "governance.actions.judge_validity",
    "sample_size_hint": "governance.actions.judge_validity",
    "set_minimum": "governance.actions.judge_validity",
    "stored_juries": "governance.actions.judge_validity",
    "ReviewError": "governance.actions.review",
    "close_queue": "governance.actions.review",
    "create_queue": "governance.actions.review_create",
    "create_queue_from_feed": "governance.actions.review_create",
    "my_queues": "governance.actions.review",
    "rater_view": "governance.actions.review",
    "record_rating": "governance.actions.review",
    "remove_rater": "governance.actions.review",
    "export_csv": "governance.actions.review_sheets",
    "import_sheet": "governance.actions.review_sheets",
    "sheet_csv": "governance.actions.review_sheets",
    "closed_queues": "governance.actions.review_status",
    "queue_citation": "governance.actions.review_status",
    "queue_ratings": "governance.actions.review_status",
    "queue_status": "governance.actions.review_status",
    "AUDIT_VERDICTS": "governance.dossier.review_records",
    "size_guidance": "governance.review.sample_size",
    "JuryPlan": "governance.actions.juries",
    "JuryRequest": "governance.actions.juries",
    "JuryRunError": "governance.actions.juries",
    "attach_jury": "governance.actions.juries",
    "attached_first": "governance.actions.juries",
    "default_judges": "governance.actions.juries",
    "judge_options": "governance.actions.juries",
    "jury_applies": "governance.actions.juries",
    "jury_evidence": "governance.actions.juries",
    "plan_jury": "governance.actions.juries",
    "run_dataset_path": "governance.actions.juries",
    "run_juries": "governance.actions.juries",
    "start_jury": "governance.actions.juries",
    "added_addenda": "governance.actions.reevaluate",
    "current_plan": "governance.actions.reevaluate",
    "FeedError": "governance.dossier.store_feed_import",
    "MonitoringError": "governance.actions.monitoring",
    "acknowledge_signal": "governance.actions.monitoring_events",
    "dossier_monitoring": "governance.actions.monitoring",
    "export_blinded_feed": "governance.actions.monitoring",
    "safety_register": "governance.monitoring.register",
    "import_feed": "governance.actions.monitoring",
    "monitoring_status": "governance.actions.monitoring",
    "record_event": "governance.actions.monitoring_events",
    "record_go_live": "governance.actions.monitoring_events",
    "resolve_signal": "governance.actions.monitoring_events",
    "feed_template": "governance.monitoring.template",
    "reevaluate_and_wait": "governance.actions.reevaluation",
    "start_reevaluation": "governance.actions.reevaluation",
    "SEVERITIES": "governance.dossier.monitoring_records",  # the Monitoring page's event form
    "ReevaluationError": "governance.actions.rerun",
    "read_prompt_bytes": "governance.actions.rerun",
    "read_prompt_file": "governance.actions.rerun",
    "attach_completed_run": "governance.actions.run_attach",
    "RunView": "governance.actions.run_view",
    "dossier_runs": "governance.actions.run_view",
    "run_id_for_key": "governance.actions.run_view",
    "run_view": "governance.actions.run_view",
    "RunInputError": "governance.actions.runs",
    "RunnableBenchmark": "governance.actions.runs",
    "cancel_run": "governance.actions.runs",
    "estimate_request": "governance.actions.runs",
    "job_elsewhere": "governance.actions.runs",
    "job_status": "governance.actions.runs",
    "resume_run": "governance.actions.runs",
    "runnable_benchmarks": "governance.actions.runs",
    "save_upload": "governance.actions.runs",
    "start_run": "governance.actions.runs",
    "start_scenario_run": "governance.actions.runs",
    "suggested_models": "governance.actions.runs",
    "save_as": "governance.actions.save",
    "attach_scenario_run": "governance.actions.scenarios",
    "import_for_dossier": "governance.actions.scenarios",
    "redact_scenario": "governance.actions.scenarios",
    "run_gate": "governance.actions.scenarios",
    "scenario_rows": "governance.actions.scenarios",
    "version_view": "governance.actions.scenarios",
    "assessment_payload": "governance.decision.committee",
    "change_rule": "governance.decision.committee",
    "delete_rule": "governance.decision.committee",
    "derive_plan": "governance.decision.committee",
    "edit_plan": "governance.decision.committee",
    "set_error_control": "governance.decision.committee",
    "sign": "governance.decision.committee",
    "confirm_decision": "governance.decision.committee",
    "compare_candidates": "governance.decision.comparison",
    "needs_override": "governance.decision.readiness",
    "DecisionError": "governance.decision.signoff",
    "SignOffStatus": "governance.decision.signoff",
    "signoff_status": "governance.decision.signoff",
    "seed_demo": "governance.demo.seed",
    "PlanChange": "governance.dossier.addendum_records",
    "field_label": "governance.dossier.change_text",
    "apply_merge": "governance.dossier.form_merge",
    "form_values": "governance.dossier.form_merge",
    "plan_merge": "governance.dossier.form_merge",
    "DECISION_OUTCOMES": "governance.dossier.decision_records",
    "MonitoredMetric": "governance.dossier.decision_records",
    "OUTCOME_LABELS": "governance.dossier.decision_records",
    "Trigger": "governance.dossier.decision_records",
    "DocumentError": "governance.dossier.documents",
    "DECISION_ROLE_LABELS": "governance.dossier.intended_use",
    "OVERSIGHT_LABELS": "governance.dossier.intended_use",
    "PHI_LABELS": "governance.dossier.intended_use",
    "SEVERITY_LABELS": "governance.dossier.intended_use",
    "Candidate": "governance.dossier.procurement_records",
    "ContractFacts": "governance.dossier.procurement_records",
    "CostSettings": "governance.dossier.procurement_records",
    "Pricing": "governance.dossier.procurement_records",
    "TokenProfile": "governance.dossier.procurement_records",
    "TIER_INPUTS": "governance.dossier.risk",
    "assess_risk": "governance.dossier.risk",
    "high_floor_applies": "governance.dossier.risk",
    "AcceptancePolicy": "governance.dossier.rules_records",
    "PolicyError": "governance.dossier.rules_records",
    "ScoreRule": "governance.dossier.rules_records",
    "DossierNotFound": "governance.dossier.store",
    "DossierVersion": "governance.dossier.store",
    "SaveConflict": "governance.dossier.store",
    "StoreError": "governance.dossier.store",
    "StoreWarning": "governance.dossier.store",
    "database_url": "governance.dossier.store",
    "default_home": "governance.dossier.store",
    "TaxonomyError": "governance.dossier.taxonomy",
    "load_taxonomy": "governance.dossier.taxonomy",
    "detach_evidence": "governance.evidence.attach",
    "CoverageRow": "governance.evidence.coverage",
    "activity_gaps": "governance.evidence.gaps",
    "KIND_NOTES": "governance.evidence.coverage",
    "subcategory_name": "governance.evidence.select",
    "BenchmarkTies": "governance.evidence.view",
    "GroupMeanRow": "governance.evidence.view",
    "ScoreRow": "governance.evidence.view",
    "WinRateRow": "governance.evidence.view",
    "evidence_view": "governance.evidence.view",
    "subgroup_lines": "governance.evidence.subgroups",
    "Access": "governance.identity.access",
    "PermissionDenied": "governance.identity.access",
    "access_for": "governance.identity.access",
    "IdentityConfig": "governance.identity.config",
    "IdentityConfigError": "governance.identity.config",
    "load_config": "governance.identity.config",
    "server_rewrites_forwarded_for": "governance.identity.config",
    "Identity": "governance.identity.identity",
    "command_line_identity": "governance.identity.identity",
    "direct_peer": "governance.identity.identity",
    "local_identity": "governance.identity.identity",
    "oidc_identity": "governance.identity.identity",
    "proxy_identity": "governance.identity.identity",
    "mapping_lines": "governance.mapping.decisions",
    "record_mapping": "governance.mapping.decisions",
    "model_ready": "governance.mapping.suggest",
    "warm_up_in_background": "governance.mapping.suggest",
    "AttestationError": "governance.procurement.attestations",
    "STATUS_TEXT": "governance.procurement.attestations",
    "load_questionnaire": "governance.procurement.attestations",
    "make_answer": "governance.procurement.attestations",
    "statuses": "governance.procurement.attestations",
    "CandidateError": "governance.procurement.candidates",
    "with_token_profile": "governance.procurement.profiles",
    "run_candidates": "governance.procurement.candidates",
    "record_attestation": "governance.procurement.candidates",
    "remove_candidate": "governance.procurement.candidates",
    "slugify": "governance.procurement.candidates",
    "upsert_candidate": "governance.procurement.candidates",
    "CostReport": "governance.procurement.cost",
    "cost_report": "governance.procurement.cost",
    "medhelm_token_profile": "governance.procurement.cost_inputs",
    "run_presets": "governance.procurement.run_presets",
    "rule_kind": "governance.rules.kinds",
    "load_defaults": "governance.rules.policy",
    "rule_bar": "governance.rules.rule_text",
    "rule_label": "governance.rules.rule_text",
    "verdict_label": "governance.rules.rule_text",
    "outcome_lines": "governance.rules.outcome_text",
    "headline": "governance.rules.outcome_text",
    "decision_memo": "governance.decision.memo",
    "metric_label": "governance.dossier.labels",
    "count_text": "governance.dossier.labels",
    "source_words": "governance.dossier.labels",
    "VALUE_LABELS": "governance.dossier.labels",
    "score_rule": "governance.rules.score_rule",
    "unknown_benchmark": "governance.rules.score_rule",
    "Verdict": "governance.rules.verdicts",
}
__getattr__, __dir__ = lazy_exports(globals(), {**_EXPORTS, **_FACE})

if TYPE_CHECKING:  # for editors and type checkers; at run time the names load on first use
    from governance.actions.authorize import require
    from governance.actions.costs import measured_costs, run_token_profile
    from governance.actions.decision import decide
    from governance.actions.decision_standing import changes_since_decision
    from governance.actions.decision_view import decision_view
    from governance.actions.deidentification import DeidentificationError, attest_file, attest_scenario
    from governance.actions.helm_import import (
        InstanceRow,
        RunPreview,
        attached_run_instances,
        preview_helm_import,
    )
    from governance.actions.history import diff_versions, timeline
    from governance.actions.inspect_import import (
        attach_inspect_logs,
        preview_inspect_import,
        preview_inspect_upload,
    )
    from governance.actions.judge_validity import (
        JudgeValidityView,
        agreement_setting,
        assess_judge_validity,
        jury_benchmarks,
        minimum_rule,
        record_agreement,
        sample_size_hint,
        set_minimum,
        stored_juries,
    )
    from governance.actions.juries import (
        JuryPlan,
        JuryRequest,
        JuryRunError,
        attach_jury,
        attached_first,
        default_judges,
        judge_options,
        jury_applies,
        jury_evidence,
        plan_jury,
        run_dataset_path,
        run_juries,
        start_jury,
    )
    from governance.actions.monitoring import (
        MonitoringError,
        acknowledge_signal,
        dossier_monitoring,
        export_blinded_feed,
        import_feed,
        monitoring_status,
        record_event,
        record_go_live,
        resolve_signal,
    )
    from governance.actions.receipts import written_versions
    from governance.actions.reevaluate import added_addenda, current_plan
    from governance.actions.reevaluation import reevaluate_and_wait, start_reevaluation
    from governance.actions.rerun import ReevaluationError, read_prompt_bytes, read_prompt_file
    from governance.actions.run_attach import attach_completed_run
    from governance.actions.run_view import RunView, attach_run, dossier_runs, run_id_for_key, run_view
    from governance.actions.runs import (
        RunInputError,
        RunnableBenchmark,
        build_request,
        cancel_run,
        estimate_request,
        job_elsewhere,
        job_status,
        resume_run,
        run_and_wait,
        runnable_benchmarks,
        save_upload,
        start_run,
        start_scenario_run,
        suggested_models,
    )
    from governance.actions.save import save_as
    from governance.actions.scenarios import (
        attach_scenario_run,
        import_for_dossier,
        redact_scenario,
        run_gate,
        scenario_rows,
        version_view,
    )
    from governance.decision.committee import (
        assessment_payload,
        change_rule,
        confirm_decision,
        delete_rule,
        derive_plan,
        edit_plan,
        lock_rules,
        set_error_control,
        sign,
        start_rules,
    )
    from governance.decision.comparison import compare_candidates
    from governance.decision.memo import decision_memo
    from governance.decision.readiness import needs_override
    from governance.decision.signoff import DecisionError, SignOffStatus, signoff_status
    from governance.demo.seed import seed_demo
    from governance.dossier.addendum_records import PlanChange
    from governance.dossier.change_text import field_label
    from governance.dossier.decision_records import (
        DECISION_OUTCOMES,
        OUTCOME_LABELS,
        MonitoredMetric,
        Trigger,
    )
    from governance.dossier.documents import DocumentError
    from governance.dossier.form_merge import apply_merge, form_values, plan_merge
    from governance.dossier.intended_use import (
        DECISION_ROLE_LABELS,
        OVERSIGHT_LABELS,
        PHI_LABELS,
        SEVERITY_LABELS,
        IntendedUse,
        example_intended_use,
    )
    from governance.dossier.labels import VALUE_LABELS, count_text, metric_label, source_words
    from governance.dossier.monitoring_records import SEVERITIES
    from governance.dossier.procurement_records import (
        Candidate,
        ContractFacts,
        CostSettings,
        Pricing,
        TokenProfile,
    )
    from governance.dossier.record import Dossier, TaskMapping
    from governance.dossier.risk import assess_risk
    from governance.dossier.rules_records import AcceptancePolicy, PolicyError, ScoreRule
    from governance.dossier.store import (
        DossierNotFound,
        DossierVersion,
        SaveConflict,
        Store,
        StoreError,
        StoreWarning,
        database_url,
        default_home,
    )
    from governance.dossier.store_feed_import import FeedError
    from governance.dossier.taxonomy import TaxonomyError, load_taxonomy
    from governance.evidence.attach import attach_evidence, detach_evidence, mapped_benchmarks
    from governance.evidence.coverage import KIND_NOTES, CoverageRow
    from governance.evidence.select import subcategory_name
    from governance.evidence.subgroups import subgroup_lines
    from governance.evidence.view import BenchmarkTies, GroupMeanRow, ScoreRow, WinRateRow, evidence_view
    from governance.identity.access import Access, PermissionDenied, access_for
    from governance.identity.config import (
        IdentityConfig,
        IdentityConfigError,
        load_config,
        server_rewrites_forwarded_for,
    )
    from governance.identity.identity import (
        Identity,
        command_line_identity,
        direct_peer,
        local_identity,
        oidc_identity,
        proxy_identity,
    )
    from governance.mapping.decisions import mapping_lines, record_mapping
    from governance.mapping.suggest import model_ready, suggest_mapping, warm_up_in_background
    from governance.monitoring.register import safety_register
    from governance.monitoring.template import feed_template
    from governance.procurement.attestations import (
        STATUS_TEXT,
        AttestationError,
        load_questionnaire,
        make_answer,
        statuses,
    )
    from governance.procurement.candidates import (
        CandidateError,
        record_attestation,
        remove_candidate,
        run_candidates,
        slugify,
        upsert_candidate,
    )
    from governance.procurement.cost import CostReport, cost_report
    from governance.procurement.cost_inputs import medhelm_token_profile
    from governance.procurement.profiles import with_token_profile
    from governance.procurement.run_presets import run_presets
    from governance.rules.assessment import assessment_and_recommendation
    from governance.rules.kinds import rule_kind
    from governance.rules.outcome_text import headline, outcome_lines
    from governance.rules.policy import load_defaults
    from governance.rules.rule_text import rule_bar, rule_label, verdict_label
    from governance.rules.score_rule import score_rule, unknown_benchmark
    from governance.rules.verdicts import Verdict, assess
