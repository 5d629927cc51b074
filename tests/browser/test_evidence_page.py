"""End to end in a real Chromium: the Evidence page of the demo dossier draws its heatmap and tables."""

import pytest

from tests.browser.conftest import goto_page, wait_idle

pytestmark = pytest.mark.browser


def test_evidence_page_shows_heatmap_and_win_rates_for_the_demo(page, app_factory, tmp_path):
    app = app_factory()
    pg = page
    pg.goto(app.url)
    pg.get_by_role("heading", name="Dossiers").wait_for()  # st.navigation has replaced the page list
    wait_idle(pg)
    goto_page(pg, app, "Evidence")

    heatmap = pg.locator('[data-testid="stVegaLiteChart"]').first
    heatmap.locator("canvas, svg").first.wait_for()
    box = heatmap.bounding_box()
    assert box and box["width"] > 400 and box["height"] > 100, box

    pg.get_by_role("heading", name="Mean win rate on the mapped benchmarks").wait_for()
    tables = pg.locator('[data-testid="stTable"]')
    win_rates = tables.filter(has_text="mean win rate").first.inner_text()
    for candidate in ("gpt-4o", "claude-3-7-sonnet", "llama-3.3-70b"):
        assert candidate in win_rates, win_rates
    assert "none" in win_rates  # the interval column says there is none, the caption says why
    ties = tables.filter(has_text="tie groups, best first").first.inner_text()
    assert "ProxySender" in ties and "not grouped" in ties
    main = pg.locator("[data-testid='stMain']").first.inner_text()
    assert "Wilson score interval" in main and "Patient-Provider Messaging" in main
    pg.screenshot(path=str(tmp_path / "evidence.png"), full_page=True)
