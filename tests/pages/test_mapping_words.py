"""Task mapping says what it shows, not what we lacked (issue 36 item 15)."""

from __future__ import annotations

from tests.pages.conftest import open_page


def test_the_taxonomy_note_does_not_say_names_were_unavailable(demo_home):
    at = open_page("pages/task_mapping.py")
    assert not at.exception, [e.value for e in at.exception]
    captions = [c.value for c in at.caption]
    note = next(c for c in captions if c.startswith("MedHELM defines 121 tasks"))
    assert "not available to us" not in note and "verified in a cited source" in note
