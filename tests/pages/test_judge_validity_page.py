"""AppTest for the Judge validity page: template, uploads, the agreement table, recording, the minimum."""

from governance.demo.judge_validity import demo_ratings
from governance.dossier.store import Store
from tests.pages.conftest import confirm_voiding, open_page
from tests.pages.readable import as_shown, assert_readable

PAGE = "pages/judge_validity.py"


def upload(at, key: str, name: str, frame) -> None:
    at.file_uploader(key=key).set_value((name, frame.to_csv(index=False).encode(), "text/csv"))


def latest(home):
    store = Store.open(home / "medassure.duckdb")
    try:
        return store.load("D-demo-portal").dossier
    finally:
        store.close()


def test_page_shows_demo_record_template_and_hint(demo_home):
    at = open_page(PAGE)
    assert at.title[0].value == "Judge validity"
    assert any("DEMO DATA" in i.value for i in at.info)
    assert at.get("download_button"), "template download"
    assert any("instances rated by both" in m.value for m in at.markdown)
    assert any("Judge-agreement rule" in m.value for m in at.markdown)


def test_upload_ratings_see_table_record_and_set_minimum(demo_home):
    clinicians, jury = demo_ratings(seed=3)
    at = open_page(PAGE)
    upload(at, "jv_clinicians", "clinicians.csv", clinicians)
    upload(at, "jv_jury", "jury.csv", jury)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    table = as_shown(at.table[0].value).reset_index()
    pooled = table[(table["dataset"] == "ALL") & (table["comparison"] == "jury vs clinicians")]
    assert set(pooled["statistic"]) == {
        "ICC(A,1) single rater (gated)",
        "ICC(C,1) single rater",
        "ICC(3,k) z (MedHELM's variant, comparison only)",
        "Spearman ρ",
        "weighted κ",
    }
    # MedDialog + MedicationQA is not MedHELM's aci_bench + medi_qa pool: no published figure beside a row
    assert [v for v in table["MedHELM (published)"] if v != "—"] == []
    assert all(v.startswith("[") for v in pooled["95% interval"])
    assert assert_readable(at) >= 1 and all(n == "—" or n.isdigit() for n in table["n"])
    at.button(key="jv_record").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception, [e.value for e in at.exception]
    recorded = latest(demo_home).judge_agreement
    assert recorded.source.startswith("local judge-validity study (upload; 80 cases")
    assert recorded.n_instances == 80 and recorded.entered_by and recorded.statistic == "ICC(A,1)"
    gated = pooled[pooled["statistic"].str.contains("gated")]["value"].item()
    assert f"{recorded.estimate:.2f}" == gated and recorded.comparison_icc3k_z > recorded.estimate
    at.number_input(key="jv_minimum").set_value(0.65).run()
    at.text_input(key="jv_minimum_why").input("Pilot: ask for more than the tier default").run()
    at.button(key="jv_save_minimum").click().run()
    assert not at.exception, [e.value for e in at.exception]
    policy = latest(demo_home).policy
    assert policy.rule("judge_agreement").threshold == 0.65
    assert policy.changes[-1].rule_id == "judge_agreement" and policy.changes[-1].why.startswith("Pilot")


def test_bad_upload_shows_the_problem(demo_home):
    clinicians, jury = demo_ratings()
    clinicians.loc[0, "accuracy"] = 9
    at = open_page(PAGE)
    upload(at, "jv_clinicians", "clinicians.csv", clinicians)
    upload(at, "jv_jury", "jury.csv", jury)
    at.run()
    assert any("outside the scale 1-5" in e.value for e in at.error)


def test_a_stored_jury_run_can_be_picked(demo_home):
    import pandas as pd

    store = Store.open(demo_home / "medassure.duckdb")
    juries = store.juries
    jury_id = juries.create(
        run_id="run-demo",
        benchmark_id="MedicationQA",
        candidate_model="m",
        rubric_id="default",
        rubric_hash="h" * 64,
        criteria=["accuracy", "completeness", "clarity"],
        judges=["j1", "j2", "j3"],
    )
    values = [1, 2, 3, 4, 5, 2, 3, 4, 5, 1]
    juries.add_instances(
        jury_id,
        [
            {
                "instance_id": f"c{i}",
                "reference": "take it with food",
                "response": "take it with food" if v > 3 else "no",
            }
            for i, v in enumerate(values)
        ],
    )
    for judge in ("j1", "j2", "j3"):
        juries.add_judgements(
            jury_id,
            judge,
            ["run-j"],
            [
                {
                    "instance_id": f"c{i}",
                    "scores": dict.fromkeys(["accuracy", "completeness", "clarity"], v),
                    "repaired": False,
                    "calls": 1,
                }
                for i, v in enumerate(values)
            ],
        )
    store.close()
    clinicians = pd.DataFrame(
        [
            {"instance_id": f"c{i}", "rater": r, "accuracy": v, "completeness": v, "clarity": v}
            for i, v in enumerate(values)
            for r in ("dr_a", "dr_b")
        ]
    )
    at = open_page(PAGE)
    at.radio(key="jv_source").set_value("A stored jury run").run()
    upload(at, "jv_clinicians", "clinicians.csv", clinicians)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    table = as_shown(at.table[0].value).reset_index()
    assert "ROUGE-L vs clinicians" in set(table["comparison"])
    assert set(table["dataset"]) == {"MedicationQA", "ALL"}


def test_a_rater_sees_only_their_own_progress_in_a_closed_queue(demo_home):
    """Issue 35 item 4 on the page: catch rates and agreement were shown to every visitor."""
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        queue = next(q for q in store.reviews.list_queues() if q.dossier_id == "D-demo-portal")
    finally:
        store.close()
    rater, other = queue.raters[0], queue.raters[1]
    (demo_home / "identity.toml").write_text(
        f'mode = "local"\n[members]\n"{rater}" = ["rater"]\n"Dr. Chair" = ["chair"]\n', encoding="utf-8")
    at = open_page(None)
    at.session_state["reviewer"] = rater
    at.switch_page(PAGE).run()
    at.radio(key="jv_clin_source").set_value("A closed review queue").run()
    assert not at.exception, [e.value for e in at.exception]
    texts = [i.value for i in at.info] + [c.value for c in at.caption] + [m.value for m in at.markdown]
    shown = " ".join(texts)
    assert "Your progress in queue" in shown and "editors only" in shown
    # nor in the queue picker: its labels named the benchmark and the number of raters
    options = at.selectbox(key="jv_queue").options
    assert options == [queue.queue_id] and queue.benchmark_id not in " ".join(options)
    assert other not in shown and "Clinician–clinician agreement" not in shown
    assert not at.table and not at.dataframe
    # The chair sees every rater and the agreement.
    chair = open_page(None)
    chair.session_state["reviewer"] = "Dr. Chair"
    chair.switch_page(PAGE).run()
    chair.radio(key="jv_clin_source").set_value("A closed review queue").run()
    assert not chair.exception, [e.value for e in chair.exception]
    assert any("Clinician–clinician agreement" in c.value for c in chair.caption)
