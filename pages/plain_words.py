"""Shared blocks that say why in plain words: each candidate's outcome, the decision memo, and the
"How this is computed" expander with its short glossary (issue 27, items 6-9).

Rendering only: the sentences come from ``governance`` (``outcome_lines``, ``decision_memo``); method
paragraphs a committee member does not need to read first go behind the expander.
"""

from __future__ import annotations

import streamlit as st

from governance.decision import OUTCOME_LABELS
from governance.rules import headline, outcome_lines
from pages import ui

GLOSSARY = {
    "Exact match": "the share of cases whose answer equals the reference answer (after normalising case "
                   "and spacing); a calculation counts as right when it falls in the accepted range.",
    "Wilson interval": "the 95% interval for a share of cases right; it stays inside 0–100% and is honest "
                       "for small n and for shares near 0% or 100%.",
    "Holm correction": "when many verdicts are tested at once, some would pass by luck; Holm's step-down "
                       "method adjusts their p-values so that the chance of even one false pass stays at "
                       "or below 2.5%.",
    "ICC": "intraclass correlation: how closely the LLM judges' scores agree with clinicians' scores of the "
           "same outputs (1 is perfect agreement, 0 none); its interval's lower bound is held to the bar.",
    "Inconclusive": "the 95% interval straddles the bar: more cases would settle it, unless the estimate "
                    "itself misses the bar.",
}
"""The words a verdict uses, explained once."""

def how_computed(lines: list[str]) -> None:
    """Method text and counts behind one expander, followed by the glossary."""
    with st.expander("How this is computed", expanded=False):
        for line in lines:
            st.markdown(f"- {ui.plain(line)}")
        st.markdown("**Glossary**")
        for word, meaning in GLOSSARY.items():
            st.markdown(f"- **{ui.plain(word)}**: {ui.plain(meaning)}")


def outcomes(assessment, rec, dossier=None) -> None:
    """Whose outcome the headline is, then every candidate's outcome in one sentence with its numbers.

    With ``dossier``, the headline counts its recorded candidates, so one candidate with evidence among
    several recorded is not "the only candidate" (issue 36 item 5).
    """
    st.markdown(f"**{ui.plain(headline(rec, len(dossier.candidates) if dossier is not None else 0))}**")
    for line in outcome_lines(assessment, rec):
        st.markdown(f"- {ui.plain(line.sentence)}  \n  *What would settle it:* {ui.plain(line.settle)}")


def memo(m) -> None:
    """The one-page decision memo, as page 1 of the PDF says it."""
    with st.container(border=True):
        st.markdown("#### Decision memo")
        st.markdown(f"**The question.** {ui.plain(m.question)}")
        st.markdown(f"**The answer.** {ui.plain(m.answer)}")
        for warning in m.retirement:
            st.warning(f"**Vendor retirement.** {ui.plain(warning)}")
        parts = [("The three main reasons" if len(m.reasons) == 3 else "Main reasons", m.reasons),
                 ("Conditions", m.conditions or ["None recorded."]), ("Who signed, and when", m.signed),
                 ("What is missing", m.missing or ["Nothing: the checklist is complete."])]
        left, right = st.columns(2)
        for i, (title, items) in enumerate(parts):
            with left if i % 2 == 0 else right:
                st.markdown(f"**{title}**")
                for item in items:
                    st.markdown(f"- {ui.plain(item)}")


def outcome_label(outcome: str) -> str:
    """An outcome key as its label."""
    return OUTCOME_LABELS.get(outcome, outcome)
