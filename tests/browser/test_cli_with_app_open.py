"""With the app open on DuckDB, read-only commands answer in their usual time (issue 27, item 14).

A real ``streamlit run`` server on a free port with the demo dossier, a real Chromium session that
opens pages (so the app opens the database), then ``medassure dossier show/history``, ``assess`` and
``report`` as subprocesses. Before the app let go of its idle file, each waited 15 s
(``MEDASSURE_LOCK_WAIT``) and failed; here each may wait 5 s for the file, so a held file fails the test
without a timed assertion. The times are printed (``pytest -s``) for docs/storage.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from governance.dossier.store import Store
from tests.browser.conftest import REPO, goto_page, wait_idle
from tests.browser.test_run_evidence import calc_model, choose, fill  # noqa: F401, F811 - a fixture

pytestmark = pytest.mark.browser
DEMO = "D-demo-portal"
READS = {
    "dossier show": ["dossier", "show", DEMO],
    "dossier history": ["dossier", "history", DEMO],
    "assess": ["assess", DEMO],
    "report": ["report", DEMO, "--out", "{out}/dossier.pdf"],
}


def timed(home, argv, out, lock_wait: str = "15") -> tuple[float, subprocess.CompletedProcess]:
    env = {**os.environ, "MEDASSURE_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "MEDASSURE_LOCK_WAIT": lock_wait}
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "cli", *[a.format(out=out) for a in argv]], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120)
    return time.monotonic() - start, proc


def test_read_only_commands_answer_while_the_app_is_open(app_factory, page, tmp_path):
    app = app_factory()
    alone = {name: timed(app.home, argv, tmp_path)[0] for name, argv in READS.items()}  # nobody holds it
    page.goto(app.url)
    page.get_by_role("heading", name="Dossiers").wait_for()
    wait_idle(page)
    goto_page(page, app, "Decision")  # the app has opened and read the database
    with_app = {}
    for name, argv in READS.items():
        elapsed, proc = timed(app.home, argv, tmp_path, lock_wait="5")  # the idle app lets go within ~1 s
        assert proc.returncode == 0, f"{name}: exit {proc.returncode}: {proc.stderr[-500:]}"
        assert "in use by" not in proc.stderr
        with_app[name] = elapsed
    print("\nseconds (alone, with the app open):",
          {k: (round(alone[k], 2), round(with_app[k], 2)) for k in READS})
    goto_page(page, app, "Evidence")  # the app opens the file again after the commands
    page.get_by_role("heading", name="Evidence").first.wait_for(state="visible")  # reopened and drawn


def test_review_and_monitor_status_answer_after_a_run_while_the_app_idles(
        app_factory, browser, calc_model, tmp_path):  # noqa: F811 - calc_model: the imported fixture
    """Issue 36 item 8: after a background run the idle app kept the file, and the CLI waited and exited 2.

    The finished job stayed in the process's job manager for its status, holding the store view it had
    closed; the app's store keeps the file while any of its cursors lives, so it never let go. Two tabs
    (one on the finished run, one on Review & monitoring) are left idle, then the commands are timed.
    """
    app = app_factory()
    store = Store.open(app.home / "medassure.duckdb")
    try:
        queue = store.reviews.list_queues(DEMO)[0].queue_id
    finally:
        store.close()

    def tab():
        pg = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        pg.set_default_timeout(90_000)
        pg.goto(app.url)
        pg.get_by_role("heading", name="Dossiers").wait_for()
        wait_idle(pg)
        return pg

    runner = tab()
    goto_page(runner, app, "Run evidence")
    choose(runner, "Benchmark", "Built-in clinical calculators")
    choose(runner, "Candidate", "another model")
    fill(runner, runner.locator(".st-key-run_model_other input"), "openai/calc-scripted")
    fill(runner, runner.get_by_label("API base (optional)"), calc_model + "/v1")
    fill(runner, runner.locator(".st-key-run_limit input"), "3")
    runner.get_by_role("button", name="Estimate").click()
    runner.get_by_text("request(s) to send").wait_for()
    wait_idle(runner)
    runner.get_by_role("button", name="Run", exact=True).click()
    runner.get_by_text("3 of 3 instances · completed").wait_for(timeout=60_000)
    wait_idle(runner)
    watcher = tab()
    goto_page(watcher, app, "Review & monitoring")
    runner.wait_for_timeout(2_000)  # both tabs idle: the app's one-second release has passed
    took = {}
    commands = {"review status": ["review", "status", queue], "monitor status": ["monitor", "status", DEMO]}
    for name, argv in commands.items():
        took[name], proc = timed(app.home, [*argv, "--format", "json"], tmp_path, lock_wait="8")
        assert "in use by" not in proc.stderr, (name, proc.returncode, proc.stderr[-400:])
        assert proc.returncode in (0, 4), (name, proc.returncode, proc.stderr[-400:])  # 4: the demo's pause
    print("\nseconds with the app idle after a run:", {k: round(v, 2) for k, v in took.items()})
    for pg in (runner, watcher):
        pg.context.close()
