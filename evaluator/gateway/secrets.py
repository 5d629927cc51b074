"""Keep API keys out of everything MedAssure stores, logs or exports.

Why one module: a key can reach text we keep by several roads. A server may echo the request's
``Authorization`` header in a 401 body (which becomes the stored error), a user may put the key
in the server URL (``http://user:KEY@host/v1`` or ``...?api-key=KEY``), and a library may quote
that URL in an exception. Rather than guard every writer, the few choke points (the gateway's
error text, the server URL kept with a run and in the response cache, the job manager's status
messages, the result writer) pass their text through ``scrub_text`` or ``scrub_url`` here.

What is removed: the values of keys we know (read from the endpoint's environment variable, or
found in a URL's user part or query), every value of an environment variable whose name says it
is a secret (``*_API_KEY``, ``*TOKEN*``, ...), ``Bearer``/``Basic`` credentials, well-known key
shapes (``sk-...``, ``AKIA...``, ``ghp_...``), ``api_key=...``-style pairs, and the user part
and query values of any URL. A URL without a user part or query comes back unchanged, so the
cache and run keys of ordinary endpoints do not move.
"""

from __future__ import annotations

import base64
import os
import re
import threading
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

REDACTED = "[REDACTED]"
MIN_SECRET_LEN = 8
"""Shorter values are not treated as secrets (scrubbing "abc" everywhere would mangle text)."""
KEEP_QUERY = frozenset({"api-version", "api_version"})
"""Query parameters whose value is kept: they select behaviour, they do not authenticate."""

_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)
_known: set[str] = set()
_known_lock = threading.Lock()

_URL_QUERY = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s?#\"'<>`]*\?)([^\s#\"'<>`]*)")
_QUERY_PAIR = re.compile(r"([^&=]+)=([^&]*)")
_USERINFO = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@\"'<>`]+@")
_SCHEMES = re.compile(
    r"\b(Bearer)(\s+)(?!\[REDACTED\])[^\s\"',;}\]]+"  # any bearer token
    r"|\b(Basic)(\s+)(?=[A-Za-z0-9+/]*[0-9+/=])[A-Za-z0-9+/]{8,}={0,2}",  # base64 of user:password
    re.IGNORECASE,
)
_PAIRS = re.compile(
    r"(\b[\w-]*(?:api[-_]?key|access[-_]?token|auth[-_]?token|secret|password|passwd|signature)"
    r"[\"']?\s*[:=]\s*[\"']?)(?!\[REDACTED\])(?!Bearer\b|Basic\b)[^\s\"',;&}\]]+",
    re.IGNORECASE,
)
_KEY_SHAPES = re.compile(
    r"\b(?:sk|pk|rk)-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_]{16,}"  # sk-..., sk-proj-..., sk-ant-...
    r"|\bAKIA[0-9A-Z]{16}\b"  # AWS access key id
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}"  # GitHub tokens
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}"  # Slack tokens
    r"|\bAIza[0-9A-Za-z_-]{35}"  # Google API keys
    r"|\bhf_[A-Za-z0-9]{30,}"  # Hugging Face tokens
)


def remember_secret(value: str | None) -> None:
    """Treat ``value`` as a secret from now on, in this process (ignored when short or empty).

    Example:
        >>> remember_secret("correct-horse-battery"); scrub_text("key correct-horse-battery here")
        'key [REDACTED] here'
    """
    if value and len(value) >= MIN_SECRET_LEN:
        with _known_lock:
            _known.add(value)


def remember_endpoint_secrets(api_key_env: str | None, api_base: str | None) -> None:
    """Remember the key an endpoint uses: its environment variable's value and any URL credential."""
    if api_key_env:
        remember_secret(os.environ.get(api_key_env))
    if api_base:
        for value in url_secrets(api_base):
            remember_secret(value)


def secret_forms(value: str) -> set[str]:
    """The ways a server may echo a secret back: as is, reversed, base64 (standard or URL-safe, with or
    without padding) and hex.

    Example:
        >>> sorted(secret_forms("abcdefgh"))[:3]
        ['6162636465666768', 'YWJjZGVmZ2g', 'YWJjZGVmZ2g=']
    """
    raw = value.encode("utf-8")
    forms = {value, value[::-1], raw.hex()}
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        text = encode(raw).decode("ascii")
        forms |= {text, text.rstrip("=")}
    return {f for f in forms if len(f) >= MIN_SECRET_LEN}


def known_secrets() -> list[str]:
    """Remembered secrets plus secret-named environment variables' values, in every echoed form
    (``secret_forms``), longest first."""
    env = [v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= MIN_SECRET_LEN]
    with _known_lock:
        values = set(_known) | set(env)
    return sorted({f for v in values for f in secret_forms(v)}, key=len, reverse=True)


_BARE_KEY = re.compile(r"^(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{32,}$")
"""A path segment of 32 or more letters and digits with no separator: the shape of hex and base62 keys,
never of a model or deployment name (those are words joined by dashes, dots or slashes)."""


def looks_like_secret(text: str | None) -> bool:
    """Whether a string a user typed as a name (a model string) holds an API key.

    Example:
        >>> looks_like_secret("azure/gpt-4o-2024-08-06-eastus2"), looks_like_secret("sk-proj-" + "a1" * 12)
        (False, True)
    """
    if not text:
        return False
    if _KEY_SHAPES.search(text) or any(v in text for v in known_secrets()):
        return True
    return any(_BARE_KEY.match(part) for part in re.split(r"[/:@?&=]", text))


def url_secrets(url: str) -> list[str]:
    """The credential values inside a URL: its user part and its query values (``api-version`` excepted).

    Example:
        >>> url_secrets("http://me:s3cret-value@host/v1?api-key=abc12345678&api-version=2024")
        ['me', 's3cret-value', 'abc12345678']
    """
    try:
        parts = urlsplit(url)
        user, password = parts.username, parts.password
    except ValueError:
        return []
    out = [v for v in (user, password) if v]
    out += [v for k, v in parse_qsl(parts.query, keep_blank_values=False) if k.lower() not in KEEP_QUERY]
    return out


def scrub_url(url: str | None) -> str | None:
    """The URL without its user part and with its query values redacted; unchanged when it has neither.

    Scheme, host, port and path stay, so scrubbed URLs still tell endpoints apart.

    Example:
        >>> scrub_url("http://user:KEY123456@127.0.0.1:8000/v1?api-key=KEY123456&api-version=1")
        'http://127.0.0.1:8000/v1?api-key=[REDACTED]&api-version=1'
        >>> scrub_url("http://127.0.0.1:8000/v1")
        'http://127.0.0.1:8000/v1'
    """
    if not url:
        return url
    try:
        parts = urlsplit(url)
        host = parts.hostname
        port = parts.port
    except ValueError:  # not a URL we can take apart: scrub it as text
        return scrub_text(url)
    if "@" not in parts.netloc and not parts.query and not parts.fragment:
        return scrub_text(url) if known_secrets() else url
    netloc = parts.netloc.rpartition("@")[2] if host is None else (
        (f"[{host}]" if ":" in host else host) + (f":{port}" if port is not None else "")
    )
    query = "&".join(
        f"{quote(k, safe='-_.')}={v if k.lower() in KEEP_QUERY else REDACTED}"
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    )
    cleaned = urlunsplit((parts.scheme, netloc, parts.path, query, ""))
    return scrub_text(cleaned.replace(quote(REDACTED), REDACTED))


def _redact_query(match: re.Match[str]) -> str:
    def pair(m: re.Match[str]) -> str:
        return m.group(0) if m.group(1).lower() in KEEP_QUERY else f"{m.group(1)}={REDACTED}"

    return match.group(1) + _QUERY_PAIR.sub(pair, match.group(2))


def scrub_text(text: str | None) -> str | None:
    """``text`` with every recognisable secret replaced by ``[REDACTED]`` (None stays None).

    Example:
        >>> scrub_text('401 {"headers": {"Authorization": "Bearer abc.def-ghi"}}')
        '401 {"headers": {"Authorization": "Bearer [REDACTED]"}}'
        >>> scrub_text("see http://bob:pw-1234567@h:9/v1 and sk-abcdefghijklmnopqrstu")
        'see http://[REDACTED]@h:9/v1 and [REDACTED]'
    """
    if not text:
        return text
    for value in known_secrets():
        if value in text:
            text = text.replace(value, REDACTED)
    text = _USERINFO.sub(lambda m: m.group(1) + REDACTED + "@", text)
    text = _URL_QUERY.sub(_redact_query, text)
    text = _SCHEMES.sub(lambda m: (m.group(1) or m.group(3)) + (m.group(2) or m.group(4)) + REDACTED, text)
    text = _PAIRS.sub(lambda m: m.group(1) + REDACTED, text)
    return _KEY_SHAPES.sub(REDACTED, text)
