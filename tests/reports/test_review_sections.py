"""The PDF cites a review queue: a Judge validity subsection under Evidence, the queue under Human review."""

from __future__ import annotations

from datetime import UTC, datetime

from governance.dossier.record import Dossier
from governance.evidence.records import JudgeAgreementSetting
from governance.intended_use.records import example_intended_use
from governance.review.records import RaterCatch, ReviewCitation
from reports.sections_review import judge_validity_subsection, review_queue_subsection


def dossier(with_queue: bool) -> Dossier:
    cite = ReviewCitation(
        queue_id="rq-0123456789",
        run_id="run-x",
        raters=("dr.a", "dr.b"),
        n_items=10,
        n_double=2,
        n_sentinels=2,
        blinding="Raters saw neither the model nor other scores.",
        catch=(
            RaterCatch(rater="dr.a", caught=2, n=2, lower=0.3424, upper=1.0),
            RaterCatch(rater="dr.b", caught=1, n=2, lower=0.0945, upper=0.9055),
        ),
        closed_at=datetime(2026, 12, 1, tzinfo=UTC),
    )
    rec = JudgeAgreementSetting(
        estimate=0.61,
        ci_lower=0.3,
        ci_upper=0.8,
        n_instances=10,
        judges=("j1",),
        source="review queue rq-0123456789 against jury-1",
        review_queue=cite if with_queue else None,
    )
    return Dossier(
        title="Portal replies", owner="me", intended_use=example_intended_use(), judge_agreement=rec
    )


def test_the_queue_is_cited_with_raters_n_blinding_and_catch_rates():
    jv = judge_validity_subsection(dossier(True))
    assert jv.facts[0].value == "ICC(A,1) 0.61 [0.30, 0.80], n = 10"
    facts = {f.label: f.value for f in jv.subsections[0].facts}
    assert facts["Raters"] == "dr.a, dr.b" and facts["Outputs rated"] == "10, of which 2 by two raters"
    assert (
        facts["Catch rates"]
        == "dr.a 2/2 (95% 0.34-1.00); dr.b 1/2 (95% 0.09-0.91) (bar 90% at the Wilson lower bound)"
    )
    assert "Blinding" in facts and review_queue_subsection(dossier(True)).key == "review_queue"


def test_no_queue_no_citation_and_the_old_hash_survives():
    from governance.dossier.content_hash import signable_hash

    plain = dossier(False)
    assert review_queue_subsection(plain) is None and judge_validity_subsection(plain).subsections == []
    assert "review_queue" not in plain.judge_agreement.model_dump()  # a new field at its default is left out
    assert signable_hash(plain) == signable_hash(Dossier.model_validate(plain.model_dump(mode="json")))


def test_the_pdf_prints_the_citation():
    import io

    from pypdf import PdfReader

    from reports.build import build_report
    from reports.pdf import render_pdf
    from tests.reports.conftest import as_version

    pdf = render_pdf(build_report(as_version(dossier(True))), charts=False)
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages)
    assert text.count("Clinician review queue") == 2  # under Evidence -> Judge validity and Human review
    assert "rq-0123456789" in text and "dr.a 2/2 (95% 0.34-1.00)" in text and "Judge validity" in text


def test_the_pdf_prints_a_gradings_agreement_per_criterion():
    import io

    from pypdf import PdfReader

    from governance.evidence.records import CriterionFigure, GraderAgreementSetting
    from reports.build import build_report
    from reports.pdf import render_pdf
    from reports.sections_review import grader_agreement_subsection
    from tests.reports.conftest import as_version

    plain = dossier(False)
    assert grader_agreement_subsection(plain) is None
    rec = GraderAgreementSetting(
        grading_id="grading-1", benchmark="sc_dc_v1", graders=("openai/grader",), source="review queue rq-1",
        criteria=(CriterionFigure(criterion="States the medication change", n=9, kappa=0.5, kappa_lower=-0.08,
                                  kappa_upper=1.0, share=7 / 9, share_lower=0.45, share_upper=0.94),
                  CriterionFigure(criterion="States the follow-up", n=3, share=1.0, share_lower=0.44,
                                  share_upper=1.0, missing_reason="only 3 case(s); needs 5")))
    graded = plain.model_copy(update={"grader_agreements": [rec]})
    pdf = render_pdf(build_report(as_version(graded)), charts=False)
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "Rubric graders: agreement with clinicians per criterion" in text
    assert "Cohen's κ 0.50 [-0.08, 1.00]; share agreeing 0.78 [0.45, 0.94]; n = 9" in text
    assert "Cohen's κ — (only 3 case(s); needs 5)" in text
