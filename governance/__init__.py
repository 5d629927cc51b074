"""The committee's domain: dossiers, the task mapping, rules and verdicts, runs for a dossier.

Where code goes, in one rule: **to the package of the concept it is about; inside it, records <
pure logic < storage < operations** (what takes a store or starts a job, ``<concept>/operations``).
Concepts import one way only, from a later stage of the dossier's life down to an earlier one, with
no imports between siblings (import-linter in ``make lint``; docs/layout.md)::

    demo > reevaluation > monitoring > review > judge_validity > decision > rules > runs > scenarios
         > procurement > evidence > mapping > intended_use > identity > dossier

Any concept may read any concept's records (the dossier's schema). The floor is extended from above
by registration, here (``_wire`` at the end of this file): the concepts' storage components on the
store and the decision's sign-off guard on the save door.

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
    "IntendedUse": "governance.intended_use.records",
    "example_intended_use": "governance.intended_use.records",
    "suggest_mapping": "governance.mapping.suggest",
    "mapped_benchmarks": "governance.evidence.attach",
    "attach_evidence": "governance.evidence.attach",
    "start_rules": "governance.decision.committee",
    "lock_rules": "governance.decision.committee",
    "assess": "governance.rules.verdicts",
    "assessment_and_recommendation": "governance.rules.assessment",
    "build_request": "governance.runs.operations.jobs",
    "run_and_wait": "governance.runs.operations.jobs",
    "attach_run": "governance.runs.operations.view",
}
__all__ = [  # literal, so tools see the public names; tests check it matches _EXPORTS
    "Store", "Dossier", "TaskMapping", "IntendedUse", "example_intended_use", "suggest_mapping",
    "mapped_benchmarks", "attach_evidence", "start_rules", "lock_rules", "assess",
    "assessment_and_recommendation", "build_request", "run_and_wait", "attach_run",
]
_FACE = {  # what the pages and the CLI import besides the public API (tests/test_faces.py)
    "require": "governance.identity.operations.authorize",
    "written_versions": "governance.identity.operations.receipts",
    "measured_costs": "governance.procurement.operations",
    "run_token_profile": "governance.procurement.operations",
    "decide": "governance.decision.operations.decide",
    "decision_view": "governance.decision.operations.view",
    "changes_since_decision": "governance.decision.operations.standing",
    "DeidentificationError": "governance.scenarios.operations.deidentification",
    "attest_file": "governance.scenarios.operations.deidentification",
    "attest_scenario": "governance.scenarios.operations.deidentification",
    "InstanceRow": "governance.evidence.operations.helm_import",
    "RunPreview": "governance.evidence.operations.helm_import",
    "attached_run_instances": "governance.evidence.operations.helm_import",
    "preview_helm_import": "governance.evidence.operations.helm_import",
    "diff_versions": "governance.dossier.history",
    "timeline": "governance.dossier.history",
    "attach_inspect_logs": "governance.evidence.operations.inspect_import",
    "preview_inspect_import": "governance.evidence.operations.inspect_import",
    "preview_inspect_upload": "governance.evidence.operations.inspect_import",
    "JudgeValidityView": "governance.judge_validity.operations",
    "agreement_setting": "governance.judge_validity.operations",
    "assess_judge_validity": "governance.judge_validity.operations",
    "jury_benchmarks": "governance.judge_validity.operations",
    "minimum_rule": "governance.judge_validity.operations",
    "record_agreement": "governance.judge_validity.operations",
    "sample_size_hint": "governance.judge_validity.operations",
    "set_minimum": "governance.judge_validity.operations",
    "stored_juries": "governance.judge_validity.operations",
    "ReviewError": "governance.review.operations.queues",
    "close_queue": "governance.review.operations.queues",
    "create_queue": "governance.review.operations.create",
    "create_queue_from_feed": "governance.review.operations.create",
    "my_queues": "governance.review.operations.queues",
    "rater_view": "governance.review.operations.queues",
    "record_rating": "governance.review.operations.queues",
    "remove_rater": "governance.review.operations.queues",
    "export_csv": "governance.review.operations.sheets",
    "import_sheet": "governance.review.operations.sheets",
    "sheet_csv": "governance.review.operations.sheets",
    "closed_queues": "governance.review.operations.status",
    "queue_citation": "governance.review.operations.status",
    "queue_ratings": "governance.review.operations.status",
    "queue_status": "governance.review.operations.status",
    "AUDIT_VERDICTS": "governance.review.records",
    "size_guidance": "governance.review.sample_size",
    "JuryPlan": "governance.runs.operations.juries",
    "JuryRequest": "governance.runs.operations.juries",
    "JuryRunError": "governance.runs.operations.juries",
    "attach_jury": "governance.runs.operations.juries",
    "attached_first": "governance.runs.operations.juries",
    "default_judges": "governance.runs.operations.juries",
    "judge_options": "governance.runs.operations.juries",
    "jury_applies": "governance.runs.operations.juries",
    "jury_evidence": "governance.runs.operations.juries",
    "plan_jury": "governance.runs.operations.juries",
    "run_dataset_path": "governance.runs.operations.juries",
    "run_juries": "governance.runs.operations.juries",
    "start_jury": "governance.runs.operations.juries",
    "added_addenda": "governance.reevaluation.operations.addendum",
    "current_plan": "governance.reevaluation.operations.addendum",
    "FeedError": "governance.monitoring.store_feed_import",
    "MonitoringError": "governance.monitoring.operations.feed",
    "acknowledge_signal": "governance.monitoring.operations.events",
    "dossier_monitoring": "governance.monitoring.operations.feed",
    "export_blinded_feed": "governance.monitoring.operations.feed",
    "safety_register": "governance.monitoring.register",
    "import_feed": "governance.monitoring.operations.feed",
    "monitoring_status": "governance.monitoring.operations.feed",
    "record_event": "governance.monitoring.operations.events",
    "record_go_live": "governance.monitoring.operations.events",
    "resolve_signal": "governance.monitoring.operations.events",
    "feed_template": "governance.monitoring.template",
    "reevaluate_and_wait": "governance.reevaluation.operations.job",
    "start_reevaluation": "governance.reevaluation.operations.job",
    "SEVERITIES": "governance.monitoring.records",  # the Monitoring page's event form
    "ReevaluationError": "governance.reevaluation.operations.rerun",
    "read_prompt_bytes": "governance.reevaluation.operations.rerun",
    "read_prompt_file": "governance.reevaluation.operations.rerun",
    "attach_completed_run": "governance.runs.operations.attach",
    "RunView": "governance.runs.operations.view",
    "dossier_runs": "governance.runs.operations.view",
    "run_id_for_key": "governance.runs.operations.view",
    "run_view": "governance.runs.operations.view",
    "RunInputError": "governance.runs.operations.jobs",
    "RunnableBenchmark": "governance.runs.operations.jobs",
    "cancel_run": "governance.runs.operations.jobs",
    "estimate_request": "governance.runs.operations.jobs",
    "job_elsewhere": "governance.runs.operations.jobs",
    "job_status": "governance.runs.operations.jobs",
    "resume_run": "governance.runs.operations.jobs",
    "runnable_benchmarks": "governance.runs.operations.jobs",
    "save_upload": "governance.runs.operations.jobs",
    "start_run": "governance.runs.operations.jobs",
    "start_scenario_run": "governance.runs.operations.jobs",
    "suggested_models": "governance.runs.operations.jobs",
    "save_as": "governance.identity.operations.save",
    "attach_scenario_run": "governance.scenarios.operations.local",
    "import_for_dossier": "governance.scenarios.operations.local",
    "redact_scenario": "governance.scenarios.operations.local",
    "run_gate": "governance.scenarios.operations.local",
    "scenario_rows": "governance.scenarios.operations.local",
    "version_view": "governance.scenarios.operations.local",
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
    "PlanChange": "governance.reevaluation.records",
    "field_label": "governance.dossier.change_text",
    "apply_merge": "governance.intended_use.form_merge",
    "form_values": "governance.intended_use.form_merge",
    "plan_merge": "governance.intended_use.form_merge",
    "DECISION_OUTCOMES": "governance.decision.records",
    "MonitoredMetric": "governance.decision.records",
    "OUTCOME_LABELS": "governance.decision.records",
    "Trigger": "governance.decision.records",
    "DocumentError": "governance.procurement.store",
    "DECISION_ROLE_LABELS": "governance.intended_use.records",
    "OVERSIGHT_LABELS": "governance.intended_use.records",
    "PHI_LABELS": "governance.intended_use.records",
    "SEVERITY_LABELS": "governance.intended_use.records",
    "Candidate": "governance.procurement.records",
    "ContractFacts": "governance.procurement.records",
    "CostSettings": "governance.procurement.records",
    "Pricing": "governance.procurement.records",
    "TokenProfile": "governance.procurement.records",
    "TIER_INPUTS": "governance.intended_use.risk",
    "assess_risk": "governance.intended_use.risk",
    "high_floor_applies": "governance.intended_use.risk",
    "AcceptancePolicy": "governance.rules.records",
    "PolicyError": "governance.rules.records",
    "ScoreRule": "governance.rules.records",
    "DossierNotFound": "governance.dossier.store",
    "DossierVersion": "governance.dossier.store",
    "SaveConflict": "governance.dossier.store",
    "StoreError": "governance.dossier.store",
    "StoreWarning": "governance.dossier.store",
    "database_url": "governance.dossier.store",
    "default_home": "governance.dossier.store",
    "TaxonomyError": "governance.mapping.taxonomy",
    "load_taxonomy": "governance.mapping.taxonomy",
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
    from governance.decision.operations.decide import decide
    from governance.decision.operations.standing import changes_since_decision
    from governance.decision.operations.view import decision_view
    from governance.decision.readiness import needs_override
    from governance.decision.records import (
        DECISION_OUTCOMES,
        OUTCOME_LABELS,
        MonitoredMetric,
        Trigger,
    )
    from governance.decision.signoff import DecisionError, SignOffStatus, signoff_status
    from governance.demo.seed import seed_demo
    from governance.dossier.change_text import field_label
    from governance.dossier.history import diff_versions, timeline
    from governance.dossier.labels import VALUE_LABELS, count_text, metric_label, source_words
    from governance.dossier.record import Dossier, TaskMapping
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
    from governance.evidence.attach import attach_evidence, detach_evidence, mapped_benchmarks
    from governance.evidence.coverage import KIND_NOTES, CoverageRow
    from governance.evidence.operations.helm_import import (
        InstanceRow,
        RunPreview,
        attached_run_instances,
        preview_helm_import,
    )
    from governance.evidence.operations.inspect_import import (
        attach_inspect_logs,
        preview_inspect_import,
        preview_inspect_upload,
    )
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
    from governance.identity.operations.authorize import require
    from governance.identity.operations.receipts import written_versions
    from governance.identity.operations.save import save_as
    from governance.intended_use.form_merge import apply_merge, form_values, plan_merge
    from governance.intended_use.records import (
        DECISION_ROLE_LABELS,
        OVERSIGHT_LABELS,
        PHI_LABELS,
        SEVERITY_LABELS,
        IntendedUse,
        example_intended_use,
    )
    from governance.intended_use.risk import assess_risk
    from governance.judge_validity.operations import (
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
    from governance.mapping.decisions import mapping_lines, record_mapping
    from governance.mapping.suggest import model_ready, suggest_mapping, warm_up_in_background
    from governance.mapping.taxonomy import TaxonomyError, load_taxonomy
    from governance.monitoring.operations.feed import (
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
    from governance.monitoring.records import SEVERITIES
    from governance.monitoring.register import safety_register
    from governance.monitoring.store_feed_import import FeedError
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
    from governance.procurement.operations import measured_costs, run_token_profile
    from governance.procurement.profiles import with_token_profile
    from governance.procurement.records import (
        Candidate,
        ContractFacts,
        CostSettings,
        Pricing,
        TokenProfile,
    )
    from governance.procurement.run_presets import run_presets
    from governance.procurement.store import DocumentError
    from governance.reevaluation.operations.addendum import added_addenda, current_plan
    from governance.reevaluation.operations.job import reevaluate_and_wait, start_reevaluation
    from governance.reevaluation.operations.rerun import (
        ReevaluationError,
        read_prompt_bytes,
        read_prompt_file,
    )
    from governance.reevaluation.records import PlanChange
    from governance.rules.assessment import assessment_and_recommendation
    from governance.rules.kinds import rule_kind
    from governance.rules.outcome_text import headline, outcome_lines
    from governance.rules.policy import load_defaults
    from governance.rules.records import AcceptancePolicy, PolicyError, ScoreRule
    from governance.rules.rule_text import rule_bar, rule_label, verdict_label
    from governance.rules.score_rule import score_rule, unknown_benchmark
    from governance.rules.verdicts import Verdict, assess
    from governance.runs.operations.attach import attach_completed_run
    from governance.runs.operations.jobs import (
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
    from governance.runs.operations.juries import (
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
    from governance.runs.operations.view import RunView, attach_run, dossier_runs, run_id_for_key, run_view
    from governance.scenarios.operations.deidentification import (
        DeidentificationError,
        attest_file,
        attest_scenario,
    )
    from governance.scenarios.operations.local import (
        attach_scenario_run,
        import_for_dossier,
        redact_scenario,
        run_gate,
        scenario_rows,
        version_view,
    )


def _wire() -> None:
    """Plug each concept into the floor it builds on, which cannot import it (docs/layout.md).

    The dossier store hands out the concepts' storage components by name, and the one save door
    (``governance.identity.operations``) runs the decision's sign-off guard on every save. Both sit
    below the concepts that extend them, so the extensions are registered here, once, whenever any
    part of ``governance`` is imported (Python runs this file before any submodule); as names
    resolved on first use, so this costs one small module at import time.
    """
    from governance.dossier import extensions

    extensions.register_component("documents", "governance.procurement.store:DocumentStore")
    extensions.register_component("reviews", "governance.review.store:ReviewStore")
    extensions.register_component("monitoring", "governance.monitoring.store:MonitoringFeedStore")
    extensions.register_save_guard("governance.decision.operations.standing:refuse_unsignable")


_wire()
