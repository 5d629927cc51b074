"""Preview of a HELM run folder and drill-down into an attached run, on the genuine shared run."""

import shutil

from governance.evidence.attach import attach_evidence
from governance.evidence.operations.helm_import import attached_run_instances, preview_helm_import
from governance.evidence.view import evidence_view
from tests.evaluator.importers.test_helm import RUN_NAME, _make_jury_run, suite  # noqa: F401
from tests.governance.evidence.test_evidence_view import demo_like


def test_unmapped_run_is_previewed_with_its_reason_and_all_requests(suite):  # noqa: F811
    preview = preview_helm_import(str(suite))
    assert preview.errors == []
    (run,) = preview.runs
    assert run.benchmark == "unmapped" and run.evidence is None
    assert "no main metric" in run.not_attachable and run.warnings
    assert run.interval == "none" and "unmapped" in run.interval_basis
    assert len(run.instances) == 30
    first = run.instances[0]
    assert first.instance_id == "id10" and first.completion == "Output:" and first.references == "15"
    assert first.prompt.endswith("Output:") and first.score is None


def test_mapped_run_becomes_attachable_evidence_with_scored_instances(suite):  # noqa: F811
    _make_jury_run(suite, ["medication_qa"])
    (run,) = preview_helm_import(str(suite)).runs
    assert run.evidence is not None and run.not_attachable == ""
    assert run.evidence.provenance == "helm-import" and run.n == 10
    assert run.interval != "none" and "bootstrap" in run.interval_basis
    assert all(i.score is not None for i in run.instances if not i.note)

    d = attach_evidence(demo_like(), [run.evidence], by="me")
    cov = {r.subcategory_id: r for r in evidence_view(d).coverage}
    assert "helm-import" in cov["providing_patient_education_resources"].kinds
    rows, reason = attached_run_instances(d.evidence[0])
    assert reason == "" and len(rows) == 30 and rows[0].score is not None

    shutil.rmtree(suite / RUN_NAME)
    rows, reason = attached_run_instances(d.evidence[0])
    assert rows == [] and "can no longer be read" in reason


def test_broken_folder_lists_errors_and_published_evidence_has_no_drilldown(tmp_path):
    preview = preview_helm_import(str(tmp_path))
    assert preview.runs == [] and "no HELM run folders" in preview.errors[0]
    from evaluator.evidence.record import published_evidence

    rows, reason = attached_run_instances(published_evidence(["MedQA"], ["DeepSeek R1"])[0])
    assert rows == [] and "published" in reason
