"""End to end in a real Chromium: the Candidates page of the demo draws its table and its chart."""

import pytest

from tests.browser.conftest import goto_page, wait_idle

pytestmark = pytest.mark.browser


def test_candidates_page_shows_table_and_chart_for_the_demo(page, app_factory, tmp_path):
    app = app_factory()
    pg = page
    pg.goto(app.url)
    pg.get_by_role("heading", name="Dossiers").wait_for()
    wait_idle(pg)
    goto_page(pg, app, "Candidates")

    table = pg.locator("[data-testid='stDataFrame']").first  # the side-by-side table comes first
    table.wait_for()
    box = table.bounding_box()
    assert box and box["width"] > 400 and box["height"] > 80, box
    # the grid draws on a canvas; its accessible table holds the text, filled a moment after it appears
    for _ in range(60):
        cells = table.text_content() or ""
        if "contoso-gpt-4o" in cells:
            break
        pg.wait_for_timeout(500)
    for candidate in ("contoso-gpt-4o", "northwind-messageassist", "onprem-llama-3-3-70b"):
        assert candidate in cells, cells[:2000]

    chart = pg.locator('[data-testid="stVegaLiteChart"]').first
    chart.locator("canvas, svg").first.wait_for()
    box = chart.bounding_box()
    assert box and box["width"] > 300 and box["height"] > 100, box

    main = pg.locator("[data-testid='stMain']").first.inner_text()
    assert "Side by side" in main and "Tie groups" in main and "Open items and conditions" in main
    assert "Northwind Clinical AI (demo) · MessageAssist: 1 open item(s)" in main
    pg.screenshot(path=str(tmp_path / "candidates.png"), full_page=True)
