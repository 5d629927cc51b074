from governance.dossier.record import TaskMapping
from governance.mapping.suggest import embedding_status, suggest_mapping, terms

PORTAL = ("Draft replies to patient portal messages about medications, test results and appointments "
          "for clinicians to review before sending.")
DISCHARGE = "Summarise discharge notes into a brief hospital course for the discharge summary."
DOSING = "Answer nurses' questions about drug dosing and administration on inpatient wards."


def test_semantic_ranking_puts_the_obvious_subcategory_first():
    assert embedding_status() == ""  # the shipped MiniLM model must load offline
    assert suggest_mapping(PORTAL)[0].subcategory_id == "patient_provider_messaging"
    assert suggest_mapping(DISCHARGE)[0].subcategory_id == "documenting_patient_visits"
    assert suggest_mapping(DOSING)[0].subcategory_id == "providing_clinical_knowledge_support"


def test_suggestions_explain_themselves():
    top = suggest_mapping(DISCHARGE, top_k=3)
    assert len(top) == 3 and top[0].score >= top[1].score >= top[2].score
    assert "discharge" in top[0].matched_terms
    assert any("DischargeMe" in b for b in top[0].nearest_benchmarks)
    assert "DischargeMe" in top[0].explanation


def test_lexical_fallback_still_ranks_and_says_so():
    top = suggest_mapping(PORTAL, top_k=3, semantic=False)
    assert top[0].subcategory_id == "patient_provider_messaging"
    assert top[0].semantic is None and "lexical match only" in top[0].explanation


def test_empty_and_huge_text():
    assert suggest_mapping("") == []
    assert suggest_mapping("   ") == []
    huge = (DOSING + " ") * 1200  # about 100 KB
    assert suggest_mapping(huge, top_k=1)[0].subcategory_id == "providing_clinical_knowledge_support"


def test_mapping_records_who_and_when_and_replaces_earlier_decision():
    m = TaskMapping().decide("planning_treatments", "accepted", by="ann", note="why")
    m = m.decide("planning_treatments", "rejected", by="ben")
    assert len(m.decisions) == 1 and m.decisions[0].by == "ben" and m.decisions[0].at.tzinfo
    assert m.accepted == []


def test_terms_stems_and_drops_stopwords():
    assert terms("The Messages and the messaging") == {"messag"}


def test_matched_terms_are_the_reviewers_own_words_not_stems():
    text = "Draft replies to patient portal messages about medications"
    top = suggest_mapping(text, top_k=3, semantic=False)
    words = {w for s in top for w in s.matched_terms}
    assert "messages" in words
    assert not {"messag", "medic", "medicat"} & words
    assert all(w in "draft replies to patient portal messages about medications" for w in words)


def test_the_sentence_model_warms_up_once_in_the_background():
    from governance.mapping.suggest import model_ready, warm_up_in_background

    first = warm_up_in_background()
    assert warm_up_in_background() is first  # one loader per process, however many sessions ask
    first.join(timeout=300)
    assert model_ready()
    assert suggest_mapping(PORTAL, top_k=1)[0].semantic is not None
