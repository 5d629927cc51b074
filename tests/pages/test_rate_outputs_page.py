"""AppTest for the Rate outputs page: one item at a time, blinded, saved once, skip with a reason; and the
closed demo queue offered as clinician ratings on Judge validity."""

from __future__ import annotations

from governance.dossier.store import Store
from governance.identity import Actor
from governance.review.operations.create import create_queue
from tests.pages.conftest import open_page

PAGE = "pages/rate_outputs.py"


def new_queue(home, raters=("tester",), sentinels=1) -> str:
    store = Store.open(home / "medassure.duckdb")
    try:
        demo = store.reviews.list_queues()[0]
        return create_queue(
            store, demo.run_id, 4, list(raters), sentinels=sentinels, seed=2, actor=Actor.named("editor")
        ).queue_id
    finally:
        store.close()


def ratings(home, queue_id):
    store = Store.open(home / "medassure.duckdb")
    try:
        return store.reviews.ratings(queue_id)
    finally:
        store.close()


def as_rater(name: str):
    at = open_page(None)
    at.session_state["reviewer"] = name
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def rate(at, scores: dict[str, int]):
    for radio in at.radio:
        for name, value in scores.items():
            if radio.key and radio.key.endswith(f"_{name}"):
                radio.set_value(value)
    at.get("form_submit_button")[0].click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_a_rater_rates_one_item_at_a_time_and_a_second_tab_never_double_counts(demo_home):
    qid = new_queue(demo_home)
    at = as_rater("tester")
    assert at.title[0].value == "Rate outputs"
    text = " ".join(m.value for m in at.markdown)
    assert "Item 1 of 5" in [s.value for s in at.subheader][0] and "GPT-4o" not in text
    assert "sentinel" not in text.lower() and "demo_clinician" not in text
    other_tab = as_rater("tester")  # same item shown in a second tab
    first = {"accuracy": 4, "completeness": 5, "clarity": 3}
    rate(at, first)
    assert [s.value for s in at.subheader][0] == "Item 2 of 5"
    rate(other_tab, {"accuracy": 1, "completeness": 1, "clarity": 1})  # the stale tab saves item 1 again
    (kept,) = ratings(demo_home, qid)
    assert kept.scores == first and kept.rater == "tester" and kept.seconds is not None
    assert [s.value for s in other_tab.subheader][0] == "Item 2 of 5"  # and it moves on to the next item

    at.text_input(key=next(t.key for t in at.text_input if t.key.endswith("_skip_reason"))).input(
        "not my field"
    )
    at.button(key=next(b.key for b in at.button if b.key and b.key.endswith("_skip"))).click().run()
    stored = ratings(demo_home, qid)
    assert len(stored) == 2 and stored[1].skipped == "not my field"
    while at.get("form_submit_button"):
        rate(at, {"accuracy": 2, "completeness": 2, "clarity": 2})
    assert any("rated all your items" in s.value for s in at.success)
    caught = " ".join(m.value for m in at.markdown)
    store = Store.open(demo_home / "medassure.duckdb")
    (sentinel,) = [i for i, it in store.reviews.items(qid).items() if it.sentinel]
    store.close()
    given = next(r for r in ratings(demo_home, qid) if r.item_id == sentinel)
    # accuracy <= 2 catches the one sentinel; a skipped sentinel counts as missed
    hit = int(not given.skipped and given.scores["accuracy"] <= 2)
    assert f"Planted errors you caught:** {hit} of 1" in caught


def test_an_unknown_rater_sees_no_items_and_a_demo_clinician_sees_their_catch_rate(demo_home):
    at = as_rater("nobody")
    assert any("No review queue names" in i.value for i in at.info) and not at.get("form_submit_button")
    at = as_rater("demo_clinician_b")  # 6 double-rated + 1 single + 2 sentinels
    shown = " ".join(m.value for m in at.markdown)
    assert (
        "Planted errors you caught:** 1 of 2" in shown and "9 of 9 rated" in at.get("progress")[0].proto.text
    )


def test_judge_validity_offers_the_closed_demo_queue(demo_home):
    at = open_page("pages/judge_validity.py")
    at.radio(key="jv_clin_source").set_value("A closed review queue").run()
    assert not at.exception, [e.value for e in at.exception]
    info = " ".join(i.value for i in at.info)
    assert "2 raters (demo\\_clinician\\_a, demo\\_clinician\\_b), 8 outputs (6 rated twice)" in info
    table = at.table[0].value
    assert list(table["planted errors caught"]) == ["2 of 2", "1 of 2"]
    assert any("Clinician–clinician agreement" in c.value for c in at.caption)


def queue_count(home) -> int:
    store = Store.open(home / "medassure.duckdb")
    try:
        return len(store.reviews.list_queues())
    finally:
        store.close()


def send(at):
    at.get("form_submit_button")[0].click()  # an editor with no queue of their own: the only form
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_an_editor_creates_a_queue_from_a_run_once_however_often_the_form_is_sent(demo_home):
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        run_id = store.reviews.list_queues()[0].run_id
    finally:
        store.close()
    before = queue_count(demo_home)
    at = as_rater("editor")
    at.toggle(key="rq_open").set_value(True).run()
    at.text_input(key="rq_run").set_value(run_id)
    at.number_input(key="rq_n").set_value(4)
    at.text_input(key="rq_raters").set_value("tester,dr.b")
    send(at)
    assert any("created: 4 outputs" in s.value for s in at.success), [e.value for e in at.error]
    assert queue_count(demo_home) == before + 1
    send(at)  # the same content again: no second queue
    assert any("already created from these settings" in i.value for i in at.info)
    assert queue_count(demo_home) == before + 1
    at.text_input(key="rq_raters").set_value("tester,tester")
    send(at)  # bad input: one line, nothing stored
    assert any("named twice" in e.value for e in at.error) and queue_count(demo_home) == before + 1
    at.radio(key="rq_source").set_value("The monitoring feed (production outputs)")
    at.text_input(key="rq_raters").set_value("tester")
    send(at)  # the demo feed carries no output text: said in one line, nothing stored
    assert any("without text cannot be rated" in e.value for e in at.error), [e.value for e in at.error]
    assert queue_count(demo_home) == before + 1


def test_the_queue_form_sets_double_rating_and_sentinels_and_warns_when_a_queue_has_none(demo_home):
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        run_id = store.reviews.list_queues()[0].run_id
    finally:
        store.close()
    at = as_rater("editor")
    at.toggle(key="rq_open").set_value(True).run()
    assert any("Bonett 2002" in c.value and "from 35 sentinels" in c.value for c in at.caption)
    at.text_input(key="rq_run").set_value(run_id)
    at.number_input(key="rq_n").set_value(4)
    at.text_input(key="rq_raters").set_value("tester,dr.b")
    at.number_input(key="rq_double").set_value(0.5)
    at.number_input(key="rq_sentinels").set_value(2)
    send(at)
    assert any("created: 4 outputs (2 rated twice) and 2 sentinels" in s.value for s in at.success), [
        e.value for e in at.error]
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        made = max(store.reviews.list_queues(), key=lambda q: q.created_at)
    finally:
        store.close()
    assert (made.n_items, made.n_double, made.n_sentinels) == (4, 2, 2)
    assert any("2 sentinel(s)" in w.value for w in at.warning)
    at.number_input(key="rq_double").set_value(0.0)
    at.number_input(key="rq_sentinels").set_value(0)
    send(at)
    warnings = [w.value for w in at.warning]
    assert any(w.startswith("No sentinels") for w in warnings), warnings
    assert any(w.startswith("No output is rated twice") for w in warnings)
