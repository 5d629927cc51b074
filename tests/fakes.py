"""A local OpenAI-compatible chat server for tests, benches and browser runs.

Tests never call a real model API. They start this server on 127.0.0.1 and point the gateway
at it, so the whole path (litellm, HTTP, JSON parsing, retries) is exercised for real. It is
stdlib only (``ThreadingHTTPServer`` in a thread) and can misbehave on purpose: 429 with a
``Retry-After`` header, 500, a hang past the client's timeout, or a malformed JSON body, at a
seeded rate, with a per-prompt cap so that a runner that retries always gets through.

Run it on its own (for browser tests or by hand)::

    python -m tests.fakes --port 18765 --latency-ms 100 --fault-rate 0.25 --answer "A"
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import json
import random
import re
import select
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULT_KINDS = ("429", "500", "hang", "malformed")
"""Transient faults a runner must ride out. Also available, not by default: "401", "400" and "echo401"
(a 401 whose body echoes the request path and headers, as careless servers do), and the oversized
bodies of ``OVERSIZE_KINDS``."""
OVERSIZE_KINDS = ("huge_length", "endless", "gzip_bomb")
"""Bodies far over any sane size, all valid JSON if read to the end: ``huge_length`` declares and sends
``OVERSIZE_BYTES`` with a Content-Length, ``endless`` sends as many chunked with no Content-Length,
``gzip_bomb`` sends ~40 KB of gzip that inflates to that many. What was sent is logged in
``FakeLLMServer.oversize_log``."""
OVERSIZE_BYTES = 40_000_000
Answer = Callable[[dict[str, Any]], str]


def prompt_text(request: dict[str, Any]) -> str:
    """All string message contents of a chat request, joined by newlines."""
    return "\n".join(
        m.get("content", "") for m in request.get("messages", []) if isinstance(m.get("content"), str)
    )


def last_user_text(request: dict[str, Any]) -> str:
    """The last user message: the key under which hits per prompt are counted."""
    users = [m for m in request.get("messages", []) if m.get("role") == "user"]
    content = users[-1].get("content", "") if users else ""
    return content if isinstance(content, str) else json.dumps(content)


def constant_answer(text: str) -> Answer:
    """Answer every request with ``text``."""
    return lambda _request: text


def answer_by_model(table: dict[str, str], default: str = "STUB ANSWER") -> Answer:
    """Answer according to the request's ``model`` field (e.g. a good and a bad model)."""
    return lambda request: table.get(str(request.get("model", "")), default)


def answer_by_match(rules: list[tuple[str, str]], default: str = "STUB ANSWER") -> Answer:
    """Answer with the reply of the first regex (searched in the prompt text) that matches."""
    compiled = [(re.compile(pattern, re.S), reply) for pattern, reply in rules]

    def answer(request: dict[str, Any]) -> str:
        text = prompt_text(request)
        return next((reply for rx, reply in compiled if rx.search(text)), default)

    return answer


@dataclass
class FakeConfig:
    """How the fake behaves; change fields at any time, the next request sees them."""

    latency_s: float = 0.0
    answer: Answer = field(default=constant_answer("STUB ANSWER"))
    fault_rate: float = 0.0
    fault_kinds: tuple[str, ...] = FAULT_KINDS
    seed: int = 0
    max_faults_per_prompt: int = 3
    retry_after: str = "0.05"
    hang_s: float = 3.0
    completion_tokens: int | None = None
    fault_for: Callable[[dict[str, Any]], str | None] | None = None
    """Scripted faults: request -> fault kind (or None), applied before the random ones."""
    served_model: str | None = None
    """The ``model`` a reply names (a vendor's dated version); None: the request's model, echoed."""
    system_fingerprint: str | None = None
    """The reply's ``system_fingerprint`` (the served build); None: the field is left out."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        # Without this every keep-alive request stalls ~40 ms on delayed ACK (STACK_NOTES §4c).
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _send(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _client_gone(self) -> bool:
        """True when the client closed its end (a readable socket with nothing to read)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _json(self, code: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._send(code, json.dumps(obj).encode(), headers)

    def _oversize(self, kind: str) -> None:
        """Send an oversized answer (``OVERSIZE_KINDS``); log the bytes written and whether the client
        cut the connection before the end."""
        head, tail = _oversize_parts()
        sent, cut = 0, False
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if kind == "gzip_bomb":
                body = _gzip_bomb()
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                sent = len(body)
            else:
                chunked = kind == "endless"
                if chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", str(OVERSIZE_BYTES))
                self.end_headers()
                content = OVERSIZE_BYTES - len(head) - len(tail)
                whole, rest = divmod(content, 65536)
                for piece in [head, *[b"x" * 65536] * whole, b"x" * rest, tail]:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                    sent += len(piece)
                if chunked:
                    self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            cut = True
        with self.server.fake._lock:
            self.server.fake.oversize_log.append({"kind": kind, "sent": sent, "cut": cut})

    def do_GET(self) -> None:
        if "/batches/" in self.path or "/files/" in self.path:
            code, body = self.server.fake.batches.get(self.path)
            return self._send(code, body)
        if self.path.rstrip("/").endswith("/models"):
            return self._json(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
        self._json(200, self.server.fake.stats())

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
        if self.path.rstrip("/").endswith(("/files", "/batches")):  # OpenAI's Batch API (tests/fake_batches)
            code, obj = self.server.fake.batches.post(self.path, self.headers, raw)
            return self._json(code, obj)
        try:
            request = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            return self._json(400, {"error": {"message": "invalid JSON", "type": "invalid_request_error"}})
        if not self.path.split("?")[0].rstrip("/").endswith("/chat/completions"):  # Azure adds ?api-version
            return self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
        fake = self.server.fake
        fault = fake.record_and_pick_fault(request, self.headers.get("Authorization", ""))
        cfg = fake.config
        if fault == "429":
            return self._json(
                429,
                {
                    "error": {
                        "message": "Rate limit reached",
                        "type": "rate_limit_error",
                        "code": "rate_limit_exceeded",
                    }
                },
                {"Retry-After": cfg.retry_after},
            )
        if fault == "401":
            return self._json(
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
        if fault == "echo401":
            echo = {"path": self.path, "headers": dict(self.headers.items())}
            return self._json(401, {"error": {"message": f"unauthorized request: {json.dumps(echo)}",
                                              "type": "invalid_request_error"}})
        if fault == "400":
            return self._json(
                400,
                {
                    "error": {
                        "message": "This model's maximum context length is exceeded",
                        "type": "invalid_request_error",
                    }
                },
            )
        if fault == "500":
            return self._json(500, {"error": {"message": "injected failure", "type": "server_error"}})
        if fault == "hang":  # past the client's timeout, then drop the connection unanswered
            fake.stopping.wait(cfg.hang_s)
            self.close_connection = True
            return None
        if cfg.latency_s > 0:
            fake.stopping.wait(cfg.latency_s)
            if self._client_gone():  # it gave up or died meanwhile: no answer is delivered (or paid)
                fake.count_abandoned(request)
                self.close_connection = True
                return None
        if fault == "malformed":
            return self._send(200, b'{"id": "chatcmpl-fake", "choices": [{"index": 0, "mess')
        if fault in OVERSIZE_KINDS:
            return self._oversize(fault)
        fake.count_ok(request)
        self._json(200, fake.reply_body(request))


def _oversize_parts() -> tuple[bytes, bytes]:
    """The JSON around an oversized answer's content (the content itself is "x" repeated)."""
    head = (b'{"id": "chatcmpl-big", "object": "chat.completion", "created": 0, "model": "fake", "choices": '
            b'[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "')
    return head, b'"}}], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}'


@functools.cache
def _gzip_bomb() -> bytes:
    """``OVERSIZE_BYTES`` of valid JSON, gzip-compressed (~40 KB)."""
    head, tail = _oversize_parts()
    return gzip.compress(head + b"x" * (OVERSIZE_BYTES - len(head) - len(tail)) + tail, compresslevel=9)


class _Server(ThreadingHTTPServer):
    """Tracks its accepted connections so that stopping closes them too.

    ``shutdown`` only stops accepting: a keep-alive connection already accepted stays served by its
    daemon handler thread, with the stopped server's config and counters. A client's pool (litellm,
    httpx) keeps that socket, and when a later fake binds the same loopback port the client's requests
    reach the old handler instead of the new server: the later test counts requests it never received
    (3-7x the requests sent, or answers from another test's config). Closing the sockets on stop makes
    the client see the connection dropped and connect afresh.
    """

    daemon_threads = True

    def server_activate(self) -> None:
        self.open_sockets: set[socket.socket] = set()
        self.open_lock = threading.Lock()
        super().server_activate()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.open_lock:
            self.open_sockets.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.open_lock:
            self.open_sockets.discard(request)
        super().shutdown_request(request)

    def close_open_connections(self) -> int:
        """Shut every connection still open (both directions); returns how many there were."""
        with self.open_lock:
            live = list(self.open_sockets)
            self.open_sockets.clear()
        for sock in live:
            with contextlib.suppress(OSError):  # the client may have closed it first
                sock.shutdown(socket.SHUT_RDWR)
        return len(live)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (timeout, cancel) is expected here, not an error

    request_queue_size = 256  # the default backlog of 5 drops connections at C=64
    fake: FakeLLMServer


class FakeLLMServer:
    """An OpenAI-compatible server on 127.0.0.1 with counters and fault injection.

    Example:
        >>> with FakeLLMServer(FakeConfig(latency_s=0.01)) as srv:
        ...     srv.url.startswith("http://127.0.0.1:")
        True
    """

    def __init__(self, config: FakeConfig | None = None, port: int = 0) -> None:
        self.config = config or FakeConfig()
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._rng = random.Random(self.config.seed)
        self.hits = 0
        self.faults: Counter[str] = Counter()
        self.hits_by_prompt: Counter[str] = Counter()
        self.ok_by_prompt: Counter[str] = Counter()
        self.abandoned_by_prompt: Counter[str] = Counter()
        """Requests whose client was gone when the answer was ready (nothing delivered)."""
        self.request_times: list[tuple[float, str]] = []
        """(time.monotonic(), prompt) of every request received."""
        self.auth_headers: set[str] = set()
        self.oversize_log: list[dict[str, Any]] = []
        """One entry per oversized answer sent: kind, bytes written, whether the client cut it short."""
        from tests.fake_batches import FakeBatches

        self.batches = FakeBatches(self)
        """The Batch API's files and batches (``tests/fake_batches.py``)."""
        self._faults_by_prompt: Counter[str] = Counter()
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.fake = self
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The bound TCP port."""
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """Base URL to pass as ``api_base`` (ends in ``/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def configure(self, **changes: Any) -> FakeLLMServer:
        """Change config fields (``latency_s``, ``answer``, ``fault_rate``, ...); reseeds on ``seed``."""
        for name, value in changes.items():
            if not hasattr(self.config, name):
                raise AttributeError(f"FakeConfig has no field {name!r}")
            setattr(self.config, name, value)
        if "seed" in changes:
            self._rng = random.Random(self.config.seed)
        return self

    def record_and_pick_fault(self, request: dict[str, Any], auth: str) -> str | None:
        """Count a request and decide (seeded) whether it fails and how."""
        key = last_user_text(request)
        cfg = self.config
        with self._lock:
            self.hits += 1
            self.hits_by_prompt[key] += 1
            self.request_times.append((time.monotonic(), key))
            self.auth_headers.add(auth)
            scripted = cfg.fault_for(request) if cfg.fault_for else None
            if scripted:
                self.faults[scripted] += 1
                return scripted
            if cfg.fault_rate <= 0 or self._faults_by_prompt[key] >= cfg.max_faults_per_prompt:
                return None
            if self._rng.random() >= cfg.fault_rate:
                return None
            kind = self._rng.choice(cfg.fault_kinds)
            self._faults_by_prompt[key] += 1
            self.faults[kind] += 1
            return kind

    def reply_body(self, request: dict[str, Any]) -> dict[str, Any]:
        """The chat completion the fake answers ``request`` with (the batch endpoints use it too)."""
        cfg = self.config
        content = cfg.answer(request)
        prompt_tokens = max(1, len(prompt_text(request).split()))
        completion = (
            cfg.completion_tokens if cfg.completion_tokens is not None else max(1, len(content.split()))
        )
        served = {"system_fingerprint": cfg.system_fingerprint} if cfg.system_fingerprint else {}
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": cfg.served_model or request.get("model", ""),
            **served,
            "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion,
                "total_tokens": prompt_tokens + completion,
            },
        }

    def count_ok(self, request: dict[str, Any]) -> None:
        """Count a successful answer for the request's prompt."""
        with self._lock:
            self.ok_by_prompt[last_user_text(request)] += 1

    def count_abandoned(self, request: dict[str, Any]) -> None:
        """Count a request whose client left before its answer."""
        with self._lock:
            self.abandoned_by_prompt[last_user_text(request)] += 1

    def stats(self) -> dict[str, Any]:
        """Counters as plain JSON (also served at ``GET /``)."""
        with self._lock:
            return {"hits": self.hits, "ok": sum(self.ok_by_prompt.values()), "faults": dict(self.faults)}

    def start(self) -> FakeLLMServer:
        """Serve in a daemon thread."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True, name="fake-llm")
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release hanging handlers and shut down."""
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._httpd.close_open_connections()

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    """Run the fake in the foreground until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m tests.fakes", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=18765)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--answer", default="STUB ANSWER", help="content of every reply")
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    config = FakeConfig(
        latency_s=args.latency_ms / 1000,
        answer=constant_answer(args.answer),
        fault_rate=args.fault_rate,
        seed=args.seed,
    )
    server = FakeLLMServer(config, port=args.port)
    print(f"fake LLM server listening on {server.url}", flush=True)
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stopping.set()
        server._httpd.server_close()


if __name__ == "__main__":
    main()
