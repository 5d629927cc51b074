"""run_and_wait: the page's background run, waited for with progress (notebooks, scripts)."""

from __future__ import annotations

import pytest

from evaluator.runs.jobs import RunJobs
from governance.dossier.record import Dossier
from governance.identity import Actor
from governance.intended_use.records import example_intended_use
from governance.runs.operations.jobs import RunInputError, build_request, run_and_wait
from governance.runs.operations.view import attach_run
from tests.calc_answers import calculator_answers


class Recorder:
    """A progress callback that remembers its calls and whether it was closed."""

    def __init__(self, interrupt_at: int | None = None) -> None:
        self.calls: list[tuple[int, int]] = []
        self.closed = False
        self.interrupt_at = interrupt_at

    def __call__(self, done, total, row):
        assert row is None
        self.calls.append((done, total))
        if self.interrupt_at is not None and done >= self.interrupt_at:
            raise KeyboardInterrupt

    def close(self):
        self.closed = True


@pytest.fixture
def calc_server(llm_server):
    return llm_server.configure(answer=calculator_answers(count=20))


def test_waits_for_the_run_reports_progress_and_the_result_attaches(store, calc_server):
    request = build_request(
        "calc_builtin", "openai/fake-calc", api_base=calc_server.url, limit=10, concurrency=2
    )
    bar = Recorder()
    done = run_and_wait(store, request, bar, poll_s=0.01, jobs=RunJobs())
    assert done.state == "completed" and not done.alive
    assert done.summary.n == 10 and done.summary.score.mean == pytest.approx(0.5)
    assert bar.calls[-1] == (10, 10) and bar.closed
    assert [d for d, _ in bar.calls] == sorted(d for d, _ in bar.calls), "progress never goes back"
    assert len(set(bar.calls)) == len(bar.calls), "a count is reported once"

    dossier = Dossier(
        title="Nurses' dosing questions", owner="a.analyst", intended_use=example_intended_use()
    )
    store.save(dossier, author="a.analyst")
    version = attach_run(store, dossier.id, done.run_id, actor=Actor.named("a.analyst"))
    assert [e.provenance for e in version.dossier.evidence] == ["local-run"]
    assert calc_server.hits == 10


def test_interrupting_the_wait_cancels_the_run_and_the_same_request_resumes(store, calc_server):
    calc_server.configure(latency_s=0.05)
    request = build_request(
        "calc_builtin", "openai/fake-calc", api_base=calc_server.url, limit=10, concurrency=1
    )
    jobs = RunJobs()
    bar = Recorder(interrupt_at=2)
    with pytest.raises(KeyboardInterrupt):
        run_and_wait(store, request, bar, poll_s=0.01, jobs=jobs)
    assert bar.closed
    stopped = next(iter(jobs._jobs.values())).progress()
    assert stopped.state == "cancelled" and not stopped.alive and stopped.done < 10
    hits = calc_server.hits

    again = run_and_wait(store, request, poll_s=0.01, jobs=jobs)
    assert again.state == "completed" and again.summary.n == 10 and again.summary.resumed
    assert calc_server.hits - hits == 10 - stopped.done, "finished instances are not sent again"


def test_a_run_thread_that_dies_raises_with_its_reason(store, calc_server):
    class BrokenStore:
        def for_thread(self):
            view = store.for_thread()
            view.close()
            return view

    request = build_request("calc_builtin", "openai/fake-calc", api_base=calc_server.url, limit=2)
    with pytest.raises(RunInputError, match="stopped with an error"):
        run_and_wait(BrokenStore(), request, poll_s=0.01, jobs=RunJobs())


def test_bad_input_is_refused_before_anything_starts(store):
    request = build_request("calc_builtin", "gpt-4o", api_key_env="MEDASSURE_TEST_NO_SUCH_KEY", limit=2)
    with pytest.raises(RunInputError, match="MEDASSURE_TEST_NO_SUCH_KEY"):
        run_and_wait(store, request, Recorder(), jobs=RunJobs())
