"""The decision memo and the model-facts label as report sections (page 1 of the PDF; the label's page).

Why sections: the PDF, the Markdown preview on the Report page and the tests read the same generic
blocks (``reports.model.Section``), so the memo on page 1 and the one the Decision page shows say the
same thing. The content comes from ``governance.decision.memo`` and ``governance.decision.model_facts``;
here it is only laid out.
"""

from __future__ import annotations

from governance.decision.memo import DecisionMemo
from governance.decision.model_facts import ModelFacts
from reports.model import Fact, Section


def memo_section(memo: DecisionMemo) -> Section:
    """The one-page decision memo."""
    outcomes = Section(key="memo_outcomes", title="Each candidate's outcome",
                       bullets=[line.sentence for line in memo.outcomes]
                       or ["No candidate has evidence yet."])
    parts = [
        Section(key="memo_reasons", bullets=memo.reasons or ["No verdict yet."],
                title="The three main reasons" if len(memo.reasons) == 3 else "Main reasons"),
        Section(key="memo_conditions", title="Conditions", bullets=memo.conditions or ["None recorded."]),
        Section(key="memo_signed", title="Who signed, and when", bullets=memo.signed),
        Section(key="memo_missing", title="What is missing",
                bullets=memo.missing or ["Nothing: the checklist is complete."]),
        *([Section(key="memo_retirement", title="Vendor retirement", bullets=memo.retirement)]
          if memo.retirement else []),
        outcomes,
    ]
    return Section(key="memo", title="Decision memo", facts=[
        Fact(label="The question", value=memo.question), Fact(label="The answer", value=memo.answer)],
        subsections=parts)


def label_section(facts: ModelFacts) -> Section:
    """The one-page model-facts label for the staff who use the tool."""
    return Section(key="model_facts", title=f"Model facts: {facts.title}", paragraphs=[facts.status], facts=[
        Fact(label="The tool", value=facts.tool),
        Fact(label="Use it for", value=facts.intended_use),
        Fact(label="Who, where", value=facts.users),
        Fact(label="Approved version", value=facts.approved_version),
        Fact(label="Next re-evaluation", value=facts.next_reevaluation),
    ], subsections=[
        Section(key="label_out_of_scope", title="Do not use it for", bullets=facts.out_of_scope),
        Section(key="label_failures", title="Known failure modes (weakest results first)",
                bullets=facts.failure_modes),
        Section(key="label_checks", title="What the reviewer must check", bullets=facts.reviewer_checks),
        Section(key="label_report", title="How to report a bad output", paragraphs=[facts.report_bad_output]),
    ])
