"""Rules & verdicts never calls a candidate "the only candidate" while others are recorded (issue 36 item 5).

Before: three vendors recorded, evidence for one of them only, and the page's headline read "Insufficient
evidence, for Vendor gpt · Product gpt (the only candidate)."
"""

from __future__ import annotations

from tests.governance.candidate_fixtures import GPT4O
from tests.governance.decision.test_only_candidate_wording import _memo


def test_the_rules_page_headline_counts_the_recorded_candidates(home):
    """The same headline as the memo's, on the page (AppTest)."""
    from governance.dossier.store import Store
    from tests.pages.conftest import open_page

    d, _, _ = _memo({GPT4O})
    store = Store.open(home / "medassure.duckdb")
    try:
        store.save(d, author="committee")
    finally:
        store.close()
    at = open_page("pages/rules_verdicts.py", dossier_id=d.id)
    text = "\n".join(m.value for m in at.markdown)
    assert "(the only candidate with evidence; 3 are recorded).**" in text, text[:2000]
    assert "(the only candidate)" not in text
