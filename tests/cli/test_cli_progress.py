"""``medassure run``'s progress on stderr: evaluator's tqdm bar on a terminal, a line per 10% otherwise."""

import io

from cli.run_support import ProgressBar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_cli_draws_the_shared_tqdm_bar(monkeypatch):
    err = _Terminal()
    monkeypatch.setattr("sys.stderr", err)
    bar = ProgressBar("calc_builtin × openai/m")
    assert bar.bar is not None
    for done in range(1, 5):
        bar(done, 4, None)
    text = err.getvalue()
    assert "calc_builtin × openai/m" in text and "4/4" in text and "case" in text
    assert bar.bar.closed


def test_in_a_log_the_cli_writes_one_line_per_tenth(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    bar = ProgressBar("b × m")
    assert bar.bar is None
    for done in range(1, 21):
        bar(done, 20, None)
    lines = err.getvalue().splitlines()
    assert lines[0] == "b × m: 1/20" and lines[1] == "b × m: 2/20" and lines[-1] == "b × m: 20/20"
    assert len(lines) == 11
