"""OpenAI's Batch API on the fake model server: files and batches, answered by the fake's own config.

What it implements, as OpenAI documents it: ``POST /v1/files`` (multipart, ``purpose=batch``) stores a
JSON-lines input file; ``POST /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window``)
creates a batch; ``GET /v1/batches/{id}`` reports ``in_progress`` for the first ``polls_in_progress``
polls, then ``completed`` with an ``output_file_id`` (and an ``error_file_id`` when some lines failed);
``GET /v1/files/{id}/content`` returns a file's lines (output lines: ``custom_id`` and ``response`` with
``status_code`` and ``body``; error lines: ``custom_id`` and ``error``). Answers are computed when the
batch completes, with the fake's ``reply_body`` (the same answers as a direct request).
"""

from __future__ import annotations

import json
import threading
import uuid
from email.parser import BytesParser
from typing import Any


class FakeBatches:
    """Files and batches of one fake server, with counters for the tests."""

    def __init__(self, fake: Any) -> None:
        self.fake = fake
        self.polls_in_progress = 1
        """Polls that see ``in_progress`` before the batch completes."""
        self.fail_custom_ids: set[str] = set()
        """Requests whose line fails (they go to the error file)."""
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.created = 0
        """Batches created."""
        self.lines_answered = 0
        """Request lines answered (what a provider would bill)."""
        self._lock = threading.Lock()

    def post(self, path: str, headers: Any, raw: bytes) -> tuple[int, dict[str, Any]]:
        """``POST /files`` or ``POST /batches``."""
        if path.rstrip("/").endswith("/files"):
            message = BytesParser().parsebytes(
                b"Content-Type: " + headers.get("Content-Type", "").encode() + b"\r\n\r\n" + raw
            )
            parts = {p.get_param("name", header="content-disposition"): p for p in message.get_payload()}
            if "file" not in parts:
                return 400, {"error": {"message": "no file part", "type": "invalid_request_error"}}
            file_id = "file-" + uuid.uuid4().hex[:12]
            self.files[file_id] = parts["file"].get_payload(decode=True)
            return 200, {"id": file_id, "object": "file", "purpose": "batch"}
        body = json.loads(raw or b"{}")
        if body.get("input_file_id") not in self.files:
            return 400, {"error": {"message": "unknown input_file_id", "type": "invalid_request_error"}}
        with self._lock:
            self.created += 1
            batch_id = "batch_" + uuid.uuid4().hex[:12]
            text = self.files[body["input_file_id"]].decode()
            lines = [json.loads(x) for x in text.splitlines() if x.strip()]
            self.batches[batch_id] = {"lines": lines, "polls": 0, "object": None}
        return 200, self._object(batch_id, "validating")

    def get(self, path: str) -> tuple[int, bytes]:
        """``GET /batches/{id}`` or ``GET /files/{id}/content``."""
        if "/files/" in path:
            file_id = path.split("/files/", 1)[1].split("/", 1)[0]
            if file_id not in self.files:
                return 404, b'{"error": {"message": "no such file"}}'
            return 200, self.files[file_id]
        batch_id = path.split("/batches/", 1)[1].strip("/")
        if batch_id not in self.batches:
            return 404, b'{"error": {"message": "no such batch"}}'
        with self._lock:
            batch = self.batches[batch_id]
            batch["polls"] += 1
            if batch["object"] is None and batch["polls"] > self.polls_in_progress:
                batch["object"] = self._complete(batch_id, batch["lines"])
            obj = batch["object"] or self._object(batch_id, "in_progress", total=len(batch["lines"]))
        return 200, json.dumps(obj).encode()

    def _complete(self, batch_id: str, lines: list[dict[str, Any]]) -> dict[str, Any]:
        out, errors = [], []
        for line in lines:
            cid = line["custom_id"]
            if cid in self.fail_custom_ids:
                errors.append({"id": "req-" + cid[:8], "custom_id": cid, "response": None,
                               "error": {"code": "server_error", "message": "injected batch line failure"}})
                continue
            self.lines_answered += 1
            out.append({"id": "req-" + cid[:8], "custom_id": cid, "error": None,
                        "response": {"status_code": 200, "request_id": "r",
                                     "body": self.fake.reply_body(line["body"])}})
        ids = {}
        for name, rows in (("output_file_id", out), ("error_file_id", errors)):
            if rows:
                file_id = "file-" + uuid.uuid4().hex[:12]
                self.files[file_id] = ("\n".join(json.dumps(r) for r in rows) + "\n").encode()
                ids[name] = file_id
        return self._object(batch_id, "completed", total=len(lines), completed=len(out), failed=len(errors),
                            **ids)

    @staticmethod
    def _object(batch_id: str, status: str, total: int = 0, completed: int = 0, failed: int = 0,
                **files: str) -> dict[str, Any]:
        return {"id": batch_id, "object": "batch", "endpoint": "/v1/chat/completions", "status": status,
                "request_counts": {"total": total, "completed": completed, "failed": failed},
                "output_file_id": files.get("output_file_id"), "error_file_id": files.get("error_file_id")}
