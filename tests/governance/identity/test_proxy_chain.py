"""Several proxy hops: X-Forwarded-For counted from the right past ``trusted_proxies``, failing closed.

Each case is (the connection's own address, the X-Forwarded-For lines, the client, is the identity
header believed). The expected values were worked out by hand from the rule (issue 35 item 6): walk
the header from the right, skip trusted proxies, the first untrusted address is the client (the
leftmost when all are trusted); believe the identity header only when the direct peer and every hop
between it and the client are trusted; refuse a malformed chain and one naming a trusted proxy beyond
an untrusted hop. Before this change only the direct peer counted: the cases marked ``# old: believed``
were believed then, and the IPv4-in-IPv6 peer was refused.
"""

from __future__ import annotations

import logging

import pytest

from governance.identity.config import IdentityConfigError, load_config
from governance.identity.identity import proxy_identity
from governance.identity.proxy_chain import MAX_HOPS, resolve_proxy_chain

TRUSTED = ["10.0.0.0/24", "2001:db8:a::/48", "192.0.2.10"]
CLIENT = "203.0.113.9"
HEADER = "X-Forwarded-Email"
ME = "chen@hospital.org"

BELIEVED = [
    # one hop: the proxy appended the browser's address
    ("10.0.0.2", [CLIENT], CLIENT),
    # two hops (load balancer 10.0.0.1, then oauth2-proxy 10.0.0.2), in one line and in two
    ("10.0.0.2", [f"{CLIENT}, 10.0.0.1"], CLIENT),
    ("10.0.0.2", [CLIENT, "10.0.0.1"], CLIENT),
    # three hops, the nearest listed as a single address rather than a network
    ("192.0.2.10", [f"{CLIENT}, 10.0.0.7, 10.0.0.1"], CLIENT),
    # the client wrote entries of its own in front: they are not the client
    ("10.0.0.2", [f"1.2.3.4, 5.6.7.8, {CLIENT}, 10.0.0.1"], CLIENT),
    ("10.0.0.2", ["1.2.3.4", f"{CLIENT}, 10.0.0.1"], CLIENT),
    # IPv6, with and without brackets and ports; a port on an IPv4 entry
    ("2001:db8:a::2", ["2001:db8:ffff::9, [2001:db8:a::1]:443"], "2001:db8:ffff::9"),
    ("2001:db8:a::2", ["[2001:db8:ffff::9]:51000"], "2001:db8:ffff::9"),
    ("10.0.0.2", [f"{CLIENT}:51000, 10.0.0.1:443"], CLIENT),
    # an IPv4 proxy written as IPv6 is the same proxy
    ("::ffff:10.0.0.2", [CLIENT], CLIENT),
    ("10.0.0.2", [f"{CLIENT}, ::ffff:10.0.0.1"], CLIENT),
    # CIDR edges: .255 is inside 10.0.0.0/24, 10.0.1.1 is the first address outside (so the client)
    ("10.0.0.255", ["10.0.1.1, 10.0.0.0"], "10.0.1.1"),
    # no header, or an empty one: the peer is the only hop, and the client is the peer
    ("10.0.0.2", [], "10.0.0.2"),
    ("10.0.0.2", [""], "10.0.0.2"),
    ("10.0.0.2", ["  "], "10.0.0.2"),
    # every address trusted: the leftmost is the client (as uvicorn reads it)
    ("10.0.0.2", ["10.0.0.9, 10.0.0.1"], "10.0.0.9"),
]

REFUSED = [
    # an untrusted hop between trusted ones (a proxy missing from the list, or a made-up entry)
    ("10.0.0.2", [f"{CLIENT}, 10.0.0.7, 198.51.100.4, 10.0.0.1"],
     "trusted proxy 10.0.0.7 beyond the untrusted hop 198.51.100.4"),  # old: believed
    ("10.0.0.2", [f"10.0.0.1, {CLIENT}"], "trusted proxy 10.0.0.1 beyond the untrusted hop"),  # old: believed
    ("2001:db8:a::2", ["2001:db8:a::7, 2001:db8:ffff::9"], "beyond the untrusted hop"),  # old: believed
    # malformed chains
    ("10.0.0.2", ["unknown"], "'unknown' is not an IP address"),  # old: believed
    ("10.0.0.2", [f"{CLIENT}, proxy.hospital.org"], "is not an IP address"),  # old: believed
    ("10.0.0.2", [f"{CLIENT},,10.0.0.1"], "an entry is empty"),  # old: believed
    ("10.0.0.2", [f"{CLIENT},"], "an entry is empty"),  # old: believed
    ("10.0.0.2", ["300.1.2.3"], "is not an IP address"),  # old: believed
    ("10.0.0.2", [f"{CLIENT}:99999"], "no valid port"),  # old: believed
    ("10.0.0.2", [f"{CLIENT}:"], "no valid port"),  # old: believed
    ("10.0.0.2", ["[2001:db8:ffff::9"], "is not an IP address"),  # old: believed
    ("10.0.0.2", ["[2001:db8:ffff::9]443"], "is not an IP address"),  # old: believed
    ("10.0.0.2", [", ".join([CLIENT] * (MAX_HOPS + 1))], f"at most {MAX_HOPS}"),  # old: believed
    # the direct peer decides first, whatever the header says
    ("198.51.100.4", ["10.0.0.1"], "untrusted address 198.51.100.4"),
    ("10.0.1.1", [CLIENT], "untrusted address 10.0.1.1"),
    (None, [CLIENT], "own address is unknown"),
]


@pytest.mark.parametrize(("peer", "forwarded", "client"), BELIEVED)
def test_the_client_is_the_first_untrusted_address_from_the_right(peer, forwarded, client):
    chain = resolve_proxy_chain(peer, forwarded, TRUSTED)
    assert (chain.client, chain.trusted) == (client, True)


@pytest.mark.parametrize(("peer", "forwarded", "client"), BELIEVED)
def test_a_trusted_chain_vouches_for_the_identity_header(peer, forwarded, client):
    headers = {HEADER: ME, "X-Forwarded-For": ", ".join(forwarded)}
    who = proxy_identity(headers, peer, HEADER, TRUSTED, forwarded_for=forwarded)
    assert who is not None and who.subject == ME and who.authenticated


@pytest.mark.parametrize(("peer", "forwarded", "why"), REFUSED)
def test_a_malformed_or_broken_chain_vouches_for_nobody(peer, forwarded, why, caplog):
    chain = resolve_proxy_chain(peer, forwarded, TRUSTED)
    assert (chain.client, chain.trusted) == (None, False) and why in chain.reason
    with caplog.at_level(logging.WARNING):
        assert proxy_identity({HEADER: ME}, peer, HEADER, TRUSTED, forwarded_for=forwarded) is None
    assert why in caplog.text


@pytest.mark.parametrize(("peer", "forwarded", "why"), [c for c in REFUSED if c[0] == "10.0.0.2"])
def test_the_forwarded_header_is_read_from_the_request_headers_too(peer, forwarded, why):
    """The call the old code also accepted (no ``forwarded_for``): the header in ``headers`` counts."""
    headers = {"x-forwarded-email": ME, "x-forwarded-for": ", ".join(forwarded)}
    assert proxy_identity(headers, peer, HEADER, TRUSTED) is None


def test_a_trusted_proxy_entry_that_is_not_an_address_is_a_configuration_error(home, monkeypatch):
    """Before, ``localhost`` in the list made every check fail silently (nothing trusted, nothing said)."""
    monkeypatch.setenv("MEDASSURE_AUTH_MODE", "proxy")
    for bad in ("localhost", "10.0.0.0/33", "10.0.0.1, proxy.hospital.org"):
        monkeypatch.setenv("MEDASSURE_TRUSTED_PROXIES", bad)
        with pytest.raises(IdentityConfigError, match="trusted_proxies.*not an IP address or network"):
            load_config()
    monkeypatch.setenv("MEDASSURE_TRUSTED_PROXIES", "10.0.0.5/24, ::1, 2001:db8::/32")
    assert load_config().trusted_proxies == ["10.0.0.5/24", "::1", "2001:db8::/32"]
