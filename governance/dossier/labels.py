"""Words for stored keys: the one place that maps a key a person never typed to what a page or PDF shows.

Why one place: a committee member reads "per token", "at most", "model version change" or "exact match",
never ``per_token``, ``at_most``, ``model_version_change`` or ``numeric_in_range``, on every page, in the
PDF and in the memo alike; a second table would drift. Stored values and the CLI's JSON keep their keys
(they are a contract); only what is shown goes through here. Rule ids are named by their rule
(``governance.rules.rule_text.rule_label``), which reads these words too.

``source_words`` turns the provenance notes the code writes into stored records ("data/policies/
default.yaml, tier moderate", "governance.demo.judge_validity (seed 20)") into words; free text a person
typed is left alone (only whole known patterns are rewritten).
"""

from __future__ import annotations

import re

VALUE_LABELS: dict[str, str] = {
    "per_token": "per token", "per_seat": "per seat", "at_least": "at least",
    "at_most": "at most", "within": "within",
    "model_version_change": "model version change", "prompt_change": "prompt change",
    "vendor_notice": "vendor notice", "schedule": "schedule", "metric_breach": "metric breach",
    "not_applicable": "not applicable", "in_review": "in review",
    "re_evaluation": "under re-evaluation", "awaiting_review": "awaiting review",
    "llm_jury": "LLM jury", "exact_match": "exact match", "measured": "measured by our runs",
    "published_upper_bound": "MedHELM's published upper bound",
    "approve_with_conditions": "approve with conditions", "insufficient_evidence": "insufficient evidence",
    "every_output": "every output reviewed", "sampled": "a sample reviewed",
    "open_item": "open item", "vendor_condition": "vendor condition",
    "local-run": "local run", "helm-import": "imported HELM run", "inspect-import": "imported Inspect log",
    "published": "published MedHELM figure",
}
"""Stored enum values shown as words (exact matches only; free text is never rewritten)."""

METRIC_LABELS: dict[str, str] = {
    "EM": "exact match", "exact_match": "exact match", "choice_accuracy": "choice accuracy",
    "numeric_in_range": "answer within the accepted range", "accuracy": "accuracy", "f1": "token F1",
    "bertscore_f": "BERTScore F1", "bertscore_p": "BERTScore precision", "bertscore_r": "BERTScore recall",
    "rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L", "Jury Score": "jury score",
    "medec_error_flag_accuracy": "error-flag accuracy",
    "medec_error_sentence_accuracy": "error-sentence accuracy",
}
"""Metric keys as words (a metric the table lacks is shown with its underscores as spaces)."""

PROPORTION_METRICS = frozenset({"EM", "exact_match", "accuracy", "choice_accuracy", "numeric_in_range",
                                "medec_error_flag_accuracy", "medec_error_sentence_accuracy"})
"""Metrics whose score is the share of cases right (shown as a percentage)."""

_SOURCES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"data/policies/default\.yaml, tier (\w+)"), r"the default rules for risk tier \1"),
    (re.compile(r"data/policies/oversight\.yaml, tier (\w+)"), r"the default review and monitoring plan for "
                                                              r"risk tier \1"),
    (re.compile(r"(?:data/policies/)?oversight\.yaml max_correction_rate"),
     "the default plan's largest acceptable correction rate"),
    (re.compile(r"(?:data/policies/)?oversight\.yaml (\w+)"), "the default review and monitoring plan"),
    (re.compile(r"\(?data/medhelm_benchmark_tokens\.csv\)?"), "(MedHELM's published token counts)"),
    (re.compile(r"governance[./]demo[./](\w+)(?:\.py)?(?: \(seed (\d+)\))?"), r"the demo's generator"),
    (re.compile(r" ?\(MEDHELM_FACTS\.md §\d+\)"), ""),
    (re.compile(r"MEDHELM_FACTS\.md §\d+"), "the MedHELM paper"),
]


def value_label(value: str) -> str:
    """A stored enum value as words ("per_token" → "per token"); anything else unchanged.

    Example:
        >>> value_label("model_version_change"), value_label("GPT-4o")
        ('model version change', 'GPT-4o')
    """
    return VALUE_LABELS.get(value, value)


_SCENARIO_NAME = re.compile(r"(.+) \[sc_[0-9a-z]+ v(\d+)\]")
"""A local scenario's evidence name: ``<name> [<id> v<version>]`` (``evaluator.scenarios.results``)."""


def benchmark_label(name: str | None) -> str:
    """A benchmark as people name it: a built-in or registered spec's id becomes its title (up to any
    bracketed note, "calc_builtin" → "Built-in clinical calculators"); other names (MedHELM's, a local
    scenario's) are already words and stay as they are.

    A local scenario's evidence name carries its id for uniqueness ("Refills [sc_1a2b3c4d v2]"): shown as
    "Refills, version 2" (issue 36 item 10: "sc_45639078" on the pages).

    Example:
        >>> benchmark_label("calc_builtin"), benchmark_label("MedCalc-Bench")
        ('Built-in clinical calculators', 'MedCalc-Bench')
        >>> benchmark_label("Portal triage [sc_eb2de080 v1]")
        'Portal triage, version 1'
    """
    if name and (scenario := _SCENARIO_NAME.fullmatch(name)):
        return f"{scenario.group(1)}, version {scenario.group(2)}"
    if not name or not re.fullmatch(r"[a-z0-9_]+", name):
        return name or ""
    from evaluator.benchmarks.specs import load_benchmarks  # the registry, read once per process

    spec = load_benchmarks().get(name)
    return spec.title.split(" (")[0] if spec is not None else name


def metric_label(metric: str | None) -> str:
    """A metric key as words ("numeric_in_range" → "answer within the accepted range").

    Example:
        >>> metric_label("numeric_in_range"), metric_label("medication_qa_accuracy")
        ('answer within the accepted range', 'medication qa accuracy')
    """
    if not metric:
        return ""
    return METRIC_LABELS.get(metric, metric.replace("_", " "))


def is_proportion_metric(metric: str | None) -> bool:
    """Whether a metric's score is the share of cases right (read as a percentage).

    Example:
        >>> is_proportion_metric("EM"), is_proportion_metric("Jury Score"), is_proportion_metric(None)
        (True, False, False)
    """
    if not metric:
        return False
    return metric in PROPORTION_METRICS or metric.lower().endswith("accuracy")


def count_text(x: float | int | None) -> str:
    """A count as a count: 100.0 → "100", 2000 → "2,000" (never "100.000").

    Example:
        >>> count_text(100.0), count_text(2000), count_text(None)
        ('100', '2,000', '')
    """
    return "" if x is None else f"{round(x):,}"


def source_words(text: str) -> str:
    """A provenance note with code paths turned into words; other text unchanged.

    Example:
        >>> source_words("data/policies/default.yaml, tier moderate")
        'the default rules for risk tier moderate'
        >>> source_words("generated by governance.demo.judge_validity (seed 20); not real")
        "generated by the demo's generator; not real"
    """
    for pattern, words in _SOURCES:
        text = pattern.sub(words, text)
    return text
