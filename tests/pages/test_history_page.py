from tests.pages.conftest import open_page


def test_history_page_shows_timeline_and_diff(demo_home):
    at = open_page("pages/history.py")
    assert at.title[0].value == "History"
    timeline = at.dataframe[0].value
    assert len(timeline) >= 2 and "created" in set(timeline["kind"])
    assert at.subheader[0].value.startswith("Version")
    assert len(at.dataframe) == 2  # the timeline and the diff
    at.selectbox(key="history_from").select(1).run()
    at.selectbox(key="history_to").select(1).run()
    assert any("identical" in s.value for s in at.success)
