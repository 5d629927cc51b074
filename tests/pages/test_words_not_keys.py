"""Pages show words, not stored keys (issue 36 item 10): statuses, column names, ids of subcategories and
benchmarks, model strings where a candidate product is recorded."""

from __future__ import annotations

import re

from governance.dossier.store import Store
from governance.mapping import load_taxonomy
from tests.pages.conftest import confirm_voiding, open_page

SUBCATEGORY_IDS = {s.id for s in load_taxonomy().subcategories}


def shown_text(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info]
    for frame in [d.value for d in at.dataframe] + [t.value for t in at.table]:
        parts += [str(c) for c in frame.columns] + [str(v) for v in frame.astype(str).to_numpy().ravel()]
    return "\n".join(parts)


def test_review_and_monitoring_metrics_name_subcategories_and_benchmarks_in_words(demo_home):
    at = open_page("pages/review_monitoring.py")
    shown = at.selectbox(key="plan_model").options
    assert "Contoso Health Cloud (demo) · Portal Reply Assistant" in shown, shown  # not a model string
    at.button(key="plan_derive").click().run()
    confirm_voiding(at)
    assert not at.exception, [e.value for e in at.exception]
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        metrics = store.load("D-demo-portal").dossier.oversight.monitoring.metrics
    finally:
        store.close()
    scores = [m.name for m in metrics if m.name.startswith("normalized score on")]
    assert scores, [m.name for m in metrics]
    for name in scores:
        target = name.removeprefix("normalized score on ").split(" (re-run")[0]
        assert target not in SUBCATEGORY_IDS and not re.fullmatch(r"[a-z0-9_]+", target), name


def test_judge_agreement_rule_line_says_status_and_candidate_in_words(demo_home):
    """With no jury-scored evidence the rule is not applicable: said so, not "not_applicable"."""
    from governance.evidence.select import is_jury_scored

    store = Store.open(demo_home / "medassure.duckdb")
    try:
        d = store.load("D-demo-portal").dossier
        store.save(d.model_copy(update={"evidence": [e for e in d.evidence if not is_jury_scored(e)]}),
                   author="dr.page", note="no jury evidence")
    finally:
        store.close()
    at = open_page("pages/judge_validity.py")
    lines = [m.value for m in at.markdown if "Judge-agreement rule" in m.value]
    assert lines and all("**not applicable**" in line for line in lines), lines
    assert "(all candidates)" in lines[0]


def test_candidates_scores_and_tie_groups_name_products_not_ids(demo_home):
    at = open_page("pages/candidates.py")
    summary = at.dataframe[0].value
    ids, labels = list(summary["Id"]), list(summary["Candidate"])
    scores = at.dataframe[1].value
    assert set(scores["Candidate"]) == set(labels), set(scores["Candidate"])  # products, never the ids
    assert "Portal triage (demo), version 1" in set(scores["Benchmark"]), set(scores["Benchmark"])
    ties = [m.value for m in at.markdown if m.value.startswith("- MedConfInfo: ")]
    assert ties and not [i for i in ids if i in ties[0]], ties


def test_local_scenario_versions_read_without_keys_or_ids(demo_home):
    at = open_page("pages/local_scenarios.py")
    assert not at.exception, [e.value for e in at.exception]
    versions = next(d.value for d in at.dataframe if "Version" in d.value.columns)
    headers = list(versions.columns)
    assert not {"scenario_id", "n_instances", "phi"} & set(headers) and "Cases" in headers, headers
    assert not [v for v in versions.astype(str).to_numpy().ravel() if re.search(r"\bsc_[0-9a-f]{8}", v)]
    picked = at.selectbox(key="ls_version_pick").options
    assert picked and not [o for o in picked if "sc_" in o], picked  # "Portal triage (demo) · version 1"
