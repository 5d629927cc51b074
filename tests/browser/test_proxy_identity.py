"""Proxy sign-in in a real browser: the proxy's own address is trusted, never one named in X-Forwarded-For.

Each case puts ``tests/browser/header_proxy.py`` between Chromium and the app, connecting from a chosen
source address on loopback and setting the identity header and ``X-Forwarded-For``, then reads who the
sidebar says is acting. Streamlit 1.67 serves through uvicorn, whose proxy-header middleware replaces
the client address with one from ``X-Forwarded-For`` when the connection comes from an address in
``FORWARDED_ALLOW_IPS`` (default ``127.0.0.1,::1``). The first two servers run with that default
(trusting 127.0.0.2, then 127.0.0.1), the third as documented: ``FORWARDED_ALLOW_IPS=""`` and a
proxy on 127.0.0.1.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import wait_idle
from tests.browser.header_proxy import HeaderProxy

CHAIR = "rivera@hospital.org"
MEMBERS = f'[members]\n"{CHAIR}" = ["chair"]\n'
NOBODY = "No signed-in user came from the trusted proxy"
UNKNOWN_PEER = "FORWARDED_ALLOW_IPS"


def _proxy_app(app_factory, tmp_path, trusted: str, forwarded_allow_ips: str):
    home = tmp_path / "proxy-home"
    home.mkdir(parents=True)
    (home / "identity.toml").write_text(MEMBERS, encoding="utf-8")
    return app_factory(seed_demo=False, extra_env={
        "MEDASSURE_HOME": str(home), "MEDASSURE_AUTH_MODE": "proxy", "MEDASSURE_TRUSTED_PROXIES": trusted,
        "FORWARDED_ALLOW_IPS": forwarded_allow_ips})


def _signed_in(browser, app, source: str, headers: dict[str, str | None]) -> str:
    """Who the sidebar says is acting, seen through a proxy from ``source`` sending ``headers``."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        with HeaderProxy(int(app.url.rsplit(":", 1)[1]), source=source, headers=headers) as proxy:
            pg = context.new_page()
            pg.set_default_timeout(60_000)
            pg.goto(proxy.url)
            sidebar = pg.locator('[data-testid="stSidebar"]')
            sidebar.get_by_text("Acting as").or_(sidebar.get_by_text(NOBODY)).first.wait_for()
            wait_idle(pg)
            text = sidebar.inner_text()
            assert proxy.requests > 0
    finally:
        context.close()
    if "Acting as" in text:
        return text.split("Acting as", 1)[1].split("·", 1)[0].strip()
    return "nobody (peer unknown)" if UNKNOWN_PEER in text else "nobody"


# source address, headers the proxy sets → who is signed in
DEFAULT_UVICORN = [
    # the attack of issue 25: a connection from 127.0.0.1 names the trusted proxy in X-Forwarded-For
    ("127.0.0.1", {"X-Forwarded-Email": CHAIR, "X-Forwarded-For": "127.0.0.2"}, "nobody (peer unknown)"),
    ("127.0.0.1", {"X-Forwarded-Email": CHAIR, "X-Forwarded-For": "10.9.9.9, 127.0.0.2"},
     "nobody (peer unknown)"),
    ("127.0.0.3", {"X-Forwarded-Email": CHAIR, "X-Forwarded-For": "127.0.0.2"}, "nobody"),
    ("127.0.0.1", {"X-Forwarded-Email": CHAIR, "X-Forwarded-For": None}, "nobody"),
    # the trusted proxy itself, with and without appending the browser's address
    ("127.0.0.2", {"X-Forwarded-Email": CHAIR, "X-Forwarded-For": "10.1.2.3"}, CHAIR),
    ("127.0.0.2", {"X-Forwarded-Email": CHAIR, "X-Forwarded-For": None}, CHAIR),
    ("127.0.0.2", {"X-Forwarded-Email": None, "X-Forwarded-For": "10.1.2.3"}, "nobody"),
]

SAME_HOST_PROXY_DEFAULT_UVICORN = [
    # the converse of issue 25 as found: uvicorn replaced the proxy's 127.0.0.1 with the browser's
    # address, so the proxy cannot be recognised; the sidebar says why and how to start the app
    ("127.0.0.1", {"X-Forwarded-Email": CHAIR, "X-Forwarded-For": "10.1.2.3"}, "nobody (peer unknown)"),
    ("127.0.0.1", {"X-Forwarded-Email": CHAIR, "X-Forwarded-For": None}, CHAIR),
]

SAME_HOST_PROXY = [
    # the converse of issue 25: a real proxy on 127.0.0.1 that appends X-Forwarded-For
    ("127.0.0.1", {"X-Forwarded-Email": CHAIR, "X-Forwarded-For": "10.1.2.3"}, CHAIR),
    ("127.0.0.1", {"X-Forwarded-Email": CHAIR, "X-Forwarded-For": None}, CHAIR),
    ("127.0.0.2", {"X-Forwarded-Email": CHAIR, "X-Forwarded-For": "127.0.0.1"}, "nobody"),
    ("127.0.0.2", {"X-Forwarded-Email": CHAIR, "X-Forwarded-For": None}, "nobody"),
]


SERVERS = {  # trusted proxies, uvicorn's FORWARDED_ALLOW_IPS, cases
    "trusts 127.0.0.2, uvicorn defaults": ("127.0.0.2", "127.0.0.1,::1", DEFAULT_UVICORN),
    "trusts 127.0.0.1, uvicorn defaults": ("127.0.0.1", "127.0.0.1,::1", SAME_HOST_PROXY_DEFAULT_UVICORN),
    'trusts 127.0.0.1, FORWARDED_ALLOW_IPS=""': ("127.0.0.1", "", SAME_HOST_PROXY),
}


@pytest.mark.slow
@pytest.mark.parametrize("server", list(SERVERS))
def test_who_is_signed_in_through_a_proxy(server, browser, app_factory, tmp_path):
    trusted, forwarded_allow_ips, cases = SERVERS[server]
    app = _proxy_app(app_factory, tmp_path, trusted, forwarded_allow_ips)
    seen = [(src, hdrs, _signed_in(browser, app, src, hdrs)) for src, hdrs, _ in cases]
    assert [s[2] for s in seen] == [c[2] for c in cases], seen
