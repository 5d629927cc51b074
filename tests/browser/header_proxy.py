"""A tiny reverse proxy for browser tests: it reaches the app from a chosen source address, setting headers.

Why our own and not nginx or oauth2-proxy: the identity tests need to choose exactly what the app sees,
the TCP peer (any address of 127/8, since loopback answers on all of them) and the headers on every
request, the WebSocket handshake included, because Streamlit reads ``st.context.headers`` from it.
The proxy forwards one request per connection (it asks the app for ``Connection: close``) and, on an
``Upgrade`` request, pipes the WebSocket bytes both ways unchanged. Headers in ``headers`` replace any
the browser sent under the same name (as oauth2-proxy replaces ``X-Forwarded-Email``); a value of None
removes the header.

Example:
    >>> proxy = HeaderProxy(8501, source="127.0.0.2", headers={"X-Forwarded-Email": "a@b"})
    >>> with proxy:  # doctest: +SKIP
    ...     page.goto(proxy.url)
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

HEAD_LIMIT = 64 * 1024


class HeaderProxy:
    """Forwards ``http://127.0.0.1:<port>`` to the app on ``127.0.0.1:upstream_port``, from ``source``."""

    def __init__(self, upstream_port: int, source: str = "127.0.0.1",
                 headers: dict[str, str | None] | None = None) -> None:
        self.upstream_port = upstream_port
        self.source = source
        self.headers = dict(headers or {})
        self.port = 0
        self.requests = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> HeaderProxy:
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._serve, "127.0.0.1", 0), self._loop).result(10)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc) -> None:
        async def shut() -> None:
            assert self._server is not None
            self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shut(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _rewrite(self, head: bytes) -> tuple[bytes, bool]:
        lines = head.decode("latin1").split("\r\n")
        request, fields = lines[0], [line for line in lines[1:] if line]
        replaced = {name.lower() for name in self.headers}
        kept = [f for f in fields if f.split(":", 1)[0].strip().lower() not in replaced]
        upgrade = any(f.split(":", 1)[0].strip().lower() == "upgrade" for f in kept)
        if not upgrade:
            kept = [f for f in kept if f.split(":", 1)[0].strip().lower() != "connection"]
            kept.append("Connection: close")
        kept += [f"{name}: {value}" for name, value in self.headers.items() if value is not None]
        return ("\r\n".join([request, *kept]) + "\r\n\r\n").encode("latin1"), upgrade

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.CancelledError):  # cancelled on exit: end quietly
            await self._forward(reader, writer)

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        if len(head) > HEAD_LIMIT:
            writer.close()
            return
        self.requests += 1
        rewritten, _ = self._rewrite(head)
        try:
            up_reader, up_writer = await asyncio.open_connection(
                "127.0.0.1", self.upstream_port, local_addr=(self.source, 0))
        except OSError:
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            await writer.drain()
            writer.close()
            return
        up_writer.write(rewritten)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer), return_exceptions=True)


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while chunk := await source.read(65536):
            sink.write(chunk)
            await sink.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(Exception):
            sink.close()
