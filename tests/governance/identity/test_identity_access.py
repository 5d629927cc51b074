"""Identity in each mode, committee roles, and the domain refusing what a member may not do."""

from __future__ import annotations

import logging

import pytest

from governance.decision import committee
from governance.decision.signoff import signoff_status
from governance.dossier.store import Store
from governance.identity.access import PermissionDenied, access_for
from governance.identity.config import (
    IdentityConfig,
    IdentityConfigError,
    load_config,
    server_rewrites_forwarded_for,
)
from governance.identity.identity import (
    Identity,
    direct_peer,
    local_identity,
    oidc_identity,
    proxy_identity,
    service_identity,
)
from governance.identity.operations.save import save_as
from governance.rules.records import AcceptancePolicy, MinNRule
from tests.governance.policy_fixtures import dossier, ev

ISSUER = "https://login.example-hospital.org"
CLAIMS = {"is_logged_in": True, "iss": ISSUER, "sub": "0f3a", "email": "rivera@hospital.org",
          "name": "Dr. Rivera"}


def person(email: str) -> Identity:
    return oidc_identity({**CLAIMS, "email": email, "name": email.split("@")[0]})


COMMITTEE = IdentityConfig(mode="oidc", members={
    "rivera@hospital.org": ["chair"],
    "lee@hospital.org": ["editor"],
    "chen@hospital.org": ["clinical lead", "procurement"],
    "viewer@hospital.org": ["viewer"],
}, dossiers={"D-test": {"members": {"okafor@hospital.org": ["privacy / compliance"],
                                     "osei@hospital.org": ["clinical lead"]}}})


@pytest.fixture
def committee_home(home):
    home.mkdir(parents=True, exist_ok=True)
    (home / "identity.toml").write_text('''
mode = "oidc"
[members]
"rivera@hospital.org" = ["chair"]
"lee@hospital.org" = ["editor"]
"chen@hospital.org" = ["clinical lead", "procurement"]
"viewer@hospital.org" = ["viewer"]
[dossiers."D-test".members]
"okafor@hospital.org" = ["privacy / compliance"]
"osei@hospital.org" = ["clinical lead"]
''')
    assert load_config() == COMMITTEE
    return home


def _base():
    return dossier([ev(0.9, 0.85, 0.95)], policy=AcceptancePolicy(rules=[MinNRule(
        id="n", threshold=10, rationale="a committee's reason for this bar")]))


# ---- identities ------------------------------------------------------------------------------
def test_oidc_identity_reads_the_login_claims_and_nobody_when_logged_out():
    who = oidc_identity(CLAIMS)
    assert (who.subject, who.issuer, who.name, who.authenticated) == (
        "rivera@hospital.org", ISSUER, "Dr. Rivera", True)
    assert who.auth_label == f"OIDC login at {ISSUER}, subject rivera@hospital.org"
    assert oidc_identity({"is_logged_in": False}) is None
    assert oidc_identity({"is_logged_in": True, "email": "x@y"}) is None  # no issuer: not trusted


def test_proxy_header_counts_only_from_a_trusted_address(caplog):
    headers = {"x-forwarded-email": "chen@hospital.org"}
    who = proxy_identity(headers, "10.1.2.3", "X-Forwarded-Email", ["10.1.2.0/24"])
    assert who.subject == "chen@hospital.org" and who.authenticated and who.mode == "proxy"
    with caplog.at_level(logging.WARNING):
        assert proxy_identity(headers, "203.0.113.7", "X-Forwarded-Email", ["10.1.2.0/24"]) is None
    assert "untrusted address 203.0.113.7" in caplog.text
    loopback = direct_peer(None, [], server_rewrites=True)  # Streamlit reports 127.0.0.1 as None
    assert proxy_identity(headers, loopback, "X-Forwarded-Email", ["127.0.0.1"]).subject == (
        "chen@hospital.org")
    assert proxy_identity({}, "10.1.2.3", "X-Forwarded-Email", ["10.1.2.0/24"]) is None


def test_an_unknown_peer_is_never_trusted():
    headers = {"x-forwarded-email": "chen@hospital.org"}
    assert proxy_identity(headers, None, "X-Forwarded-Email", ["127.0.0.1"]) is None
    assert proxy_identity(headers, None, "X-Forwarded-Email", ["0.0.0.0/0", "::/0"]) is None


# (address Streamlit reports, X-Forwarded-For values, does the server rewrite?) -> the direct peer
PEERS = [
    # issue 25: uvicorn took 127.0.0.2 from the header of a connection from 127.0.0.1
    ("127.0.0.2", ["127.0.0.2"], True, None),
    ("127.0.0.2", ["10.9.9.9, 127.0.0.2"], True, None),
    ("127.0.0.2", ["10.9.9.9", "127.0.0.2:5555"], True, None),
    ("2001:db8::2", ["[2001:db8::2]:443"], True, None),
    (None, ["::1"], True, None),  # a header naming loopback, reported as None
    (None, ["127.0.0.1"], True, None),
    # the reported address is not in the header: it cannot have come from there
    ("127.0.0.2", ["10.1.2.3"], True, "127.0.0.2"),
    ("10.0.0.5", [], True, "10.0.0.5"),
    (None, [], True, "127.0.0.1"),
    # the server rewrites nothing (FORWARDED_ALLOW_IPS=""): what it reports is the peer
    (None, ["10.1.2.3"], False, "127.0.0.1"),
    ("127.0.0.2", ["127.0.0.2"], False, "127.0.0.2"),
]


@pytest.mark.parametrize(("reported", "forwarded", "rewrites", "peer"), PEERS)
def test_the_direct_peer_is_never_an_address_from_x_forwarded_for(reported, forwarded, rewrites, peer):
    assert direct_peer(reported, forwarded, server_rewrites=rewrites) == peer


def test_the_server_rewrites_unless_forwarded_allow_ips_is_empty(monkeypatch):
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    assert server_rewrites_forwarded_for()  # uvicorn's default: 127.0.0.1,::1
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "10.0.0.0/8")
    assert server_rewrites_forwarded_for()
    for off in ("", " ", ","):
        monkeypatch.setenv("FORWARDED_ALLOW_IPS", off)
        assert not server_rewrites_forwarded_for()


def test_streamlit_leaves_uvicorn_proxy_headers_to_forwarded_allow_ips():
    """``server_rewrites_forwarded_for`` reads the variable because Streamlit sets no option of its own."""
    from streamlit.web.server.starlette import starlette_server

    kwargs = starlette_server._get_uvicorn_config_kwargs()
    assert "forwarded_allow_ips" not in kwargs and "proxy_headers" not in kwargs


def test_local_and_service_identities_are_marked_unauthenticated():
    assert local_identity("dr.lee").auth_label == "local, unauthenticated"
    assert not service_identity("medassure-cli").authenticated
    assert "service identity medassure-cli" in service_identity("medassure-cli").auth_label


def test_config_from_the_environment_and_a_broken_file(home, monkeypatch):
    monkeypatch.setenv("MEDASSURE_AUTH_MODE", "proxy")
    monkeypatch.setenv("MEDASSURE_TRUSTED_PROXIES", "10.0.0.5, 10.0.1.0/24")
    cfg = load_config()
    assert cfg.mode == "proxy" and cfg.trusted_proxies == ["10.0.0.5", "10.0.1.0/24"]
    home.mkdir(parents=True, exist_ok=True)
    (home / "identity.toml").write_text('mode = "kerberos"\n')
    monkeypatch.delenv("MEDASSURE_AUTH_MODE")
    with pytest.raises(IdentityConfigError, match="identity.toml: mode"):
        load_config()


# ---- roles -----------------------------------------------------------------------------------
def test_roles_per_deployment_and_per_dossier():
    chair = access_for(person("rivera@hospital.org"), "D-test", COMMITTEE)
    assert chair.is_chair and chair.can_edit and not chair.holds("clinical lead")
    okafor = access_for(person("okafor@hospital.org"), "D-test", COMMITTEE)
    assert okafor.holds("privacy / compliance") and not okafor.can_edit
    assert not access_for(person("okafor@hospital.org"), "D-other", COMMITTEE).holds("privacy / compliance")
    stranger = access_for(person("someone@hospital.org"), "D-test", COMMITTEE)
    assert stranger.roles == frozenset() and stranger.describe() == "no role: read-only"
    # A login without any membership configured gives no role; a local desk user holds them all.
    assert not access_for(person("x@hospital.org"), "D-test", IdentityConfig(mode="oidc")).can_edit
    assert access_for(local_identity("me"), "D-test", IdentityConfig()).is_chair
    assert access_for(None, "D-test", IdentityConfig()).describe() == "not signed in: read-only"


def test_only_editors_edit_and_a_refused_save_writes_nothing(committee_home):
    store = Store.open(committee_home / "medassure.duckdb")
    first = save_as(store, person("lee@hospital.org"), _base(), "created")
    assert (first.author, first.auth) == ("lee", f"OIDC login at {ISSUER}, subject lee@hospital.org")
    retitled = first.dossier.model_copy(update={"title": "Retitled by a viewer"})
    with pytest.raises(PermissionDenied, match="needs the 'editor' role on dossier D-test"):
        save_as(store, person("viewer@hospital.org"), retitled, "edit", expected_hash=first.hash)
    with pytest.raises(PermissionDenied, match="Nobody is signed in"):
        save_as(store, None, retitled, "edit", expected_hash=first.hash)
    assert store.load("D-test").version == 1 and len(store.audit_log("D-test")) == 1
    assert store.audit_log("D-test")[0].auth.startswith("OIDC login")
    store.close()


def test_only_the_chair_decides_and_only_role_holders_sign(committee_home):
    store = Store.open(committee_home / "medassure.duckdb")
    v1 = save_as(store, person("lee@hospital.org"), _base(), "created")
    args = ("approve", "all rules pass on this evidence", [])
    with pytest.raises(PermissionDenied, match="record the committee's decision"):
        committee.decide(v1.dossier, *args, by="lee", identity=person("lee@hospital.org"))
    decided = committee.decide(v1.dossier, *args, by="ignored", identity=person("rivera@hospital.org"),
                               required_roles=["clinical lead", "privacy / compliance", "procurement"],
                               override_gaps="a test dossier: the plan is not what this test checks")
    assert decided.decision.decided_by == "rivera"
    with pytest.raises(PermissionDenied, match="record or change the committee's decision"):
        save_as(store, person("lee@hospital.org"), decided, "decision", expected_hash=v1.hash)
    v2 = save_as(store, person("rivera@hospital.org"), decided, "decision", expected_hash=v1.hash)

    with pytest.raises(PermissionDenied, match="sign off as 'clinical lead'"):
        committee.sign(v2.dossier, "clinical lead", "typed", v2.hash, identity=person("lee@hospital.org"))
    signed = committee.sign(v2.dossier, "clinical lead", "typed name", v2.hash,
                            identity=person("chen@hospital.org"))
    s = signed.signoffs[-1]
    assert (s.name, s.subject, s.issuer) == ("chen", "chen@hospital.org", ISSUER)  # not the typed name
    # chen also holds procurement, but one identity signs one required role
    with pytest.raises(PermissionDenied, match="separation of duties"):
        committee.sign(signed, "procurement", "", v2.hash, identity=person("chen@hospital.org"))
    # a member may not save a sign-off recorded for somebody else
    with pytest.raises(PermissionDenied, match="recorded for chen"):
        save_as(store, person("osei@hospital.org"), signed, "sign-off", expected_hash=v2.hash)
    v3 = save_as(store, person("chen@hospital.org"), signed, "sign-off", expected_hash=v2.hash)
    both = committee.sign(v3.dossier, "privacy / compliance", "", v3.hash,
                          identity=person("okafor@hospital.org"))
    roles = {r.role: r.valid for r in signoff_status(both).roles}
    assert roles == {"clinical lead": True, "privacy / compliance": True, "procurement": False}
    store.close()


def test_the_cli_acts_as_the_configured_service_identity(committee_home, monkeypatch, capsys):
    from cli import main

    monkeypatch.setenv("MEDASSURE_SERVICE_IDENTITY", "medassure-cli")
    (committee_home / "identity.toml").write_text(
        (committee_home / "identity.toml").read_text().replace(
            "[members]", '[members]\n"medassure-cli" = ["chair"]'))
    store = Store.open(committee_home / "medassure.duckdb")
    save_as(store, person("lee@hospital.org"), _base(), "created")
    store.close()
    assert main(["decide", "D-test", "--decision", "reject", "--rationale", "the vendor withdrew it"]) == 0
    assert main(["signoff", "D-test", "--role", "clinical lead", "--name", "Dr. Chen"]) == 2
    assert "may not sign off as 'clinical lead'" in capsys.readouterr().err
    store = Store.open(committee_home / "medassure.duckdb")
    v = store.load("D-test")
    assert v.author == "medassure-cli" and v.auth.startswith("service identity medassure-cli")
    assert v.dossier.decision.decided_by == "medassure-cli"
    store.close()
