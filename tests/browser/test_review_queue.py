"""End to end in a real Chromium: two raters in two browser contexts finish a 12-item review queue (10
outputs, 2 of them double-rated, and 2 sentinels); Judge validity then shows their agreement and catch rates.

Set up before the server starts (one DuckDB writer at a time): the demo, a 14-question MedicationQA run on
the local test server, its jury (3 judges), and the queue. dr.a rates each real output as judge a scored it
and catches both sentinels (accuracy 1); dr.b rates the same way but catches only the number sentinel
(the negation one gets 5).
Screenshots go to /work/wt/review-shots/ (or MEDASSURE_SHOTS).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from governance.dossier.store import Store
from governance.identity import Actor
from governance.review.operations.create import create_queue
from tests.browser.conftest import REPO, saved, start_app, wait_idle
from tests.governance.review_fixtures import QUESTIONS, judge_run, jury_score, review_run

pytestmark = pytest.mark.browser
SHOTS = Path(os.environ.get("MEDASSURE_SHOTS", "/work/wt/review-shots"))


def prepare(home: Path, llm_server, tmp_path: Path) -> tuple[str, dict[str, tuple[str | None, str]]]:
    env = {**os.environ, "MEDASSURE_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    home.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "cli", "demo"], env=env, cwd=REPO, check=True, capture_output=True, timeout=300
    )
    store = Store.open(home / "medassure.duckdb")
    try:
        run_id, path = review_run(store, llm_server, tmp_path)
        judge_run(store, llm_server, run_id, path)
        queue = create_queue(
            store,
            run_id,
            10,
            ["dr.a", "dr.b"],
            double=0.2,
            sentinels=2,
            seed=12,
            dataset_path=str(path),
            dossier_id="D-demo-portal",
            actor=Actor.named("editor"),
        )
        items = store.reviews.items(queue.queue_id)
    finally:
        store.close()
    assert len(items) == 12 and sum(bool(i.sentinel) for i in items.values()) == 2
    return queue.queue_id, {it.output: (it.sentinel, it.question) for it in items.values()}


def rate_queue(pg, rater: str, outputs: dict[str, tuple[str | None, str]], catches: set[str]) -> int:
    """Rate every item shown to ``rater``; returns how many were rated."""
    box = pg.get_by_role("textbox", name="Reviewer")
    box.fill(rater)
    box.press("Enter")
    wait_idle(pg)
    pg.locator('[data-testid="stSidebarNav"] a', has_text="Rate outputs").first.click()
    pg.get_by_role("heading", name="Rate outputs").first.wait_for()
    wait_idle(pg)
    rated = 0
    for k in range(1, 9):  # 4 single, 2 double-rated, 2 sentinels
        pg.get_by_role("heading", name=f"Item {k} of 8").first.wait_for()
        wait_idle(pg)
        main = pg.locator('[data-testid="stMainBlockContainer"]').inner_text()
        assert "openai/cand" not in main and "sentinel" not in main.lower() and "judge" not in main.lower()
        shown = [o for o in outputs if o in main.replace("\\", "")]
        assert len(shown) == 1, (shown, main[:500])
        kind, question = outputs[shown[0]]
        # a sentinel caught gets accuracy 1, one missed 5; a real output what judge a gave it
        score = 1 if kind in catches else 5 if kind else jury_score(question, "judge-a")
        for group in pg.locator('[data-testid="stRadio"]').all():
            group.get_by_text(str(score), exact=True).click()
        if k == 3:
            pg.screenshot(path=str(SHOTS / f"rate_{rater}_item.png"), full_page=True)
        pg.get_by_role("button", name="Save rating").click()
        rated += 1
        pg.get_by_text(f"{rated} of 8 rated").first.wait_for()  # the rerun after the save
    pg.get_by_text("You have rated all your items").wait_for()
    return rated


def test_two_raters_finish_a_queue_and_judge_validity_shows_agreement_and_catch_rates(
    browser, llm_server, tmp_path
):
    SHOTS.mkdir(parents=True, exist_ok=True)
    home = tmp_path / "home"
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:  # off playwright's event loop: the jury's gateway runs its own
        queue_id, outputs = pool.submit(prepare, home, llm_server, tmp_path).result()
    assert len(QUESTIONS) == 14
    app = start_app(home, seed_demo=False)
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1100}) for _ in range(2)]
    try:
        pa, pb = (c.new_page() for c in contexts)
        for pg in (pa, pb):
            pg.set_default_timeout(90_000)
            pg.goto(app.url)
            pg.get_by_role("heading", name="Dossiers").first.wait_for()
            wait_idle(pg)
        assert rate_queue(pa, "dr.a", outputs, {"number", "negation"}) == 8
        pa.get_by_text("Planted errors you caught:").wait_for()
        assert "2 of 2" in pa.locator('[data-testid="stMainBlockContainer"]').inner_text()
        pa.screenshot(path=str(SHOTS / "rate_dr.a_done.png"), full_page=True)
        assert rate_queue(pb, "dr.b", outputs, {"number"}) == 8
        pb.get_by_text("Planted errors you caught:").wait_for()  # the last save's rerun has drawn the summary
        assert "1 of 2" in pb.locator('[data-testid="stMainBlockContainer"]').inner_text()
        pb.screenshot(path=str(SHOTS / "rate_dr.b_done.png"), full_page=True)

        # The agreement is for the committee's editors who did not rate (issue 35 item 4: a rater, editor or
        # not, sees only their own progress), so the chair takes over the first browser.
        box = pa.get_by_role("textbox", name="Reviewer")
        box.fill("dr.chair")
        box.press("Enter")
        wait_idle(pa)
        pa.locator('[data-testid="stSidebarNav"] a', has_text="Judge validity").first.click()
        pa.get_by_role("heading", name="Judge validity").first.wait_for()
        wait_idle(pa)
        pa.get_by_text("A closed review queue", exact=True).click()
        wait_idle(pa)
        pa.get_by_text(f"Review queue {queue_id}: 2 raters").wait_for()
        pa.get_by_text("Figure to record").wait_for()  # the agreement is computed and drawn
        wait_idle(pa)
        table = pa.locator('[data-testid="stTable"]').last
        grid = table.inner_text()
        assert "jury vs clinicians" in grid and "clinician vs clinician" in grid, grid[:1500]
        catches = pa.locator('[data-testid="stTable"]').first.inner_text()
        assert "2 of 2" in catches and "1 of 2" in catches, catches
        pa.screenshot(path=str(SHOTS / "judge_validity_queue.png"), full_page=True)
        table.scroll_into_view_if_needed()
        table.screenshot(path=str(SHOTS / "judge_validity_agreement.png"))
        pa.get_by_role("button", name="Record this agreement on the dossier").click()
        saved(pa, pa.get_by_text(f"Source: review queue {queue_id}").first)  # yes to voiding the demo's
    finally:
        for c in contexts:
            c.close()
        app.proc.terminate()
        app.proc.wait(20)
    store = Store.open(home / "medassure.duckdb")
    try:
        recorded = store.load("D-demo-portal").dossier.judge_agreement
        ratings = store.reviews.ratings(queue_id)
    finally:
        store.close()
    assert len(ratings) == 16 and {r.recorded_auth for r in ratings} == {"local, unauthenticated"}
    cite = recorded.review_queue
    assert cite.queue_id == queue_id and cite.raters == ("dr.a", "dr.b") and cite.n_items == 10
    assert [(c.rater, c.caught, c.n) for c in cite.catch] == [("dr.a", 2, 2), ("dr.b", 1, 2)]
    assert recorded.n_instances == 10 and recorded.estimate > 0.5
    print(
        f"\nwalk figures: ICC(A,1) {recorded.estimate:.3f} "
        f"[{recorded.ci_lower:.3f}, {recorded.ci_upper:.3f}] "
        f"n={recorded.n_instances}; catch {cite.catch_text()}"
    )
