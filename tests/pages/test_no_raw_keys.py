"""No raw keys, code paths or Python values on any page or in the PDFs (issue 27, item 9).

Every page of the app is rendered with AppTest on the demo dossier, and the demo's dossier PDF and
model-facts label are read back as text; each shown text is checked against patterns for what a reader
must never see: rule ids and rule-kind keys, metric keys, stored enum values (the known key sets, read
from the registries, so a new key is checked too), dotted module paths, source-file paths, and counts
printed as floats ("100.000"). Words come from the central label functions (``governance.dossier.labels``,
``governance.rules.rule_text``); a failure names the page and the offending text.
"""

from __future__ import annotations

import io
import re

import pytest

from tests.pages.conftest import open_page

PAGES = ["dossiers", "intended_use", "task_mapping", "evidence", "rules_verdicts", "run_evidence",
         "local_scenarios", "judge_validity", "cost", "candidates", "review_monitoring", "decision",
         "history", "reevaluation", "report"]


def _patterns() -> list[re.Pattern[str]]:
    from evaluator.scoring.metrics import METRICS
    from governance.dossier.labels import VALUE_LABELS
    from governance.rules.kinds import REGISTRY

    keys = {k for k in [*REGISTRY, *METRICS, *VALUE_LABELS] if "_" in k}
    words = "|".join(sorted(map(re.escape, keys), key=len, reverse=True))
    return [
        re.compile(rf"(?<![\w`-])({words})(?![\w`-])"),                # rule kinds, metric keys, enum values
        re.compile(r"\bscore\.[a-z0-9_]+"),                            # score rule ids
        re.compile(r"\b(governance|evaluator|reports|pages|cli)\.[a-z_]+\b"),  # dotted module paths
        # our source files (a citation "repo:path@commit" of someone else's file is provenance, allowed)
        re.compile(r"(?<![:\w/])[\w/-]+\.(py|yaml|yml)\b(?![\w.]*@)|MEDHELM_FACTS\.md|(?<![:\w/])data/[\w/]+\.csv(?!@)"),
        re.compile(r"(?<![\d.])\d{2,}\.000\b"),                        # counts printed as floats
    ]


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text.replace("&lt;", "<"))


def shown_texts(at) -> list[str]:
    """Everything a person reads on the page: text elements, labels, options, table headers and cells."""
    out: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success",
                 "text", "toast"):
        out += [str(e.value) for e in getattr(at, kind, [])]
    out += [e.label for e in at.expander]
    for m in at.metric:
        out += [m.label, str(m.value)]
    for w in [*at.selectbox, *at.radio, *at.multiselect]:
        out += [w.label, *map(str, w.options)]
    for w in [*at.text_input, *at.text_area, *at.number_input, *at.checkbox, *at.button, *at.toggle]:
        out.append(w.label)
    from governance.dossier.labels import VALUE_LABELS

    for table in [*at.dataframe, *at.table]:
        frame = table.value
        out += [str(c) for c in frame.columns]
        # an editable table shows a choice column's stored value through its format_func (the browser reads
        # words); only its free cells are checked here
        editable = getattr(table, "editing_mode", "read_only") != "read_only"
        out += [str(v) for column in frame.columns for v in frame[column]
                if not (editable and str(v) in VALUE_LABELS)]
    return [_unescape(t) for t in out]


def raw_hits(texts: list[str]) -> list[str]:
    """The offending matches, each with some context."""
    hits = []
    for text in texts:
        for pattern in _patterns():
            for m in pattern.finditer(text):
                hits.append(f"{m.group(0)!r} in …{text[max(0, m.start() - 60):m.end() + 40]}…")
    return hits


@pytest.mark.parametrize("page", PAGES)
def test_no_raw_key_on_any_page_of_the_demo(demo_copy, page):
    at = open_page(f"pages/{page}.py")
    assert not raw_hits(shown_texts(at)), page


def test_no_raw_key_in_the_demo_pdf_or_label(demo_copy):
    from pypdf import PdfReader

    from governance.dossier.store import Store
    from reports import report_bundle

    store = Store.open(demo_copy / "medassure.duckdb")
    try:
        bundle = report_bundle(store, "D-demo-portal")
        texts = []
        for kind in ("pdf", "label"):
            pdf = bundle.download(kind).make()
            texts += [" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages]
    finally:
        store.close()
    assert not raw_hits(texts)


def test_the_patterns_catch_what_the_issue_names():
    said = ["score.privacydetection on B", "min_n", "judge_agreement", "numeric_in_range",
            "per_token/per_seat",
            "model_version_change", "at_most", "governance.demo.judge_validity (seed 20)",
            "data/policies/oversight.yaml max_correction_rate", "(MEDHELM_FACTS.md §11)", "n = 100.000"]
    assert all(raw_hits([s]) for s in said), [s for s in said if not raw_hits([s])]
    assert not raw_hits(["ratio 1.000 (n=24)", "USD 12.50", "exact match", "`instance_id` column",
                         "Llama 3.3 Instruct (70B)", "score bar 0.95 on PrivacyDetection"])
