"""Shared page plumbing: the store connection, the current dossier, the sidebar.

Only session plumbing lives here; no scoring, no SQL. App state uses its own keys
(``dossier_id``, ``reviewer``, ``seen_versions``), never widget keys.

Who acts: ``identity()`` reads the login this deployment uses (``governance.identity.config``): the
sidebar's reviewer name locally, Streamlit's ``st.user`` with OIDC, or a trusted proxy's header from
``st.context``; the domain gets an ``Identity`` and checks roles itself. No lost updates: the hash of
the version this session was shown is kept in ``seen_versions`` and every save passes it as the
expected parent, so a save or sign-off after someone else's save is refused with what changed.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import unquote

import streamlit as st

from governance import Dossier, Store
from governance.decision import DecisionError
from governance.dossier import DossierVersion, SaveConflict, StoreError, database_url, default_home
from governance.identity import (
    Access,
    Actor,
    Identity,
    IdentityConfig,
    IdentityConfigError,
    PermissionDenied,
    access_for,
    direct_peer,
    is_placeholder_name,
    load_config,
    local_identity,
    oidc_identity,
    proxy_identity,
    resolve_proxy_chain,
    save_as,
    server_rewrites_forwarded_for,
    written_versions,
)

if TYPE_CHECKING:
    from collections.abc import Callable
from pages.narrow_css import NARROW_CSS
from reports import md

IDLE_RELEASE_SECONDS = 1.0
"""Seconds without use after which the app closes its DuckDB file (``$MEDASSURE_IDLE_RELEASE``)."""
TIER_COLOURS = {"low": "green", "moderate": "orange", "high": "red", "critical": "violet"}


def plain(value: object) -> str:
    """User text shown as typed inside ``st.markdown``/``caption``/``info``/expander labels.

    Everything a person or a file supplied (titles, names, rationale, conditions, model names, run
    names) goes through this before it reaches a Markdown-rendering call: Markdown and HTML are
    escaped, so ``![x](http://host/a.png)`` stays text and the browser fetches nothing.

    Example:
        >>> plain("![x](http://example.invalid/a.png)")
        '!\\\\[x\\\\](http://example.invalid/a.png)'
    """
    return md(str(value))


def _through_the_router() -> None:
    """Send a page that Streamlit started without ``app.py`` back through the router.

    Streamlit sees our ``pages/`` folder at start-up and, until some session has run ``app.py``'s
    ``st.navigation``, serves a deep link such as ``/decision`` by running the page file alone (its
    old multipage mode): no sidebar, no current dossier. Every page imports this module, so the
    first such run switches that mode off and reruns, and the rerun goes through ``app.py``, which
    resolves the same URL to the same page. ``PagesManager`` is Streamlit's internal switch (the
    one ``st.navigation`` itself clears); if it moves, this does nothing and the browser test
    ``tests/browser/test_app_shell.py`` says so.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a later Streamlit without the switch
        return
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


_through_the_router()


@st.cache_resource(show_spinner=False)
def _store(location: str) -> Store:
    if "://" in location:  # MEDASSURE_DATABASE_URL: a PostgreSQL server shared with other processes
        return Store.open_url(location)
    # the file is let go of when idle, so `medassure dossier show/assess/report` get in (issue 27 item 14)
    idle = float(os.environ.get("MEDASSURE_IDLE_RELEASE") or IDLE_RELEASE_SECONDS)
    return Store.open(__import__("pathlib").Path(location), release_when_idle=idle)


def store() -> Store:
    """The one store of this app process: the DuckDB file (one writer), or the shared PostgreSQL server."""
    try:
        return _store(database_url() or str(default_home() / "medassure.duckdb"))
    except StoreError as exc:
        st.error(str(exc))
        st.stop()


@st.cache_data(ttl=60, show_spinner=False, max_entries=512)
def _watched(location: str, dossier_id: str, version: int, verdicts: int) -> str | None:
    from governance.monitoring import monitoring_state

    return monitoring_state(store(), dossier_id)


def monitoring_words(dossier_id: str, version: int) -> str | None:
    """The dossier's monitoring state in words ("in control", "pause", ..., or "feed does not match its seal:
    run verify" when rows were removed or added behind the app's back), None when nothing is watched.

    Drawn on every page (the sidebar) and for every dossier (the Dossiers list), it is computed once per
    dossier version and count of audit verdicts (a closed production queue adds verdicts without a new
    version) and kept for a minute at most, as the state also moves with the clock (a feed that stops
    arriving). Computing it took 1.2 s on the demo and about 6 s on a 1M-row PostgreSQL feed, on every rerun.
    """
    from governance.monitoring import MONITORING_WORDS

    here = store()
    state = _watched(here.location, dossier_id, version, len(here.monitoring.audit_verdict_rows(dossier_id)))
    return MONITORING_WORDS[state] if state else None


def _marked(words: str) -> str:
    """The monitoring words in bold; in red when the feed no longer matches its seal (no status at all)."""
    from governance.monitoring import MONITORING_WORDS, SEAL_BROKEN

    return f":red[**{words}**]" if words == MONITORING_WORDS[SEAL_BROKEN] else f"**{words}**"


REVIEWER_COOKIE = "medassure_reviewer"
"""The browser-session cookie that keeps the typed Reviewer name over reloads and new tabs."""


def is_named(name: str | None) -> bool:
    """Whether ``name`` names a person (not empty, not the placeholder "reviewer"; the identity's rule)."""
    return not is_placeholder_name(name)


def _remembered_reviewer() -> str:
    """The name this browser typed earlier in its session (the cookie it sent when this tab connected)."""
    try:
        raw = st.context.cookies.get(REVIEWER_COOKIE)
    except Exception:  # no browser connection (bare mode)
        return ""
    if not isinstance(raw, str):  # AppTest's context is a stand-in
        return ""
    name = unquote(raw).strip()
    return name if is_named(name) else ""


def _remember_script(name: str) -> str:
    """A script that sets the browser-session cookie to ``name`` (no expiry: gone when the browser closes)."""
    value = json.dumps(name).replace("<", "\\u003c")
    return (f'<script>document.cookie = "{REVIEWER_COOKIE}=" + encodeURIComponent({value}) + '
            '"; path=/; SameSite=Strict";</script>')


def _typed_reviewer() -> str:
    return st.session_state.get("reviewer") or os.environ.get("MEDASSURE_USER") or ""


def reviewer() -> str:
    """Who is using the app (recorded on every save and decision): signed-in name, locally the typed one."""
    if config().mode == "local":
        return _typed_reviewer()
    who = identity()
    return who.name if who is not None else "not signed in"


def config() -> IdentityConfig:
    """The deployment's identity settings (a broken file stops the page with its message)."""
    try:
        return load_config()
    except IdentityConfigError as exc:
        st.error(f"Identity settings cannot be read: {exc}")
        st.stop()


def identity() -> Identity | None:
    """Who is using the app, as this deployment knows it; None: nobody signed in (read-only)."""
    cfg = config()
    if cfg.mode == "oidc":
        return oidc_identity(st.user.to_dict())
    if cfg.mode == "proxy":
        return proxy_identity(dict(st.context.headers.items()), _proxy_peer(), cfg.proxy_header,
                              cfg.trusted_proxies, forwarded_for=_forwarded_for())
    # Local: the typed name is all there is. No name (or the old placeholder) is nobody: read-only, so an
    # unnoticed reload never credits a sign-off, rating or resolution to "reviewer" (issue 36 item 1).
    name = _typed_reviewer()
    return local_identity(name) if is_named(name) else None


def actor() -> Actor:
    """Who acts on this page: the signed-in identity (None: read-only), recorded as ``reviewer()``."""
    return Actor.of(identity(), name=reviewer())


def _proxy_peer() -> str | None:
    """The connection's own address; None when uvicorn may have taken it from X-Forwarded-For."""
    return direct_peer(st.context.ip_address, _forwarded_for(), server_rewrites_forwarded_for())


def _forwarded_for() -> list[str]:
    """Every ``X-Forwarded-For`` line of the request, in order (a proxy may add a line of its own)."""
    return list(st.context.headers.get_all("X-Forwarded-For"))


def access() -> Access:
    """What the current identity may do on the current dossier."""
    return access_for(identity(), st.session_state.get("dossier_id"), config())


def _seen() -> dict[str, str]:
    return st.session_state.setdefault("seen_versions", {})


def current() -> DossierVersion | None:
    """The latest version of the dossier chosen in the sidebar, if any."""
    dossier_id = st.session_state.get("dossier_id")
    if not dossier_id:
        return None
    found = store().latest_or_none(dossier_id)
    if found is None:
        st.session_state["dossier_id"] = None
    else:
        _seen().setdefault(dossier_id, found.hash)  # the first version this session is shown
    return found


def _accept_latest(dossier_id: str, digest: str) -> None:
    _seen()[dossier_id] = digest


accept_latest = _accept_latest
"""Take ``digest`` as the version this session has seen (after its user reviewed what changed)."""


def seen_version(dossier_id: str) -> DossierVersion | None:
    """The version this session was shown (what its forms started from), None when it is not stored."""
    seen = _seen().get(dossier_id)
    number = next((h.version for h in store().history(dossier_id) if h.hash == seen), None)
    return store().load(dossier_id, number) if number is not None else None


def others_since_seen(v: DossierVersion) -> list:
    """Versions others saved after the one this session was shown (its own are skipped; [] when none)."""
    seen = _seen().get(v.dossier.id)
    if seen is None or seen == v.hash:
        return []
    others = _catch_up(v)
    if not others:
        _seen()[v.dossier.id] = v.hash
    return others


def _own() -> dict[str, list[str]]:
    return st.session_state.setdefault("own_versions", {})


def record_own(dossier_id: str, digest: str, parent: str | None) -> None:
    """This session wrote the version ``digest`` (child of ``parent``): it is seen, never someone else's.

    The seen version moves on when the write was based on it; when someone else saved in between, it
    stays, so the warning still names their version (``_catch_up`` skips ours).
    """
    own = _own().setdefault(dossier_id, [])
    if digest not in own:
        own.append(digest)
    seen = _seen().get(dossier_id)
    if seen is None or seen in (parent, digest):
        _seen()[dossier_id] = digest


def recorded(versions) -> None:
    """Record versions the operations reported writing (``governance.written_versions``) as this session's."""
    for v in versions:
        record_own(v.dossier.id, v.hash, v.parent_hash)


def _catch_up(v: DossierVersion) -> list:
    """Move the seen version over this session's own versions that follow it; the later versions by others.

    A version counts as this session's only when it is on its receipt (``record_own``): two people who
    both type the name "reviewer" are still told about each other's saves.
    """
    dossier_id = v.dossier.id
    history = store().history(dossier_id)
    seen, own = _seen().get(dossier_id), set(_own().get(dossier_id, []))
    start = next((i for i, h in enumerate(history) if h.hash == seen), None)
    if start is None:  # the version shown is not stored (any more): whatever is there is news
        return [history[-1]] if history else []
    others = []
    for h in history[start + 1:]:
        if h.hash in own and not others and h.parent_hash == _seen()[dossier_id]:
            _seen()[dossier_id] = h.hash
        elif h.hash not in own:
            others.append(h)
    return others


def _changed_since_seen(v: DossierVersion) -> None:
    """Warn that someone else saved since this session's version, with what changed and a way on."""
    from governance.dossier import diff_versions

    others = others_since_seen(v)
    if not others:  # nothing new, or every version since is this session's own
        return
    seen = _seen()[v.dossier.id]
    base = next((h.version for h in reversed(store().history(v.dossier.id)) if h.hash == seen), None)
    changes = diff_versions(store(), v.dossier.id, base, v.version).changes if base else []
    lines = [c.text for c in changes[:8]]
    by = ", ".join(dict.fromkeys(plain(h.author) for h in others))  # ours are not named
    which = (f"version {others[0].version}" if len(others) == 1 else
             f"versions {', '.join(str(h.version) for h in others)}")
    st.warning(f"**Someone else saved this dossier while you worked:** {which} by "
               f"{by} (you were shown version {base or 'an earlier one'}). The page now shows "
               f"version {v.version}; your next save or sign-off is refused until you have reviewed the "
               "changes.")
    for line in lines:
        st.text(line)
    st.button(f"I have reviewed the changes: continue with version {v.version}", key="seen_continue",
              on_click=_accept_latest, args=(v.dossier.id, v.hash))


def require_dossier() -> DossierVersion:
    """The current dossier, or a hint and a stop when none is chosen."""
    v = current()
    if v is None:
        st.info("Choose or create a dossier on the **Dossiers** page first.")
        st.stop()
    _changed_since_seen(v)
    return v


def seen_hash(dossier_id: str) -> str | None:
    """The hash of the version this session was shown (what a save or sign-off is based on)."""
    return _seen().get(dossier_id)


@contextmanager
def permitted():
    """Around every front-desk write on a page (a run, an attachment, an import, an attestation).

    A refusal for want of a role is shown as the reason and stops the page; the operation refused before
    it stored or sent anything. Every dossier version the operation wrote (``written_versions``) is
    recorded as this session's own, so it is never reported as someone else's save and the next save
    on any page builds on it.
    """
    with written_versions() as got:
        try:
            yield
        except PermissionDenied as exc:
            st.error(str(exc))
            st.stop()
        finally:
            recorded(got)


def save(dossier: Dossier, note: str, *, ask_to_void: bool = True, then: dict | None = None
         ) -> DossierVersion:
    """Save a new version as the current identity, based on the version shown, and say what happened.

    A refusal (no permission, or someone else saved first) is shown and stops the page; nothing is saved.
    A change that would void sign-offs first says which and waits for a confirmation (``signoff_guard``;
    ``ask_to_void=False`` where the page itself is about sign-offs: the Decision page). ``then`` holds
    session-state values (a page's flash message) set once the save is made, also after that confirmation.
    """
    before = current()
    if before is not None and before.dossier.id != dossier.id:
        before = None  # a new or imported dossier: the one in the sidebar is not what changes
    seen = seen_hash(dossier.id)
    if ask_to_void and before is not None and seen in (None, before.hash):
        # Asked only of a save that can land: over another session's save it is refused below first, and the
        # question would be about sign-offs on a version the user was not shown.
        from pages.signoff_guard import ask_before_voiding  # it builds on this module

        ask_before_voiding(before, dossier, note, then)
    try:
        v = save_as(store(), identity(), dossier, note, expected_hash=seen, config=config())
    except (PermissionDenied, SaveConflict, DecisionError) as exc:
        st.error(str(exc))
        st.stop()
    record_own(dossier.id, v.hash, v.parent_hash)
    if before is not None and v.version == before.version:
        st.toast("Nothing changed; no new version.")
    else:
        st.toast(f"Saved version {v.version} ({v.hash[:12]}).")
    st.session_state.update(then or {})
    return v


def _choose_dossier() -> None:
    st.session_state["dossier_id"] = st.session_state["sidebar_dossier"]
    st.session_state["new_dossier"] = False


def _copy_reviewer() -> None:
    st.session_state["reviewer"] = st.session_state["reviewer_input"].strip()


def guarded(step: Callable[[], object]) -> None:
    """Run ``step`` (the sidebar, a page); a store error it raises is shown as one line, not a traceback.

    Store errors carry messages written for the user (a refused key names its file, an unreadable row
    names ``medassure verify``); Streamlit's own control flow (rerun, stop) is not a store error and
    passes through.
    """
    try:
        step()
    except StoreError as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        st.error(f"{plain(first)} Nothing was changed.")


def sidebar() -> None:
    """Current dossier, its version and risk tier; the reviewer's name; the database path."""
    st.session_state.setdefault("reviewer", _remembered_reviewer() or os.environ.get("MEDASSURE_USER", ""))
    st.html(NARROW_CSS)  # style only: Streamlit adds no visible element for it
    with st.sidebar:
        for note in store().open_warnings:  # e.g. a damaged write-ahead log set aside: said on every page
            st.warning(note)
        dossiers = [d for d in store().list_dossiers() if not d.discarded]  # a discarded practice copy
        if dossiers:
            ids = [d.id for d in dossiers]
            labels = {d.id: ("PRACTICE · " if d.practice_of and not d.title.startswith("PRACTICE") else "")
                      + f"{d.title[:40]} ({d.id})" for d in dossiers}
            if st.session_state.get("dossier_id") not in ids:
                st.session_state["dossier_id"] = ids[0]
            # App state leads and the widget follows: a save on another page (a new dossier) changes
            # ``dossier_id``, and the selectbox's own remembered choice must not switch it back.
            st.session_state["sidebar_dossier"] = st.session_state["dossier_id"]
            st.selectbox("Dossier", ids, format_func=labels.get, key="sidebar_dossier",
                         on_change=_choose_dossier)
            v = current()
            if v is not None:
                tier = v.dossier.risk.tier
                watched = monitoring_words(v.dossier.id, v.version)  # a paused use looks paused (issue 36)
                st.markdown(f"**Version {v.version}** · `{v.hash[:12]}`  \n"
                            f"Risk tier: :{TIER_COLOURS[tier]}[**{tier}**] · status "
                            f"{v.dossier.status.replace('_', ' ')}"
                            + (f" · monitoring {_marked(watched)}" if watched else ""))
                if v.dossier.practice is not None:  # issue 36 item 16: never taken for the record
                    from governance.dossier import practice_line

                    st.warning(f"**{plain(practice_line(v.dossier.practice))}.**")
                if v.integrity_problem:
                    st.error(f"**Record integrity:** {v.integrity_problem}")
        _identity_line()
        shared = store().backend == "postgresql"
        st.caption(f"{'Shared database' if shared else 'Database'}: {plain(store().location)}")


def _identity_line() -> None:
    """Who is acting, how the deployment knows it, and their roles (with log in / log out for OIDC)."""
    cfg = config()
    if cfg.mode == "local":
        st.text_input("Reviewer", value=st.session_state["reviewer"], key="reviewer_input",
                      on_change=_copy_reviewer, placeholder="Your name",
                      help="Recorded on every save, decision and sign-off; kept until the browser closes.")
        name = st.session_state["reviewer"]
        if is_named(name) and name != _remembered_reviewer():  # this tab's cookie is older: update it
            st.html(_remember_script(name), unsafe_allow_javascript=True)
    who, acc = identity(), access()
    if who is None:
        st.warning("Not signed in: read-only." if cfg.mode == "oidc" else
                   "No signed-in user came from the trusted proxy: read-only." if cfg.mode == "proxy" else
                   "Type your name under **Reviewer** to save, rate or sign: nothing is recorded without a "
                   'name (nor under "reviewer"). Read-only until then.')
        if cfg.mode == "proxy" and _proxy_peer() is None:
            st.caption("The web server replaced this connection's address with one from X-Forwarded-For, "
                       "so MedAssure cannot tell whether it came from the trusted proxy. Start the app "
                       'with `FORWARDED_ALLOW_IPS=""` (docs/shared-deployment.md, "Trusted proxy").')
        elif cfg.mode == "proxy" and st.context.headers.get(cfg.proxy_header):  # sent, not believed: why
            why = resolve_proxy_chain(_proxy_peer(), _forwarded_for(), cfg.trusted_proxies).reason
            st.caption(f"The identity header was ignored: {plain(why)} "
                       '(docs/shared-deployment.md, "Trusted proxy").')
    else:
        st.caption(f"Acting as **{plain(who.name)}** · {plain(who.auth_label)} · "
                   f"roles: {plain(acc.describe())}")
    if cfg.mode == "oidc":
        if who is None:
            st.button("Log in", key="identity_login", on_click=st.login)
        else:
            st.button("Log out", key="identity_logout", on_click=st.logout)
