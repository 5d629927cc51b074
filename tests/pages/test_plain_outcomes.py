"""AppTest of the plain outcomes on Decision and Rules & verdicts (issue 27, items 6-8): each candidate's
outcome in one sentence with its numbers, whose outcome the headline is, the decision memo on top, and
the method text behind "How this is computed" with its glossary."""

from __future__ import annotations

from governance.decision.memo import decision_memo
from governance.procurement import candidate_names
from governance.rules.assessment import assessment_and_recommendation
from governance.rules.outcome_text import outcome_lines
from tests.pages.conftest import latest, open_page

GLOSSARY = ("Exact match", "Wilson interval", "Holm correction", "ICC")


def _markdown(at) -> str:
    return "\n".join(m.value.replace("\\", "") for m in at.markdown)


def _expected(home):
    d = latest(home).dossier
    assessment, rec = assessment_and_recommendation(d)
    return d, assessment, rec, outcome_lines(assessment, rec)


def test_decision_page_opens_with_the_memo_and_names_whose_outcome_is_the_headline(demo_copy):
    at = open_page("pages/decision.py")
    assert not at.exception
    d, assessment, rec, lines = _expected(demo_copy)
    text = _markdown(at)
    memo = decision_memo(d, assessment, rec)
    assert text.index("#### Decision memo") < text.index("### Insufficient evidence")  # the memo comes first
    assert f"**The question.** {memo.question}" in text
    product = candidate_names(d)[d.decision.model]  # the vendor's product, not the model (issue 36 item 5)
    assert d.decision.model == "GPT-4o (2024-05-13)" and "·" in product
    assert ("**The answer.** The committee decided on " in text
            and f": approve with conditions for {product}; recorded by Dr. A. Rivera (chair)." in text
            and "The tool's recommendation for that candidate is reject (differs)" in text)
    for reason in memo.reasons:  # three reasons, each with its numbers
        assert reason in text and any(ch.isdigit() for ch in reason)
    assert "**Who signed, and when**" in text and "clinical lead: Dr. M. Chen" in text
    assert "**What is missing**" in text
    # the headline says whose it is: the best of three, Llama's, not GPT-4o's whom the committee decided on
    assert ("**Insufficient evidence, for Llama 3.3 Instruct (70B) (the best of 3 candidates; each one's "
            "outcome is below).**") in text
    assert [line.outcome for line in lines] == ["insufficient_evidence", "reject", "reject"]
    for line in lines:
        assert line.sentence in text and line.settle in text
    assert ("Reject: Claude 3.7 Sonnet (20250219) got 62% of 300 ProxySender cases right (95% CI 56–67%); "
            "your bar is 70%.") in text
    # the committee box says which candidate the tool's recommendation refers to
    assert ("for **GPT-4o (2024-05-13)** the tool recommended *reject* (the headline on the left is "
            "Llama 3.3 Instruct (70B)'s, the best candidate's).") in text
    assert "How this is computed" in [e.label for e in at.expander]
    assert all(f"**{word}**" in text for word in GLOSSARY)


def test_rules_page_opens_with_each_outcome_and_hides_the_method_behind_an_expander(demo_copy):
    at = open_page("pages/rules_verdicts.py")
    assert not at.exception
    _, _, _, lines = _expected(demo_copy)
    assert "Each candidate's outcome" in [s.value for s in at.subheader]
    text = _markdown(at)
    for line in lines:
        assert line.sentence in text
    captions = "\n".join(c.value for c in at.caption)
    assert "corrected over the family" not in captions and "Holm" not in captions  # behind the expander
    assert "How this is computed" in [e.label for e in at.expander]
    assert "corrected over the family of score verdicts" in text and "Holm's step-down correction" in text
    assert all(f"**{word}**" in text for word in GLOSSARY)
