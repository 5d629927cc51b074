"""``medassure taxonomy``, ``medassure dossier ...`` and ``medassure demo``."""

from __future__ import annotations

import argparse

from pydantic import ValidationError

from cli._common import (
    VERSION,
    acting_name,
    add_format,
    emit,
    fail,
    open_store,
    read_json_file,
    require_role,
    say,
    validation_message,
)
from governance import Dossier, IntendedUse, example_intended_use

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).


def _author(args: argparse.Namespace) -> str:
    return acting_name(args, "author")


def _auth(args: argparse.Namespace) -> str:
    """How the author is known, for the record (a configured service identity, else local)."""
    from governance.identity import command_line_identity, load_config

    return "command line: " + command_line_identity(_author(args), load_config().service_identity).auth_label


def _dossier_payload(dossier: Dossier) -> dict:
    out = dossier.model_dump(mode="json")
    if out.get("practice") is None:  # only a practice copy says so: a real dossier's JSON is as before
        out.pop("practice", None)
    out["risk"] = dossier.risk.model_dump(mode="json")
    out["accepted_subcategories"] = dossier.mapping.accepted
    return out


def _parse_use_file(path: str) -> tuple[IntendedUse, dict]:
    """An intended-use JSON, or a wrapper ``{title, owner, intended_use}``."""
    raw = read_json_file(path)
    if not isinstance(raw, dict):
        fail(f"{path}: expected a JSON object with the intended-use fields")
    wrapper = {}
    if "intended_use" in raw:
        wrapper = {k: v for k, v in raw.items() if k != "intended_use"}
        unknown = set(wrapper) - {"title", "owner"}
        if unknown:
            fail(f"{path}: unknown top-level field(s) {sorted(unknown)}; allowed: title, owner, intended_use")
        raw = raw["intended_use"]
    try:
        return IntendedUse.model_validate(raw), wrapper
    except ValidationError as exc:
        fail(validation_message(exc, path))


def cmd_taxonomy(args: argparse.Namespace) -> int:
    from governance.mapping import load_taxonomy

    emit(load_taxonomy().model_dump(mode="json"))
    return 0


def cmd_example(args: argparse.Namespace) -> int:
    emit(example_intended_use().model_dump(mode="json"))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from governance.monitoring import monitoring_state

    store = open_store(args, read_only=True)
    # ``monitoring``: in_control / review / pause / suspend, null when nothing is watched (issue 36 item 6);
    # ``practice_of``: only on a practice copy, the dossier it copies (item 16), so real rows are as before
    # a discarded practice copy is left out (`medassure rehearse ID --discard`)
    rows = [{**d.model_dump(mode="json", exclude={"practice_of", "discarded"}),
             "monitoring": monitoring_state(store, d.id),
             **({"practice_of": d.practice_of} if d.practice_of else {})}
            for d in store.list_dossiers() if not d.discarded]
    if args.format == "text":
        print(_list_text(rows))
    else:
        emit(rows)
    return 0


def _list_text(rows: list[dict]) -> str:
    """The dossier list for people: one line per dossier, the columns of the Dossiers page."""
    if not rows:
        return "No dossier yet (medassure dossier create FILE, or medassure demo)."
    head = ("id", "status", "monitoring", "risk tier", "version", "last saved", "title")
    lines = [(r["id"] + (" (practice)" if r.get("practice_of") else ""), r["status"].replace("_", " "),
              (r["monitoring"] or "-").replace("_", " "), r["risk_tier"], str(r["version"]),
              r["updated_at"][:16].replace("T", " "), r["title"][:60]) for r in rows]
    widths = [max(len(x[i]) for x in [head, *lines]) for i in range(len(head) - 1)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(x, widths, strict=False)) + "  " + x[-1]
                     for x in [head, *lines])


def _show_text(payload: dict) -> str:
    """One dossier version for people: what it is for, where it stands, which version it is."""
    v = payload["version"]
    monitoring = (payload["monitoring"] or "nothing watched").replace("_", " ")
    lines = [f"{payload['title']} ({payload['id']})",
             f"status {payload['status'].replace('_', ' ')} · monitoring {monitoring} · risk tier "
             f"{payload['risk']['tier']}",
             f"version {v['number']} · {v['hash'][:12]} · saved by {v['author']} at {v['created_at'][:16]}"
             + (f" · {v['note']}" if v["note"] else ""),
             f"accepted subcategories: {', '.join(payload['accepted_subcategories']) or 'none yet'}",
             f"candidates: {len(payload.get('candidates') or [])}"]
    if v["integrity_problem"]:
        lines.append(f"INTEGRITY: {v['integrity_problem']}")
    lines.append("(--format json for the whole dossier)")
    return "\n".join(lines)


def cmd_create(args: argparse.Namespace) -> int:
    use, wrapper = _parse_use_file(args.file)
    title = args.title or wrapper.get("title") or use.purpose[:80].rstrip()
    owner = args.owner or wrapper.get("owner") or _author(args)
    try:
        dossier = Dossier(
            title=title if len(title) >= 3 else f"Dossier: {title}", owner=owner, intended_use=use
        )
    except ValidationError as exc:
        fail(validation_message(exc, args.file))
    require_role("editor", "create a dossier", args=args, flag="author")
    v = open_store(args).save(dossier, author=_author(args), note="created from " + args.file,
                              auth=_auth(args))
    say(f"created dossier {dossier.id} (version 1, risk tier {dossier.risk.tier})")
    if args.format == "json":  # like every other command; the bare id stays the default for scripts
        emit({"id": dossier.id, "version": v.version, "hash": v.hash, "title": dossier.title,
              "risk_tier": dossier.risk.tier})
    else:
        print(dossier.id)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from governance.monitoring import monitoring_state

    store = open_store(args, read_only=True)
    v = store.load(args.id, args.version)
    payload = _dossier_payload(v.dossier)
    payload["monitoring"] = monitoring_state(store, args.id)  # now, whatever --version is shown
    payload["version"] = {
        "number": v.version,
        "hash": v.hash,
        "parent_hash": v.parent_hash,
        "author": v.author,
        "created_at": v.created_at.isoformat(),
        "note": v.note,
        "auth": v.auth,
        "integrity_ok": not v.integrity_problem,
        "integrity_problem": v.integrity_problem or None,
    }
    if args.format == "text":
        print(_show_text(payload))
    else:
        emit(payload)
    if v.integrity_problem:  # shown, but flagged: the content cannot be trusted as this version
        say(f"warning: {v.integrity_problem}")
        return 3
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    use, wrapper = _parse_use_file(args.file)
    store = open_store(args)
    before = store.load(args.id).version
    require_role("editor", "update the dossier", args.id, args=args, flag="author")
    updates: dict = {"intended_use": use}
    for key in ("title", "owner"):
        value = getattr(args, key) or wrapper.get(key)
        if value:
            updates[key] = value

    def apply(latest: Dossier) -> Dossier:  # onto the latest version: others' changes elsewhere are kept
        return Dossier.model_validate({**latest.model_dump(), **updates})

    try:
        v = store.update(args.id, apply, author=_author(args), note="updated from " + args.file,
                         auth=_auth(args))
    except ValidationError as exc:
        fail(validation_message(exc, args.file))
    say(f"dossier {args.id}: version {v.version}" + (" (nothing changed)" if v.version == before else ""))
    emit({"id": args.id, "version": v.version, "hash": v.hash})
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    emit([h.model_dump(mode="json") for h in open_store(args, read_only=True).history(args.id)])
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from governance.demo import seed_demo

    store = open_store(args)
    if args.if_empty and not store.is_empty():
        say("database already holds dossiers; demo not seeded")
        emit({"id": None})
        return 0
    require_role("editor", "seed the demo dossier")
    dossier_id = seed_demo(store)
    say(f"demo dossier ready: {dossier_id}")
    emit({"id": dossier_id})
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("taxonomy", help="the MedHELM taxonomy (categories, subcategories, benchmarks)")
    add_format(p)
    p.set_defaults(func=cmd_taxonomy)

    p = sub.add_parser("demo", help="seed the demo dossier (idempotent)")
    p.add_argument("--if-empty", action="store_true", help="only when the database holds no dossier yet")
    add_format(p)
    p.set_defaults(func=cmd_demo)

    dossier = sub.add_parser("dossier", help="create, show, update and list dossiers")
    dsub = dossier.add_subparsers(dest="dossier_command", required=True)
    p = dsub.add_parser("example", help="print a complete, valid intended-use JSON")
    add_format(p)
    p.set_defaults(func=cmd_example)
    p = dsub.add_parser("list", help="all dossiers (latest versions)")
    add_format(p)
    p.set_defaults(func=cmd_list)
    for name, func, helptext in (
        ("create", cmd_create, "create a dossier from an intended-use JSON file"),
        ("update", cmd_update, "replace a dossier's intended use (new version)"),
    ):
        p = dsub.add_parser(name, help=helptext)
        if name == "update":
            p.add_argument("id")
        p.add_argument("--file", required=True, help="intended-use JSON (see `medassure dossier example`)")
        p.add_argument("--title")
        p.add_argument("--owner")
        p.add_argument("--author", help="who makes this change (default $MEDASSURE_USER or the login name)")
        if name == "create":  # the bare id unless --format json is asked for (scripts read the id)
            p.add_argument("--format", choices=["json", "text"], default="text",
                           help="json: the id, version, hash and risk tier as JSON (default: the bare id)")
        else:
            add_format(p)
        p.set_defaults(func=func)
    p = dsub.add_parser("show", help="one dossier version as JSON (exit 3: stored hash mismatch)")
    p.add_argument("id")
    p.add_argument("--version", type=VERSION)
    add_format(p)
    p.set_defaults(func=cmd_show)
    p = dsub.add_parser("history", help="versions with hash, timestamp and author")
    p.add_argument("id")
    add_format(p)
    p.set_defaults(func=cmd_history)
