"""Candidate model names ↔ published MedHELM names: the documented rule, including its refusals."""

import pytest

from evaluator.evidence.medhelm import published_scores
from governance.mapping.model_names import match_candidates, name_key

PUBLISHED = sorted(published_scores()["model"].unique())


@pytest.mark.parametrize("candidate, published", [
    ("gpt-4o", "GPT-4o (2024-05-13)"),
    ("openai/gpt-4o", "GPT-4o (2024-05-13)"),
    ("gpt-4o-2024-05-13", "GPT-4o (2024-05-13)"),
    ("gpt-4o-mini", "GPT-4o mini (2024-07-18)"),
    ("claude-3-7-sonnet", "Claude 3.7 Sonnet (20250219)"),
    ("claude-3-7-sonnet-20250219", "Claude 3.7 Sonnet (20250219)"),
    ("anthropic/claude-3.5-sonnet-latest", "Claude 3.5 Sonnet (20241022)"),
    ("llama-3.3-70b", "Llama 3.3 Instruct (70B)"),
    ("meta-llama/Llama-3.3-70B-Instruct", "Llama 3.3 Instruct (70B)"),
    ("llama3.3:70b", "Llama 3.3 Instruct (70B)"),
    ("gemini-1.5-pro-001", "Gemini 1.5 Pro (001)"),
    ("gemini-2.0-flash", "Gemini 2.0 Flash"),
    ("deepseek-ai/DeepSeek-R1", "DeepSeek R1"),
    ("o3-mini", "o3-mini (2025-01-31)"),
])
def test_each_published_model_is_found_from_an_api_style_name(candidate, published):
    (match,) = match_candidates([candidate], PUBLISHED)
    assert match.published == published and match.reason == ""


@pytest.mark.parametrize("candidate", ["gpt-4", "claude-3-7-opus", "llama-3.3-8b", "mistral-large", "o3",
                                       "r1"])
def test_a_different_model_is_not_matched(candidate):
    (match,) = match_candidates([candidate], PUBLISHED)
    assert match.published is None and "no published" in match.reason


def test_gpt4o_and_its_mini_sibling_stay_apart():
    assert name_key("gpt-4o") != name_key("GPT-4o mini (2024-07-18)")
    assert name_key("gpt-4o") == name_key("GPT-4o (2024-05-13)")


def test_two_published_names_with_one_key_are_reported_as_ambiguous():
    (match,) = match_candidates(["gpt-4o"], ["GPT-4o (2024-05-13)", "GPT-4o (2024-08-06)"])
    assert match.published is None
    assert match.reason.startswith("ambiguous") and "2024-08-06" in match.reason


def test_order_is_kept_and_a_name_of_only_noise_matches_nothing():
    matches = match_candidates(["llama-3.3-70b", "20250219", "gpt-4o"], PUBLISHED)
    assert [m.candidate for m in matches] == ["llama-3.3-70b", "20250219", "gpt-4o"]
    assert [m.published is not None for m in matches] == [True, False, True]


def test_a_candidate_naming_another_snapshot_is_not_given_the_published_one():
    (match,) = match_candidates(["gpt-4o-2024-11-20"], PUBLISHED)
    assert match.published is None and "different snapshot" in match.reason and "2024-05-13" in match.reason
    (same,) = match_candidates(["claude-3-7-sonnet-20250219"], PUBLISHED)
    assert same.published == "Claude 3.7 Sonnet (20250219)"
