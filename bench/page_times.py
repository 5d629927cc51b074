"""How long does a person wait for the first page and for the Task mapping suggestions?

Prints figures; it is not a timed test (the machine is shared). Starts ``streamlit run app.py`` on a free
loopback port with a fresh ``MEDASSURE_HOME`` holding the demo dossier, drives Debian's headless Chromium
(Playwright) at 1400 × 900, and times from ``goto``:

* **first page**: the Dossiers heading visible after a server start (the first script run of the process,
  which also starts the sentence-model warm-up);
* **internal modules in the sidebar**: until ``st.navigation`` reaches the browser, Streamlit lists every
  file of ``pages/`` it auto-discovers (helpers such as ``ui``, ``tables``, ``job panel`` too). The
  sidebar's links are sampled every 25 ms; the figure is how long any link not in the app's navigation
  was on screen, and which names;
* **Task mapping**: heading visible, first suggestion visible, what the page said meanwhile (spinner or
  status text), once right after the start (model still loading) and once more after a reload (model
  loaded: the target is under 2 s);
* **Re-evaluation page**: heading visible (the page itself, not a run).

Usage: .venv/bin/python bench/page_times.py [--quick] [--repeat N] [--app-dir DIR]

``--quick`` (``make bench-smoke``) is one server start and no model wait beyond 120 s; ``--app-dir``
measures another checkout (e.g. a scratch copy with helper modules moved out of ``pages/``).
Targets from issue 27: first page under 3 s, mapping suggestions under 2 s once the model is loaded, a
visible status for anything longer.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
# The titles the app routes, read from app.py's st.Page(...) calls, so a page added there is never counted
# as a stray module (a hand-kept list missed Monitoring and Rate outputs, and every run then waited 60 s).
NAV_TITLES = set(re.findall(r'st\.Page\([^)]*title="([^"]+)"', (REPO / "app.py").read_text()))
SUGGESTION = "Suggested subcategories"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(app_dir: Path, home: Path) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "MEDASSURE_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "MEDASSURE_USER": "bench", "PYTHONPATH": str(app_dir)}
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
         f"--server.port={port}", "--server.address=127.0.0.1", "--browser.gatherUsageStats=false",
         "--server.fileWatcherType=none"],
        cwd=app_dir, env=env, stdout=(home / "streamlit.log").open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not become healthy in 60 s: see " + str(home / "streamlit.log"))


def sidebar_links(page) -> list[str]:
    try:
        return page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()
    except Exception:  # the page is between renders
        return []


def first_page(page, url: str) -> dict:
    """Time to the Dossiers heading, and how long non-page modules were listed in the sidebar."""
    t0 = time.monotonic()
    page.goto(url, wait_until="commit")
    foreign_first = foreign_last = heading = None
    names: set[str] = set()
    while time.monotonic() - t0 < 60:
        now = time.monotonic() - t0
        links = [x.strip() for x in sidebar_links(page)]
        foreign = [x for x in links if x and x not in NAV_TITLES]
        if foreign:
            names |= set(foreign)
            foreign_first = now if foreign_first is None else foreign_first
            foreign_last = now
        if heading is None and page.get_by_role("heading", name="Dossiers").count():
            heading = now
        if heading is not None and links and not foreign:
            break
        time.sleep(0.025)
    shown = 0.0 if foreign_first is None else foreign_last - foreign_first + 0.025
    return {"first_page_s": heading, "internal_modules_shown_s": shown, "internal_modules": sorted(names)}


def mapping_page(page, url: str, limit_s: float) -> dict:
    """Time to the Task mapping heading and to the first suggestion, and the waiting text shown."""
    t0 = time.monotonic()
    page.goto(url + "/task_mapping", wait_until="commit")
    heading = first = None
    said: list[str] = []
    while time.monotonic() - t0 < limit_s:
        now = time.monotonic() - t0
        if heading is None and page.get_by_role("heading", name="Task mapping").count():
            heading = now
        for sel in ('[data-testid="stSpinner"]', '[data-testid="stAlert"]:has-text("sentence model")'):
            try:
                for text in page.locator(sel).all_inner_texts():
                    text = " ".join(text.split())[:140]
                    if text and text not in said:
                        said.append(text)
            except Exception:
                pass
        if page.get_by_role("heading", name=SUGGESTION).count() and page.locator(
                'button:has-text("Accept")').count():
            first = now
            heading = now if heading is None else heading  # both arrived between two samples
            break
        time.sleep(0.05)
    return {"heading_s": heading, "suggestions_s": first, "waiting_text": said}


def heading_time(page, url: str, path: str, name: str) -> float | None:
    t0 = time.monotonic()
    page.goto(url + path, wait_until="commit")
    page.get_by_role("heading", name=name).first.wait_for(timeout=60_000)
    return time.monotonic() - t0


def one_start(app_dir: Path, quick: bool) -> dict:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="medassure-bench-") as tmp:
        home = Path(tmp)
        env = {**os.environ, "MEDASSURE_HOME": str(home), "PYTHONPATH": str(app_dir)}
        subprocess.run([sys.executable, "-m", "cli", "demo"], cwd=app_dir, env=env, check=True,
                       capture_output=True, timeout=300)
        proc, url = start_server(app_dir, home)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                out = first_page(page, url)
                out["mapping_cold"] = mapping_page(page, url, 120 if quick else 180)
                out["mapping_warm"] = mapping_page(page, url, 60)
                out["reevaluation_s"] = heading_time(page, url, "/reevaluation", "Re-evaluation")
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    return out


def fmt(x: float | None) -> str:
    return "  —  " if x is None else f"{x:5.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one server start (make bench-smoke)")
    ap.add_argument("--repeat", type=int, default=3, help="server starts to time (default 3)")
    ap.add_argument("--app-dir", type=Path, default=REPO, help="checkout to run (default: this one)")
    args = ap.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"page_times: skipped, {CHROMIUM} is missing (make browser-deps)")
        return
    runs = [one_start(args.app_dir.resolve(), args.quick) for _ in range(1 if args.quick else args.repeat)]
    print(f"app: {args.app_dir.resolve()}  ({len(runs)} server start(s), Chromium 1400 × 900)")
    cols = [("first page", lambda r: r["first_page_s"]),
            ("internal modules shown", lambda r: r["internal_modules_shown_s"]),
            ("mapping heading (cold)", lambda r: r["mapping_cold"]["heading_s"]),
            ("suggestions (cold)", lambda r: r["mapping_cold"]["suggestions_s"]),
            ("mapping heading (warm)", lambda r: r["mapping_warm"]["heading_s"]),
            ("suggestions (warm)", lambda r: r["mapping_warm"]["suggestions_s"]),
            ("re-evaluation page", lambda r: r["reevaluation_s"])]
    for name, get in cols:
        values = [get(r) for r in runs]
        known = [v for v in values if v is not None]
        median = f"  median {statistics.median(known):5.2f} s" if len(known) > 1 else ""
        print(f"{name:>24}: " + "  ".join(f"{fmt(v)} s" for v in values) + median)
    last = runs[-1]
    print("internal modules listed:", ", ".join(last["internal_modules"]) or "none")
    print("Task mapping said while loading (cold):",
          " | ".join(last["mapping_cold"]["waiting_text"]) or "nothing")
    print("targets: first page < 3 s; suggestions < 2 s once the model is loaded; a visible status otherwise")


if __name__ == "__main__":
    main()
