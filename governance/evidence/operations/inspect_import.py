"""Preview Inspect evaluation logs before attaching them, and attach them to a dossier.

Why a preview, as for HELM folders (``governance.evidence.operations.helm_import``): import is all or
nothing, and a committee should see what a log holds (task, model, scorer, n, interval, the
log's own metric and stderr, tokens, warnings) before any of it enters the dossier. A log whose
scores cannot become evidence is shown with the reason instead of being dropped. Uploaded bytes
are written under a temporary folder with only the upload's base name, because Inspect's reader
takes a path and picks the format from the suffix.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from evaluator.evidence.record import Evidence
from evaluator.importers.inspect_evidence import inspect_run_evidence
from evaluator.importers.inspect_log import (
    LOG_SUFFIXES,
    InspectImportError,
    InspectNotInstalled,
    InspectRun,
    load_inspect_logs,
)
from governance.dossier.storage import DossierStorage, DossierVersion
from governance.evidence.attach import attach_evidence
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require, update_as

MAX_UPLOAD_BYTES = 200 * 1024 * 1024


class InspectLogPreview(BaseModel):
    """One log as it would be attached."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    run: InspectRun
    """What the importer read."""
    evidence: Evidence | None
    """The record to attach, or None when the log cannot become evidence."""
    not_attachable: str = ""
    """Why it cannot be attached (empty when it can)."""

    def summary(self) -> dict:
        """The JSON object ``import-inspect`` prints for this log."""
        r, e = self.run, self.evidence
        metric = r.log_metric
        return {
            "log_file": r.log_file, "sha256": r.sha256, "task": r.task, "task_version": r.task_version,
            "eval_id": r.eval_id, "model": r.model, "scorer": r.main_scorer,
            "log_metrics": {s.name: s.metrics for s in r.scorers},
            "log_headline": {"metric": metric[0], "value": metric[1]} if metric else None,
            "log_stderr": r.log_stderr, "n": len(r.sample_scores), "n_unscored": len(r.unscored_reasons),
            "unscored": r.unscored_reasons, "epochs": r.epochs,
            "tokens": {"input": r.input_tokens, "output": r.output_tokens, "total": r.total_tokens,
                       "by_model": r.token_usage},
            "evidence": e.model_dump(mode="json") if e else None, "not_attachable": self.not_attachable,
            "warnings": r.warnings,
        }


class InspectImportPreview(BaseModel):
    """What the logs hold, or every reason they could not be read."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    source: str
    """The path or upload name as given."""
    logs: list[InspectLogPreview]
    """Logs read (empty when there are errors)."""
    errors: list[str]
    """Per-file errors (or the missing-package message); nothing is imported when there are any."""


def _preview(run: InspectRun) -> InspectLogPreview:
    try:
        return InspectLogPreview(run=run, evidence=inspect_run_evidence(run))
    except ValueError as exc:
        return InspectLogPreview(run=run, evidence=None, not_attachable=str(exc))


def preview_inspect_import(path: str | Path) -> InspectImportPreview:
    """Read one log or a folder of logs; never raises for a bad file.

    Example:
        >>> preview_inspect_import("/nonexistent.eval").errors  # doctest: +SKIP
        ['/nonexistent.eval: no such file or folder']
    """
    try:
        runs = load_inspect_logs(Path(str(path).strip()).expanduser())
    except InspectImportError as exc:
        return InspectImportPreview(source=str(path), logs=[], errors=list(exc.errors))
    except InspectNotInstalled as exc:
        return InspectImportPreview(source=str(path), logs=[], errors=[str(exc)])
    return InspectImportPreview(source=str(path), logs=[_preview(r) for r in runs], errors=[])


def preview_inspect_upload(data: bytes, filename: str) -> InspectImportPreview:
    """Preview an uploaded log (``.eval`` or ``.json``) from its bytes."""
    name = (filename or "log").replace("\\", "/").rsplit("/", 1)[-1]
    if not name.endswith(LOG_SUFFIXES):
        return InspectImportPreview(source=name, logs=[],
                                    errors=[f"{name}: not an Inspect log (.eval or .json)"])
    if len(data) > MAX_UPLOAD_BYTES:
        return InspectImportPreview(source=name, logs=[], errors=[
            f"{name}: {len(data):,} bytes is over the {MAX_UPLOAD_BYTES:,}-byte upload limit; import it with "
            "`medassure import-inspect` instead"])
    with tempfile.TemporaryDirectory(prefix="medassure-inspect-") as folder:
        target = Path(folder) / name
        target.write_bytes(data)
        preview = preview_inspect_import(target)
    return preview.model_copy(update={
        "source": name, "errors": [e.replace(str(target), name) for e in preview.errors],
        "logs": [p.model_copy(update={"run": p.run.model_copy(update={"log_file": name})})
                 for p in preview.logs]})


def attach_inspect_logs(store: DossierStorage, dossier_id: str, preview: InspectImportPreview,
                        *, actor: Actor) -> DossierVersion:
    """Attach every log of a clean preview as a new version of the dossier: all of them, or none.

    Raises:
        ValueError: the preview has errors, or a log cannot become evidence (each such log named).
        DossierNotFound: no such dossier.
    """
    require(actor.identity, "editor", "attach Inspect logs as evidence", dossier_id)
    if preview.errors:
        raise ValueError("nothing imported: " + "; ".join(preview.errors))
    bad = [f"{p.run.log_file}: {p.not_attachable or 'no evidence'}"
           for p in preview.logs if p.evidence is None]
    if bad or not preview.logs:
        raise ValueError(f"nothing attached: {len(bad)} of {len(preview.logs)} log(s) cannot become evidence "
                         "(import is all or nothing; remove or fix them): " + "; ".join(bad or ["no log"]))
    evidence = [p.evidence for p in preview.logs if p.evidence is not None]
    tasks = ", ".join(sorted({p.run.task for p in preview.logs if p.evidence}))
    return update_as(store, actor, dossier_id,
                     lambda current: attach_evidence(current, evidence, by=actor.name),
                     note=f"evidence: attached {len(evidence)} Inspect log(s) ({tasks})",
                     action="attach Inspect logs as evidence")
