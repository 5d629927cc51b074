"""``medassure review status`` is blinded (issue 35 item 4): a rater sees their own progress and nothing about
the model, the run, other raters or agreement; an editor sees all of it; anyone else nothing.

Before, the command took no identity and printed the editor's view to whoever ran it (the model, the run and
benchmark ids, every rater's progress and catch rate, agreement once closed)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from cli import main
from governance.identity import Actor
from governance.review.operations.create import create_queue_from_feed
from governance.review.operations.queues import rater_view, record_rating
from tests.governance.monitoring_fixtures import decided_dossier, feed_rows, monitoring_plan, write_csv

START = (datetime.now(UTC) - timedelta(days=20)).replace(hour=0, minute=0, second=0, microsecond=0)
MEMBERS = '[members]\n"ed" = ["editor"]\n"dr.a" = ["rater"]\n"dr.b" = ["rater"]\n"vi" = ["viewer"]\n'


@pytest.fixture
def queue_id(store, tmp_path, home, capsys):
    d = decided_dossier(monitoring_plan(approved_prompt_version="v1"), decided_at=START - timedelta(days=10))
    did = store.save(d, author="chair").dossier.id
    rows = feed_rows(12, start=START, step=timedelta(minutes=30), prompt_version="v1")
    for i, row in enumerate(rows):
        row["text"] = f"Take {100 + i} mg once a day."
    assert main(["monitor", "import", str(write_csv(tmp_path / "feed.csv", rows)), "--dossier", did]) == 0
    queue, _ = create_queue_from_feed(store, did, 8, ["dr.a", "dr.b"], seed=3, actor=Actor.named("ed"))
    for it in rater_view(store, queue.queue_id, actor=Actor.named("dr.a")).items[:2]:
        record_rating(store, queue.queue_id, it.item_id, {"verdict": "correct"}, actor=Actor.named("dr.a"))
    (home / "identity.toml").write_text(MEMBERS)  # from here on, roles come from the membership
    capsys.readouterr()
    return queue.queue_id


def status(capsys, queue_id: str, who: str, fmt: str = "json") -> tuple[int, str, str]:
    code = main(["review", "status", queue_id, "--by", who, "--format", fmt])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_rater_sees_only_their_own_progress(queue_id, capsys):
    code, out, _ = status(capsys, queue_id, "dr.a")
    assert code == 0
    doc = json.loads(out)
    assert doc == {
        "queue_id": queue_id,
        "view": "rater",
        "rater": "dr.a",
        "done": 2,
        "total": 4,
        "skipped": 0,
        "progress": 0.5,
        "finished": False,
        "closed": False,
        "removed": False,
        "catch_rate": None,
    }
    for leak in ("M1", "dr.b", "model", "run_id", "benchmark", "clinician", "jury"):
        assert leak not in out
    code, text, _ = status(capsys, queue_id, "dr.b", "text")
    assert code == 0 and "dr.b: 0/4" in text and "dr.a" not in text and "M1" not in text


def test_an_editor_sees_the_whole_queue(queue_id, capsys):
    code, out, _ = status(capsys, queue_id, "ed")
    doc = json.loads(out)
    assert code == 0 and doc["model"] and [r["rater"] for r in doc["raters"]] == ["dr.a", "dr.b"]
    assert "clinician_clinician" in doc and "run_id" in doc


@pytest.mark.parametrize("who", ["vi", "stranger"])
def test_a_viewer_or_a_non_member_sees_nothing(queue_id, capsys, who):
    code, out, err = status(capsys, queue_id, who)
    assert code == 2 and out == "" and "nothing of it is shown" in err


def test_a_rater_on_a_local_desk_is_blinded_though_the_desk_holds_every_role(queue_id, home, capsys):
    # No configuration: whoever runs a command holds every role, editor included. A rater asking for the
    # status used to get the editor's view (the model, the run, the other rater's progress).
    (home / "identity.toml").unlink()
    for fmt in ("json", "text"):
        code, out, _ = status(capsys, queue_id, "dr.b", fmt)
        assert code == 0
        for leak in ("M1", "dr.a", "model", "run_id", "benchmark", "clinician", "jury"):
            assert leak not in out, (fmt, leak, out)
    assert json.loads(status(capsys, queue_id, "dr.b")[1])["view"] == "rater"
    code, out, _ = status(capsys, queue_id, "someone.else")
    assert code == 0 and json.loads(out)["raters"]  # not a rater: a local desk's editor sees it all


def test_a_rater_who_also_holds_editor_is_blinded(queue_id, home, capsys):
    (home / "identity.toml").write_text(MEMBERS.replace('"dr.a" = ["rater"]', '"dr.a" = ["rater", "editor"]'))
    code, out, _ = status(capsys, queue_id, "dr.a")
    doc = json.loads(out)
    assert code == 0 and doc["view"] == "rater" and doc["done"] == 2 and "dr.b" not in out
