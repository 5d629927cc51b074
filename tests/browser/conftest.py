"""Real-browser fixtures: a Streamlit server on loopback and Debian's headless Chromium.

Skipped, with the reason, when /usr/bin/chromium or the playwright package is missing
(`make test` installs chromium when it runs as root with apt-get).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"]


def pytest_collection_modifyitems(items):
    """Mark every test in this folder ``browser``, so ``make test-fast`` skips it whether or not its module
    says ``pytestmark = pytest.mark.browser``."""
    here = Path(__file__).resolve().parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.browser)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("browser tests need Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright package not installed")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


class App:
    """A running app: its URL, its home folder and its log."""

    def __init__(self, url: str, home: Path, proc: subprocess.Popen, log: Path):
        self.url, self.home, self.proc, self.log = url, home, proc, log


def start_app(home: Path, seed_demo: bool = True, extra_env: dict | None = None) -> App:
    env = {**os.environ, "MEDASSURE_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "MEDASSURE_USER": "browser-test",
           # no sentence-model preload per server (25-40 s of CPU each); Task mapping loads it on demand
           "MEDASSURE_PRELOAD_MODEL": "0", **(extra_env or {})}
    if seed_demo:
        subprocess.run([sys.executable, "-m", "cli", "demo"], env=env, cwd=REPO, check=True,
                       capture_output=True, timeout=300)
    port = free_port()
    log = home / "streamlit.log"
    home.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
         f"--server.port={port}", "--server.address=127.0.0.1", "--browser.gatherUsageStats=false",
         "--server.fileWatcherType=none"],
        cwd=REPO, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                return App(url, home, proc, log)
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"streamlit did not become healthy: {log.read_text()[-2000:]}")


@pytest.fixture
def app_factory(tmp_path):
    apps: list[App] = []

    def make(seed_demo: bool = True, extra_env: dict | None = None) -> App:
        app = start_app(tmp_path / f"home{len(apps)}", seed_demo, extra_env)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.proc.terminate()
        try:
            app.proc.wait(10)
        except subprocess.TimeoutExpired:
            app.proc.kill()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(90_000)
    yield pg
    context.close()


def wait_idle(pg) -> None:
    """Wait until Streamlit has finished the current script run.

    When the finished run asks before a save voids sign-offs (the demo is decided and signed; issue 36
    item 3), the walk says yes, as a committee member editing the signed dossier on purpose would, and
    waits for that run too. ``tests/pages/test_voiding_save.py`` tests the question itself.
    """
    pg.wait_for_timeout(300)
    pg.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=120_000)
    if pg.locator(".st-key-voiding_save_confirm button").count():
        say_yes(pg)
        pg.wait_for_timeout(300)
        pg.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=120_000)


def main_text(pg, *needles: str, timeout_s: float = 90.0) -> str:
    """The main pane's text once the script run has ended and every one of ``needles`` is in it.

    A wait for one element can be answered by a run that is about to be replaced: CI (issue 35's
    stop) found "Unapproved model identity" on the Monitoring page, then read a main pane that held
    only the feed form, because a second run was redrawing it. So read again, after each run ends,
    until the whole text holds what the test is about to assert; on timeout return the last text, so
    the caller's assertion names what was missing.
    """
    deadline = time.monotonic() + timeout_s
    while True:  # not wait_idle: that says yes to a voiding question a test may be about to read
        pg.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=120_000)
        text = pg.locator("[data-testid='stMain']").first.inner_text()
        if all(n in text for n in needles) or time.monotonic() > deadline:
            return text
        pg.wait_for_timeout(500)


def say_yes(pg) -> None:
    """Click "Save and void N sign-off(s)" once the run that drew it has finished.

    Clicked while a run still redraws the page, the button is replaced under the pointer and Playwright
    retries the same click until its timeout (seen: 90 s of "element was detached from the DOM" in the
    decision walk); so wait for the run to end, click with a short timeout, and look again (six tries).
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    confirm = pg.locator(".st-key-voiding_save_confirm button")
    for _ in range(6):
        pg.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=120_000)
        if not confirm.count():
            return  # answered by the last try, or no longer asked
        try:
            confirm.first.click(timeout=10_000)
            return
        except PlaywrightTimeout:
            pg.wait_for_timeout(500)
    raise AssertionError("could not click the voiding question's confirm button in six tries")


def open_expander(pg, label: str, inside) -> None:
    """Open the expander (or toggle) titled ``label`` until ``inside`` (a locator in its body) is visible.

    A click that lands between a save's two script runs opens an expander that the second run then
    draws again, closed (seen: CI's discharge walk waited 90 s for the score rule's Rationale after
    "Start from the low defaults"); so look for the body and click again (six tries of 10 s).
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(6):
        wait_idle(pg)
        if inside.first.is_visible():
            return
        pg.get_by_text(label).click()  # strict: the label must name one element
        try:
            inside.first.wait_for(state="visible", timeout=10_000)
            wait_idle(pg)
            if inside.first.is_visible():
                return
        except PlaywrightTimeout:
            if attempt == 5:
                raise


def goto_page(pg, app: App, title: str) -> None:
    """Open a page through the sidebar navigation and wait for its heading."""
    pg.locator('[data-testid="stSidebarNav"] a', has_text=title).first.click()
    pg.get_by_role("heading", name=title).first.wait_for()
    wait_idle(pg)


def confirm_voiding(pg, voids: str = "") -> None:
    """Wait for "This change voids N sign-off(s)" after a save on a signed dossier, check it names ``voids``,
    and say yes (issue 36 item 3). ``wait_idle`` says yes too when it sees the question, but on a loaded
    machine its first look can come before the run that asks; a walk that knows its save voids waits here."""
    confirm = pg.locator(".st-key-voiding_save_confirm button")
    confirm.wait_for()
    asked = pg.locator("[data-testid='stMain']").first.inner_text()
    assert "This change voids" in asked and voids in asked, asked[-600:]
    say_yes(pg)
    wait_idle(pg)


def saved(pg, done) -> None:
    """Wait for ``done`` (a locator) after a save, saying yes first if the save asks to void sign-offs."""
    confirm = pg.locator(".st-key-voiding_save_confirm button")
    done.or_(confirm).first.wait_for()
    if confirm.count():
        say_yes(pg)
    done.wait_for()
