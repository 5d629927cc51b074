"""The client behind a chain of proxies, and whether that chain may vouch for an identity header.

Why count from the right: each proxy appends the address it received the request from to
``X-Forwarded-For``, so only the entries our own proxies appended can be believed. Walking the header
from its right end, past addresses in ``trusted_proxies``, the first address that is not one of ours is
the client; whatever stands left of it was written by the client (or a hop we do not know) and may be
made up. The identity header counts only when the connection itself comes from a trusted proxy and
every hop between it and the client is one too. A chain we cannot read, or one that names a trusted
proxy beyond an untrusted hop (a proxy missing from ``trusted_proxies``, or an entry the client wrote
to look like ours), vouches for nobody: it fails closed, with a reason the sidebar and the log show.

The same walk as uvicorn's proxy-header middleware (``get_trusted_client_address``), with three
differences: a malformed entry refuses the chain instead of being compared as text, an IPv4 address
written as IPv6 (``::ffff:10.0.0.1``) is compared as IPv4, and a trusted proxy beyond an untrusted hop
refuses it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

MAX_HOPS = 32
"""More entries than this refuse the chain (no real deployment has them; a client can send thousands)."""


class MalformedChain(ValueError):
    """An ``X-Forwarded-For`` value that is not a list of IP addresses; the message names the entry."""


@dataclass(frozen=True)
class ProxyChain:
    """What a request's proxy chain says: the client, and whether the chain vouches for an identity."""

    client: str | None
    """The first untrusted address from the right (the leftmost when all are trusted); None if refused."""
    trusted: bool
    """True only when the direct peer and every hop between it and the client are trusted proxies."""
    reason: str
    """Why the chain was refused, or how it was read, in one sentence."""


def trusted_networks(trusted: Iterable[str]) -> list[Network]:
    """The networks of ``trusted_proxies`` (an address is a network of one).

    Raises:
        ValueError: an entry that is neither an IP address nor a network, named in the message.

    Example:
        >>> [str(n) for n in trusted_networks(["10.0.0.5", "10.1.0.0/16", "2001:db8::/32"])]
        ['10.0.0.5/32', '10.1.0.0/16', '2001:db8::/32']
    """
    networks = []
    for entry in trusted:
        try:
            networks.append(ipaddress.ip_network(str(entry).strip(), strict=False))
        except ValueError:
            raise ValueError(f"{entry!r} is not an IP address or network (CIDR)") from None
    return networks


def parse_address(entry: str) -> Address:
    """The address in one ``X-Forwarded-For`` entry: ``a.b.c.d``, ``a.b.c.d:port``, IPv6, ``[IPv6]:port``.

    Raises:
        MalformedChain: anything else (a host name, ``unknown``, an empty entry, a bad port).

    Example:
        >>> str(parse_address("[2001:db8::1]:443")), str(parse_address("::ffff:10.0.0.1"))
        ('2001:db8::1', '10.0.0.1')
    """
    text = entry.strip()
    host, port = text, None
    if text.startswith("["):
        end = text.find("]")
        if end == -1 or (text[end + 1:] and not text[end + 1:].startswith(":")):
            raise MalformedChain(f"entry {entry!r} is not an IP address")
        host, port = text[1:end], (text[end + 2:] if text[end + 1:] else None)
    elif text.count(":") == 1:
        host, port = text.split(":")
    if port is not None and not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        raise MalformedChain(f"entry {entry!r} has no valid port")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        problem = f"entry {entry!r} is not an IP address" if text else "an entry is empty"
        raise MalformedChain(problem) from None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def forwarded_addresses(values: Iterable[str]) -> list[Address]:
    """The addresses of ``X-Forwarded-For``, left to right, over all its header lines (none: empty).

    Raises:
        MalformedChain: an entry that is not an address, an empty entry (``a,,b``), too many entries.
    """
    lines = [str(v) for v in values if str(v).strip()]
    entries = [e for line in lines for e in line.split(",")]
    if len(entries) > MAX_HOPS:
        raise MalformedChain(f"{len(entries)} entries (at most {MAX_HOPS})")
    return [parse_address(e) for e in entries]


def _in(address: Address, networks: list[Network]) -> bool:
    return any(address.version == net.version and address in net for net in networks)


def resolve_proxy_chain(peer: str | None, forwarded_for: Iterable[str], trusted: Iterable[str]) -> ProxyChain:
    """The client and the chain's trust, walking ``X-Forwarded-For`` from the right past trusted proxies.

    Args:
        peer: the connection's own address (``direct_peer``), None when unknown (never trusted).
        forwarded_for: the ``X-Forwarded-For`` header lines, in the order received.
        trusted: ``trusted_proxies``, addresses and networks.

    Example:
        >>> chain = resolve_proxy_chain("10.0.0.2", ["203.0.113.9, 10.0.0.1"], ["10.0.0.0/24"])
        >>> chain.client, chain.trusted
        ('203.0.113.9', True)
        >>> resolve_proxy_chain("10.0.0.2", ["10.0.0.7, 198.51.100.4, 10.0.0.1"], ["10.0.0.0/24"]).trusted
        False
    """
    if peer is None:
        return ProxyChain(None, False, "the connection's own address is unknown (the web server replaced it "
                                       "from X-Forwarded-For), so it is not trusted")
    networks = trusted_networks(trusted)
    try:
        peer_address = parse_address(peer)
    except MalformedChain:
        return ProxyChain(None, False, f"the connection comes from {peer!r}, not an IP address")
    if not _in(peer_address, networks):
        return ProxyChain(None, False, f"the connection comes from the untrusted address {peer}")
    try:
        hops = forwarded_addresses(forwarded_for)
    except MalformedChain as exc:
        return ProxyChain(None, False, f"X-Forwarded-For is malformed ({exc}): refused")
    for i in range(len(hops) - 1, -1, -1):
        if not _in(hops[i], networks):
            beyond = next((h for h in hops[:i] if _in(h, networks)), None)
            if beyond is not None:
                return ProxyChain(None, False, f"X-Forwarded-For names the trusted proxy {beyond} beyond "
                                               f"the untrusted hop {hops[i]} (a proxy missing from "
                                               "trusted_proxies, or an entry the client wrote): refused")
            through = len(hops) - 1 - i
            return ProxyChain(str(hops[i]), True, f"client {hops[i]} through {through + 1} trusted "
                                                  f"prox{'y' if through == 0 else 'ies'}")
    client = str(hops[0]) if hops else str(peer_address)
    return ProxyChain(client, True, f"every address, the client {client} too, is a trusted proxy")
