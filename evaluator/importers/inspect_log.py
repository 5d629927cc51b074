"""Import Inspect evaluation logs (``.eval`` or ``.json``) as MedAssure evidence.

HELM went into maintenance in 2026 and points its users to Inspect Evals (HealthBench, MedQA,
PubMedQA), so hospitals will bring Inspect logs. Logs are read with Inspect's own reader
(``inspect_ai.log.read_eval_log``), an optional dependency (extra ``[inspect]``); without it the
import stops with ``InspectNotInstalled`` saying how to install it.

Shaped like the HELM importer (``evaluator.importers.helm``): all or nothing (every file is read
and checked before anything is returned; a corrupt, truncated, unfinished or sample-less log
raises ``InspectImportError`` naming each file and why), the log's own figures kept as Inspect
wrote them (metrics and stderr of every scorer, token usage), and the per-sample scores recomputed
so the evidence's interval rests on them. A sample value that is not a single score (a list or a
dict, an unknown word) is *unscored* with its reason, never read as 0 as Inspect's own
``value_to_float`` would. Provenance names the task, its version and the log file's SHA-256.
Building evidence lives in ``inspect_evidence``.
"""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict

LOG_SUFFIXES = (".eval", ".json")
WORDS = {"c": 1.0, "i": 0.0, "p": 0.5, "n": 0.0, "yes": 1.0, "no": 0.0, "true": 1.0, "false": 0.0}
SKIPPED_FIELDS = {"messages", "events", "store", "attachments"}
INSTALL_HINT = "pip install 'medassure[inspect]' (or: pip install inspect-ai)"


class InspectNotInstalled(RuntimeError):
    """``inspect_ai`` is not installed, so Inspect logs cannot be read."""

    def __init__(self) -> None:
        super().__init__(f"reading Inspect logs needs the inspect_ai package, which is not installed: "
                         f"{INSTALL_HINT}")


class InspectImportError(ValueError):
    """One or more logs could not be imported; nothing was imported."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("Inspect import failed, nothing imported:\n" + "\n".join(f"  {e}" for e in errors))


class InspectSample(BaseModel):
    """One sample × epoch of the main scorer."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    sample_id: str
    """Inspect sample id."""
    epoch: int
    """Epoch number (1-based)."""
    value: str
    """The score value as the log has it, as text."""
    score: float | None
    """The value as a number (None when unscored)."""
    answer: str
    """The answer the scorer extracted (may be empty)."""
    input_text: str
    """The sample input (text of the first message when it is a chat)."""
    target: str
    """The sample target, joined with `` | ``."""
    completion: str
    """The model's completion."""
    unscored_reason: str = ""
    """Why the sample has no score (empty when it has one)."""


class InspectScorer(BaseModel):
    """One scorer's results as the log reports them."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    """Scorer name (e.g. ``match``, ``choice``, ``model_graded_qa``)."""
    metrics: dict[str, float]
    """The log's own metrics for this scorer (e.g. ``accuracy``, ``stderr``)."""


class InspectRun(BaseModel):
    """One Inspect log as imported."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    log_file: str
    """The file as given."""
    sha256: str
    """SHA-256 of the log file's bytes."""
    task: str
    """Task name (e.g. ``inspect_evals/medqa``)."""
    task_version: str
    """Task version as the log records it."""
    task_id: str
    """Inspect's task id."""
    eval_id: str
    """Inspect's eval id (unique per log)."""
    model: str
    """Model as Inspect names it (``provider/model``)."""
    status: str
    """Log status (only ``success`` imports)."""
    date: AwareDatetime
    """When the evaluation completed (else when it was created)."""
    scorers: list[InspectScorer]
    """Every scorer with the log's own metrics, in the log's order; the first is the one cited."""
    main_scorer: str
    """The scorer the evidence cites."""
    samples: list[InspectSample]
    """Every sample × epoch of the main scorer."""
    sample_scores: dict[str, float]
    """Per-sample score (mean over epochs) of the scored samples."""
    unscored_reasons: dict[str, str]
    """Sample id → why it has no score."""
    epochs: int
    """Epochs per sample."""
    input_tokens: int
    """Input tokens over all models of the log."""
    output_tokens: int
    """Output tokens over all models of the log."""
    total_tokens: int
    """Total tokens as Inspect reports them."""
    token_usage: dict[str, dict[str, int]]
    """Per model: input, output and total tokens."""
    warnings: list[str]
    """What the importer could not check or map."""

    @property
    def log_metric(self) -> tuple[str, float] | None:
        """The main scorer's own headline metric (the first that is not ``stderr``/``std``)."""
        scorer = next(s for s in self.scorers if s.name == self.main_scorer)
        return next(((k, v) for k, v in scorer.metrics.items() if k not in ("stderr", "std", "var")), None)

    @property
    def log_stderr(self) -> float | None:
        """The main scorer's own ``stderr``, when the log has one."""
        return next(s for s in self.scorers if s.name == self.main_scorer).metrics.get("stderr")


def _inspect_reader():
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise InspectNotInstalled() from None
    return read_eval_log


def find_logs(path: Path) -> list[Path]:
    """The log file itself, or the ``.eval``/``.json`` logs of a folder (sorted)."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InspectImportError([f"{path}: no such file or folder"])
    logs = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in LOG_SUFFIXES)
    if not logs:
        raise InspectImportError([f"{path}: no Inspect logs (.eval or .json) in this folder"])
    return logs


def load_inspect_logs(path: Path | str) -> list[InspectRun]:
    """Import one log or every log of a folder; all or none.

    Raises:
        InspectNotInstalled: ``inspect_ai`` is missing.
        InspectImportError: listing every file that could not be read, and why.
    """
    read = _inspect_reader()
    runs, errors = [], []
    for file in find_logs(Path(path)):
        try:
            runs.append(_read_one(read, file))
        except InspectImportError as exc:
            errors += exc.errors
    if errors:
        raise InspectImportError(errors)
    return runs


def _read_one(read, file: Path) -> InspectRun:
    with file.open("rb") as stream:
        digest = hashlib.file_digest(stream, "sha256").hexdigest()
    try:
        log = read(str(file), exclude_fields=SKIPPED_FIELDS)
    except Exception as exc:  # noqa: BLE001 - any reader failure is a corrupt or truncated file
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        kind = type(exc).__name__
        raise InspectImportError([f"{file}: not a readable Inspect log ({kind}: {reason[:300]})"]) from None
    fault = _refusal(log)
    if fault:
        raise InspectImportError([f"{file}: {fault}"])
    return _build_run(file, digest, log)


def _refusal(log) -> str:
    """Why a log that parsed still cannot be imported (empty when it can)."""
    if log.status != "success":
        error = f": {log.error.message}" if getattr(log, "error", None) else ""
        return f"the evaluation did not finish (status {log.status}{error}); only complete logs are imported"
    if not log.samples:
        return "the log holds no samples (written with log_samples=False?): no per-sample scores to rest on"
    if not log.results or not log.results.scores:
        return "the log has no scorer results"
    expected = log.results.completed_samples or log.results.total_samples
    if expected and len(log.samples) < expected:
        return f"only {len(log.samples)} of {expected} samples are in the file (truncated?)"
    return ""


def sample_value(value: Any) -> tuple[float | None, str]:
    """An Inspect score value as a number, or None and the reason, mirroring Inspect's defaults.

    Example:
        >>> sample_value("C"), sample_value("I"), sample_value(0.25), sample_value({"a": 1})[1]
        ((1.0, ''), (0.0, ''), (0.25, ''), 'a dict of values, not one score')
    """
    if isinstance(value, bool):
        return float(value), ""
    if isinstance(value, int | float):
        return (float(value), "") if math.isfinite(value) else (None, f"non-finite value {value}")
    if isinstance(value, str):
        word = value.strip().lower()
        if word in WORDS:
            return WORDS[word], ""
        try:
            number = float(word)
        except ValueError:
            return None, f"value {value[:40]!r} is not a score Inspect defines"
        return (number, "") if math.isfinite(number) else (None, f"non-finite value {value}")
    return None, f"a {type(value).__name__} of values, not one score"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " | ".join(_text(getattr(m, "text", None) or getattr(m, "content", "")) for m in content)
    return str(content or "")


def _build_run(file: Path, digest: str, log) -> InspectRun:
    scorers = [InspectScorer(name=s.name, metrics={k: float(m.value) for k, m in s.metrics.items()
                                                   if isinstance(m.value, int | float)})
               for s in log.results.scores]
    main = scorers[0].name
    warnings = [f"{len(scorers)} scorers in the log: the evidence cites the first, {main!r}; the others are "
                "listed with their own metrics"] if len(scorers) > 1 else []
    samples, per_sample, unscored = [], {}, {}
    for s in log.samples:
        sid = str(s.id)
        score = (s.scores or {}).get(main)
        if s.error is not None:
            number, why = None, f"the sample ended in error: {str(s.error.message)[:200]}"
        elif score is None:
            number, why = None, f"no {main!r} score for this sample"
        else:
            number, why = sample_value(score.value)
        if why:
            unscored.setdefault(sid, why)
        else:
            per_sample.setdefault(sid, []).append(number)
        samples.append(InspectSample(
            sample_id=sid, epoch=s.epoch, value="" if score is None else str(score.value), score=number,
            answer=str(score.answer or "") if score else "", input_text=_text(s.input),
            target=_text(s.target), completion=s.output.completion if s.output else "", unscored_reason=why))
    per_sample = {k: sum(v) / len(v) for k, v in per_sample.items() if k not in unscored}
    usage = {m: {"input": u.input_tokens, "output": u.output_tokens, "total": u.total_tokens}
             for m, u in (log.stats.model_usage or {}).items()}
    completed = log.stats.completed_at or log.eval.created
    date = datetime.fromisoformat(completed) if isinstance(completed, str) else completed
    return InspectRun(
        log_file=str(file), sha256=digest, task=log.eval.task, task_version=str(log.eval.task_version),
        task_id=log.eval.task_id, eval_id=getattr(log.eval, "eval_id", "") or log.eval.task_id,
        model=log.eval.model, status=log.status, date=date if date.tzinfo else date.replace(tzinfo=UTC),
        scorers=scorers, main_scorer=main, samples=samples, sample_scores=per_sample,
        unscored_reasons=unscored, epochs=max((s.epoch for s in log.samples), default=1),
        input_tokens=sum(u["input"] for u in usage.values()),
        output_tokens=sum(u["output"] for u in usage.values()),
        total_tokens=sum(u["total"] for u in usage.values()), token_usage=usage, warnings=warnings)
