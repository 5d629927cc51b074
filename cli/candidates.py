"""``medassure candidates`` (the comparison as data), ``candidate-add`` and ``candidate-answer``.

``candidates ID`` prints ``governance.decision.comparison.compare_candidates`` for a version as JSON (the
same value the Candidates page and the PDF section format), or as the page's CSV with
``--format csv``. ``candidate-add`` records a candidate from a JSON file (``added_by`` and
``added_at`` are filled in; an endpoint names its key variable, never a key) and
``candidate-answer`` records one questionnaire answer, optionally with a supporting document
stored by its SHA-256. Each edit saves a new version as the acting person. Bad input exits 2.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from cli._common import VERSION, emit, fail, open_store, read_json_file, say, validation_message
from cli.policy import _save, _who

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).


def cmd_candidates(args: argparse.Namespace) -> int:
    from governance.decision import compare_candidates

    v = open_store(args).load(args.id, args.version)
    cmp = compare_candidates(v.dossier)
    if args.format == "csv":
        from reports import comparison_csv

        sys.stdout.write(comparison_csv(cmp))
        return 0
    if not cmp.candidates:
        say(f"dossier {v.dossier.id} records no candidates (add one with `medassure candidate-add`)")
    emit({"id": v.dossier.id, "version": v.version, "hash": v.hash, **cmp.model_dump(mode="json")})
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from governance.procurement import Candidate, upsert_candidate

    doc = read_json_file(args.file)
    if not isinstance(doc, dict):
        fail(f"{args.file}: expected one JSON object describing a candidate")
    by = _who(args)
    try:
        candidate = Candidate.model_validate({**doc, "added_by": by, "added_at": datetime.now(UTC)})
    except ValidationError as exc:
        fail(validation_message(exc, args.file))
    store = open_store(args)
    dossier = upsert_candidate(store.load(args.id).dossier, candidate)
    v = _save(store, dossier, by, f"candidate {candidate.id} recorded")
    emit({"id": args.id, "version": v.version, "hash": v.hash,
          "candidate": candidate.model_dump(mode="json")})
    return 0


def cmd_answer(args: argparse.Namespace) -> int:
    from governance.procurement import (
        AttestationError,
        CandidateError,
        DocumentError,
        make_answer,
        record_attestation,
    )

    store = open_store(args)
    dossier = store.load(args.id).dossier
    by = _who(args)
    document = None
    try:
        if args.document:
            path = Path(args.document)
            if not path.is_file():
                fail(f"{args.document}: no such file")
            document = store.documents.put(path.read_bytes(), path.name, None, by=by)
        answer = make_answer(args.question, args.value, by=by, at=datetime.now(UTC), note=args.note or "",
                             document=document, judgement=args.judgement)
        dossier = record_attestation(dossier, args.candidate, answer)
    except (AttestationError, CandidateError, DocumentError) as exc:
        fail(str(exc))
    v = _save(store, dossier, by, f"attestation {args.question} for {args.candidate}")
    emit({"id": args.id, "version": v.version, "hash": v.hash, "answer": answer.model_dump(mode="json")})
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``candidates``, ``candidate-add`` and ``candidate-answer``."""
    p = sub.add_parser("candidates", help="compare a dossier's vendor candidates (JSON, or CSV)")
    p.add_argument("id", help="dossier id")
    p.add_argument("--version", type=VERSION, help="version number (default: the latest)")
    p.add_argument("--format", choices=["json", "csv"], default="json")
    p.set_defaults(func=cmd_candidates)
    p = sub.add_parser("candidate-add", help="add or replace a candidate from a JSON file")
    p.add_argument("id", help="dossier id")
    p.add_argument("file", help="JSON: id, vendor, product, model_id, model_version, snapshot, retires_on, "
                                  "pricing, contract, ...")
    p.add_argument("--by", help="who records it (default $MEDASSURE_USER or the login name)")
    p.set_defaults(func=cmd_add)
    p = sub.add_parser("candidate-answer", help="record a vendor's answer to one questionnaire question")
    p.add_argument("id", help="dossier id")
    p.add_argument("candidate", help="candidate id")
    p.add_argument("question", help="question id (data/questionnaires/vendor.yaml)")
    p.add_argument("value", help="yes/no, a choice value, or the text of the answer")
    p.add_argument("--note", help="where the answer comes from")
    p.add_argument("--document", help="supporting document to store (by its SHA-256) and link")
    p.add_argument("--judgement", choices=["satisfactory", "unsatisfactory"],
                   help="a reviewer's judgement of a free-text answer")
    p.add_argument("--by", help="who enters it (default $MEDASSURE_USER or the login name)")
    p.set_defaults(func=cmd_answer)
