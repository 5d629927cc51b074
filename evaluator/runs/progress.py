"""Progress bars for benchmark runs: one tqdm-backed callback for the terminal and for notebooks.

Why a callback and why tqdm: the runner reports progress through a plain function
``(done, total, row)`` (``evaluator.runs.runner.ProgressFn``), so it never knows who is watching.
The CLI (``medassure run`` on a terminal), notebooks and scripts all want the same thing from
it, a bar with a count, a rate and an ETA, and tqdm draws exactly that in a terminal and, with
ipywidgets installed, as a widget in Jupyter (without ipywidgets its text bar still updates in
place in the cell's output). ``done`` may jump (a resumed run starts with the instances an earlier
invocation finished), so the bar is set to ``done`` rather than stepped by one.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import IO, Any


def in_notebook() -> bool:
    """True inside a Jupyter kernel (an IPython kernel app is running), False in a terminal or script.

    Example:
        >>> in_notebook()
        False
    """
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def _tqdm_class(notebook: bool | None) -> type:
    use_widget = in_notebook() if notebook is None else notebook
    if use_widget and importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.notebook import tqdm as widget_tqdm

        return widget_tqdm
    from tqdm.std import tqdm as text_tqdm

    return text_tqdm


class TqdmProgress:
    """A runner progress callback drawing one tqdm bar; it closes itself when ``done`` reaches ``total``."""

    def __init__(self, label: str = "", *, file: IO[str] | None = None, notebook: bool | None = None,
                 unit: str = "case", **tqdm_kwargs: Any) -> None:
        self.label, self.file, self.unit = label, file, unit
        self.tqdm_class = _tqdm_class(notebook)
        self.tqdm_kwargs = tqdm_kwargs
        self.bar: Any = None
        self.closed = False

    def __call__(self, done: int, total: int, row: dict[str, Any] | None = None) -> None:
        """Move the bar to ``done`` of ``total`` (``row`` is the runner's finished result; unused)."""
        if self.closed:
            return
        if self.bar is None:
            # a resumed run starts at what earlier invocations finished, without inflating the rate
            self.bar = self.tqdm_class(total=total, initial=done, desc=self.label or None, unit=self.unit,
                                       file=self.file, dynamic_ncols=True, **self.tqdm_kwargs)
        if self.bar.total != total:
            self.bar.total = total
        if done != self.bar.n:
            self.bar.update(done - self.bar.n)
        if total and done >= total:
            self.close()

    def close(self) -> None:
        """Close the bar (a stopped run leaves it where it stopped); safe to call twice."""
        if self.bar is not None and not self.closed:
            self.bar.close()
        self.closed = True


def tqdm_progress(label: str = "", *, file: IO[str] | None = None, notebook: bool | None = None,
                  **tqdm_kwargs: Any) -> TqdmProgress:
    """A tqdm progress bar as a run callback: ``run_benchmark(on_progress=...)``, ``run_and_wait``.

    Args:
        label: text before the bar, e.g. ``"calc_builtin × openai/llama"``.
        file: where a text bar is written (tqdm's default: stderr).
        notebook: force (True) or refuse (False) the Jupyter widget; None detects a kernel. The
            widget needs ipywidgets; without it the text bar is used, which Jupyter also updates in place.
        **tqdm_kwargs: passed to tqdm (``mininterval``, ``ncols``, ``colour``, ...).

    Returns:
        A callable ``(done, total, row)``; ``.close()`` ends the bar early (a cancelled run).

    Example:
        >>> import io
        >>> out = io.StringIO()
        >>> bar = tqdm_progress("demo", file=out, notebook=False)
        >>> for done in (1, 2, 3):
        ...     bar(done, 3, None)
        >>> "3/3" in out.getvalue(), bar.closed
        (True, True)
    """
    return TqdmProgress(label, file=file, notebook=notebook, **tqdm_kwargs)
