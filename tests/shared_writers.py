"""Several processes writing one dossier at once: the workload of the shared-deployment test and bench.

Issue 17 asks that two app processes and a command-line run can write one dossier together with no
save lost and every conflict reported. This module is that workload, used by
``tests/governance/dossier/test_shared_concurrency.py`` (which asserts) and ``bench/shared_concurrency.py``
(which prints figures):

* two *app* writers do what a page does: load the latest version, "think" a moment, change the
  title to a value of their own ("writer-A #3") and save as a local identity with the shown
  version's hash as the expected parent (``governance.identity.operations.save.save_as``); on
  ``SaveConflict`` they report it, reload and redo;
* one *CLI* writer runs the real ``medassure signoff`` command (a sign-off is bound to the version
  the command loaded and saved with it as the expected parent), redoing it when the command reports
  the conflict.

Each writer is its own process and prints one JSON line per event (``saved``, ``conflict``,
``error``); ``run_writers`` starts all three at the same instant and collects the lines, and
``tally`` compares them with what the store holds afterwards.

Child usage: ``python -m tests.shared_writers app|cli NAME COUNT DOSSIER_ID START_AT [--reopen]
[--cli=signoff|update]``.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOSSIER_ID = "D-shared-race"
THINK = (0.05, 0.4)
"""Seconds an app user looks at the shown version before saving (uniform)."""
PAUSE = (0.0, 0.8)
"""Seconds before an app user starts the next edit (uniform): spreads the app saves over the CLI's run."""
MAX_REDOS = 60
"""A writer that keeps conflicting gives up after this many redos of one save (reported as an error)."""


def say(event: str, **fields) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


def setup_dossier(store, dossier_id: str = DOSSIER_ID):
    """Create the shared dossier with a recorded decision (sign-offs need one); its first version."""
    from governance.decision.signoff import record_decision
    from governance.dossier.record import Dossier, utcnow
    from governance.intended_use.records import example_intended_use

    d = Dossier(id=dossier_id, title="Shared race", owner="committee", intended_use=example_intended_use())
    d = record_decision(d, "reject", "a decision so that sign-offs can be recorded", [], by="chair",
                        at=utcnow(), required_roles=["clinical lead"])
    return store.save(d, "setup", "created for the concurrency run")


def _open_store():
    from governance.dossier.store import Store

    return Store.open()  # MEDASSURE_DATABASE_URL or $MEDASSURE_HOME/medassure.duckdb


def app_writer(name: str, count: int, dossier_id: str, reopen: bool) -> None:
    """Save ``count`` title changes as a page would, redoing each one that conflicts.

    ``reopen``: open the store for each load and each save and close it in between (DuckDB admits
    one process at a time, so an app that held it would lock the others out).
    """
    from governance.dossier.store import SaveConflict
    from governance.identity.identity import local_identity
    from governance.identity.operations.save import save_as

    who = local_identity(f"app-{name}")
    rng = random.Random(f"{name}-{os.getpid()}")
    store = None if reopen else _open_store()
    for i in range(count):
        value = f"writer-{name} #{i}"
        for attempt in range(MAX_REDOS + 1):
            s = store or _open_store()
            seen = s.load(dossier_id)
            if reopen:
                s.close()
            time.sleep(rng.uniform(*THINK))
            s = store or _open_store()
            edited = seen.dossier.model_copy(update={"title": value})
            try:
                v = save_as(s, who, edited, value, expected_hash=seen.hash)
            except SaveConflict as exc:
                say("conflict", writer=name, value=value, based_on=seen.version, latest=exc.latest_version,
                    message=str(exc).splitlines()[0])
                continue
            finally:
                if reopen:
                    s.close()
            say("saved", writer=name, value=value, version=v.version, hash=v.hash, parent=seen.hash,
                redos=attempt)
            time.sleep(rng.uniform(*PAUSE))
            break
        else:
            say("error", writer=name, value=value, message=f"gave up after {MAX_REDOS} conflicts")
    if store is not None:
        store.close()


def medassure_command() -> list[str]:
    """The installed ``medassure`` script beside this Python (else ``python -m cli``)."""
    script = Path(sys.executable).parent / "medassure"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "cli"]


def _cli_args(kind: str, dossier_id: str, value: str, i: int, folder: Path) -> list[str]:
    """``medassure signoff`` (checked against the version it loaded) or ``dossier update`` (not checked)."""
    if kind == "signoff":
        return ["signoff", dossier_id, "--role", f"extra reviewer {i}", "--name", value]
    from governance.intended_use.records import example_intended_use

    use = example_intended_use().model_copy(update={"purpose": f"{value}: answer portal messages"})
    path = folder / f"use-{i}.json"
    path.write_text(use.model_dump_json(), encoding="utf-8")
    return ["dossier", "update", dossier_id, "--file", str(path), "--author", value]


def cli_writer(name: str, count: int, dossier_id: str, kind: str = "signoff") -> None:
    """Run ``medassure`` ``count`` times (one change each), redoing those refused as conflicts."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="medassure-cli-writer-"))
    for i in range(count):
        value = f"writer-{name} #{i}"
        for attempt in range(MAX_REDOS + 1):
            out = subprocess.run([*medassure_command(), *_cli_args(kind, dossier_id, value, i, folder)],
                                 capture_output=True, text=True, timeout=120)
            if out.returncode == 0:
                v = json.loads(out.stdout)
                say("saved", writer=name, value=value, version=v["version"], hash=v["hash"], redos=attempt,
                    cli=kind)
                break
            if "changed while you worked" in out.stderr:
                say("conflict", writer=name, value=value, message=out.stderr.strip()[:600])
                continue
            why = f"exit {out.returncode}: {out.stderr.strip()[-800:]}"
            say("error", writer=name, value=value, message=why)
            break
        else:
            say("error", writer=name, value=value, message=f"gave up after {MAX_REDOS} conflicts")


@dataclass
class Outcome:
    """What the writers reported and how long the run took."""

    events: list[dict] = field(default_factory=list)
    wall_seconds: float = 0.0
    stderr: dict[str, str] = field(default_factory=dict)
    exit_codes: dict[str, int] = field(default_factory=dict)

    def of(self, kind: str) -> list[dict]:
        return [e for e in self.events if e["event"] == kind]


def run_writers(env: dict[str, str], count: int, dossier_id: str = DOSSIER_ID, reopen: bool = False,
                cli: str = "signoff", timeout: float = 600) -> Outcome:
    """Start app writers A and B and CLI writer C at the same instant; wait; collect their events.

    ``cli``: the command writer C runs, ``signoff`` or ``update`` (``dossier update``, which saves
    without naming the version it loaded).
    """
    env = {**os.environ, **env, "PYTHONPATH": str(REPO)}
    start_at = time.time() + 1.5  # all three past their imports, then go together
    procs = {}
    for kind, name in (("app", "A"), ("app", "B"), ("cli", "C")):
        args = [sys.executable, "-m", "tests.shared_writers", kind, name, str(count), dossier_id,
                str(start_at), f"--cli={cli}", *(["--reopen"] if reopen else [])]
        procs[name] = subprocess.Popen(args, cwd=REPO, env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    outcome = Outcome()
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=timeout)
        outcome.exit_codes[name] = proc.returncode
        outcome.stderr[name] = err[-3000:]
        outcome.events += [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    outcome.wall_seconds = time.time() - start_at  # from the common start to the last writer's end
    return outcome


def _applied_alone(before, after, event: dict, parent_hash: str) -> bool:
    """``after`` is ``before`` with exactly this writer's change and nothing else (no silent overwrite)."""
    from governance.dossier.content_hash import changed_fields

    if event["writer"] in ("A", "B"):
        return changed_fields(before, after) == ["title"] and after.title == event["value"] \
            and after.signoffs == before.signoffs
    if event.get("cli") == "update":
        return (changed_fields(before, after) == ["intended_use"] and after.signoffs == before.signoffs
                and after.intended_use.purpose.startswith(event["value"] + ":"))
    new = after.signoffs[len(before.signoffs):]
    return (changed_fields(before, after) == [] and after.signoffs[: len(before.signoffs)] == before.signoffs
            and len(new) == 1 and new[0].name == event["value"] and new[0].version_hash == parent_hash)


def tally(store, dossier_id: str, outcome: Outcome) -> dict:
    """The run's figures, from the writers' reports checked against what the store holds.

    ``lost``: saves a writer was told succeeded whose version is not stored with that hash, or whose
    change is not what that version applied to its parent. ``overwrites``: stored versions that
    changed anything besides their writer's own change (a save over content it did not see).
    ``unreported``: versions no writer reported.
    """
    versions = {v.version: v for v in (store.load(dossier_id, h.version) for h in store.history(dossier_id))}
    saved = outcome.of("saved")
    by_version = {e["version"]: e for e in saved}
    lost, overwrites = [], []
    for e in saved:
        v = versions.get(e["version"])
        parent = versions.get(e["version"] - 1)
        if v is None or v.hash != e["hash"] or by_version[e["version"]] is not e or parent is None:
            lost.append(e)
            continue
        seen = e.get("parent", parent.hash)  # an app writer reports the hash it was shown
        if v.parent_hash != parent.hash or seen != parent.hash or not _applied_alone(
                parent.dossier, v.dossier, e, parent.hash):
            overwrites.append(e)
    chain = store.verify_chain(dossier_id)
    audit = store.audit_log(dossier_id)
    return {
        "attempted": len(saved) + len(outcome.of("conflict")) + len(outcome.of("error")),
        "saved": len(saved), "stored_versions": len(versions), "lost": len(lost),
        "overwrites": len(overwrites), "unreported": len(set(versions) - set(by_version) - {1}),
        "conflicts": len(outcome.of("conflict")), "redos": sum(e["redos"] for e in saved),
        "errors": len(outcome.of("error")), "audit_events": len(audit), "chain_ok": chain.ok,
        "chain_versions": chain.versions, "chain_events": chain.events,
        "wall_seconds": round(outcome.wall_seconds, 2),
        "lost_detail": lost[:5], "overwrite_detail": overwrites[:5],
    }


def main(argv: list[str]) -> None:
    kind, name, count, dossier_id, start_at = argv[:5]
    reopen = "--reopen" in argv[5:]
    cli = next((a.split("=", 1)[1] for a in argv[5:] if a.startswith("--cli=")), "signoff")
    import governance.dossier.store  # noqa: F401  (imports before the start line, not in the race)

    time.sleep(max(0.0, float(start_at) - time.time()))
    if kind == "app":
        app_writer(name, int(count), dossier_id, reopen)
    else:
        cli_writer(name, int(count), dossier_id, cli)


if __name__ == "__main__":
    main(sys.argv[1:])
