"""Runner throughput against a local fixed-latency server, side by side with inspect_ai.

Measures the whole runner path — gateway (litellm), retries, bulk cache lookup, per-instance
persistence (journal + batched DuckDB, a fresh database file per measurement so nothing is
cached), answer extraction and the metric — and the same workload through inspect_ai's eval
loop (``openai-api/fake/fake`` provider) against the same server, which runs in its own process.
Both sides are warmed up first (imports, clients); the worker-pool start-up is reported apart.

    .venv/bin/pip install -e .[bench]     # inspect_ai, for the peer rows only (the test extra has it too)
    .venv/bin/python bench/runner_throughput.py [--quick]

The cases are synthetic clinical questions that the runner's PHI gate lets through (it scans every
case before sending), so the scan is measured too; ``--quick`` is the small run ``make bench-smoke`` does.

Prints requests/s and the ratio to the bound C/latency per concurrency, the speed-up over
inspect_ai, the 1 s-latency case, and the client CPU per request (litellm alone vs the runner).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import duckdb  # noqa: E402

from evaluator import ModelEndpoint, get_benchmark  # noqa: E402
from evaluator.benchmarks.instance import Instance  # noqa: E402
from evaluator.benchmarks.specs import render_messages  # noqa: E402
from evaluator.gateway.llm import _litellm  # noqa: E402
from evaluator.runs.runner import RunOptions, run_async  # noqa: E402
from evaluator.runs.store import RunStore  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(latency_ms: float) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fakes",
            "--port",
            str(port),
            "--latency-ms",
            str(latency_ms),
            "--answer",
            "A",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    proc.stdout.readline()
    return proc, f"http://127.0.0.1:{port}/v1"


COMPLAINTS = (
    "a productive cough", "chest pain on exertion", "shortness of breath", "intermittent abdominal pain",
    "a throbbing frontal headache", "watery diarrhea", "bilateral ankle swelling", "burning on urination",
    "a painful swollen knee", "dizziness on standing", "a new itchy rash", "lower back pain",
)
CHOICES = ("Order a chest radiograph", "Start oral antibiotics", "Review again in one week")
CASE_SPACE = 71 * 2 * len(COMPLAINTS) * 14 * 60
"""Distinct cases: age 18-88 (ages over 89 are identifiers) x sex x complaint x days x heart rate."""


def case_text(k: int) -> str:
    """The ``k``-th synthetic case: clean clinical text, with nothing the PHI gate takes for an identifier."""
    k, age = divmod(k, 71)
    k, sex = divmod(k, 2)
    k, complaint = divmod(k, len(COMPLAINTS))
    k, days = divmod(k, 14)
    return (f"A {18 + age}-year-old {('woman', 'man')[sex]} has had {COMPLAINTS[complaint]} for {1 + days} "
            f"days. {('Her', 'His')[sex]} heart rate is {60 + k % 60} beats per minute. "
            "Which option is the most appropriate next step?")


def instances(n: int, tag: str) -> list[Instance]:
    """``n`` distinct cases, a different draw for each ``tag``, so no measurement reuses another's PHI scan.

    The runner scans every case with the PHI gate before it sends anything (``evaluator.runs.phi_gate``),
    so the cases are clinical text the gate lets through and the scan is part of what is measured. The
    tag goes in the case id only: "Case r32litellm0-0" in the question read as a case identifier.
    """
    draw = random.Random(tag).sample(range(CASE_SPACE), n)
    return [
        Instance(id=f"{tag}-{i}", question=case_text(k), choices=CHOICES, reference="A", answer_type="choice")
        for i, k in enumerate(draw)
    ]


async def runner_rate(
    url: str, n: int, c: int, tag: str, pool_processes: int = 1, transport: str = "litellm"
) -> tuple[float, float, float]:
    """(requests/s, CPU ms per request in this process, pool start-up s) of the full runner path."""
    spec = get_benchmark("generic")
    endpoint = ModelEndpoint(
        name="bench",
        model="openai/fake",
        api_base=url,
        max_concurrency=1024,
        timeout_s=30,
        transport=transport,
    )
    with tempfile.TemporaryDirectory() as tmp:
        con = duckdb.connect(str(Path(tmp) / "bench.duckdb"))
        store = RunStore(con)
        pool, s0 = None, time.perf_counter()
        if pool_processes > 1:
            from evaluator.runs.workers import WorkerPool

            pool = await WorkerPool(endpoint, processes=pool_processes).start()
            warm = [[{"role": "user", "content": f"warm-up {tag} {i}"}] for i in range(4 * pool_processes)]
            await asyncio.gather(*(pool.call(m, {"max_tokens": 4}) for m in warm))  # first calls load lazily
        startup = time.perf_counter() - s0
        t0, c0 = time.perf_counter(), time.process_time()
        summary = await run_async(
            store, spec, instances(n, tag), endpoint, RunOptions(concurrency=c), pool=pool
        )
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        if pool is not None:
            await pool.close()
        con.close()
    assert summary.n == n and summary.new_requests == n and summary.n_errors == 0, summary
    return n / wall, cpu / n * 1000, startup


async def bare_litellm_cpu(url: str, n: int, c: int) -> tuple[float, float]:
    litellm = _litellm()
    sem = asyncio.Semaphore(c)

    async def one(i: int) -> None:
        async with sem:
            await litellm.acompletion(
                model="openai/fake",
                api_base=url,
                api_key="sk-x",
                max_retries=0,
                timeout=30,
                messages=[{"role": "user", "content": f"bare {i}"}],
                input_cost_per_token=0.0,
                output_cost_per_token=0.0,
            )

    t0, c0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one(i) for i in range(n)))
    return n / (time.perf_counter() - t0), (time.process_time() - c0) / n * 1000


def inspect_rate(url: str, n: int, c: int, tag: str) -> tuple[float, float] | None:
    try:
        from inspect_ai import Task
        from inspect_ai import eval as inspect_eval
        from inspect_ai.dataset import Sample
        from inspect_ai.scorer import match
        from inspect_ai.solver import generate
    except ImportError:
        return None
    os.environ["FAKE_API_KEY"], os.environ["FAKE_BASE_URL"] = "sk-x", url
    spec = get_benchmark("generic")
    samples = [
        Sample(input=render_messages(spec, inst)[-1]["content"], target="A") for inst in instances(n, tag)
    ]
    task = Task(dataset=samples, solver=generate(), scorer=match())
    with tempfile.TemporaryDirectory() as logs:
        t0, c0 = time.perf_counter(), time.process_time()
        result = inspect_eval(
            task,
            model="openai-api/fake/fake",
            max_connections=c,
            max_samples=c,
            display="none",
            log_dir=logs,
            max_retries=0,
            timeout=30,
        )
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert result[0].status == "success"
    return n / wall, cpu / n * 1000


class _SkipFast(Exception):
    """Jump past the 100 ms measurements (``--only-slow``)."""


def row(label: str, rate: float, bound: float, cpu: float) -> str:
    return f"{label:<44} {rate:>8.1f} {rate / bound:>6.2f} {cpu:>7.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small workload for make bench-smoke: 64 requests (16 at C=1), C=1 8 32, "
                        "worker processes with the openai transport only, 32 requests at 1 s, no worker rows")
    parser.add_argument("--no-inspect", action="store_true")
    parser.add_argument("--no-pool", action="store_true", help="skip the worker-process rows")
    parser.add_argument("--no-slow", action="store_true", help="skip the 1 s latency case")
    parser.add_argument("--only-slow", action="store_true", help="only the 1 s latency case")
    parser.add_argument("--concurrency", type=int, nargs="+", help="default 1 8 32 64 (--quick: 1 8 32)")
    parser.add_argument("--repeat", type=int, default=1, help="measurements per cell (median reported)")
    args = parser.parse_args()
    n, n_serial, n_warm = (64, 16, 16) if args.quick else (500, 100, 50)
    concurrency = args.concurrency or ([1, 8, 32] if args.quick else [1, 8, 32, 64])
    # Quick mode leaves out the litellm worker pools: each spawns two children that import litellm
    # (15-25 s on the shared 2-core machine); the openai pool runs the same pool code in the bench.
    pool_transports = () if args.no_pool else ("openai",) if args.quick else ("litellm", "openai")
    server, url = start_server(100)
    try:
        if args.only_slow:
            raise _SkipFast
        for transport in ("litellm", "openai"):
            asyncio.run(runner_rate(url, n_warm, 8, f"warm-{transport}", transport=transport))
        if not args.no_inspect and inspect_rate(url, min(n_warm, 20), 8, "warm") is None:
            print("inspect_ai is not installed (pip install -e '.[bench]'): no peer rows")
        print(
            f"# {n} requests ({min(n, n_serial)} at C=1), 100 ms server latency, {os.cpu_count()} cores, "
            f"server in its own process; load average at start {os.getloadavg()[0]:.1f}; req/s, ratio to "
            f"the bound C/latency, client CPU ms/request"
        )
        print(f"{'':<44} {'req/s':>8} {'ratio':>6} {'cpu ms':>7}   (median of {args.repeat}, interleaved)")
        for c in concurrency:
            size = min(n, n_serial) if c == 1 else n
            bound = c / 0.1
            print(f"C={c} (bound {bound:.0f} req/s)")
            samples: dict[str, list[tuple[float, float]]] = {}
            for r in range(args.repeat):
                for transport in ("litellm", "openai"):
                    rate, cpu, _ = asyncio.run(
                        runner_rate(url, size, c, f"r{c}{transport}{r}", transport=transport)
                    )
                    samples.setdefault(f"runner, transport={transport}", []).append((rate, cpu))
                    if c >= 32 and transport in pool_transports:
                        rate, cpu, _ = asyncio.run(
                            runner_rate(
                                url, n, c, f"p{c}{transport}{r}", pool_processes=2, transport=transport
                            )
                        )
                        samples.setdefault(f"runner, {transport}, 2 worker procs", []).append((rate, cpu))
                peer = None if args.no_inspect else inspect_rate(url, size, c, f"i{c}{r}")
                if peer:
                    samples.setdefault("inspect_ai eval()", []).append(peer)
            medians = {
                k: (statistics.median(s[0] for s in v), statistics.median(s[1] for s in v))
                for k, v in samples.items()
            }
            for label, (rate, cpu) in medians.items():
                note = "   (cpu: parent only; pool start excluded)" if "worker" in label else ""
                print("  " + row(label, rate, bound, cpu) + note, flush=True)
            if "inspect_ai eval()" in medians:
                peer_rate = medians["inspect_ai eval()"][0]
                print(
                    "  speed-up over inspect_ai: "
                    + ", ".join(
                        f"{k.replace('runner, ', '')} {v[0] / peer_rate:.2f}x"
                        for k, v in medians.items()
                        if k != "inspect_ai eval()"
                    ),
                    flush=True,
                )
        bare_rate, bare_cpu = asyncio.run(bare_litellm_cpu(url, n, 32))
        _, runner_cpu, _ = asyncio.run(runner_rate(url, n, 32, "cpu-litellm"))
        print(
            f"\nclient CPU per request at C=32: bare litellm.acompletion {bare_cpu:.2f} ms "
            f"({bare_rate:.1f} req/s); whole runner with litellm {runner_cpu:.2f} ms, so "
            f"{runner_cpu - bare_cpu:.2f} ms is ours (retry loop, scoring, journal write, "
            f"batched DuckDB inserts in the writer thread, run bookkeeping)"
        )
    except _SkipFast:
        pass
    finally:
        server.terminate()
    if args.no_slow:
        return
    slow, slow_url = start_server(1000)
    try:
        m = 32 if args.quick else 200
        rounds = -(-m // 32)
        print(
            f"\n# {m} requests at 1 s latency, C=32 (bound 32 req/s, target ratio >= 0.95; with {m}/32 "
            f"requests in {rounds} waves of 1 s even a perfect client gets {m / rounds / 32:.3f})"
        )
        for transport in ("litellm", "openai"):
            asyncio.run(runner_rate(slow_url, 8, 8, f"warm-slow-{transport}", transport=transport))
            for procs in (1,) if args.quick or args.no_pool else (1, 2):
                rate, cpu, _ = asyncio.run(
                    runner_rate(slow_url, m, 32, f"slow-{transport}{procs}", procs, transport=transport)
                )
                label = f"runner, transport={transport}" + (", 2 worker procs" if procs > 1 else "")
                print(
                    "  "
                    + row(label, rate, 32, cpu)
                    + f"   (of the {rounds}-wave bound: {rate / (m / rounds):.2f})",
                    flush=True,
                )
    finally:
        slow.terminate()


if __name__ == "__main__":
    main()
