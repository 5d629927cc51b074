"""Issue 19: text a person typed is shown as text on every page, never rendered as Markdown or HTML.

A dossier whose fields hold a Markdown image and an HTML ``<img>`` (the browser fetched from the
image's host when the Decision page rendered it) is opened on each page that shows dossier text.
Every Markdown-rendering element (markdown, captions, alerts, expander labels) must carry the
image escaped, so no element renders it, and where the page shows the field, the literal text
must be there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from governance.dossier.store import Store
from tests.pages.conftest import DEMO, open_page

IMAGE = "![x](http://example.invalid/a.png)"
HTML = '<img src="http://example.invalid/b.png">'
HOSTILE = f"{IMAGE} and {HTML}"
ESCAPED_IMAGE = "!\\[x\\](http://example.invalid/a.png)"
LIVE_IMAGE = re.compile(r"(?<!\\)!\[[^\]]*(?<!\\)\]\(")


def _hostile_dossier(home) -> None:
    """Save a version of the demo dossier with the hostile text in the fields people type."""
    store = Store.open(home / "medassure.duckdb")
    try:
        d = store.load(DEMO).dossier
        use = d.intended_use.model_copy(update={
            "purpose": f"Purpose {HOSTILE}", "workflow": f"Workflow {HOSTILE}",
            "intended_users": [*d.intended_use.intended_users, f"user {HOSTILE}"],
            "out_of_scope_uses": [f"scope {HOSTILE}"]})
        decision = d.decision.model_copy(update={"rationale": f"Rationale {HOSTILE}",
                                                 "decided_by": f"chair {IMAGE}"})
        if decision.conditions:
            decision = decision.model_copy(update={"conditions": [f"condition {HOSTILE}"]})
        candidates = [c.model_copy(update={"vendor": f"vendor {IMAGE}"}) for c in d.candidates]
        policy = d.policy
        if policy is not None and policy.lock is not None:
            lock = policy.lock.model_copy(update={"note": f"lock {IMAGE}"})
            policy = policy.model_copy(update={"lock": lock})
        # issue 25, item 10: three more fields the browser fetched images from
        mapping = d.mapping.model_copy(update={"local_tasks": [
            t.model_copy(update={"name": f"task {IMAGE}"}) for t in d.mapping.local_tasks]})
        agreement = d.judge_agreement and d.judge_agreement.model_copy(update={"source": f"source {IMAGE}"})
        addenda = [a.model_copy(update={"impact": a.impact.model_copy(update={
            "why": [f"why {IMAGE}", *a.impact.why[1:]]})}) for a in d.reevaluations]
        updated = d.model_copy(update={"title": f"Title {IMAGE}", "intended_use": use, "decision": decision,
                                       "candidates": candidates, "policy": policy, "mapping": mapping,
                                       "judge_agreement": agreement, "reevaluations": addenda})
        store.save(type(d).model_validate(updated.model_dump()), author=f"author {IMAGE}",
                   note="hostile text")
    finally:
        store.close()


def _rendered(at) -> list[str]:
    """Every string on the page that Streamlit renders as Markdown (``st.table`` cells included)."""
    out = [e.value for kind in ("markdown", "caption", "info", "warning", "error", "success", "subheader",
                                "title") for e in getattr(at, kind)]
    cells = [str(v) for t in at.table for v in t.value.to_numpy().ravel()]
    return out + cells + [e.label for e in at.expander]


PAGES = {
    "pages/decision.py": ["Rationale", "condition"],
    "pages/report.py": ["Purpose", "Rationale"],
    "pages/intended_use.py": [],
    "pages/history.py": [],
    "pages/candidates.py": ["vendor"],
    "pages/rules_verdicts.py": ["lock"],
    "pages/review_monitoring.py": [],
    "pages/evidence.py": ["task"],
    "pages/judge_validity.py": ["source"],
    "pages/reevaluation.py": ["why"],
}


def _app_pages() -> list[str]:
    """Every page ``app.py`` puts in the navigation, read from the file itself."""
    app = (Path(__file__).resolve().parents[2] / "app.py").read_text(encoding="utf-8")
    return re.findall(r'st\.Page\("(pages/[a-z_]+\.py)"', app)


def test_every_page_of_the_app_is_walked():
    """A page added to the navigation is walked by ``test_hostile_text_is_shown_literally`` too."""
    assert set(PAGES) | set(WALK_ONLY) == set(_app_pages()), set(_app_pages()) ^ (set(PAGES) | set(WALK_ONLY))


WALK_ONLY = [p for p in _app_pages() if p not in PAGES]
"""Pages that show none of the hostile fields by name: walked for live images only."""


@pytest.mark.parametrize("page", [*PAGES, *WALK_ONLY])
def test_hostile_text_is_shown_literally(demo_copy, page):
    _hostile_dossier(demo_copy)
    at = open_page(page)
    rendered = _rendered(at)
    live = [s for s in rendered if LIVE_IMAGE.search(s) or "<img" in s]
    assert not live, live
    assert not at.get("imgs") and not at.get("image")
    for field in PAGES.get(page, []):
        assert any(f"{field} {ESCAPED_IMAGE}" in s for s in rendered), (field, rendered)
    if page == "pages/intended_use.py":  # the form holds the literal text
        assert any(ta.value.startswith("Purpose ![x](http") for ta in at.text_area)
    if page == "pages/history.py":  # the change list is plain text (st.text)
        assert any(IMAGE in t.value for t in at.text)


def test_a_typed_reviewer_name_is_shown_as_text_in_the_sidebar(demo_copy, monkeypatch):
    """Local mode: the sidebar's "Acting as" line shows the typed name literally (it is user text too)."""
    monkeypatch.setenv("MEDASSURE_USER", f"Dr. {IMAGE}")
    at = open_page()
    captions = [c.value for c in at.sidebar.caption if c.value.startswith("Acting as")]
    assert captions and ESCAPED_IMAGE in captions[0] and not LIVE_IMAGE.search(captions[0]), captions


def test_st_table_is_drawn_only_through_the_escaping_helper():
    """``st.table`` renders its cells as Markdown: pages call ``tables.plain_table``, which escapes them."""
    pages = Path(__file__).resolve().parents[2] / "pages"
    direct = [p.name for p in pages.glob("*.py") if p.name != "tables.py" and "st.table(" in p.read_text()]
    assert direct == []


def test_plain_table_escapes_cells_index_and_column_names(monkeypatch):
    import pandas as pd
    import streamlit as st

    from pages.tables import plain_table

    drawn = []
    monkeypatch.setattr(st, "table", lambda frame, **kw: drawn.append(frame))
    frame = pd.DataFrame({"tag": [IMAGE], "group": ["g"], f"col {IMAGE}": [IMAGE], "n": [3]})
    plain_table(frame.set_index(["tag", "group"]))
    (shown,) = drawn
    text = " ".join(map(str, [*shown.to_numpy().ravel(), *shown.columns, *shown.index.to_flat_index()]))
    assert not LIVE_IMAGE.search(text) and ESCAPED_IMAGE in text and shown["n"].iloc[0] == 3
