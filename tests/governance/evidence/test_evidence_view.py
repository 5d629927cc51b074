"""The Evidence page's view model: coverage kinds, candidate filter, restricted win rates, ties."""

from datetime import UTC, datetime

import pytest

from evaluator.evidence.medhelm import published_scores
from evaluator.evidence.record import Evidence, published_evidence
from governance.demo.evidence import attach_published_demo_evidence
from governance.dossier.record import Dossier
from governance.evidence.attach import attach_evidence, detach_evidence, mapped_benchmarks
from governance.evidence.coverage import coverage_row
from governance.evidence.view import evidence_view
from governance.intended_use.records import example_intended_use
from governance.mapping.taxonomy import load_taxonomy

DEMO_BENCHMARKS = ["MedDialog", "MedConfInfo", "ProxySender", "PrivacyDetection", "MedicationQA"]
CANDIDATES = ["GPT-4o (2024-05-13)", "Claude 3.7 Sonnet (20250219)", "Llama 3.3 Instruct (70B)"]


def make_dossier(*accepted: str, candidates: list[str] | None = None) -> Dossier:
    use = example_intended_use()
    if candidates is not None:
        use = use.model_copy(update={"candidate_models": candidates})
    d = Dossier(title="test dossier", owner="me", intended_use=use)
    mapping = d.mapping
    for sub_id in accepted:
        mapping = mapping.decide(sub_id, "accepted", by="me")
    return d.model_copy(update={"mapping": mapping})


def demo_like() -> Dossier:
    return make_dossier("patient_provider_messaging", "providing_patient_education_resources")


def local_run(benchmark: str = "refill replies", subcategory: str | None = None) -> Evidence:
    return Evidence(id=f"local-run:{benchmark}", model="gpt-4o", benchmark=benchmark, metric="accuracy",
                    score=0.8, n=50, ci_lower=0.67, ci_upper=0.89, ci_method="Wilson", provenance="local-run",
                    source="run R-1", date=datetime(2026, 1, 1, tzinfo=UTC), subcategory=subcategory)


def test_mapped_benchmarks_follow_accepted_subcategories_only():
    d = demo_like()
    d = d.model_copy(update={"mapping": d.mapping.decide("planning_treatments", "rejected", by="me")})
    assert [b.name for b in mapped_benchmarks(d)] == DEMO_BENCHMARKS


def test_coverage_kinds_come_from_taxonomy_access_and_attached_provenance():
    d = make_dossier("patient_provider_messaging", "predicting_patient_risks_and_outcomes",
                     "providing_patient_education_resources")
    d = attach_evidence(d, [local_run(subcategory="Providing Patient Education Resources")], by="me")
    rows = {r.subcategory_id: r for r in evidence_view(d).coverage}
    assert rows["patient_provider_messaging"].kinds == ["public", "private"]
    assert rows["patient_provider_messaging"].private == ["MedConfInfo", "ProxySender", "PrivacyDetection"]
    assert rows["predicting_patient_risks_and_outcomes"].kinds == ["gated"]
    assert rows["providing_patient_education_resources"].kinds == ["public", "local-run"]
    assert rows["providing_patient_education_resources"].attached_local_run == 1
    assert rows["patient_provider_messaging"].attached_local_run == 0


def test_a_subcategory_without_benchmarks_or_evidence_is_none_and_evidence_by_benchmark_counts():
    sub = load_taxonomy().subcategory("patient_provider_messaging").model_copy(update={"benchmarks": ()})
    assert coverage_row(sub, make_dossier()).kinds == ["none"]
    helm = local_run(benchmark="MedDialog").model_copy(update={"provenance": "helm-import", "id": "h:1"})
    assert coverage_row(sub, attach_evidence(make_dossier(), [helm], by="me")).kinds == ["none"]
    real = load_taxonomy().subcategory("patient_provider_messaging")
    row = coverage_row(real, attach_evidence(make_dossier(), [helm], by="me"))
    assert row.kinds == ["public", "private", "helm-import"] and row.attached_helm_import == 1


def test_candidates_are_matched_and_unmatched_ones_listed():
    d = make_dossier("providing_patient_education_resources",
                     candidates=["gpt-4o", "claude-3-7-sonnet", "llama-3.3-70b", "our-finetune-v2"])
    view = evidence_view(d)
    assert view.default_models == view.models == CANDIDATES
    (unmatched,) = [c for c in view.candidates if c.published is None]
    assert unmatched.candidate == "our-finetune-v2" and unmatched.reason
    assert {s.evidence.model for s in view.scores} == set(CANDIDATES)


def test_without_any_matched_candidate_all_published_models_are_shown():
    view = evidence_view(make_dossier("providing_patient_education_resources", candidates=["mistral"]))
    assert view.models == view.published_models and len(view.models) == 9


def test_unknown_model_in_the_filter_is_refused():
    with pytest.raises(ValueError, match="not published"):
        evidence_view(demo_like(), models=["gpt-4o"])


def _hand_win_rates(benchmarks: list[str]) -> dict[str, float]:
    """Independent HELM win rate: loops over pairs, higher is better for all 37 main metrics."""
    df = published_scores()
    df = df[df["benchmark"].isin(benchmarks)]
    per_model: dict[str, list[float]] = {}
    for _, col in df.groupby("benchmark"):
        scores = dict(zip(col["model"], col["score"], strict=True))
        for m, s in scores.items():
            others = list(scores.values())
            others.remove(s)
            wins = sum(1.0 if s > o else 0.5 if s == o else 0.0 for o in others)
            per_model.setdefault(m, []).append(wins / len(others))
    return {m: sum(v) / len(v) for m, v in per_model.items()}


def test_win_rates_are_restricted_to_mapped_benchmarks_and_do_not_depend_on_the_filter():
    view = evidence_view(demo_like())
    expected = _hand_win_rates(DEMO_BENCHMARKS)
    assert {r.model: r.mean_win_rate for r in view.win_rates} == pytest.approx(
        {m: expected[m] for m in CANDIDATES})
    assert all(r.n_benchmarks == 5 and r.n_models == 9 for r in view.win_rates)
    everything = _hand_win_rates(sorted(published_scores()["benchmark"].unique()))
    assert any(abs(everything[r.model] - r.mean_win_rate) > 0.01 for r in view.win_rates)
    wider = evidence_view(demo_like(), models=view.published_models)
    assert {r.model: r.mean_win_rate for r in wider.win_rates if r.model in CANDIDATES} == {
        r.model: r.mean_win_rate for r in view.win_rates}
    assert [r.candidate for r in view.win_rates if r.model == CANDIDATES[0]] == ["gpt-4o"]


def test_scores_always_carry_n_and_an_interval_or_its_reason():
    view = evidence_view(demo_like())
    assert len(view.scores) == 15
    for row in view.scores:
        assert row.evidence.n and row.interval_basis
        assert (row.interval == "none") == (not row.evidence.has_interval)
    jury = [r for r in view.scores if r.evidence.benchmark == "MedDialog"]
    assert all(r.interval == "none" and "jury" in r.interval_basis for r in jury)
    assert {r.access for r in view.scores} == {"public", "private"}


def test_tie_groups_only_where_every_shown_model_has_an_interval():
    ties = {t.benchmark: t for t in evidence_view(demo_like()).ties}
    assert ties["MedDialog"].groups is None and "jury" in ties["MedDialog"].text
    assert ties["ProxySender"].groups is not None
    assert sorted(m for g in ties["ProxySender"].groups for m in g) == sorted(CANDIDATES)
    wide = {t.benchmark: t for t in evidence_view(demo_like(), models=sorted(
        published_scores()["model"].unique())).ties}
    assert len(wide["MedConfInfo"].groups) >= 1


def test_group_means_average_shares_correct_only_never_jury_means():
    view = evidence_view(demo_like())
    cat = [g for g in view.group_means if g.level == "category"]
    # 5 mapped benchmarks, of which MedDialog and MedicationQA are jury means (1-5): 3 are averaged
    assert len(cat) == 3 and all(g.n_benchmarks == 3 for g in cat)
    sub = {(g.model, g.group): g for g in view.group_means if g.level == "subcategory"}
    assert (CANDIDATES[0], "Providing Patient Education Resources") not in sub  # jury only: no mean
    gpt = sub[(CANDIDATES[0], "Patient-Provider Messaging")]
    shares = published_evidence(["MedConfInfo", "ProxySender", "PrivacyDetection"], [CANDIDATES[0]])
    assert gpt.n_benchmarks == 3 and gpt.mean_normalized == pytest.approx(sum(e.score for e in shares) / 3)
    assert "not averaged in" in view.group_mean_method


def test_attach_dedupes_marks_scores_attached_and_detach_removes():
    d = demo_like()
    ev = published_evidence(["MedicationQA"], CANDIDATES)
    d2 = attach_evidence(d, ev + ev[:1], by="me")
    assert [e.id for e in d2.evidence] == [e.id for e in ev]
    assert attach_evidence(d2, ev, by="me") is d2
    view = evidence_view(d2)
    assert sum(s.attached for s in view.scores) == 3 and len(view.attached) == 3
    d3 = detach_evidence(d2, [ev[0].id], by="me")
    assert [e.id for e in d3.evidence] == [e.id for e in ev[1:]]
    with pytest.raises(ValueError, match="not attached"):
        detach_evidence(d3, [ev[0].id], by="me")
    with pytest.raises(ValueError, match="by"):
        attach_evidence(d, ev, by=" ")


def test_demo_step_attaches_the_published_evidence_of_the_three_candidates():
    d = attach_published_demo_evidence(None, demo_like())
    assert len(d.evidence) == 15
    assert {e.model for e in d.evidence} == set(CANDIDATES)
    assert {e.benchmark for e in d.evidence} == set(DEMO_BENCHMARKS)
    assert all(e.provenance == "published" for e in d.evidence)


def test_empty_mapping_gives_an_empty_but_valid_view():
    view = evidence_view(make_dossier())
    assert view.coverage == [] and view.scores == [] and view.win_rates == [] and view.ties == []
