"""Review queues over the monitoring feed: rows with text become items; closed verdicts count as audits.

Known answers by hand: 20 feed rows r0..r19 in one day, every second one audited ``correct`` by the feed
(r0, r2, ..., r18: 10 audits, 0 material); r0..r11 carry output text, r12..r19 none (8 skipped). A
queue of all 12 rows with text, rated by two raters (6 each): r1, r2, r3 ``material``, r4 ``minor``,
the rest ``correct``. Audited after close = {r0..r11} + {r12, r14, r16, r18} = 16; material = 3 (r2's
feed verdict ``correct`` loses to the queue's ``material``: the worse one stands), so 3/16 = 0.1875.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from cli import main
from governance.identity import Actor
from governance.review.operations.create import create_queue_from_feed
from governance.review.operations.queues import (
    ReviewError,
    close_queue,
    rater_view,
    record_rating,
)
from tests.governance.monitoring_fixtures import decided_dossier, feed_rows, monitoring_plan, write_csv

START = (datetime.now(UTC) - timedelta(days=20)).replace(hour=0, minute=0, second=0, microsecond=0)
MATERIAL = {1, 2, 3}
MINOR = {4}


def verdict_for(row_key: str) -> str:
    i = int(row_key[1:])
    return "material" if i in MATERIAL else "minor" if i in MINOR else "correct"


@pytest.fixture
def dossier_id(store, tmp_path, capsys):
    d = decided_dossier(monitoring_plan(approved_prompt_version="v1"), decided_at=START - timedelta(days=10))
    did = store.save(d, author="chair").dossier.id
    rows = feed_rows(20, start=START, step=timedelta(minutes=30), prompt_version="v1")
    for i, row in enumerate(rows):
        row["text"] = f"Take {100 + i} mg once a day. Do not double a missed dose." if i < 12 else ""
        row["tag:site"] = "north" if i % 3 else "south"
    path = write_csv(tmp_path / "feed.csv", rows)
    assert main(["monitor", "import", str(path), "--dossier", did, "--format", "json"]) == 0
    capsys.readouterr()
    return did


def audited_share(capsys, did: str) -> tuple[int, int]:
    assert main(["monitor", "status", did, "--format", "json"]) in (0, 3, 4)
    data = json.loads(capsys.readouterr().out)
    months = data["metrics"]["material_correction_share"]
    return sum(m["n"] for m in months), sum(round(m["rate"] * m["n"]) for m in months)


def test_feed_queue_rated_by_two_raters_feeds_the_audited_share(store, dossier_id, capsys):
    assert audited_share(capsys, dossier_id) == (10, 0)
    queue, skipped = create_queue_from_feed(store, dossier_id, 12, ["dr.a", "dr.b"], seed=3,
                                            actor=Actor.named("ed"))
    assert skipped == 8 and queue.source == "production" and queue.rubric.kind == "audit"
    assert (queue.candidate, queue.dossier_id, queue.n_items) == ("M1", dossier_id, 12)
    items = store.reviews.items(queue.queue_id)
    assert sorted(it.instance_id for it in items.values()) == sorted(f"r{i}" for i in range(12))
    for rater in ("dr.a", "dr.b"):
        view = rater_view(store, queue.queue_id, actor=Actor.named(rater))
        assert len(view.items) == 6
        for it in view.items:
            verdict = verdict_for(items[it.item_id].instance_id)
            assert record_rating(store, queue.queue_id, it.item_id, {"verdict": verdict},
                                 actor=Actor.named(rater))
    # the last rating closed the queue: its verdicts are stored beside the feed, once
    assert len(store.monitoring.audit_verdict_rows(dossier_id)) == 12
    assert close_queue(store, queue.queue_id, actor=Actor.named("ed")) is True
    assert len(store.monitoring.audit_verdict_rows(dossier_id)) == 12
    assert audited_share(capsys, dossier_id) == (16, 3)
    agg = store.monitoring.aggregates(dossier_id, "M1")
    assert agg.correction_source == "audit" and sum(agg.correction_series) == 3
    assert len(agg.correction_series) == 16
    south = next(t for t in agg.tags if t.tag == "site" and t.value == "south")
    # south = r0, r3, r6, r9, r12, r15, r18; audited: all of r0..r11 + r12, r18 -> 6; material: r3
    assert (south.n, south.audited, south.audit_material) == (7, 6, 1)


def test_a_feed_queue_is_stratified_by_tag_and_refuses_what_it_cannot_do(store, dossier_id):
    queue, skipped = create_queue_from_feed(store, dossier_id, 6, ["dr.a"], seed=1, actor=Actor.named("ed"))
    tags = [it.subgroups["site"] for it in store.reviews.items(queue.queue_id).values()]
    # 12 rows with text: 4 south, 8 north -> proportional 2 and 4
    assert (tags.count("south"), tags.count("north"), skipped) == (2, 4, 8)
    planted = create_queue_from_feed(store, dossier_id, 4, ["dr.a", "dr.b"], sentinels=2, seed=4,
                                     actor=Actor.named("ed"))
    sentinels = [it for it in store.reviews.items(planted.queue.queue_id).values() if it.sentinel]
    # made from the feed's own texts by the documented perturbations, in turn: dose x 10, negation dropped
    kinds = {it.sentinel: it.output for it in sentinels}
    assert planted.queue.n_sentinels == 2 and set(kinds) == {"number", "negation"}
    assert "0 mg once a day" in kinds["number"] and "not" not in kinds["negation"]
    before = len(store.reviews.list_queues())
    cases = [
        ({"n": 13}, "has 12 outputs with text (8 without text cannot be rated)"),
        ({"n": 2, "month": "2026-13"}, "--month must be YYYY-MM"),
        ({"n": 2, "candidate": "M9"}, "no feed rows of candidate 'M9'"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ReviewError, match=message.replace("(", r"\(").replace(")", r"\)")):
            create_queue_from_feed(store, dossier_id, kwargs.pop("n"), ["dr.a"],
                                   actor=Actor.named("ed"), **kwargs)
    assert len(store.reviews.list_queues()) == before
    # an open queue adds no audits
    assert store.monitoring.audit_verdict_rows(dossier_id) == []


def test_cli_create_from_feed_prints_queue_id_and_skipped(dossier_id, capsys):
    argv = ["review", "create", "--feed", dossier_id, "--n", "4", "--raters", "dr.a,dr.b", "--format", "json"]
    assert main(argv) == 0
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert doc["queue_id"].startswith("rq-") and doc["rubric"] == "audit" and doc["run_id"] is None
    assert (doc["feed"], doc["candidate"], doc["skipped_no_text"], doc["n_items"]) == (dossier_id, "M1", 8, 4)
    assert "8 feed row(s) without output text" in out.err
    for bad, message in [
        (["--run", "run-x", "--feed", dossier_id], "not allowed with argument"),
        (["--run", "run-x", "--month", "2026-01"], "--month and --candidate go with --feed"),
        (["--feed", "D-nope"], "D-nope"),
    ]:
        assert main(["review", "create", *bad, "--n", "2", "--raters", "a"]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
