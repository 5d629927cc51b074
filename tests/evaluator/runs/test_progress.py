"""The tqdm progress callback shared by the CLI, notebooks and scripts (evaluator.runs.progress)."""

import importlib.util
import io

import pytest

from evaluator.runs.progress import TqdmProgress, in_notebook, tqdm_progress


def test_bar_follows_done_and_closes_at_total():
    out = io.StringIO()
    bar = tqdm_progress("calc_builtin × m", file=out, notebook=False, mininterval=0)
    bar(1, 4, None)
    assert bar.bar.n == 1 and not bar.closed
    bar(4, 4, {"run_id": "r"})
    assert bar.closed
    text = out.getvalue()
    assert "calc_builtin × m" in text and "4/4" in text


def test_a_resumed_run_starts_where_it_was_and_never_counts_twice():
    out = io.StringIO()
    bar = tqdm_progress(file=out, notebook=False, mininterval=0, miniters=1)
    bar(5, 10)  # five instances finished by an earlier invocation
    bar(5, 10)  # the same count again does not step the bar
    assert bar.bar.n == 5
    bar(7, 10)
    assert bar.bar.n == 7 and "7/10" in out.getvalue()
    assert "5/10 [00:00<?" in out.getvalue(), "the first draw starts at 5 with no rate yet"


def test_close_early_for_a_stopped_run_and_calls_after_close_are_ignored():
    out = io.StringIO()
    bar = tqdm_progress(file=out, notebook=False, mininterval=0)
    bar(2, 10)
    bar.close()
    bar.close()
    bar(3, 10)
    assert bar.closed and bar.bar.n == 2


def test_total_can_change_after_the_first_call():
    bar = tqdm_progress(file=io.StringIO(), notebook=False)
    bar(0, 0)
    assert not bar.closed  # an empty total does not close the bar before the real total is known
    bar(1, 3)
    assert bar.bar.total == 3


def test_outside_a_kernel_the_text_bar_is_used():
    from tqdm.std import tqdm as text_tqdm

    assert in_notebook() is False
    assert TqdmProgress(notebook=None).tqdm_class is text_tqdm


@pytest.mark.skipif(importlib.util.find_spec("ipywidgets") is not None, reason="ipywidgets is installed")
def test_without_ipywidgets_a_notebook_gets_the_text_bar():
    from tqdm.std import tqdm as text_tqdm

    assert TqdmProgress(notebook=True).tqdm_class is text_tqdm
