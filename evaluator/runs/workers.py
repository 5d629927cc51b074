"""Model calls in worker processes, so a run can use more than one core.

Why: litellm spends several ms of CPU per call (STACK_NOTES' throughput table; more on slower
machines), so one asyncio process saturates one core well below the concurrency × latency bound
on fast local servers. The pool starts ``processes`` children (spawned, so no inherited threads
or DuckDB handles); each runs an event loop that makes calls with the same gateway, retries and
(its share of the) rate limit. The parent keeps everything that must be single: dispatch
order, the budget, scoring, the DuckDB writer, progress. Parent and child talk over a socket pair
with length-prefixed pickle frames through asyncio streams: no blocking writes, so no deadlock
when both sides have much to say.

A child must not outlive its parent: its answers would be paid for and never recorded, and a
resumed run would pay for them again. So a child dies with its parent three ways: the kernel's
parent-death signal (Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``), a watch of its parent pid,
and the socket closing without the parent's ``stop`` frame. And a run holds a *lease*
(``RunLease``): a lock file the parent takes exclusively before sending anything and then
shares with its children, so a resume of the same run waits (then refuses) while any worker of
an earlier invocation might still complete a request.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import fcntl
import os
import pickle
import random
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from evaluator.gateway.errors import error_from_record, error_record
from evaluator.gateway.llm import Completion, ModelEndpoint
from evaluator.paths import REPO_ROOT
from evaluator.runs.retry import CallOutcome, RateLimiter, RetryPolicy, call_with_retries

_HEADER = struct.Struct("!I")
PR_SET_PDEATHSIG = 1
PARENT_WATCH_S = 0.2
"""How often a child checks that its parent is still alive (the fallback where prctl is missing)."""
LEASE_WAIT_S = 10.0
"""How long a run waits for an earlier invocation's workers to be gone before it refuses to start."""


class RunBusyError(RuntimeError):
    """Worker processes of an earlier invocation of this run may still complete requests."""


class RunLease:
    """A lock file per run: held exclusively to start, then shared by the parent and its workers.

    ``flock`` locks belong to open files and vanish when their holders die, so a crashed parent
    leaves no stale lease, and its children keep the run leased exactly as long as they live.

    Example:
        >>> lease = await RunLease.acquire(journal_dir / "run-x.lease")   # doctest: +SKIP
        >>> lease.release()                                              # doctest: +SKIP
    """

    def __init__(self, path: Path, fd: int) -> None:
        self.path, self._fd = path, fd

    @classmethod
    async def acquire(cls, path: Path, wait_s: float | None = None) -> RunLease:
        """Take the lease (waiting up to ``wait_s``, default ``LEASE_WAIT_S``) and share it.

        Raises:
            RunBusyError: another holder (an earlier invocation's workers) kept it all along.
        """
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + (LEASE_WAIT_S if wait_s is None else wait_s)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise RunBusyError(
                        f"run {path.stem} is still held by worker processes of an earlier invocation that "
                        "may complete its requests; nothing was sent. Try again when they have stopped "
                        "(they stop when their parent process is gone)."
                    ) from None
                await asyncio.sleep(0.1)
        fcntl.flock(fd, fcntl.LOCK_SH)  # now the workers can share it
        return cls(path, fd)

    def release(self) -> None:
        """Drop this process's share; the file goes when no worker holds it any more."""
        if self._fd is None:
            return
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.path.unlink(missing_ok=True)
        except BlockingIOError:
            pass  # workers still share it; the pool removes it when they are gone
        finally:
            os.close(self._fd)
            self._fd = None


def _die_with_parent(parent_pid: int) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies; exit now if it already has."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # died before the signal was armed
        os._exit(0)


async def _watch_parent(parent_pid: int) -> None:
    """Fallback for systems without a parent-death signal: exit when the parent pid changes."""
    while True:
        await asyncio.sleep(PARENT_WATCH_S)
        if os.getppid() != parent_pid:
            os._exit(0)


def _frame(obj: Any) -> bytes:
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(body)) + body


async def _read_frame(reader: asyncio.StreamReader) -> Any:
    try:
        header = await reader.readexactly(_HEADER.size)
        return pickle.loads(await reader.readexactly(_HEADER.unpack(header)[0]))
    except (asyncio.IncompleteReadError, ConnectionError):
        return None


async def _child_loop(sock: socket.socket, parent_pid: int) -> None:
    watch = asyncio.create_task(_watch_parent(parent_pid))
    reader, writer = await asyncio.open_connection(sock=sock)
    config = await _read_frame(reader)
    endpoint = ModelEndpoint.model_validate_json(config["endpoint"])
    retry, rpm, seed = config["retry"], config["rpm"], config["seed"]
    if endpoint.transport == "openai":  # pay the imports before saying ready
        import evaluator.gateway.openai_transport  # noqa: F401  (lazy: only this transport's SDK, ~1.4 s)
    else:
        from evaluator.gateway.llm import _litellm  # lazy by design: litellm loads only in a litellm worker

        _litellm()
    limiter, rng = RateLimiter(rpm), random.Random(seed)
    writer.write(_frame({"ready": True}))
    tasks: set[asyncio.Task] = set()

    async def handle(job_id: int, messages: list, params: dict) -> None:
        out = await call_with_retries(endpoint, messages, params, retry, limiter, rng)
        writer.write(
            _frame(
                {
                    "id": job_id,
                    "attempts": out.attempts,
                    "completion": out.completion.model_dump() if out.completion else None,
                    "error": error_record(out.error) if out.error else None,
                }
            )
        )

    stopping, leases = False, []
    while (msg := await _read_frame(reader)) is not None:
        if msg.get("stop"):
            stopping = True
            continue
        if "lease" in msg:  # share the run's lease for as long as this process lives
            fd = os.open(msg["lease"], os.O_RDWR)
            fcntl.flock(fd, fcntl.LOCK_SH)
            leases.append(fd)
            writer.write(_frame({"leased": msg["lease"]}))
            continue
        task = asyncio.create_task(handle(msg["id"], msg["messages"], msg["params"]))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if not stopping:  # the socket closed without a stop: the parent is gone, its answers with it
        os._exit(0)
    if tasks:
        await asyncio.gather(*tasks)
    watch.cancel()
    writer.close()


class _Child:
    def __init__(
        self, process: subprocess.Popen, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.process, self.reader, self.writer = process, reader, writer
        self.in_flight = 0
        self.pump: asyncio.Task | None = None


class WorkerPool:
    """``processes`` children making model calls for one endpoint; ``await pool.call(messages, params)``.

    Example:
        >>> async with WorkerPool(endpoint, processes=2) as pool:        # doctest: +SKIP
        ...     outcome = await pool.call([{"role": "user", "content": "hi"}], {"max_tokens": 5})
    """

    def __init__(
        self, endpoint: ModelEndpoint, *, processes: int = 2, retry: RetryPolicy | None = None, seed: int = 0
    ) -> None:
        self.endpoint, self.processes = endpoint, processes
        self.retry = retry or RetryPolicy()
        self.seed = seed
        self._children: list[_Child] = []
        self._futures: dict[int, asyncio.Future[CallOutcome]] = {}
        self._next_id = 0
        self._lease_acks: dict[str, list[asyncio.Future[None]]] = {}
        self._leases: list[Path] = []

    async def start(self) -> WorkerPool:
        """Start the children (``python -m evaluator.runs.workers``) and wait until each has imported litellm.

        Plain subprocesses, not multiprocessing: spawn/forkserver re-import ``__main__``, which
        under Streamlit or a script without a main guard would run the app again in each child.
        """
        rpm = (
            self.endpoint.requests_per_minute / self.processes if self.endpoint.requests_per_minute else None
        )
        root = str(REPO_ROOT)
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p),
        }
        for i in range(self.processes):
            mine, theirs = socket.socketpair()
            proc = subprocess.Popen(
                [sys.executable, "-m", "evaluator.runs.workers", str(theirs.fileno()), str(os.getpid())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=env,
            )
            theirs.close()
            reader, writer = await asyncio.open_connection(sock=mine)
            writer.write(
                _frame(
                    {
                        "endpoint": self.endpoint.model_dump_json(),
                        "retry": self.retry,
                        "rpm": rpm,
                        "seed": self.seed + i,
                    }
                )
            )
            self._children.append(_Child(proc, reader, writer))
        for i, child in enumerate(self._children):
            ready = await _read_frame(child.reader)
            if not ready:
                raise RuntimeError(f"worker process {i} failed to start (exit code {child.process.poll()})")
            child.pump = asyncio.create_task(self._pump(child))
        return self

    async def _pump(self, child: _Child) -> None:
        while (msg := await _read_frame(child.reader)) is not None:
            if "leased" in msg:
                self._lease_acks[msg["leased"]].pop().set_result(None)
                continue
            child.in_flight -= 1
            fut = self._futures.pop(msg["id"])
            comp = Completion(**msg["completion"]) if msg["completion"] else None
            err = error_from_record(msg["error"]) if msg["error"] else None
            fut.set_result(CallOutcome(comp, err, msg["attempts"]))
        for fut in list(self._futures.values()):  # a child died: fail its calls, never hang
            if not fut.done():
                fut.set_exception(RuntimeError(f"worker process {child.process.pid} exited"))

    async def call(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> CallOutcome:
        """One instance's call with retries, in the least busy child."""
        child = min(self._children, key=lambda c: c.in_flight)
        job_id, self._next_id = self._next_id, self._next_id + 1
        fut: asyncio.Future[CallOutcome] = asyncio.get_running_loop().create_future()
        self._futures[job_id] = fut
        child.in_flight += 1
        child.writer.write(_frame({"id": job_id, "messages": messages, "params": params}))
        await child.writer.drain()
        return await fut

    async def hold_lease(self, path: Path) -> None:
        """Have every child share the run's lease (``RunLease``) until it exits."""
        loop = asyncio.get_running_loop()
        acks = self._lease_acks.setdefault(str(path), [])
        waiting = [loop.create_future() for _ in self._children]
        acks.extend(waiting)
        for child in self._children:
            child.writer.write(_frame({"lease": str(path)}))
            await child.writer.drain()
        await asyncio.gather(*waiting)
        self._leases.append(path)

    async def close(self) -> None:
        """Let in-flight calls finish, then stop the children."""
        for child in self._children:
            child.writer.write(_frame({"stop": True}))  # without it a child takes EOF for its parent's death
            if child.writer.can_write_eof():
                child.writer.write_eof()
        for child in self._children:
            if child.pump:
                await child.pump
            child.writer.close()
            try:
                await asyncio.to_thread(child.process.wait, 30)
            except subprocess.TimeoutExpired:
                child.process.kill()
        self._children.clear()
        for path in self._leases:  # the children are gone: the run is free, take its lease file away
            with contextlib.suppress(OSError, RunBusyError):
                (await RunLease.acquire(path, wait_s=0)).release()
        self._leases.clear()

    async def __aenter__(self) -> WorkerPool:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


if __name__ == "__main__":
    _die_with_parent(int(sys.argv[2]))
    asyncio.run(_child_loop(socket.socket(fileno=int(sys.argv[1])), int(sys.argv[2])))
