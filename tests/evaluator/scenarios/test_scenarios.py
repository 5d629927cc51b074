"""Local scenarios that are valid: formats, column mapping, versions, redaction, runs and results."""

from __future__ import annotations

import io
import json

import duckdb
import openpyxl
import pytest

from evaluator.gateway.llm import ModelEndpoint
from evaluator.runs.store import RunStore
from evaluator.scenarios import (
    ColumnMapping,
    MappingError,
    ScenarioRunBlocked,
    ScenarioStore,
    import_scenario,
    parse_map_args,
    preview_import,
    record_offline_run,
    redact_version,
    run_scenario,
    scenario_evidence,
    scenario_results,
    suggest_column_mapping,
)
from evaluator.storage.components import ComponentStores
from tests.fakes import constant_answer

HOSPITAL_CSV = (
    "Case no.,Vignette,Ask,Options,Expected answer,Type,Low,High,Age band,Language\n"
    "c1,72-year-old on warfarin,INR target?,,2.5,numeric_range,2,3,65+,en\n"
    'c2,Refill request,Refill allowed?,"[""yes"", ""no""]",no,choice,,,18-64,es\n'
    "c3,Sore throat,Antibiotic needed?,yes|no,B,,,,18-64,en\n"
    "c4,Asthma,Explain spacer use.,,Shake; attach; breathe slowly,free_text,,,<18,en\n"
)
MAP = ["Case no.=id", "Vignette=context", "Ask=question", "Options=choices", "Expected answer=reference",
       "Type=answer_type", "Low=lower", "High=upper", "Age band=tag:age_band", "Language=tag"]


def test_hospital_csv_with_its_own_column_names_is_mapped_and_read():
    columns = HOSPITAL_CSV.splitlines()[0].split(",")
    mapping = parse_map_args(MAP, columns)
    preview = preview_import("ward.csv", ("\ufeff" + HOSPITAL_CSV).encode(), mapping)  # UTF-8 with BOM
    assert preview.ok, [i.line() for i in preview.issues]
    assert preview.table.encoding == "utf-8-sig"
    c1, c2, c3, c4 = preview.instances
    assert (c1.answer_type, c1.lower, c1.upper, c1.reference) == ("numeric_range", 2.0, 3.0, "2.5")
    assert (c2.choices, c2.reference) == (("yes", "no"), "B")  # option text stored as its letter
    assert (c3.answer_type, c3.choices, c3.reference) == ("choice", ("yes", "no"), "B")  # inferred
    assert c4.answer_type == "free_text" and c4.subgroups == {"age_band": "<18", "language": "en"}
    assert c1.meta == {"row": "2"}


def test_suggested_mapping_and_map_errors():
    m = suggest_column_mapping(["ID", "Note", "Question", "Answer", "tag_sex", "comment"])
    assert m.fields == {"id": "ID", "context": "Note", "question": "Question", "reference": "Answer"}
    assert m.tags == {"sex": "tag_sex"}
    with pytest.raises(MappingError, match="no column 'Nope'"):
        parse_map_args(["Nope=id"], ["ID"])
    with pytest.raises(MappingError, match="unknown field 'answerz'"):
        parse_map_args(["ID=answerz"], ["ID"])
    with pytest.raises(MappingError, match="write column=field"):
        parse_map_args(["ID"], ["ID"])
    assert parse_map_args(["tag_x=ignore"], ["ID", "tag_x"]).columns_used() == ["ID"]


def test_xlsx_and_jsonl_are_read_like_csv():
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["id", "question", "reference", "lower", "upper", "tag_sex"])
    sheet.append(["q1", "Creatinine clearance?", 61.5, 55, 68, "F"])
    sheet.append([2, "Negative base excess?", -5, -6, -4, "M"])
    out = io.BytesIO()
    book.save(out)
    xlsx = preview_import("cases.xlsx", out.getvalue())
    assert xlsx.ok, [i.line() for i in xlsx.issues]
    assert [(i.id, i.reference, i.lower, i.upper) for i in xlsx.instances] == [
        ("q1", "61.5", 55.0, 68.0), ("2", "-5", -6.0, -4.0)]
    lines = [{"id": "j1", "question": "Pick one", "choices": ["a", "b"], "reference": "b", "tag_site": "N"},
             {"id": "j2", "context": "ctx", "reference": "x"}]
    jsonl = preview_import("cases.jsonl", "\n".join(json.dumps(x) for x in lines).encode())
    assert jsonl.ok and jsonl.instances[0].reference == "B" and jsonl.instances[0].subgroups == {"site": "N"}


def test_versions_are_content_hashed_and_edits_append(any_con):
    con = any_con
    data = b"id,question,reference\nq1,2+2?,4\n"
    v1 = import_scenario(ScenarioStore(con), "c.csv", data, author="a",
                         subcategory_ids=["patient_provider_messaging"])
    same = import_scenario(ScenarioStore(con), "c.csv", data, author="b", scenario_id=v1.scenario_id,
                           subcategory_ids=["patient_provider_messaging"])
    assert (same.version, same.hash) == (1, v1.hash)
    v2 = import_scenario(ScenarioStore(con), "c.csv", b"id,question,reference\nq1,2+2?,4\nq2,3+3?,6\n",
                         author="b", scenario_id=v1.scenario_id,
                         subcategory_ids=["patient_provider_messaging"])
    assert (v2.version, v2.parent_hash, v2.n_instances) == (2, v1.hash, 2) and v2.hash != v1.hash
    store = ScenarioStore(con)
    assert [v.version for v in store.list_versions(v1.scenario_id)] == [2, 1]
    assert [i.id for i in store.instances(v1.scenario_id, 1)] == ["q1"]  # the old version is kept
    assert store.get(v1.scenario_id).column_mapping["fields"]["reference"] == "reference"
    with pytest.raises(KeyError, match="known scenarios"):
        store.get("sc_nope")


def test_redaction_makes_a_new_version_and_records_it(any_con):
    con = any_con
    data = b"id,context,question,reference\nq1,Call Mr. Lee at 555-867-5309,Ok?,yes\nq2,Na 138,Normal?,yes\n"
    v1 = import_scenario(ScenarioStore(con), "p.csv", data, author="nurse")
    assert v1.phi["counts"] == {"name": 1, "phone": 1}
    v2 = redact_version(ScenarioStore(con), v1.scenario_id, author="privacy officer")
    assert v2.version == 2 and v2.phi["counts"] == {}
    assert v2.redaction["from_version"] == 1 and v2.redaction["replaced"] == {"name": 1, "phone": 1}
    assert v2.redaction["by"] == "privacy officer" and "redacted version 1" in v2.note
    (case, clean) = ScenarioStore(con).instances(v1.scenario_id, 2)
    assert case.context == "Call [NAME] at [PHONE]" and clean.context == "Na 138"
    with pytest.raises(ValueError, match="nothing to redact|no likely identifiers"):
        redact_version(ScenarioStore(con), v1.scenario_id, author="x")


def _subgroup_csv(phone: bool = True) -> bytes:
    rows = ["id,question,choices,reference,tag_site"]
    rows += [f"n{i},North case {i}?,yes|no,A,North" for i in range(15)]
    rows += [f"s{i},South case {i}?,yes|no,{'A' if i % 2 else 'B'},South" for i in range(12)]
    rows += [f"e{i},East case {i}?,yes|no,A,East" for i in range(3)]
    if phone:
        rows.append('p1,"Call the patient back on 555-867-5309, is that allowed?",yes|no,A,North')
    return ("\n".join(rows) + "\n").encode()


def test_phi_gate_blocks_before_anything_is_sent(llm_server):
    con = duckdb.connect()
    v1 = import_scenario(ScenarioStore(con), "s.csv", _subgroup_csv(), author="t")
    endpoint = ModelEndpoint(name="vendor", model="openai/fake", api_base=llm_server.url)
    with pytest.raises(ScenarioRunBlocked, match="not approved for protected health information"):
        run_scenario(ComponentStores(con), v1.scenario_id, endpoint)
    assert llm_server.hits == 0 and ScenarioStore(con).runs(v1.scenario_id) == []
    assert "runs" not in {t for (t,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}


def test_run_after_redaction_gives_results_with_flagged_and_suppressed_groups(llm_server):
    llm_server.configure(answer=constant_answer("A"))
    con = duckdb.connect()
    v1 = import_scenario(ScenarioStore(con), "s.csv", _subgroup_csv(), author="t")
    redact_version(ScenarioStore(con), v1.scenario_id, author="t")
    endpoint = ModelEndpoint(name="vendor", model="openai/fake", api_base=llm_server.url)
    seen = []
    summary = run_scenario(ComponentStores(con), v1.scenario_id, endpoint,
                           on_progress=lambda d, t, r: seen.append((d, t)))
    assert summary.status == "completed" and summary.n == 31 and seen[-1] == (31, 31)
    assert "[PHONE]" in "".join(llm_server.hits_by_prompt) and "867" not in "".join(llm_server.hits_by_prompt)
    results = scenario_results(ComponentStores(con), summary.run_id)
    assert results.version.version == 2
    rows = {r.group: r for r in results.subgroups.rows}
    assert rows["North"].is_reference and rows["South"].flagged and rows["South"].ratio == pytest.approx(0.5)
    assert rows["East"].suppressed and rows["East"].score is None
    evidence = scenario_evidence(results)
    assert evidence.provenance == "local-run" and evidence.run_id == summary.run_id
    assert evidence.n == 31 and evidence.score == pytest.approx(25 / 31)
    assert v1.scenario_id in evidence.benchmark and "v2" in evidence.benchmark
    assert [(s.group, s.suppressed) for s in evidence.subgroups] == [("North", False), ("South", False),
                                                                     ("East", True)]
    assert "flagged: site=South (0.50)" in evidence.caveat and "redacted" in evidence.caveat
    hits = llm_server.hits
    again = run_scenario(ComponentStores(con), v1.scenario_id, endpoint)  # cached: nothing new is sent
    assert again.cache_hits == 31 and llm_server.hits == hits


def test_offline_run_is_scored_like_a_live_one():
    con = duckdb.connect()
    v = import_scenario(ScenarioStore(con), "s.csv", _subgroup_csv(phone=False), author="t")
    answers = {i.id: "A" for i in ScenarioStore(con).instances(v.scenario_id, 1)}
    run_id = record_offline_run(ComponentStores(con), v, "demo-model", answers, endpoint_name="demo data")
    assert RunStore(con, journal_dir=None).get_run(run_id)["status"] == "completed"
    results = scenario_results(ComponentStores(con), run_id, reference_groups={"site": "South"})
    assert results.summary.score.mean == pytest.approx(24 / 30)
    rows = {r.group: r for r in results.subgroups.rows}
    assert rows["South"].is_reference and rows["North"].ratio == pytest.approx(2.0) and rows["North"].flagged
    with pytest.raises(KeyError, match="not a run of a local scenario"):
        scenario_results(ComponentStores(con), "run-nope")


def test_column_mapping_is_stored_and_default_answer_type_applies():
    con = duckdb.connect()
    mapping = ColumnMapping(fields={"id": "id", "question": "question", "reference": "reference"},
                            default_answer_type="free_text")
    data = b"id,question,reference\nq1,Explain,Because\n"
    v = import_scenario(ScenarioStore(con), "f.csv", data, author="t", mapping=mapping)
    assert ScenarioStore(con).instances(v.scenario_id, 1)[0].answer_type == "free_text"
    assert v.column_mapping["default_answer_type"] == "free_text"
