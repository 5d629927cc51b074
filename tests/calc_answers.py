"""A scripted model for the built-in calculator benchmark: right on some cases, wrong or unreadable on others.

Tests of the Run evidence path need a model whose outcome is known in advance. This answer
function recognises each calculator prompt (rendered exactly as the runner renders it) and
replies by the case's position in the benchmark: even positions get the correct value, odd
positions that are 1 mod 3 get prose with no number (unparsed), the other odd ones a wrong value.
On the first 10 cases that is 5 right, 2 unparsed, 3 wrong: a score of 0.5.

Standalone, for the browser test or by hand::

    python -m tests.calc_answers --port 18766
"""

from __future__ import annotations

import argparse
import threading

from evaluator.benchmarks.specs import get_benchmark, render_messages
from evaluator.loaders import load_instances
from tests.fakes import Answer, FakeConfig, FakeLLMServer, last_user_text

UNPARSED_REPLY = "I would need to see the full chart before calculating this."


def expected_outcome(index: int) -> str:
    """``right``, ``unparsed`` or ``wrong`` for the case at ``index``.

    Example:
        >>> [expected_outcome(i) for i in range(4)]
        ['right', 'unparsed', 'right', 'wrong']
    """
    if index % 2 == 0:
        return "right"
    return "unparsed" if index % 3 == 1 else "wrong"


def _reply(index: int, reference: str) -> str:
    outcome = expected_outcome(index)
    if outcome == "right":
        return f"Answer: {reference}"
    if outcome == "unparsed":
        return UNPARSED_REPLY
    return f"Answer: {float(reference) * 2 + 1:g}"


def calculator_answers(count: int = 120) -> Answer:
    """An answer function for the fake server covering the first ``count`` built-in cases."""
    spec = get_benchmark("calc_builtin")
    replies = {render_messages(spec, inst)[-1]["content"]: _reply(i, inst.reference)
               for i, inst in enumerate(load_instances(spec, limit=count))}
    return lambda request: replies.get(last_user_text(request), UNPARSED_REPLY)


def main(argv: list[str] | None = None) -> None:
    """Serve the scripted calculator model until killed."""
    parser = argparse.ArgumentParser(prog="python -m tests.calc_answers", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=18766)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    args = parser.parse_args(argv)
    config = FakeConfig(latency_s=args.latency_ms / 1000, answer=calculator_answers())
    server = FakeLLMServer(config, port=args.port)
    server.start()
    print(f"scripted calculator model listening on {server.url}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
