"""Review queues in the operations: create, blinded rating, idempotent saves, sheets, close, status."""

from __future__ import annotations

import pytest

from governance.identity import Actor
from governance.identity.access import PermissionDenied
from governance.identity.identity import oidc_identity
from governance.review.operations.create import create_queue
from governance.review.operations.queues import (
    ReviewError,
    close_queue,
    rater_view,
    record_rating,
    remove_rater,
)
from governance.review.operations.sheets import export_csv, import_sheet, sheet_csv
from governance.review.operations.status import queue_ratings, queue_status
from tests.governance.review_fixtures import judge_run, review_run

GOOD = {"accuracy": 4, "completeness": 4, "clarity": 5}


@pytest.fixture
def run(store, llm_server, tmp_path):
    return review_run(store, llm_server, tmp_path)


@pytest.fixture
def queue(store, run):
    run_id, path = run
    return create_queue(
        store,
        run_id,
        10,
        ["dr.a", "dr.b"],
        double=0.2,
        sentinels=2,
        seed=7,
        dataset_path=str(path),
        actor=Actor.named("editor"),
    )


def rate_all(store, queue, rater, scores=GOOD, sentinel_scores=None):
    items = store.reviews.items(queue.queue_id)
    view = rater_view(store, queue.queue_id, actor=Actor.named(rater))
    for it in view.items:
        given = sentinel_scores if sentinel_scores and items[it.item_id].sentinel else scores
        record_rating(store, queue.queue_id, it.item_id, given, seconds=20.0, actor=Actor.named(rater))


def test_a_queue_holds_the_sample_the_double_share_and_sentinels_every_rater_sees(store, queue):
    items = store.reviews.items(queue.queue_id)
    assert (queue.n_items, queue.n_double, queue.n_sentinels, len(items)) == (10, 2, 2, 12)
    assert queue.rubric.kind == "jury" and queue.rubric.criteria == ("accuracy", "completeness", "clarity")
    sentinels = {i for i, it in items.items() if it.sentinel}
    doubles = {i for i, it in items.items() if it.double}
    a, b = (store.reviews.order(queue.queue_id, r) for r in ("dr.a", "dr.b"))
    # 8 single items split 4 + 4, the 2 double items and the 2 sentinels to both: 8 items each
    assert len(a) == len(b) == 8 and sentinels <= set(a) & set(b) and doubles <= set(a) & set(b)
    assert set(a) & set(b) == sentinels | doubles and a != b  # each rater has an order of their own
    kinds = sorted(items[i].sentinel for i in sentinels)
    assert kinds == ["negation", "number"]  # the perturbations in turn
    for i in sentinels:  # made from answers outside the sample, text changed
        it = items[i]
        assert it.instance_id not in {x.instance_id for x in items.values() if not x.sentinel}
        assert it.sentinel_note


def test_the_rater_sees_no_model_score_or_sentinel_flag(store, queue):
    view = rater_view(store, queue.queue_id, actor=Actor.named("dr.a"))
    dumped = view.model_dump_json()
    assert (
        "openai/cand" not in dumped
        and "sentinel" not in dumped
        and "jury" not in dumped.replace('"jury"', "")
    )
    assert set(view.items[0].model_dump()) == {"item_id", "position", "context", "question", "output",
                                               "criteria"}
    assert view.items[0].criteria == ()  # only a queue over a rubric grading lists the case's criteria
    assert [it.position for it in view.items] == list(range(1, 9)) and view.catch_rate is None


def test_a_second_save_of_the_same_item_never_counts_twice(store, queue):
    first = rater_view(store, queue.queue_id, actor=Actor.named("dr.a")).items[0].item_id
    assert record_rating(store, queue.queue_id, first, GOOD, actor=Actor.named("dr.a")) is True
    assert (
        record_rating(
            store, queue.queue_id, first, {"accuracy": 1, "completeness": 1, "clarity": 1},
            actor=Actor.named("dr.a")
        )
        is False
    )  # a second tab: the first rating stands
    (kept,) = store.reviews.ratings(queue.queue_id, "dr.a")
    assert kept.scores == GOOD and kept.recorded_auth == "local, unauthenticated"


def test_bad_ratings_are_refused_and_nothing_is_stored(store, queue):
    mine = rater_view(store, queue.queue_id, actor=Actor.named("dr.a")).items[0].item_id
    theirs = next(
        i
        for i in store.reviews.order(queue.queue_id, "dr.b")
        if i not in store.reviews.order(queue.queue_id, "dr.a")
    )
    with pytest.raises(ReviewError, match="not a whole number from 1 to 5"):
        record_rating(
            store, queue.queue_id, mine, {"accuracy": 6, "completeness": 4, "clarity": 4},
            actor=Actor.named("dr.a")
        )
    with pytest.raises(ReviewError, match="not one of dr.a's items"):
        record_rating(store, queue.queue_id, theirs, GOOD, actor=Actor.named("dr.a"))
    with pytest.raises(ReviewError, match="not a rater of queue"):
        rater_view(store, queue.queue_id, actor=Actor.named("dr.z"))
    with pytest.raises(ReviewError, match="say why"):
        record_rating(store, queue.queue_id, mine, skipped="x", actor=Actor.named("dr.a"))
    assert store.reviews.ratings(queue.queue_id) == []


def test_catch_rate_shows_once_done_and_agreement_once_closed(store, queue):
    rate_all(store, queue, "dr.a", sentinel_scores={"accuracy": 1, "completeness": 3, "clarity": 4})
    status = queue_status(store, queue.queue_id)
    a, b = status.raters
    assert a.finished and a.catch_rate.n == 2 and a.catch_rate.caught == 2
    # Wilson 95% for 2 of 2: [0.3424, 1.0]; below the 0.9 bar, so the bar is not met
    assert a.catch_rate.lower == pytest.approx(0.3424, abs=1e-4) and a.catch_rate.meets_bar is False
    assert b.catch_rate is None and not status.closed and status.clinician_clinician is None
    rate_all(store, queue, "dr.b")  # dr.b rates the sentinels 4: none caught
    status = queue_status(store, queue.queue_id)
    assert status.closed  # every rater done closes it
    assert status.raters[1].catch_rate.caught == 0 and status.raters[1].catch_rate.upper == pytest.approx(
        0.6576, abs=1e-4
    )
    assert "all 8 ratings identical" in status.raters[1].flags
    # two double-rated items are too few for an ICC: said, not computed
    assert status.clinician_clinician.value is None and "needs 5" in status.clinician_clinician.missing_reason
    frame = queue_ratings(store, queue.queue_id)
    assert len(frame) == 12 and set(frame["rater"]) == {"dr.a", "dr.b"}  # 2 x 8 minus 2 x 2 sentinels
    with pytest.raises(ReviewError, match="closed"):
        record_rating(store, queue.queue_id, store.reviews.order(queue.queue_id, "dr.a")[0], GOOD,
                      actor=Actor.named("dr.a"))


def test_sheet_round_trip_is_all_or_nothing_and_idempotent(store, queue):
    sheet = sheet_csv(store, queue.queue_id, "dr.b", actor=Actor.named("editor")).decode()
    lines = sheet.splitlines()
    assert lines[0].startswith("# MAY HOLD PATIENT DATA")
    assert (
        lines[1]
        == "queue_id,rater,item_id,position,context,question,output,accuracy,completeness,clarity,skip_reason"
    )
    assert "openai/cand" not in sheet and "sentinel" not in sheet.lower()
    import csv
    import io

    rows = list(csv.reader(io.StringIO("\n".join(lines[1:]))))
    header, body = rows[0], rows[1:]

    def dump(rows):
        out = io.StringIO()
        out.write(lines[0] + "\n")
        csv.writer(out, lineterminator="\n").writerows([header, *rows])
        return out.getvalue().encode()

    filled = [r[:7] + ["3", "4", "5", ""] for r in body]
    filled[1] = body[1][:7] + ["", "", "", "could not judge"]
    bad = [list(r) for r in filled]
    bad[3][7] = "9"
    with pytest.raises(ReviewError, match="row 6: accuracy 9 is outside 1-5"):
        import_sheet(store, queue.queue_id, dump(bad), actor=Actor.named("editor"))
    assert store.reviews.ratings(queue.queue_id) == []  # nothing stored
    labelled = [*header, "sentinel"]
    with pytest.raises(ReviewError, match="row 2: .*extra column"):
        out = io.StringIO()
        out.write(lines[0] + "\n")
        csv.writer(out, lineterminator="\n").writerows([labelled, *[r + ["x"] for r in filled]])
        import_sheet(store, queue.queue_id, out.getvalue().encode(), actor=Actor.named("editor"))
    moved = [list(r) for r in filled]
    moved[2][2] = "it-00000000"
    with pytest.raises(ReviewError, match="row 5: unknown item"):
        import_sheet(store, queue.queue_id, dump(moved), actor=Actor.named("editor"))
    twice = [*filled, filled[0]]
    with pytest.raises(ReviewError, match="appears twice"):
        import_sheet(store, queue.queue_id, dump(twice), actor=Actor.named("editor"))
    for column, value, named in ((10, "n/a \u202eevorppa", "RIGHT-TO-LEFT OVERRIDE"),
                                 (10, "unclear\x00", "NUL"), (7, "3\u2066", "LEFT-TO-RIGHT ISOLATE")):
        hidden = [list(r) for r in filled]  # issue 35 item 6: bidi controls and NUL were accepted
        hidden[1][7:] = ["", "", "", ""]
        hidden[1][column] = value
        with pytest.raises(ReviewError, match=f"row 4: .* holds a control character \\({named}"):
            import_sheet(store, queue.queue_id, dump(hidden), actor=Actor.named("editor"))
    assert store.reviews.ratings(queue.queue_id) == []
    other = [list(r) for r in filled]
    other[0][0] = "rq-other"
    with pytest.raises(ReviewError, match="row 3: the sheet is for queue 'rq-other'"):
        import_sheet(store, queue.queue_id, dump(other), actor=Actor.named("editor"))
    done = import_sheet(store, queue.queue_id, dump(filled), actor=Actor.named("editor"))
    assert (done.rater, done.added, done.already) == ("dr.b", 8, 0)
    again = import_sheet(store, queue.queue_id, dump(filled), actor=Actor.named("editor"))
    assert (again.added, again.already) == (0, 8)  # importing the same sheet twice changes nothing
    stored = store.reviews.ratings(queue.queue_id, "dr.b")
    assert {r.recorded_by for r in stored} == {"editor"} and {r.via for r in stored} == {"sheet"}
    assert sum(bool(r.skipped) for r in stored) == 1


def test_export_reads_back_in_the_agreement_format(store, queue):
    from evaluator.agreement.ratings import read_ratings

    with pytest.raises(ReviewError, match="still open"):
        export_csv(store, queue.queue_id, actor=Actor.named("editor"))
    rate_all(store, queue, "dr.a")
    assert close_queue(store, queue.queue_id, actor=Actor.named("editor")) is True
    assert close_queue(store, queue.queue_id, actor=Actor.named("editor")) is False
    data = export_csv(store, queue.queue_id, actor=Actor.named("editor"))
    assert data.startswith(b"# MAY HOLD PATIENT DATA")
    frame = read_ratings(data)
    assert len(frame) == 6 and frame.attrs["criteria"] == ["accuracy", "completeness", "clarity"]
    assert set(frame["dataset"]) == {"medication_qa"}


def test_a_removed_rater_keeps_their_ratings_flagged(store, queue):
    first = rater_view(store, queue.queue_id, actor=Actor.named("dr.b")).items[0].item_id
    record_rating(store, queue.queue_id, first, GOOD, actor=Actor.named("dr.b"))
    remove_rater(store, queue.queue_id, "dr.b", actor=Actor.named("editor"), note="left the hospital")
    with pytest.raises(ReviewError, match="removed"):
        record_rating(store, queue.queue_id, store.reviews.order(queue.queue_id, "dr.b")[1], GOOD,
                      actor=Actor.named("dr.b"))
    status = queue_status(store, queue.queue_id)
    assert status.raters[1].removed and status.raters[1].done == 1 and "removed" in status.raters[1].flags[-1]


def test_only_an_editor_creates_and_only_the_rater_rates(store, run, monkeypatch, home):
    run_id, path = run
    (home / "identity.toml").write_text(
        'mode = "oidc"\n[members]\n"ed@h.org" = ["editor"]\n"a@h.org" = ["rater"]\n"b@h.org" = ["viewer"]\n'
    )
    ed, a, b = (
        oidc_identity({"is_logged_in": True, "iss": "https://idp", "sub": s, "email": s})
        for s in ("ed@h.org", "a@h.org", "b@h.org")
    )
    with pytest.raises(PermissionDenied):
        create_queue(store, run_id, 4, ["a@h.org"], dataset_path=str(path), actor=Actor.of(a, name="a"))
    q = create_queue(
        store, run_id, 4, ["a@h.org", "b@h.org"], dataset_path=str(path),
        actor=Actor.of(ed, name="ed"), seed=1
    )
    item = rater_view(store, q.queue_id, actor=Actor.of(a, name="a")).items[0].item_id
    assert record_rating(store, q.queue_id, item, GOOD, actor=Actor.of(a, name="a"))
    assert store.reviews.ratings(q.queue_id)[0].recorded_auth.startswith("OIDC login at https://idp")
    with pytest.raises(PermissionDenied, match="'rater' role"):
        rater_view(store, q.queue_id, actor=Actor.of(b, name="b"))


def test_jury_clinician_agreement_once_closed(store, run, llm_server):
    run_id, path = run
    judge_run(store, llm_server, run_id, path)
    q = create_queue(
        store,
        run_id,
        12,
        ["dr.a", "dr.b"],
        double=1.0,
        sentinels=0,
        seed=3,
        dataset_path=str(path),
        actor=Actor.named("editor"),
    )
    items = store.reviews.items(q.queue_id)
    from tests.governance.review_fixtures import QUESTIONS, jury_score

    for rater in ("dr.a", "dr.b"):
        for it in rater_view(store, q.queue_id, actor=Actor.named(rater)).items:
            s = jury_score(items[it.item_id].question, "judge-a")
            record_rating(
                store, q.queue_id, it.item_id, {"accuracy": s, "completeness": s, "clarity": s},
                actor=Actor.named(rater)
            )
    status = queue_status(store, q.queue_id)
    assert status.closed and status.clinician_clinician.value == pytest.approx(1.0)
    jc = status.jury_clinician
    # clinicians rate as judges a and b; judge c one lower (floored at 1): a consistent offset under 1
    assert jc["n"] == 12 and 0.7 < jc["estimate"] < 1.0, jc
    assert len(QUESTIONS) == 14
    # the export is what `medassure agreement` reads: the same figure from the file as from the store
    from evaluator.agreement.analysis import compute_agreement

    report = compute_agreement(
        export_csv(store, q.queue_id,
                   actor=Actor.named("editor")), store.juries.ratings_frame(jc["jury_id"]), bertscore=False
    )
    assert report.pooled.icc21.n == 12 and report.pooled.icc21.value == pytest.approx(jc["estimate"])



PLANTED = '=HYPERLINK("http://attacker.example/x","open")'


def test_a_sheet_neutralises_a_formula_in_a_model_output(store, queue, monkeypatch):
    """Issue 35 item 3: a model output that starts with ``=`` leaves in the rater's sheet as text."""
    import csv
    import io

    reviews = type(store.reviews)
    stored = reviews.items

    def planted(self, queue_id):
        items = stored(self, queue_id).items()
        return {k: it.model_copy(update={"output": PLANTED + "\r=1+1"}) for k, it in items}

    monkeypatch.setattr(reviews, "items", planted)
    sheet = sheet_csv(store, queue.queue_id, "dr.a", actor=Actor.named("editor")).decode()
    rows = list(csv.reader(io.StringIO(sheet.split("\n", 1)[1])))
    header, body = rows[0], rows[1:]
    outputs = [r[header.index("output")] for r in body]
    assert outputs and set(outputs) == {"'" + PLANTED + "\n'=1+1"}
    assert not [c for r in body for c in r if c.startswith(("=", "+", "@"))]


def test_the_ratings_export_neutralises_every_text_cell(store, queue, monkeypatch):
    import csv
    import io

    import governance.review.operations.sheets as sheets

    rate_all(store, queue, "dr.a")
    close_queue(store, queue.queue_id, actor=Actor.named("editor"))
    frame = sheets.clinician_frame
    monkeypatch.setattr(sheets, "clinician_frame",
                        lambda *a: frame(*a).assign(instance_id=PLANTED, rater="@dr.a"))
    data = export_csv(store, queue.queue_id, actor=Actor.named("editor")).decode()
    rows = list(csv.reader(io.StringIO(data.split("\n", 1)[1])))
    assert {r[rows[0].index("instance_id")] for r in rows[1:]} == {"'" + PLANTED}
    assert not [c for r in rows for c in r if c.startswith(("=", "+", "@"))]
