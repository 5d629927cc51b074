"""A review sheet whose cells had to be neutralised still imports, and a rater's name leaves as text.

Issue 35 item 3, fresh cases: the sheet neutralised a model output that starts with ``=`` (a leading quote)
but the import compared the cell with the stored text, so such a sheet could never come back ("text or
position differs", exit 2); and the rater column went out as typed, so a rater named ``=cmd|x`` (accepted
by ``review create``) was a live formula on every row of their sheet.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

from cli import main
from governance.identity import Actor
from governance.review.operations.create import create_queue_from_feed
from governance.review.operations.sheets import import_sheet, sheet_csv
from tests.governance.monitoring_fixtures import decided_dossier, feed_rows, monitoring_plan, write_csv

START = (datetime.now(UTC) - timedelta(days=20)).replace(hour=0, minute=0, second=0, microsecond=0)
RATER = "=cmd|' /C calc'!A0"
TEXTS = ['=HYPERLINK("http://x.example","y")', "+1+2", "-3", "@SUM(A1)", "ok\r=1+1", "plain text"]


def test_formula_texts_and_a_formula_rater_go_out_as_text_and_the_sheet_comes_back(store, tmp_path, capsys):
    d = decided_dossier(monitoring_plan(approved_prompt_version="v1"), decided_at=START - timedelta(days=10))
    did = store.save(d, author="chair").dossier.id
    rows = feed_rows(len(TEXTS), start=START, step=timedelta(minutes=30), prompt_version="v1")
    for row, text in zip(rows, TEXTS, strict=True):
        row["text"] = text
    assert main(["monitor", "import", str(write_csv(tmp_path / "feed.csv", rows)), "--dossier", did]) == 0
    ed = Actor.named("ed")
    queue, _ = create_queue_from_feed(store, did, len(TEXTS), [RATER, "dr.b"], seed=3, actor=ed)
    sheet = sheet_csv(store, queue.queue_id, RATER, actor=Actor.named("ed")).decode()
    first, body = sheet.split("\n", 1)
    table = list(csv.reader(io.StringIO(body)))
    header = table[0]
    cells = [line for r in table[1:] for c in r for line in c.split("\n")]
    assert cells and not [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r"))], cells
    for r in table[1:]:
        r[header.index("verdict")] = "correct"
    table[1][header.index("verdict")], table[1][header.index("skip_reason")] = "", "=1+1 not my area"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(table)
    done = import_sheet(store, queue.queue_id, (first + "\n" + out.getvalue()).encode(), actor=ed)
    assert done.rater == RATER and done.added == len(table) - 1
    ratings = [r for r in store.reviews.ratings(queue.queue_id) if r.rater == RATER]
    assert len(ratings) == len(table) - 1 and sum(bool(r.skipped) for r in ratings) == 1
