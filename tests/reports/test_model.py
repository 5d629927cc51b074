"""The report model's content for a dossier with published evidence only, and with a local run."""

from __future__ import annotations

from reports.build import build_report
from reports.markdown import report_markdown
from reports.model import AppendixRun, Section
from tests.reports.conftest import RUN_ID, local_run_evidence, with_evidence

NOT_YET = ["rules", "cost", "human_review", "monitoring", "rule_changes", "signoffs"]


def _row(table, **match):
    cols = table.columns
    return [r for r in table.rows if all(r[cols.index(k)] == v for k, v in match.items())]


def test_cover_is_bound_to_the_version(base_version):
    report = build_report(base_version)
    c = report.cover
    assert c.version_hash == base_version.hash == base_version.dossier.content_hash()
    assert (c.dossier_id, c.version) == ("D-report-test", base_version.version)
    assert c.date == base_version.created_at
    assert c.risk_tier == "moderate"
    assert "No decision recorded" in c.decision


def test_sections_in_reading_order_with_appendices_last(base_version):
    keys = [s.key for s in build_report(base_version).sections()]
    assert keys[:5] == ["executive_summary", "intended_use", "mapping", "evidence", "charts"]
    assert keys[-2:] == ["runs", "source_attributes"]
    assert len(keys) == len(set(keys)) == 15


def test_evidence_table_has_n_interval_and_provenance(base_version):
    evidence = build_report(base_version).evidence
    scores, sources, notes = evidence.tables[:3]
    (gpt,) = _row(scores, Benchmark="MedConfInfo", Model="GPT-4o (2024-05-13)")
    cols = scores.columns
    assert gpt[cols.index("Score")] == "0.772"
    assert gpt[cols.index("n")] == "1000"
    assert gpt[cols.index("95% interval")] == "0.745–0.797 [M1]"
    assert gpt[cols.index("Source")].startswith("published [S1")
    assert sources.rows[0][1].startswith("som-shahlab/medhelm:")
    jury = _row(scores, Benchmark="MedicationQA")
    assert jury and all(r[cols.index("95% interval")].startswith("none [M") for r in jury)
    ref = jury[0][cols.index("95% interval")].split("[")[1].rstrip("]")
    assert "no interval" in dict((r[0], r[1]) for r in notes.rows)[ref]
    assert len(scores.rows) == len(base_version.dossier.evidence)


def test_sections_without_data_say_so(base_version):
    report = build_report(base_version)
    for key in NOT_YET + ["subgroups", "runs"]:
        section = getattr(report, key)
        assert not section.recorded, key
        assert section.paragraphs[0].startswith("Not recorded yet:"), key
        assert not section.tables and not section.charts, key
    (not_recorded,) = [s for s in report.executive_summary.subsections if s.key == "not_recorded"]
    missing = not_recorded.bullets
    assert "Acceptance rules and verdicts" in missing and "Decision and sign-offs" in missing


def test_intended_use_and_risk_reasoning(base_version):
    section = build_report(base_version).intended_use
    facts = {f.label: f.value for f in section.facts}
    assert facts["Patient population"].startswith("Adult primary care patients")
    assert "Paediatric patients" in facts["Out-of-scope uses"]
    (risk,) = section.subsections
    assert risk.title == "Risk tier: moderate"
    assert risk.bullets == list(base_version.dossier.risk.reasons)


def test_limitations_name_what_benchmarks_cannot_show(base_version):
    section = build_report(base_version).limitations
    general = " ".join(section.subsections[0].bullets).lower()
    for topic in ("workflow", "usability", "privacy", "equity beyond the tested groups", "after deployment"):
        assert topic in general
    specific = " ".join(section.subsections[1].bullets)
    assert "own cases" in specific and "MedDialog" in specific  # no local runs; jury means lack intervals


def test_four_charts_with_inline_data(base_version):
    charts = build_report(base_version).charts.charts
    assert [c.key for c in charts] == ["scores", "model_means", "coverage", "published_cost"]
    scores = charts[0].spec
    values = next(iter(scores["datasets"].values()))
    assert len(values) == len(base_version.dossier.evidence)
    assert all(0 <= v["score"] <= 1 for v in values)


def test_local_run_fills_subgroups_and_runs_appendix(base_version):
    version = with_evidence(base_version, [local_run_evidence()])
    record = AppendixRun(run_id=RUN_ID, model="openai/gpt-4o", benchmark_id="medication_qa",
                         status="finished", prompt_hash="p" * 64, dataset_hash="d" * 64)
    report = build_report(version, runs={RUN_ID: record})
    sub = report.subgroups
    assert sub.recorded
    rows = sub.tables[0].rows
    assert ["openai/gpt-4o", "medication_qa", "accuracy", "Sex", "F", "0.820", "0.740–0.880", "110"] in [
        r[:8] for r in rows]
    assert any(r[4] == "90+" and r[5] == "suppressed" for r in rows)
    runs = report.runs
    assert runs.recorded
    (row,) = runs.tables[0].rows
    assert row[0] == RUN_ID and row[-2:] == ["p" * 64, "d" * 64] and row[5] == "finished"
    assert report.charts.charts[-1].key == "subgroups"
    (ev_row,) = _row(report.evidence.tables[0], Model="openai/gpt-4o")
    assert ev_row[report.evidence.tables[0].columns.index("Not scored")] == "3 / 1"


def test_run_missing_from_the_store_is_listed_from_the_evidence(base_version):
    version = with_evidence(base_version, [local_run_evidence()])
    (row,) = build_report(version, runs={}).runs.tables[0].rows
    assert row[0] == RUN_ID and row[5] == "not in store" and row[-1] == "—"


def test_extra_sections_go_before_the_appendices(base_version):
    extra = Section(key="candidates", title="Candidates compared", paragraphs=["x"])
    keys = [s.key for s in build_report(base_version, extra_sections=[extra]).sections()]
    assert keys[-3:] == ["candidates", "runs", "source_attributes"]


def test_same_version_same_report(base_version):
    assert build_report(base_version) == build_report(base_version)


def test_markdown_preview_has_every_heading_and_escapes_text(base_version):
    report = build_report(base_version)
    text = report_markdown(report)
    for i, section in enumerate(report.sections(), start=1):
        assert f"## {i}. {section.title}" in text
    assert base_version.hash in text
    assert "| MedConfInfo |" in text


def test_subgroup_table_prints_the_ratio_to_the_reference_group(base_version):
    from evaluator.evidence.record import SubgroupScore

    groups = [SubgroupScore(tag="language", group="en", score=1.0, n=24, ci_lower=0.86, ci_upper=1.0,
                            reference_group="en", ratio=1.0),
              SubgroupScore(tag="language", group="es", score=0.5, n=12, ci_lower=0.25, ci_upper=0.75,
                            reference_group="en", ratio=0.5, ratio_lower=0.2837, ratio_upper=0.8812,
                            ratio_method="katz")]
    e = local_run_evidence().model_copy(update={"subgroups": groups})
    rows = build_report(with_evidence(base_version, [e]), runs={}).subgroups.tables[0].rows
    assert [r[-1] for r in rows if r[3] == "Language"] == ["reference", "0.50 (0.28–0.88) vs en"]
