"""The fake model server itself: a stopped fake must not keep answering through a client's pooled socket."""

from __future__ import annotations

import httpx

from tests.fakes import FakeConfig, FakeLLMServer

BODY = {"model": "fake", "messages": [{"role": "user", "content": "hello"}]}


def test_a_pooled_connection_reaches_the_new_server_on_a_reused_port():
    # One keep-alive client, as litellm's and httpx's pools are: the first request opens a socket it keeps.
    with httpx.Client(timeout=5.0) as client:
        old = FakeLLMServer(FakeConfig(answer=lambda r: "old")).start()
        port = old.port
        first = client.post(f"{old.url}/chat/completions", json=BODY)
        assert first.json()["choices"][0]["message"]["content"] == "old"
        old.stop()
        # A later test's server on the same port (the kernel reuses loopback ports; here on purpose).
        with FakeLLMServer(FakeConfig(answer=lambda r: "new"), port=port) as new:
            second = client.post(f"{new.url}/chat/completions", json=BODY)
            assert second.json()["choices"][0]["message"]["content"] == "new"
            assert (new.hits, old.hits) == (1, 1)
