"""Candidates: the record's checks, evidence matching, edits, and the price conversion."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from evaluator.gateway.llm import ModelEndpoint
from governance.dossier.content_hash import signable_hash
from governance.dossier.record import Dossier
from governance.procurement.candidate_cost import candidate_cost, per_seat_cost, per_token_cost
from governance.procurement.candidates import (
    CandidateError,
    candidate_models,
    matched_models,
    record_attestation,
    remove_candidate,
    upsert_candidate,
)
from governance.procurement.records import Pricing
from tests.governance.candidate_fixtures import CLAUDE, GPT4O, LLAMA, NOW, base_dossier, candidate


def test_pricing_must_fit_its_kind():
    with pytest.raises(ValidationError, match="per_token pricing needs"):
        Pricing(kind="per_token", input_usd_per_mtok=2.5)
    with pytest.raises(ValidationError, match="per_seat pricing needs"):
        Pricing(kind="per_seat", usd_per_seat_month=30, seats=10, input_usd_per_mtok=1.0)
    with pytest.raises(ValidationError):
        Pricing(kind="per_seat", usd_per_seat_month=30, seats=0)


def test_endpoint_keeps_a_variable_name_never_a_key():
    with pytest.raises(ValidationError, match="NAME of an environment variable"):
        candidate("x", "gpt-4o").model_copy(
            update={"endpoint": ModelEndpoint(name="e", model="gpt-4o", api_key_env="sk-live-1234567890")}
        )
    ok = ModelEndpoint(
        name="e", model="openai/llama", api_base="http://127.0.0.1:8000/v1", api_key_env="VLLM_KEY"
    )
    c = candidate("x", "llama-3.3-70b").model_copy(update={"endpoint": ok})
    assert (
        "VLLM_KEY" in c.model_dump_json()
        and Dossier.model_validate(base_dossier([c]).model_dump(mode="json")).candidates[0].endpoint == ok
    )


def test_matching_respects_snapshot_dates_and_explicit_names():
    names = [GPT4O, "GPT-4o mini (2024-07-18)", "openai/gpt-4o", "GPT-4o (2024-11-20)", CLAUDE, LLAMA]
    assert matched_models(candidate("a", "gpt-4o", "2024-05-13"), names) == [GPT4O, "openai/gpt-4o"]
    assert matched_models(candidate("b", "gpt-4o"), names) == [GPT4O, "openai/gpt-4o", "GPT-4o (2024-11-20)"]
    assert matched_models(candidate("c", "claude-3-7-sonnet", "20250219"), names) == [CLAUDE]
    assert matched_models(candidate("d", "llama-3.3-70b"), names) == [LLAMA]
    explicit = candidate("e", "anything").model_copy(update={"evidence_models": [LLAMA]})
    assert matched_models(explicit, names) == [LLAMA]
    assert candidate_models(base_dossier(), base_dossier().candidates[0]) == [GPT4O]


def test_upsert_replaces_by_id_keeps_answers_and_remove_checks_the_id():
    d = base_dossier()
    edited = d.candidates[0].model_copy(update={"product": "Renamed", "attestations": []})
    d2 = upsert_candidate(d, edited)
    assert [c.id for c in d2.candidates] == ["gpt", "claude", "llama"]
    assert (
        d2.candidates[0].product == "Renamed"
        and d2.candidates[0].attestations == d.candidates[0].attestations
    )
    assert [c.id for c in remove_candidate(d2, "claude").candidates] == ["gpt", "llama"]
    with pytest.raises(CandidateError, match="no candidate 'nope'"):
        remove_candidate(d2, "nope")


def test_a_recorded_answer_changes_the_signable_content():
    from governance.procurement.attestations import make_answer

    d = base_dossier()
    d2 = record_attestation(d, "gpt", make_answer("model_updates", "no", by="buyer", at=NOW))
    assert [a.value for a in d2.candidates[0].attestations if a.question_id == "model_updates"] == ["no"]
    assert len(d2.candidates[0].attestations) == len(d.candidates[0].attestations)
    assert signable_hash(d2) != signable_hash(d)


def test_a_dossier_without_candidates_hashes_as_before():
    d = base_dossier([])
    doc = d.model_dump(mode="json")
    del doc["candidates"]  # a dossier saved before candidates existed
    assert signable_hash(Dossier.model_validate(doc)) == signable_hash(d)


def test_conversions_by_hand():
    assert per_token_cost(1000, 200, 2.5, 10.0, volume=40_000) == pytest.approx((4.5, 180.0))
    assert per_seat_cost(45.0, 30, volume=40_000) == pytest.approx((33.75, 1350.0))
    assert per_seat_cost(45.0, 30, volume=0) == (None, 1350.0)


def test_candidate_cost_reads_the_dossier_profile_volume_and_says_how():
    d = base_dossier()
    gpt, claude, llama = (candidate_cost(d, c) for c in d.candidates)
    assert gpt.cost_per_1k == pytest.approx(4.5) and gpt.monthly_cost == pytest.approx(180.0)
    assert "1,000 prompt" in gpt.basis and "test profile" in gpt.basis
    assert claude.cost_per_1k == pytest.approx(33.75) and "30 seats" in claude.basis
    assert llama.cost_per_1k == pytest.approx(0.48)
    no_volume = d.model_copy(
        update={"intended_use": d.intended_use.model_copy(update={"expected_monthly_volume": 0})}
    )
    assert candidate_cost(no_volume, d.candidates[1]).cost_per_1k is None
    unpriced = candidate("x", "gpt-4o", "2024-05-13")
    assert candidate_cost(d, unpriced).basis == "no price recorded"


def test_per_token_cost_falls_back_to_medhelm_token_means_then_to_unknown():
    d = base_dossier().model_copy(update={"cost": None})
    medhelm = candidate_cost(d, d.candidates[0])
    assert medhelm.cost_per_1k is not None
    assert "MedHELM average over the mapped benchmarks, not your workload" in medhelm.basis
    stranger = candidate(
        "s", "mistral-large", pricing=Pricing(kind="per_token", input_usd_per_mtok=1, output_usd_per_mtok=1)
    )
    unknown = candidate_cost(d, stranger)
    assert unknown.cost_per_1k is None and "no token means" in unknown.basis
